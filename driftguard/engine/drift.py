"""Scoring a session as every shell does: its facts worked out once (:class:`SessionFacts`),
the config, the remembered goal, the window, the score and its record in the history.

The command line, the MCP server and the hooks all call :func:`drift`, so a ``driftguard
score`` and a ``get_drift`` of the same session give the same report and write the same
history.

**What is kept.** History and goals belong to a session file in a *session
folder*: where a source keeps its sessions (:func:`driftguard.sessions.discovery.in_session_place`:
the hosts' session folders, Cursor's store) or a folder the config's
``sessionFolders`` lists. A file anywhere else (a copy of a transcript, a file of your own)
is scored without reading or writing either, so it never lands in, or picks up the goal
of, the session it was copied from. History holds only scores made with the settings in
force — the config's preset, the remembered goal and the context window the config, host
or file gives — so a trend never compares scales: a score with another preset, a goal that
is not kept, or another ``--context-window``, is a *try-out*, shown but not recorded.
Every outcome says which goal it used and where it came from
(:class:`~driftguard.model.GoalUse`), and whether and why not it was recorded
(:class:`~driftguard.model.Recording`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftguard import paths
from driftguard.adapters import get_adapter
from driftguard.compaction.window import HostSetting, UsableWindow
from driftguard.config import Config, global_config_path, load_config, project_config_path
from driftguard.engine.calibration import calibration_for
from driftguard.engine.window import nominal_window, read_compaction_settings, usable_window
from driftguard.errors import ConfigError
from driftguard.model import (
    CALIBRATION_NONE,
    NOT_IN_SESSION_FOLDER,
    CalibrationUse,
    GoalUse,
    Recording,
    ResolvedBy,
    Scoring,
    Session,
    WindowSource,
)
from driftguard.render.text import (
    Audience,
    outcome_json_fields,
    render_compaction_lines,
    render_goal_line,
    render_session_line,
    render_text,
    to_json_dict,
)
from driftguard.scoring import DriftReport
from driftguard.scoring import score_session as score_with
from driftguard.scoring.calibrated import CALIBRATION, Calibration
from driftguard.scoring.features import FeatureIndex, Features
from driftguard.scoring.personal import Personal
from driftguard.sessions import discovery
from driftguard.store.history import (
    HistoryStore,
    Snapshot,
    history_key_for,
    snapshot_from_report,
)
from driftguard.store.livecache import host_path, inputs_digest, read_host_window

__all__ = [
    "NOT_IN_SESSION_FOLDER",
    "DriftOutcome",
    "SessionFacts",
    "config_project",
    "drift",
    "gated_goal",
    "history_key",
    "in_session_folder",
    "is_own_file",
    "remembered_goal",
    "score_inputs",
    "score_session",
    "series",
    "session_facts",
]

_READ_ONLY = Recording(False, "this command only reads")
_Settings = Mapping[str, HostSetting]
"""The host settings that move its compaction point (:func:`read_compaction_settings`)."""


@dataclass(frozen=True, slots=True)
class DriftOutcome:
    """A scored session with the config and goal that were used, and what was kept.

    Attributes:
        report: the drift report.
        config: the settings in force.
        goal: the goal text the score used (``goal_use.text``), or ``None``.
        goal_use: that goal and where it came from, or ``None`` without a goal.
        recording: whether the score went into the session's history, and why not.
        input_files: the files besides the transcript the score was made with
            (:func:`score_inputs`).
        inputs: :func:`~driftguard.store.livecache.inputs_digest` of ``input_files``, taken
            before they were read (the status-line cache keeps both).
    """

    report: DriftReport
    config: Config
    goal: str | None
    goal_use: GoalUse | None = None
    recording: Recording = _READ_ONLY
    input_files: tuple[str, ...] = ()
    inputs: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The report as ``driftguard score --json`` prints it and ``get_drift`` returns it
        as structured content (without the MCP's ``text`` and ``notes``): the docs/design.md §5.5
        object (:func:`~driftguard.render.text.to_json_dict`) with the goal and
        recording fields."""
        return {**to_json_dict(self.report), **outcome_json_fields(self.goal_use, self.recording)}

    def to_text(self, audience: Audience) -> str:
        """The text report for ``audience`` (``"cli"``: someone at a terminal, ``"mcp"``: a
        model): recommendation, factor bars, score line, handoff hint, goal line, session
        line, and what the last compaction dropped when there was one."""
        return "\n".join(
            [
                render_text(self.report, audience=audience),
                render_goal_line(
                    self.goal_use,
                    audience,
                    keepable=self.recording.reason != NOT_IN_SESSION_FOLDER,
                ),
                render_session_line(self.report, self.recording),
                *render_compaction_lines(self.report),
            ]
        )


