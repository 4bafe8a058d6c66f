"""Calibration on the user's own sessions: learning it
(``driftguard calibrate``: :func:`learn`) and choosing the one a score uses
(:func:`calibration_for`).

**Learning.** The sessions are the files given, or every session file in the hosts' session
folders (:func:`driftguard.sessions.discovery.session_folders`) and in the config's
``sessionFolders``, and every session the score history names by id (Cursor's chats live in
its databases, not in files of their own: the history is how they are found). Each is
parsed, its usable window found by its host's rule (``--context-window`` names the
model's window when driftguard cannot know it), and its
:func:`~driftguard.scoring.personal.samples_of` kept: numbers only, never text. Sessions are
grouped by host and model family (:func:`~driftguard.scoring.personal.family_of`); a file
that cannot be parsed, or that has no model response, is skipped and counted. No label is
read: what is learnt is what is *usual* for the user, not what failed.

**Using it.** The setting (``score --calibration``, ``drift(calibration=…)``, else the
config's ``calibration``) is ``"auto"`` (the file :func:`driftguard.paths.calibration_path`,
when it exists), ``"off"``, or a file. The session's host and model family pick a
reference; with fewer than :data:`~driftguard.scoring.personal.MIN_SESSIONS` sessions it
does not apply and the report says "not enough sessions yet (k of N)". ``seed`` is never
calibrated.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftguard import paths
from driftguard.adapters import get_adapter, is_session_name, parse_session
from driftguard.adapters._scan import IdQuery
from driftguard.config import Config
from driftguard.engine.window import usable_window
from driftguard.errors import ConfigError, DriftguardError
from driftguard.model import CLI_NAMES, CalibrationUse, Session
from driftguard.scoring.calibrated import CALIBRATION, conversation_tokens
from driftguard.scoring.personal import (
    MIN_SESSIONS,
    Personal,
    Reference,
    Sample,
    depth_bin,
    family_of,
    personal_for,
    samples_of,
)
from driftguard.sessions.discovery import session_folders
from driftguard.store.calibration_file import (
    CalibrationFile,
    read_calibration,
    write_calibration,
)
from driftguard.store.history import HISTORY_SUFFIX

__all__ = [
    "Learnt",
    "calibration_for",
    "learn",
    "session_files",
]

AUTO = "auto"
OFF = "off"


def _recorded_sessions() -> set[Path]:
    """The sessions the score history names by id (``<cli>-<id>.jsonl`` under
    :func:`driftguard.paths.history_dir`; a key made from a path or a shortened id names no
    session that can be found again, and is passed over)."""
    found: set[Path] = set()
    try:
        entries = list(paths.history_dir().iterdir())
    except OSError:
        return found
    for entry in entries:
        key = entry.name.removesuffix(HISTORY_SUFFIX)
        cli, _, session_id = key.partition("-")
        if cli not in CLI_NAMES or not session_id or session_id.startswith("path_"):
            continue
        try:
            found.update(get_adapter(cli).by_id(IdQuery.of(session_id)))
        except (DriftguardError, OSError, ValueError):
            continue
    return found


def session_files(given: Sequence[Path], more_folders: Iterable[Path] = ()) -> list[Path]:
    """The sessions to learn from: each file given, the session files under each folder
    given; without any, those under every host's session folder and ``more_folders``, and
    those the score history names. Sorted, without duplicates."""
    roots = list(given) or [*session_folders(), *more_folders]
    found: set[Path] = set() if given else _recorded_sessions()
    for root in roots:
        if root.is_file():
            found.add(root)
            continue
        if not root.is_dir():
            continue
        for folder, _, names in os.walk(root):
            for name in names:
                if is_session_name(name):
                    found.add(Path(folder) / name)
    return sorted(found)


@dataclass(frozen=True, slots=True)
class Learnt:
    """What :func:`learn` made.

    Attributes:
        references: one per host and model family, most sessions first.
        read: session files read.
        skipped: files that could not be parsed or held no model response.
        path: where the calibration was written (``None``: not written, as nothing was
            learnt).
    """

    references: tuple[Reference, ...]
    read: int
    skipped: int
    path: Path | None


def _usable(session: Session, context_window: int | None) -> int:
    window = context_window or session.context_window
    return usable_window(
        session.cli,
        window,
        window_from_file=context_window is None,
        compactions=session.compaction_ledger,
        context_tokens=session.context_tokens,
        named=context_window is not None,
    ).tokens


def learn(
    files: Sequence[Path], *, context_window: int | None = None, out: Path | None = None
) -> Learnt:
    """Learn the user's references from ``files`` and write them to ``out`` (default
    :func:`driftguard.paths.calibration_path`). When no file gave a reference (none given,
    or every one skipped), nothing is written: an empty calibration would replace one
    learnt before and teach nothing (``Learnt.path`` is then ``None``).

    Raises:
        DriftguardError: the calibration file cannot be written.
    """
    groups: dict[tuple[str, str], list[tuple[int, list[Sample]]]] = defaultdict(list)
    skipped = 0
    for path in files:
        try:
            session = parse_session(path)
            samples = samples_of(session, _usable(session, context_window))
        except (DriftguardError, OSError, ValueError):
            skipped += 1
            continue
        if not samples:
            skipped += 1
            continue
        key = (session.cli, family_of(session.model))
        groups[key].append((conversation_tokens(session), samples))
    references = sorted(
        (
            Reference(
                cli=cli,
                family=family,
                sessions=len(members),
                final_depths=tuple(depth for depth, _ in members),
                samples=tuple(s for _, samples in members for s in samples),
            )
            for (cli, family), members in groups.items()
        ),
        key=lambda r: (-r.sessions, r.cli, r.family),
    )
    if not references:
        return Learnt((), len(files), skipped, None)
    target = out if out is not None else paths.calibration_path()
    try:
        write_calibration(target, references, time.time())
    except OSError as exc:
        raise DriftguardError(f"{target}: cannot write the calibration ({exc})") from exc
    return Learnt(tuple(references), len(files), skipped, target)


_cache: dict[tuple[str, int, int], CalibrationFile] = {}
"""Calibration files read, by path, size and modification time (the MCP server and
``watch`` score many times)."""


def _read(path: Path) -> CalibrationFile:
    try:
        stat = path.stat()
    except OSError:
        return read_calibration(path)  # raises, naming the file
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    found = _cache.get(key)
    if found is None:
        found = read_calibration(path)
        _cache.clear()
        _personal_cache.clear()  # keyed by the references' ids, which die with the file
        _cache[key] = found
    return found


def calibration_for(
    session: Session, config: Config, setting: str | None = None
) -> tuple[Personal | None, CalibrationUse]:
    """The personal calibration ``session`` is scored with, if any, and what the report
    says about it.

    ``setting``: ``"auto"``, ``"off"`` or a file (``None``: the config's ``calibration``).

    Raises:
        ConfigError: a calibration file named by ``setting`` or the config cannot be read
            (with ``"auto"``, a damaged file is reported in the use, not raised).
    """
    chosen = setting if setting is not None else config.calibration
    host, family = session.cli, family_of(session.model)
    if config.scoring == "seed":
        return None, CalibrationUse("none", reason="the seed preset is never calibrated")
    if chosen == OFF:
        return None, CalibrationUse("none", reason="calibration is off")
    if chosen == AUTO:
        path = paths.calibration_path()
        if not path.exists():
            return None, CalibrationUse(
                "none",
                needed=MIN_SESSIONS,
                host=host,
                model=family,
                reason="no calibration yet (`driftguard calibrate` learns one)",
            )
        try:
            calibration = _read(path)
        except ConfigError as exc:
            return None, CalibrationUse("none", file=str(path), reason=str(exc))
    else:
        path = Path(chosen).expanduser()
        calibration = _read(path)
    reference = calibration.reference_for(host, family)
    if reference is None:
        return None, CalibrationUse(
            "none",
            sessions=0,
            needed=MIN_SESSIONS,
            host=host,
            model=family,
            file=str(path),
            reason=f"not enough sessions yet (0 of {MIN_SESSIONS})",
        )
    personal = _personal(reference, conversation_tokens(session), config.weights)
    if personal is None:
        return None, CalibrationUse(
            "none",
            sessions=reference.sessions,
            needed=MIN_SESSIONS,
            host=host,
            model=family,
            file=str(path),
            reason=f"not enough sessions yet ({reference.sessions} of {MIN_SESSIONS})",
        )
    return personal, CalibrationUse(
        "personal",
        sessions=reference.sessions,
        needed=MIN_SESSIONS,
        host=host,
        model=family,
        file=str(path),
    )


_personal_cache: dict[tuple[int, int, tuple[tuple[str, float], ...]], Personal | None] = {}


def _personal(reference: Reference, depth: int, weights: Mapping[str, float]) -> Personal | None:
    """:func:`personal_for` with the shipped constants as the base, kept per reference,
    depth bin and weights (a timeline scores every turn of a session)."""
    key = (id(reference), depth_bin(depth), tuple(sorted(weights.items())))
    if key not in _personal_cache:
        if len(_personal_cache) > 256:
            _personal_cache.clear()
        _personal_cache[key] = personal_for(
            reference, depth, base=CALIBRATION, weights=weights, n_min=MIN_SESSIONS
        )
    return _personal_cache[key]
