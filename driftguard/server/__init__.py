"""The MCP server over stdio: ``get_drift``, ``get_handoff``, ``get_trend`` and the
``handoff`` prompt (design.md §6). A thin shell: it resolves the session, asks the
engine, and renders a typed result (structured content for the app, readable text for
the model).

Long-lived state — the incremental parse cache and the history store — lives as long as
the server, made on the first call that needs it (start-up imports only the SDK, pydantic
and this module, so the host's health check is answered fast). Tools raise
:class:`~driftguard.errors.DriftguardError` on failure; the SDK turns it into a tool error
the model can read. Logging goes to stderr only: stdout is the protocol.

A shell: may import the engine, :mod:`driftguard.setup_scripts` (what a host's settings
run) and every wing below them; never another shell (``cli``, ``live``)
(``tests/test_layout.py`` checks it).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ListRootsResult,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

from driftguard import __version__
from driftguard.errors import DriftguardError, SessionNotFoundError
from driftguard.model import (
    CliName,
    CompactionTrigger,
    GoalSource,
    LoopKind,
    ProjectSource,
    ResolvedBy,
    Scoring,
    State,
    Trajectory,
    WindowSource,
)

# Start-up imports only what answers ``initialize`` and lists the tools (issue #10): the
# engine, the parsers, numpy and the rest load on the first call that needs them.
if TYPE_CHECKING:
    from driftguard.engine.handoff import Handoff
    from driftguard.model import Session
    from driftguard.scoring import DriftReport
    from driftguard.scoring.features import Features
    from driftguard.scoring.trend import Trend
    from driftguard.sessions.incremental import SessionCache
    from driftguard.sessions.resolve import ResolvedSession
    from driftguard.store.handoff_files import SavedHandoff
    from driftguard.store.history import GuardedHistoryStore, HistoryStore

__all__ = ["SERVER_NAME", "create_server", "main"]

log = logging.getLogger("driftguard")

SERVER_NAME = "driftguard"
INSTRUCTIONS = """\
driftguard measures whether this coding session has degraded: how full the context \
window is, whether replies repeat themselves, shrink, hedge, correct themselves or wander \
from the goal. It reads this session's own transcript; no arguments are needed.

Call get_drift when the session has run long (dozens of turns, large files read), after \
a compaction, when replies start repeating or going in circles, or before starting a big \
new task. Pass goal="<the user's original request>" once; it is remembered. The result \
gives a 0-100 score (fresh < 30, warming, drifting > 60, polluted > 80) and says whether \
to carry on or start fresh.