def gated_goal(goal: str | None) -> str | None:
    """``goal`` after the secret gate, stripped; ``None`` when there is none or the gate
    withholds it whole (a goal is echoed in ``get_drift``'s reply and
    stored in ``~/.driftcli/sessions/``, so only its gated text may be either). A goal
    with a secret redacted still scores, against its ``[REDACTED:…]`` text."""
    if goal is None:
        return None
    from driftguard.secrets import gate  # only when a goal is given: the gate is slow to import

    text = gate(goal).text
    return text.strip() if text is not None and text.strip() else None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionFacts:
    """What one call works out about a session once and carries to every step: the config,
    the history key and whether the file keeps a history (the model of the MCP SDK's
    per-request context, built once per request).

    Attributes:
        session: the parsed session.
        project: the folder whose ``.driftcli`` applies, or ``None`` (global config only).
        config: the settings in force (with ``--preset`` when given).
        key: the session's history and goal key (:func:`history_key`).
        own_file: the file is *the* file of its session id (:func:`is_own_file`).
        kept: the file lies in a session folder, so it has a history and a remembered
            goal (:func:`in_session_folder`).
        input_files: the files besides the transcript a score depends on
            (:func:`score_inputs`).
        inputs: :func:`~driftguard.store.livecache.inputs_digest` of ``input_files``, taken
            before any of them was read, so a change meanwhile shows.
    """

    session: Session
    project: Path | None
    config: Config
    key: str
    own_file: bool
    kept: bool
    input_files: tuple[str, ...]
    inputs: str


def session_facts(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    preset: str | None = None,
    more_folders: Sequence[Path] = (),
) -> SessionFacts:
    """Work out ``session``'s facts once (:class:`SessionFacts`): its key, the digest of the
    files a score depends on (before they are read), then the config and whether the file
    is in a session folder (the config's ``sessionFolders`` and ``more_folders`` count).

    Raises:
        ConfigError: a config file cannot be used.
        UnknownNameError: ``preset`` names no shipped preset.
    """
    own = is_own_file(session)
    key = history_key_for(session.cli, session.session_id if own else None, Path(session.path))
    input_files = score_inputs(session, project, store, key=key)
    inputs = inputs_digest(input_files)  # before any is read: a change meanwhile shows
    config = load_config(project, preset=preset)
    return SessionFacts(
        session=session,
        project=project,
        config=config,
        key=key,
        own_file=own,
        kept=in_session_folder(session, config, more_folders),
        input_files=input_files,
        inputs=inputs,
    )


def is_own_file(session: Session) -> bool:
    """Whether the session's file is *the* file of its session id, the one its source
    keeps for that id (:meth:`Adapter.is_session_file_of
    <driftguard.adapters._base.Adapter.is_session_file_of>`): not a subagent's transcript
    carrying its parent's id, nor a copy elsewhere."""
    return bool(session.session_id) and get_adapter(session.cli).is_session_file_of(
        Path(session.path), session.session_id or ""
    )


def history_key(session: Session) -> str:
    """The history/goal key of a session: its CLI and id for *the* file of that id
    (:func:`is_own_file`; the key it always had), else its CLI and the sha256 of its
    resolved path (:func:`driftguard.store.history.history_key_for`): a subagent's transcript or
    a copy in a ``sessionFolders`` folder has a history and a goal of its own, and never
    writes into or reads those of the session whose id it carries."""
    session_id = session.session_id if is_own_file(session) else None
    return history_key_for(session.cli, session_id, Path(session.path))


def in_session_folder(session: Session, config: Config, more_folders: Sequence[Path] = ()) -> bool:
    """Whether the session's file lies in a session folder (symlinks resolved): the hosts'
    own, or a locator of a source's store (:func:`driftguard.sessions.discovery.in_session_place`),
    the config's ``sessionFolders``, or ``more_folders``. Only such sessions have a history
    and a remembered goal."""
    more = [*config.session_folders, *more_folders]
    return discovery.in_session_place(Path(session.path).absolute(), more)


def score_inputs(
    session: Session, project: Path | None, store: HistoryStore, *, key: str | None = None
) -> tuple[str, ...]:
    """The files besides the transcript whose content a score of ``session`` depends on:
    the global config, the user's calibration, the project's ``.driftcli`` (with
    a ``project``), the session's goal
    file in ``store`` (``key``: its history key, when already known) and the window the
    host reported for its id (:func:`~driftguard.store.livecache.host_path`) — each whether
    it exists or not. The host's own settings that move its compaction point are not among
    them (they are read again with the transcript's next change)."""
    files = [global_config_path(), paths.calibration_path()]
    if project is not None:
        files.append(project_config_path(project))
    files.append(store.goal_path(key if key is not None else history_key(session)))
    if session.session_id:
        files.append(host_path(session.session_id))
    return tuple(str(file) for file in files)


def remembered_goal(facts: SessionFacts, store: HistoryStore) -> GoalUse | None:
    """The goal stored for the session, after the secret gate, or ``None``; always ``None``
    for a file outside the session folders (a copy elsewhere may carry the id of the
    session it was copied from)."""
    if not facts.kept:
        return None
    stored = store.load_goal_record(facts.key)
    text = gated_goal(stored.text) if stored is not None else None
    if stored is None or text is None:
        return None
    return GoalUse(text=text, source="remembered", kept=True, set_at=stored.updated)