When get_drift suggests a handoff, or the user wants to start a fresh session, call \
get_handoff and follow its instructions to write handoff.md for the next session. \
save_handoff does the same but first saves the draft as .driftguard/handoff.md in the \
project, to be completed in place; a new Claude Code session started in this project then \
begins with it, and in another host the next session must be asked to read it (its result \
says how). get_trend shows how the score moved over this session."""

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
SAVES_HANDOFF = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
"""save_handoff writes driftguard's own files in the project's ``.driftguard/`` (a
replaced handoff.md is kept as handoff.prev.md, so nothing is lost: not destructive);
each call writes a new checkpoint (not idempotent). Every other tool is read-only."""

SessionArg = Annotated[
    str | None,
    Field(
        description="Session id, or the path of a session file in the CLIs' own session "
        "folders (or a folder listed in the config's sessionFolders). Omit it: the current "
        "session is found automatically."
    ),
]


class ServerState:
    """What the server keeps between calls: the parse cache and the history store, each
    made on first use (with the modules behind them), and old history pruned once, at the
    first call (issue #10: none of it delays ``initialize``)."""

    def __init__(self) -> None:
        self._cache: SessionCache | None = None
        self._store: HistoryStore | None = None

    @property
    def cache(self) -> SessionCache:
        """The incremental parse cache of this server process."""
        if self._cache is None:
            from driftguard.sessions.incremental import SessionCache

            self._cache = SessionCache()
        return self._cache

    @property
    def store(self) -> HistoryStore:
        """The history store; history older than the retention is pruned when it is made."""
        if self._store is None:
            from driftguard.store.history import HistoryStore

            self._store = HistoryStore()
            _prune_history(self._store)
        return self._store


NOTES_DESCRIPTION = (
    "What did not go as asked, in one line each: a handoff that was not saved (and why), "
    "history or stored state that could not be read or written."
)


_PROJECT_SOURCES: dict[ProjectSource, str] = {
    "DRIFTGUARD_PROJECT_DIR": "DRIFTGUARD_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR": "CLAUDE_PROJECT_DIR",
    "roots": "the client's MCP roots",
    "cwd": "the server's working directory (set DRIFTGUARD_PROJECT_DIR to name another)",
}
"""Where a project came from, in words."""


class SessionInfo(BaseModel):
    """Which session file was read, and how it was chosen."""

    cli: CliName
    path: str = Field(description="The session file that was read.")
    session_id: str | None
    context_tokens: int = Field(description="Tokens in the context window at the latest request.")
    context_window: int = Field(description="The model's context window, in tokens.")
    tokens_estimated: bool = Field(
        description="True when context_tokens is estimated from characters (about 4 per token)."
    )
    compactions: int = Field(description="Compactions in the session file.")
    skipped_lines: int = Field(description="Malformed or unknown lines skipped while reading.")
    resolved_by: ResolvedBy
    found_in: str | None = Field(
        description="The command line's: the folder above its working directory whose "
        "session this is (the server never looks above its project: always null here)."
    )
    context_window_source: WindowSource = Field(
        description="Where context_window came from: the session file and model name, the "
        "host's status line, a config file's contextWindow, or --context-window."
    )
    usable_window: int = Field(description="Tokens at which the host compacts the context.")
    tokens_until_compaction: int = Field(
        description="Tokens left before the host compacts the context."
    )
    turns_until_compaction: int | None = Field(
        description="Turns left before the host compacts, at the recent turns' growth; "
        "null before a turn has grown the context."
    )
    context_growth_per_turn: int | None = Field(
        description="Median tokens the recent turns added to the context."
    )
    usable_window_rule: str | None = Field(description="How usable_window was derived.")
    usable_window_overrides: list[str] = Field(
        description="Environment variables or settings that moved the compaction point."
    )
    project: str = Field(description="The project whose sessions were looked for.")
    project_source: ProjectSource = Field(
        description="Where the project came from: DRIFTGUARD_PROJECT_DIR or "
        "CLAUDE_PROJECT_DIR (set by the host), the client's MCP roots, or the server's "
        "working directory (cwd).",
    )


class Factors(BaseModel):
    """Each factor in 0-100 points, rounded half up to one decimal."""

    context_saturation: float = Field(
        description="How close the context is to compaction, or how much it has grown past "
        "where models lose accuracy, 0-100."
    )
    repetition: float = Field(
        description="Word-trigram overlap of the last 10 replies, or a loop of tool calls, 0-100."
    )
    length_collapse: float = Field(description="How fast replies are getting shorter, 0-100.")
    goal_distance: float | None = Field(
        description="How far the last 5 replies are from the goal, 0-100; null without a goal."
    )
    uncertainty: float = Field(description="Self-corrections in the last 20 replies, 0-100.")
    confidence_drift: float = Field(description="Rise in hedging over the session, 0-100.")


class ActionLoopInfo(BaseModel):
    """The strongest loop of tool calls going on at the latest call."""

    kind: LoopKind
    count: int = Field(description="Steps in the loop.")
    points: float = Field(description="Repetition points the loop alone gives, 0-100.")
    description: str = Field(description="The loop in words, e.g. `npm test` failed 3 times.")


class DroppedInfo(BaseModel):
    """What a compaction dropped: named neither in its summary, nor in what the host kept
    verbatim, nor in a later prompt (secrets redacted)."""

    files: list[str] = Field(
        description="Files edited before it, relative to the session's working directory."
    )
    constraints: list[str] = Field(
        description="The user's explicit rules (always…, never…, don't…, must…), as typed."
    )
    errors: list[str] = Field(description="Error lines of failed tool calls not fixed before it.")
    withheld: int = Field(description="Excerpts the secret gate withheld whole.")


class CompactionEntry(BaseModel):
    """One compaction of the session and what it dropped."""

    number: int = Field(description="Its place among the session's compactions, from 1.")
    at: str | None = Field(description="When it happened (ISO 8601 UTC).")
    trigger: CompactionTrigger | None = Field(
        description="auto: the host compacted on its own; manual: /compact; null: not said."
    )
    tokens_before: int | None = Field(description="Tokens in context when it compacted.")
    dropped: DroppedInfo
    dropped_unknown: str | None = Field(
        description="Why what it dropped cannot be told (the file no longer holds it)."
    )


class CompactionsInfo(BaseModel):
    """The compaction ledger: how many compactions, the last one, and what it dropped."""

    count: int = Field(description="Compactions in the session file.")
    last_at: str | None = Field(description="When the last one happened (ISO 8601 UTC).")
    dropped: DroppedInfo = Field(description="What the last compaction dropped.")
    dropped_unknown: str | None = Field(
        description="Why what the last compaction dropped cannot be told, else null."
    )
    ledger: list[CompactionEntry] = Field(
        description="The latest compactions (at most 5), oldest first."
    )


class DriftResult(BaseModel):
    """The drift report of design §5.5 — the same object as ``driftguard score --json``
    (issue #11), recommendation first — plus ``text`` and ``notes``."""

    recommendation: str = Field(
        description="What to do now (carry on, start fresh soon, start fresh now) and why."
    )
    score: int = Field(ge=0, le=100, description="Drift score, 0-100 points.")
    state: State
    factors: Factors
    weights: dict[str, float] = Field(
        description="Weights applied, normalised over active factors (4 decimals)."
    )
    messages: int = Field(description="User + assistant messages the model still remembers.")
    handoff_suggested: bool
    session: SessionInfo
    scoring: Scoring = Field(description="The scoring that made the score.")
    preset: str | None = Field(description="The preset whose weights were used.")
    loop: ActionLoopInfo | None = Field(description="The strongest tool-call loop, if any.")
    compactions: CompactionsInfo = Field(
        description="The compaction ledger: what the session's compactions dropped."
    )
    goal: str | None = Field(description="The goal used for goal distance (given or remembered).")
    goal_source: GoalSource | None = Field(
        description="Where the goal came from: given in this call, or remembered from an "
        "earlier one; null without a goal."
    )
    goal_set_at: str | None = Field(
        description="When the remembered goal was given (ISO 8601 UTC); null without one."
    )
    goal_kept: bool = Field(description="Later calls without a goal use this goal.")
    recorded: bool = Field(description="The score was recorded for get_trend.")
    not_recorded_reason: str | None = Field(description="Why the score was not recorded.")
    text: str = Field(
        description="The report as readable text: recommendation, factor bars, score, goal, file."
    )
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


class SetAsideKind(BaseModel):
    """Snapshots left out of a trend, by what they were made with."""

    made_with: str = Field(
        description="e.g. 'the seed scoring of driftguard 0.1', 'preset research', 'no goal'."
    )
    snapshots: int


class TrendResult(BaseModel):
    """How the session's drift score moved over the snapshots get_drift recorded — the
    same object as ``driftguard trend --json`` (issue #11), plus ``text`` and ``notes``."""

    snapshots: int = Field(description="How many snapshots the trend is drawn from.")
    scores: list[int] = Field(description="The score of each snapshot, oldest first, 0-100.")
    sparkline: str | None = Field(description="One ▁▂▃▄▅▆▇█ cell per score, from 3 snapshots.")
    peak: int | None = Field(description="The highest score, 0-100.")
    average: float | None = Field(description="The mean score, 0-100.")
    latest_score: int | None
    latest_state: State | None
    trajectory: Trajectory | None = Field(
        description="Over the last 5 snapshots: a rise of ≥ 10 points climbs, a fall of ≥ 10 "
        "falls; null below 2 snapshots."
    )
    trajectory_delta: int = Field(description="Last minus first score of those snapshots.")
    handoff_suggested: bool = Field(description="The latest score reached the warn threshold.")
    warn_threshold: int = Field(description="The score from which a handoff is suggested.")
    set_aside: int = Field(
        description="Recorded snapshots made with another scoring, preset or goal, left out."
    )
    set_aside_kinds: list[SetAsideKind] = Field(
        description="What the snapshots left out were made with, most first."
    )
    not_recorded_reason: str | None = Field(
        description="Why this session file has no history at all, else null."
    )
    session: SessionInfo
    text: str = Field(description="The trend as readable text.")
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


class HandoffResult(BaseModel):
    """The handoff prompt and the facts it was pre-filled with (secrets redacted)."""

    prompt: str = Field(description="Instructions for writing handoff.md for the next session.")
    goal: str | None = Field(description="The first request of the remembered conversation.")
    files_modified: list[str]
    commands: list[str]
    last_errors: list[str]
    compaction_dropped: list[str] = Field(
        default_factory=list,
        description="What the last compaction dropped, one phrase each (the constraint “…”, "
        "the edited file …, the error “…”); empty without a compaction.",
    )
    withheld_excerpts: int = Field(description="Excerpts dropped as credential-file contents.")
    score: int = Field(ge=0, le=100)
    state: State
    session: SessionInfo
    saved_to: str | None = Field(
        default=None,
        description="save_handoff: the handoff.md saved for the next session, to be "
        "completed in place; else null.",
    )
    checkpoint: str | None = Field(
        default=None, description="save_handoff: the JSON checkpoint saved with it."
    )
    kept: str | None = Field(
        default=None,
        description="save_handoff: where the handoff.md that someone had completed was kept "
        "before the new draft replaced it; else null.",
    )
    notes: list[str] = Field(default_factory=list, description=NOTES_DESCRIPTION)


def _session_info(report: DriftReport, served: tuple[Path, ProjectSource]) -> SessionInfo:
    from driftguard.render.text import to_json_dict

    project, source = served
    return SessionInfo.model_validate(
        {**to_json_dict(report)["session"], "project": str(project), "project_source": source}
    )


def _client_name(ctx: Context[ServerState, Any]) -> str | None:
    params = ctx.session.client_params
    return params.client_info.name if params is not None else None


def _state(ctx: Context[ServerState, Any]) -> ServerState:
    state: ServerState = ctx.request_context.lifespan_context
    return state


@contextmanager
def _as_tool_error() -> Iterator[None]:
    """The server's one edge: a DriftguardError becomes a tool error the model reads.

    Anything else is a crash: the SDK logs its traceback and tells the model only that
    the tool failed.
    """
    try:
        yield
    except DriftguardError as exc:
        raise ToolError(exc.full_text()) from exc


@dataclass(frozen=True)
class _Loaded:
    """A parsed session with what its factors read, how it was found, the project whose
    config applies, and the folders a ``session`` argument was allowed in (empty when none
    was given): they count as session folders for the history too, even when
    ``project``'s config lists other ones. ``served`` is the project the call is about
    and where it came from (:func:`driftguard.sessions.resolve.choose_project`)."""

    session: Session
    features: Features
    resolved: ResolvedSession
    project: Path
    served: tuple[Path, ProjectSource]
    folders: tuple[Path, ...] = ()


def _readable_folders(project: Path) -> list[Path]:
    """The folders a ``session`` argument may name files in: every session source's
    (:func:`driftguard.sessions.discovery.session_folders`), then the ``sessionFolders`` of the
    global config and of ``project`` (issue #9 item 2).

    Raises:
        ConfigError: a config file cannot be used.
    """
    from driftguard.config import load_config
    from driftguard.sessions.discovery import session_folders

    return [*session_folders(), *load_config(project).session_folders]


def _load(
    ctx: Context[ServerState, Any], session: str | None, roots: ListRootsResult | None = None
) -> _Loaded:
    """Resolve and parse the session a call is about. A ``session`` argument is a session
    id or a file under :func:`_readable_folders` (else a tool error stating the rule).

    The project is ``DRIFTGUARD_PROJECT_DIR``, else ``CLAUDE_PROJECT_DIR``, else the
    client's first root (``roots``: asked only when the environment names no project),
    else the working directory (:func:`driftguard.sessions.resolve.choose_project`). It also
    selects the config, except for a session named by the caller, whose own directory's
    ``.driftcli`` applies when it still exists (reading a config there writes nothing).
    Handoffs are saved only in a project the server was started for
    (:func:`driftguard.store.handoff_files.handoff_target`).

    Raises:
        DriftguardError: as :func:`driftguard.sessions.resolve.resolve_session` (a session that is
            not found names the project and where it came from), or the session cannot
            be read.
    """
    from driftguard.sessions.resolve import choose_project, resolve_session

    served = choose_project(roots=_root_paths(roots))
    project, source = served
    folders = _readable_folders(project) if session is not None and session.strip() else None
    try:
        resolved = resolve_session(
            session, client_name=_client_name(ctx), project=project, folders=folders
        )
    except SessionNotFoundError as exc:
        if session is not None and session.strip():
            raise
        where = f"the project is {project}, from {_PROJECT_SOURCES[source]}"
        raise SessionNotFoundError(str(exc), details=[*exc.details, where]) from exc
    indexed = _state(ctx).cache.get_indexed(resolved.path, resolved.cli)
    parsed = indexed.session
    if resolved.resolved_by == "argument" and parsed.cwd and Path(parsed.cwd).is_dir():
        project = Path(parsed.cwd)
    return _Loaded(parsed, indexed.features, resolved, project, served, tuple(folders or ()))


def _call_store(ctx: Context[ServerState, Any]) -> GuardedHistoryStore:
    """The server's history store for one call: its failures become that call's notes."""
    from driftguard.store.history import GuardedHistoryStore

    store = _state(ctx).store
    return GuardedHistoryStore(store.root, sessions_root=store.sessions_root)


def _notes(loaded: _Loaded, store: GuardedHistoryStore) -> list[str]:
    """What the call could not read or write (a pointer, history, the goal), each logged
    to stderr once and returned as the result's ``notes`` (issue #9 item 4)."""
    notes = [*loaded.resolved.warnings, *store.notes]
    for note in notes:
        log.warning("%s", note)
    return notes


def _client_roots(ctx: Context[ServerState, Any]) -> ListRoots | None:
    """Ask the client for its roots (``roots/list``) when it declared that capability;
    the SDK injects the answer into ``save_handoff``'s ``roots`` (mcp.server resolvers)."""
    capabilities = ctx.client_capabilities
    if capabilities is not None and capabilities.roots is not None:
        return ListRoots()
    return None


def _project_roots(ctx: Context[ServerState, Any]) -> ListRoots | None:
    """:func:`_client_roots` only when the environment names no project
    (:func:`driftguard.sessions.resolve.names_project`): the roots then tell which project a call
    is about, at the cost of one request to the client."""
    from driftguard.sessions.resolve import names_project

    return None if names_project() else _client_roots(ctx)


def _root_paths(roots: ListRootsResult | None) -> list[Path]:
    """The local folders among the client's roots (``file://`` URIs only)."""
    from urllib.parse import unquote, urlparse
    from urllib.request import url2pathname

    if roots is None:
        return []
    folders: list[Path] = []
    for root in roots.roots:
        parsed = urlparse(str(root.uri))
        if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
            folders.append(Path(url2pathname(unquote(parsed.path))))
    return folders


def _with_notes(text: str, notes: list[str]) -> str:
    """``text`` followed by one ``Note: …`` line per note."""
    return "\n".join([text, *(f"Note: {note}." for note in notes)]) if notes else text


def _result(text: str, model: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def _prune_history(store: HistoryStore) -> None:
    from driftguard.config import load_config
    from driftguard.store.history import GuardedHistoryStore

    try:
        config = load_config(None)
    except DriftguardError as exc:
        log.warning("history not pruned: %s", exc)
        return
    guarded = GuardedHistoryStore(store.root, sessions_root=store.sessions_root)
    removed = guarded.prune(config.history_retention_days)
    for note in guarded.notes:
        log.warning("%s", note)
    if removed:
        log.info(
            "pruned %d history files older than %d days", removed, config.history_retention_days
        )


@asynccontextmanager
async def _lifespan(_server: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
    yield ServerState()


def _trend_result(
    trend: Trend, report: DriftReport, loaded: _Loaded, notes: list[str]
) -> TrendResult:
    from driftguard.render.text import render_session_line
    from driftguard.render.trend import render_trend_text, trend_json

    text = f"{render_trend_text(trend, 'mcp')}\n{render_session_line(report)}"
    return TrendResult.model_validate(
        {
            **trend_json(trend),
            "session": _session_info(report, loaded.served),
            "text": _with_notes(text, notes),
            "notes": notes,
        }
    )


def _handoff_result(
    handoff: Handoff,
    report: DriftReport,
    saved: SavedHandoff | None,
    loaded: _Loaded,
    notes: list[str],
) -> HandoffResult:
    return HandoffResult(
        prompt=handoff.prompt,
        goal=handoff.goal,
        files_modified=list(handoff.files_modified),
        commands=list(handoff.commands),
        last_errors=list(handoff.last_errors),
        compaction_dropped=list(handoff.compaction_dropped),
        withheld_excerpts=handoff.withheld_excerpts,
        score=report.score,
        state=report.state,
        session=_session_info(report, loaded.served),
        saved_to=str(saved.handoff) if saved is not None else None,
        checkpoint=str(saved.checkpoint) if saved is not None else None,
        kept=str(saved.kept) if saved is not None and saved.kept is not None else None,
        notes=notes,
    )


def create_server() -> MCPServer[ServerState]:
    """The driftguard MCP server with its three tools and the ``handoff`` prompt."""
    server: MCPServer[ServerState] = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=_lifespan,
    )

    @server.tool(title="Session drift score", annotations=READ_ONLY)
    def get_drift(
        ctx: Context[ServerState, Any],
        goal: Annotated[
            str | None,
            Field(
                description="The session's goal, e.g. the user's first request. Given once, "
                "it is remembered for this session."
            ),
        ] = None,
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(_project_roots)] = None,
    ) -> Annotated[CallToolResult, DriftResult]:
        """Score how far this coding session has degraded (0-100: fresh, warming, drifting,
        polluted) from six factors: context saturation, repetition, length collapse, goal
        distance, uncertainty and confidence drift. Says whether to carry on or start fresh,
        and records the score for get_trend."""
        from driftguard.engine import drift as engine

        store = _call_store(ctx)
        with _as_tool_error():
            loaded = _load(ctx, session, roots)
            outcome = engine.drift(
                loaded.session,
                project=loaded.project,
                store=store,
                goal=goal if goal is not None and goal.strip() else None,
                resolved_by=loaded.resolved.resolved_by,
                more_folders=loaded.folders,
                features=loaded.features,
            )
        notes = _notes(loaded, store)
        text = _with_notes(outcome.to_text("mcp"), notes)
        payload = outcome.to_json()
        result = DriftResult.model_validate(
            {
                **payload,
                "session": _session_info(outcome.report, loaded.served),
                "text": text,
                "notes": notes,
            }
        )
        return _result(text, result)

    def _handoff(
        ctx: Context[ServerState, Any],
        session: str | None,
        write: bool,
        roots: ListRootsResult | None = None,
        replace: bool = False,
    ) -> CallToolResult:
        from driftguard.engine.handoff import prepare_handoff, write_handoff
        from driftguard.sessions.resolve import start_projects
        from driftguard.setup_scripts.hooked import session_start_hooked

        notes: list[str] = []
        store = _call_store(ctx)
        saved = None
        with _as_tool_error():
            loaded = _load(ctx, session, roots)
            if write:
                written = write_handoff(
                    loaded.session,
                    project=loaded.project,
                    store=store,
                    projects=[*start_projects(), *_root_paths(roots)],
                    found_for_project=loaded.resolved.resolved_by != "argument",
                    replace=replace,
                    resolved_by=loaded.resolved.resolved_by,
                    hooked=session_start_hooked(loaded.session.cli),
                    features=loaded.features,
                )
                notes += [written.not_saved] if written.not_saved else []
                handoff, report, saved = written.handoff, written.report, written.saved
            else:
                handoff, report = prepare_handoff(
                    loaded.session,
                    project=loaded.project,
                    store=store,
                    resolved_by=loaded.resolved.resolved_by,
                    features=loaded.features,
                )
            notes += _notes(loaded, store)
        if saved is not None and saved.kept is not None:
            notes.append(f"the handoff.md that was there had been completed: kept as {saved.kept}")
        result = _handoff_result(handoff, report, saved, loaded, notes)
        return _result(_with_notes(handoff.prompt, notes), result)

    @server.tool(title="Session handoff", annotations=READ_ONLY)
    def get_handoff(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(_project_roots)] = None,
    ) -> Annotated[CallToolResult, HandoffResult]:
        """Instructions to write handoff.md for a fresh session, pre-filled with facts from
        this session's transcript (goal, files edited, commands run, last errors, score).
        Secrets are redacted; follow the instructions in the returned prompt."""
        return _handoff(ctx, session, write=False, roots=roots)

    @server.tool(name="save_handoff", title="Save a session handoff", annotations=SAVES_HANDOFF)
    def save_handoff_tool(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        replace: Annotated[
            bool,
            Field(
                description="Replace a handoff.md someone completed that still waits for the "
                "next session (it is kept as .driftguard/handoff-<UTC time>.md). Without it, "
                "such a handoff is not replaced and the call fails saying so."
            ),
        ] = False,
        roots: Annotated[ListRootsResult | None, Resolve(_client_roots)] = None,
    ) -> Annotated[CallToolResult, HandoffResult]:
        """Like get_handoff, but first saves the pre-filled draft as .driftguard/handoff.md in
        the project (with a checkpoint), so that the next session started there begins with
        it; then complete that file in place as the returned instructions say. A session of
        another folder than the project is not saved: its handoff comes back as text. A
        handoff.md someone completed is never lost: it is kept as handoff-<UTC time>.md."""
        return _handoff(ctx, session, write=True, roots=roots, replace=replace)

    @server.tool(title="Session drift trend", annotations=READ_ONLY)
    def get_trend(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(_project_roots)] = None,
    ) -> Annotated[CallToolResult, TrendResult]:
        """How this session's drift score moved over the scores get_drift recorded:
        sparkline, peak, average, latest state and whether it is climbing or falling."""
        from driftguard.engine import drift as engine
        from driftguard.engine.trend import trend as trend_of

        store = _call_store(ctx)
        with _as_tool_error():
            loaded = _load(ctx, session, roots)
            outcome = engine.drift(
                loaded.session,
                project=loaded.project,
                store=store,
                resolved_by=loaded.resolved.resolved_by,
                record=False,
                features=loaded.features,
            )
            trend = trend_of(
                loaded.session, project=loaded.project, store=store, more_folders=loaded.folders
            )
        result = _trend_result(trend, outcome.report, loaded, _notes(loaded, store))
        return _result(result.text, result)

    @server.prompt(name="handoff", title="Write a handoff for a fresh session")
    def handoff_prompt(ctx: Context[ServerState, Any], session: str | None = None) -> str:
        """Write handoff.md so a fresh session can pick up where this one stands
        (session: a session file path or id; default: this session)."""
        from driftguard.engine.handoff import prepare_handoff

        store = _call_store(ctx)
        try:
            loaded = _load(ctx, session)
            handoff, _ = prepare_handoff(
                loaded.session,
                project=loaded.project,
                store=store,
                resolved_by=loaded.resolved.resolved_by,
                features=loaded.features,
            )
            _notes(loaded, store)  # a prompt has no notes field: stderr only
        except DriftguardError as exc:
            # Prompts have no error result: a protocol error carries the message, which the
            # SDK would otherwise replace with "Error rendering prompt".
            raise MCPError(INVALID_PARAMS, exc.full_text()) from exc
        return handoff.prompt

    return server


def configure_logging() -> None:
    """Log to stderr only (stdout is the protocol), before the SDK configures its own."""
    level = os.environ.get("DRIFTGUARD_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else "INFO",
        format="driftguard %(levelname)s %(name)s: %(message)s",
    )


def main() -> None:
    """Run the server over stdio until the host closes stdin (``driftguard serve``)."""
    configure_logging()
    create_server().run()


if __name__ == "__main__":
    main()