def drift(
    session: Session,
    *,
    project: Path | None,
    store: HistoryStore,
    goal: str | None = None,
    keep_goal: bool = True,
    preset: str | None = None,
    resolved_by: ResolvedBy = "path",
    context_window: int | None = None,
    record: bool = True,
    more_folders: Sequence[Path] = (),
    features: Features | None = None,
    found_in: Path | None = None,
    calibration: str | None = None,
) -> DriftOutcome:
    """Score ``session`` with the project's config, its goal, and record it in its history.

    **The goal**. ``goal=None``: the goal remembered for the session, if any.
    A goal given now (non-blank) is scored; with ``keep_goal`` (``get_drift`` always,
    ``--keep-goal`` on the command line) it is also stored for later calls. A blank goal
    (``--goal ""``) scores without a goal; with ``keep_goal`` it forgets the stored one. A
    given goal passes the secret gate first (:func:`gated_goal`), so the goal returned,
    stored and scored never holds a secret the gate finds; one the gate withholds whole
    counts as not given. A goal is stored (or forgotten) only when ``record`` and the file
    is in a session folder (:func:`in_session_folder`, with ``more_folders``); the
    remembered goal, and the window Claude Code's status line reported for the session id,
    apply only to a file in a session folder (a copy elsewhere may carry the id of the
    session it was copied from).

    **Recording.** With ``record``, a snapshot is appended to the session's history unless
    the file is not in a session folder, the config turns history off, or the score is a
    try-out: a ``preset`` other than the config's own, a goal other than the one in
    force after this call (a given goal not kept, or a blank one while one is
    remembered), or a ``context_window`` that scores with other windows than the one in
    force without it (:func:`_window_try_out`). The outcome says which
    (:class:`~driftguard.model.Recording`).

    The nominal context window, first found first: ``context_window`` (the
    ``--context-window`` flag) > the project's ``contextWindow`` > the global one > the
    window Claude Code's status line last reported for the session > the file and model
    name, or, for a model that may run with either of two windows and a file that does not
    tell which, the window its host would choose for the environment and settings read
    here (``"assumed"``: :func:`driftguard.engine.window.nominal_window`). So the status
    line, the hooks, ``get_drift`` and ``driftguard score`` all agree.
    The usable window is derived from it by the host's rule, with the overrides the host's
    environment and settings hold (:mod:`driftguard.engine.window`).

    ``features`` are what the factors read from the session's messages, when the caller
    keeps them up to date (:meth:`driftguard.sessions.incremental.SessionCache.get_indexed`); the
    report is the same without them, only slower to make. ``found_in``: the folder above
    the working directory whose session this is (the command line's walk up), for the
    report.

    Raises:
        ConfigError: a config file cannot be used, or only goal distance is weighted and
            the session has no goal.
        UnknownNameError: ``preset`` names no shipped preset.
    """
    facts = session_facts(
        session, project=project, store=store, preset=preset, more_folders=more_folders
    )
    config = facts.config
    window = _window(facts, context_window)
    settings = read_compaction_settings(session.cli, project=project)
    goal_use, goal_try_out = _choose_goal(
        facts, store, goal, remembered_goal(facts, store), keep=keep_goal and record
    )
    goal_text = goal_use.text if goal_use is not None else None
    _check_weights(config, goal_text)
    report = _score(
        session,
        config=config,
        goal=goal_text,
        window=window,
        settings=settings,
        resolved_by=resolved_by,
        features=features,
        calibration=calibration,
    )
    if found_in is not None:
        report = dataclasses.replace(report, found_in=str(found_in))
    recording = _READ_ONLY
    if record:
        why_not = (None if facts.kept else NOT_IN_SESSION_FOLDER) or _try_out(config, goal_try_out)
        if why_not is None and window[1] == "flag":
            why_not = _window_try_out(report, _windows(session, _window(facts, None), settings))
        if why_not is None and not config.history_enabled:
            why_not = "history.enabled is false in the config"
        if why_not is None:
            snapshot = snapshot_from_report(report, goal_text, time.time())
            if _same_moment(_last(store, facts.key), snapshot):
                why_not = UNCHANGED
            else:
                written = store.append(facts.key, snapshot)
                why_not = None if written else "the history could not be written"
                if written:
                    _emit(report, config, snapshot.ts)
        recording = Recording(why_not is None, why_not)
    return DriftOutcome(
        report=report,
        config=config,
        goal=goal_text,
        goal_use=goal_use,
        recording=recording,
        input_files=facts.input_files,
        inputs=facts.inputs,
    )


def _emit(report: DriftReport, config: Config, recorded_at: float) -> None:
    """Send a recorded score to OpenTelemetry when the export is on
    (:func:`driftguard.telemetry.emit_recorded`: returns at once, never raises)."""
    from driftguard import paths, telemetry  # no OpenTelemetry is imported while it is off

    telemetry.emit_recorded(
        report, config=config, recorded_at=recorded_at, state_dir=paths.state_dir()
    )


def series(
    snapshots: Iterable[Session],
    *,
    project_for: Callable[[Session], Path | None],
    store: HistoryStore,
    more_folders: Sequence[Path] = (),
) -> Iterator[DriftReport]:
    """The report of each snapshot of one session, in order: its score after every turn
    (:func:`driftguard.adapters.turn_snapshots`), for ``driftguard report``.

    Each snapshot is scored as :func:`drift` scores the session with the project's config
    and the remembered goal, without recording (the last report is ``drift(…,
    record=False)``'s); one :class:`~driftguard.scoring.features.FeatureIndex` follows the
    snapshots, so each costs its new messages only where it shares the previous one's.
    The config, the goal and the window overrides are read once, at the first snapshot,
    whose project ``project_for`` names (the command line's rule needs the session's cwd).

    Raises:
        ConfigError: as :func:`drift`.
    """
    index = FeatureIndex()
    fixed: tuple[Config, str | None, tuple[int | None, WindowSource], _Settings] | None
    fixed = None
    for snapshot in snapshots:
        if fixed is None:
            project = project_for(snapshot)
            facts = session_facts(snapshot, project=project, store=store, more_folders=more_folders)
            remembered = remembered_goal(facts, store)
            goal = remembered.text if remembered is not None else None
            _check_weights(facts.config, goal)
            settings = read_compaction_settings(snapshot.cli, project=project)
            fixed = (facts.config, goal, _window(facts, None), settings)
        config, goal, window, settings = fixed
        yield _score(
            snapshot,
            config=config,
            goal=goal,
            window=window,
            settings=settings,
            resolved_by="path",
            features=index.sync(snapshot.messages),
            calibration=None,
        )


def _check_weights(config: Config, goal: str | None) -> None:
    """Refuse a config that weights goal distance alone for a session without a goal.

    Raises:
        ConfigError: only goal distance has a weight and ``goal`` is ``None``.
    """
    if goal is None and not any(
        weight > 0 for name, weight in config.weights.items() if name != "goal_distance"
    ):
        raise ConfigError(
            f"{', '.join(config.sources) or 'command line'}: weights: only goal_distance has a "
            "weight, and this session has no goal; pass a goal or weight another factor"
        )


def _score(
    session: Session,
    *,
    config: Config,
    goal: str | None,
    window: tuple[int | None, WindowSource],
    settings: _Settings,
    resolved_by: ResolvedBy,
    features: Features | None,
    calibration: str | None,
) -> DriftReport:
    """The report of ``session`` with ``config``'s scoring, the nominal ``window`` that
    overrides the session's own (:func:`_window`) — without one, the window the host's
    adapter chooses with ``settings`` (:func:`~driftguard.engine.window.nominal_window`:
    the file's, or assumed) — and the usable window the host's rule and ``settings``
    derive from it. An automatic compaction the transcript shows well below
    the rule's point (:func:`driftguard.engine.window.observed_window`) replaces it unless the
    user named the window (``--context-window`` or ``contextWindow``: taken as the host's
    setting now, where an earlier compaction may be stale) or the context has grown well
    past it since. ``calibration``: as :func:`drift`'s."""
    in_use = _windows(session, window, settings)
    personal, use = calibration_for(session, config, calibration)
    return score_with(
        session,
        weights=config.weights,
        goal=goal,
        warn_threshold=config.warn_threshold,
        context_window=in_use.nominal,
        resolved_by=resolved_by,
        scoring=config.scoring,
        usable=in_use.usable,
        preset=config.preset,
        window_source=in_use.source,
        features=features,
        window_rule=in_use.rule,
        personal=personal,
        calibration_use=use,
    )


@dataclass(frozen=True, slots=True)
class _Windows:
    """The windows a score is made with: the nominal one, where it came from, how the host
    chose it (``None`` when nobody had to), and the usable one derived from it."""

    nominal: int
    source: WindowSource
    rule: str | None
    usable: UsableWindow


def _windows(
    session: Session, window: tuple[int | None, WindowSource], settings: _Settings
) -> _Windows:
    """The nominal ``window`` that overrides the session's own (:func:`_window`) — without
    one, the window the host's adapter chooses with ``settings``
    (:func:`~driftguard.engine.window.nominal_window`: the file's, or assumed) — and the
    usable window the host's rule and ``settings`` derive from it (see :func:`_score`)."""
    given, source = window
    rule = None
    if given is None:
        chosen = nominal_window(session, settings)
        nominal, rule = chosen.tokens, chosen.rule
        source = "assumed" if chosen.assumed else "file"
    else:
        nominal = given
    usable = usable_window(
        session.cli,
        nominal,
        settings=settings,
        window_from_file=given is None,
        compactions=session.compaction_ledger,
        context_tokens=session.context_tokens,
        named=source in ("flag", "config"),
    )
    return _Windows(nominal, source, rule, usable)


_STANDING: Mapping[WindowSource, str] = {
    "config": "the config's",
    "host": "the host's",
    "file": "the file's",
    "assumed": "the assumed one",
}
"""How a window try-out's reason names the window in force without the flag."""


def _window_try_out(report: DriftReport, standing: _Windows) -> str | None:
    """Why ``report``, scored with a ``--context-window``, is a try-out (``None``: it is
    not): its windows are not the ``standing`` ones, those in force without the flag, so
    history would hold a score on another scale than the hooks', the status line's and
    every later score's. A flag that names the window in force changes nothing and is
    recorded; one that names it but moves the compaction point (a host's rule may treat
    a named window apart from one read from the file) is still a try-out."""
    if (report.context_window, report.usable_window) == (standing.nominal, standing.usable.tokens):
        return None
    flag = report.context_window
    if flag != standing.nominal:
        return (
            f"a try-out with context window {flag:,} "
            f"({_STANDING[standing.source]} is {standing.nominal:,})"
        )
    return (
        f"a try-out with context window {flag:,} named (the host compacts at "
        f"{report.usable_window:,} tokens with it, at {standing.usable.tokens:,} without)"
    )


def score_session(
    session: Session,
    *,
    weights: Mapping[str, float],
    goal: str | None = None,
    warn_threshold: int | None = None,
    context_window: int | None = None,
    resolved_by: ResolvedBy = "path",
    scoring: Scoring = "calibrated",
    usable: UsableWindow | None = None,
    calibration: Calibration = CALIBRATION,
    preset: str | None = None,
    window_source: WindowSource | None = None,
    features: Features | None = None,
    personal: Personal | None = None,
) -> DriftReport:
    """:func:`driftguard.scoring.composite.score_session`, with the usable window derived
    when ``usable`` is ``None``: the host's default rule for the nominal window, or the
    point the transcript's own automatic compactions show
    (:func:`driftguard.engine.window.usable_window`). The nominal window is
    ``context_window``, else the one the host's adapter chooses with no environment or
    settings set (:func:`driftguard.engine.window.nominal_window`; ``"assumed"`` for a
    model that may run either way). No config, goal store, history, calibration file or
    environment is read: :func:`drift` is the verb that does (``personal``: a calibration
    the caller made, reported as the user's own).

    Raises:
        UnknownNameError: the session's ``cli`` is not a source's name.
    """
    rule = None
    if context_window and context_window > 0:
        window, from_file = context_window, context_window == session.context_window
    else:
        chosen = nominal_window(session)
        window, rule, from_file = chosen.tokens, chosen.rule, True
        if window_source is None:
            window_source = "assumed" if chosen.assumed else "file"
    if usable is None:
        usable = usable_window(
            session.cli,
            window,
            window_from_file=from_file,
            compactions=session.compaction_ledger,
            context_tokens=session.context_tokens,
        )
    return score_with(
        session,
        weights=weights,
        usable=usable,
        goal=goal,
        warn_threshold=warn_threshold,
        context_window=window,
        resolved_by=resolved_by,
        scoring=scoring,
        calibration=calibration,
        preset=preset,
        window_source=window_source,
        features=features,
        window_rule=rule,
        personal=personal,
        calibration_use=(
            CalibrationUse(
                "personal",
                sessions=personal.reference.sessions,
                host=personal.reference.cli,
                model=personal.reference.family,
            )
            if personal is not None
            else CALIBRATION_NONE
        ),
    )


def config_project(
    *,
    named: Path | None,
    path_given: bool,
    session: Session,
    found_in: Path | None,
    default: Path,
) -> Path:
    """The folder whose ``.driftcli`` applies to a command's score: the one ``named``
    (``--project``); for a session file given by path, the session's own directory while
    it exists; the folder above the working directory whose session it is
    (``found_in``); else ``default`` (the working directory, or watch's project)."""
    if named is not None:
        return named
    if path_given and session.cwd and Path(session.cwd).is_dir():
        return Path(session.cwd)
    return found_in if found_in is not None else default


UNCHANGED = "unchanged since the last recorded score"
"""Why a score of a session that did not change since its last snapshot is not recorded
again: the trend measures how the session moved, not how often someone looked (the stop
hook, ``get_drift`` and ``driftguard score`` all score the same turn)."""


def _last(store: HistoryStore, key: str) -> Snapshot | None:
    """The session's latest snapshot; ``None`` also when the history cannot be read (the
    append that follows tries to write it and notes the failure once)."""
    try:
        return HistoryStore.last(store, key)
    except OSError:
        return None


def _same_moment(last: Snapshot | None, new: Snapshot) -> bool:
    """Whether ``new`` scores the same moment of the session as ``last``, the same way:
    the same messages and context, score, scoring, preset and goal."""
    return last is not None and (
        last.messages,
        last.context_tokens,
        last.score,
        last.scoring,
        last.preset,
        last.goal_sha256,
    ) == (new.messages, new.context_tokens, new.score, new.scoring, new.preset, new.goal_sha256)


def _choose_goal(
    facts: SessionFacts,
    store: HistoryStore,
    goal: str | None,
    remembered: GoalUse | None,
    *,
    keep: bool,
) -> tuple[GoalUse | None, str | None]:
    """The goal to score with, and why the score is a goal try-out (``None``: it is not).

    ``keep``: store a given goal (or forget the stored one for a blank goal), for a file
    in a session folder only."""
    if goal is None:
        return remembered, None
    given = gated_goal(goal) if goal.strip() else None
    if goal.strip() and given is None:
        return remembered, None  # withheld whole by the gate: as if no goal were given
    key = facts.key
    if keep and facts.kept:
        if given is None:
            store.clear_goal(key)
            return None, None
        if remembered is not None and given == remembered.text:
            # not written again: the write ends in an fsync whose wait grows with whatever
            # else the disk has to flush (measured: a warm get_drift with a goal
            # right after a 150 MB session was written, 5.6 ms with the write, 4.0 without)
            return GoalUse(given, "given", kept=True, set_at=remembered.set_at), None
        store.save_goal(key, given)
        return GoalUse(given, "given", kept=True, set_at=time.time()), None
    if given is not None and remembered is not None and given == remembered.text:
        return GoalUse(given, "given", kept=True, set_at=remembered.set_at), None
    if given is None:
        return None, ("a try-out without the remembered goal" if remembered is not None else None)
    return GoalUse(given, "given", kept=False), (
        "a try-out with a goal that is not kept"
        if remembered is None
        else "a try-out with another goal than the remembered one"
    )


def _try_out(config: Config, goal_try_out: str | None) -> str | None:
    """Why a score is a try-out that history must not hold (``None``: it is not one)."""
    if config.preset != config.files_preset:
        return f"a try-out with preset {config.preset} (the config's is {config.files_preset})"
    return goal_try_out


def _window(facts: SessionFacts, flag: int | None) -> tuple[int | None, WindowSource]:
    """The nominal window that overrides the session's own, and where it came from
    (``None`` and ``"file"``: the session's own). The window Claude Code last reported for
    the session id applies only to a file in a session folder (not a copy elsewhere, which
    may carry another session's id) that is *the* file of that id (:func:`is_own_file`;
    not a subagent's transcript, which may run another model)."""
    session, config = facts.session, facts.config
    if flag is not None and flag > 0:
        return flag, "flag"
    if config.context_window is not None:
        return config.context_window, "config"
    if facts.kept and session.cli == "claude_code" and session.session_id and facts.own_file:
        host = read_host_window(session.session_id)
        if host is not None and host > 0:
            return host, "host"
    return None, "file"
