"""Session adapters: one package per session source, one closed registry.

Each adapter package (``claude_code``, ``gemini_cli``, ``codex_cli``, ``cursor``) owns
everything driftguard knows about its source behind one interface
(:class:`~driftguard.adapters._base.Adapter`): where the sessions live and the environment
variables that move them, a project's newest session, sessions by id, the places searched,
recognising its records, parsing (whole or resumably), the kind of each tool call, and
where the CLI compacts. Its ``README.md`` describes the source format.

This module is the registry: :data:`ADAPTERS` holds one instance per source, keyed by its
:data:`~driftguard.model.CliName` (:func:`get_adapter`), and the functions below choose the
adapter for a path. Nothing outside ``adapters/`` knows a source's layout or records.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import get_args

from driftguard.adapters import claude_code, codex_cli, cursor, gemini_cli
from driftguard.adapters._base import Adapter, Claim, Found
from driftguard.adapters._common import bulk_reading, iter_lines, load_record, open_session_file
from driftguard.errors import (
    SessionFormatError,
    UnknownFormatError,
    UnknownNameError,
    from_os_error,
)
from driftguard.model import CliName, Session

__all__ = [
    "ADAPTERS",
    "BY_NAME",
    "Adapter",
    "Found",
    "adapter_for",
    "detect_cli",
    "get_adapter",
    "is_session_name",
    "locator_adapter",
    "not_a_session_file",
    "parse_session",
    "resolve_cli",
    "session_id_from_path",
    "turn_snapshots",
    "watched_files",
]

ADAPTERS: tuple[Adapter, ...] = (
    claude_code.ADAPTER,
    gemini_cli.ADAPTER,
    codex_cli.ADAPTER,
    cursor.ADAPTER,
)
"""Every session source, in the order they are listed and searched (on equal times the
source listed first wins)."""

BY_NAME: Mapping[CliName, Adapter] = MappingProxyType({a.name: a for a in ADAPTERS})
"""The adapters keyed by their :data:`~driftguard.model.CliName`."""

if tuple(BY_NAME) != get_args(CliName):  # pragma: no cover - a programming error
    raise RuntimeError("the adapter registry and model.CliName name different sources")

_SNIFF_ORDER: tuple[Adapter, ...] = (codex_cli.ADAPTER, gemini_cli.ADAPTER, claude_code.ADAPTER)
"""The order in which the file sources' *sure* claims on one record are heard: Gemini's
message records share ``type`` values (``user``) with Claude Code's, so Gemini's claim
(which needs an ``id`` and no ``uuid``) is heard first."""

_FILE_NAMES: tuple[CliName, ...] = tuple(a.name for a in ADAPTERS if a in _SNIFF_ORDER)
"""The sources whose session files are told apart by their records (``--cli`` choices
for a file nothing tells)."""

_SNIFF_RECORDS = 20
"""Records of a file read before giving up telling which CLI wrote it."""


def get_adapter(name: str) -> Adapter:
    """The adapter of the source named ``name``.

    Raises:
        UnknownNameError: ``name`` is not a source's name; the message lists them.
    """
    for adapter in ADAPTERS:
        if adapter.name == name:
            return adapter
    raise UnknownNameError(f"unknown CLI {name!r}; choose one of: {', '.join(BY_NAME)}")


def _classify(record: dict[str, object]) -> CliName | None:
    likely: CliName | None = None
    for adapter in _SNIFF_ORDER:
        claim: Claim | None = adapter.claim(record)
        if claim == "sure":
            return adapter.name
        if claim == "likely" and likely is None:
            likely = adapter.name
    return likely


def detect_cli(path: Path) -> CliName:
    """Tell which CLI wrote the session file ``path`` from its first records (its name for
    empty files); a source's whole-document file (Gemini's legacy ``.json``) by its shape.

    Lines that are not JSON objects (nested too deeply included) are passed over.

    Raises:
        SessionFormatError: the file cannot be read (corrupt or truncated zstd included),
            a whole-document file is not one of its source's sessions, or nothing in it
            or its name says which CLI wrote it.
    """
    for adapter in ADAPTERS:
        if adapter.sniff_whole(path):
            return adapter.name
    seen = 0
    blank = True
    try:
        with open_session_file(path) as stream:
            for line, _ in iter_lines(stream):
                blank = blank and not line.strip()
                record = load_record(line)
                if record is None:
                    continue
                cli = _classify(record)
                if cli is not None:
                    return cli
                seen += 1
                if seen >= _SNIFF_RECORDS:
                    break
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    if blank:
        # Nothing to read, so nothing to leak: the file's name and folder may tell.
        for adapter in ADAPTERS:
            if adapter.path_hint(path):
                return adapter.name
        raise UnknownFormatError(
            f"{path} is empty: nothing in it tells which CLI wrote it", choices=_FILE_NAMES
        )
    labels = [a.label for a in ADAPTERS if a in _SNIFF_ORDER]
    raise UnknownFormatError(
        f"cannot tell which CLI wrote {path}: no {', '.join(labels[:-1])} or {labels[-1]} "
        "record in its first lines",
        choices=_FILE_NAMES,
    )


def resolve_cli(path: Path, cli: str | None) -> CliName:
    """The CLI to read the session file ``path`` as: detected when ``cli`` is ``None``;
    when given, checked against the content: a file none of whose lines is a record of
    ``cli`` (:meth:`Adapter.foreign_lines <driftguard.adapters._base.Adapter.foreign_lines>`,
    ``/etc/passwd`` read as a Claude Code session) is refused, while an empty file, or one
    holding only a header record, is ``cli``'s session with nothing in it yet.

    Raises:
        SessionFormatError: nothing tells which CLI wrote the file (``cli`` not given),
            the content is plainly another CLI's than ``cli``, or not one of its lines is
            a record of ``cli``.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    if cli is None:
        return detect_cli(path)
    chosen = get_adapter(cli)
    try:
        detected: CliName | None = detect_cli(path)
    except SessionFormatError:
        detected = None  # empty or unrecognisable: the caller's word decides
    if detected is not None and detected != chosen.name:
        raise SessionFormatError(
            f"{path} looks like a {detected} session, not {cli}; "
            f"drop --cli or pass --cli {detected}"
        )
    if detected is None:
        foreign = chosen.foreign_lines(path)
        if foreign is not None:
            label = chosen.label
            none_of = (
                f"its one line is not a {label} record"
                if foreign == 1
                else f"none of its {foreign:,} lines is a {label} record"
            )
            raise SessionFormatError(f"{path}: not a {label} session file: {none_of}")
    return chosen.name


def locator_adapter(path: Path, cli: str | None = None) -> Adapter | None:
    """The source whose locator ``path`` is (a session kept in a database), or ``None``
    when ``path`` is no locator (a session file, or nothing). Reads nothing.

    Raises:
        SessionFormatError: ``path`` is a locator of another source than ``cli``.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    for adapter in ADAPTERS:
        if adapter.owns_locator(path):
            if cli is not None and get_adapter(cli) is not adapter:
                raise SessionFormatError(
                    f"{path} is a {adapter.name} {adapter.noun}, not {cli}; "
                    f"drop --cli or pass --cli {adapter.name}"
                )
            return adapter
    return None


def adapter_for(path: Path, cli: str | None = None) -> Adapter:
    """The adapter that reads the session ``path``: the source whose locator it is, or the
    CLI that wrote the file (:func:`resolve_cli`).

    Raises:
        SessionFormatError: the path is missing, a directory, unreadable, of no
            supported format, or plainly another source's than ``cli``.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    located = locator_adapter(path, cli)
    if located is not None:
        return located
    if not path.is_file():
        raise not_a_session_file(path)
    return get_adapter(resolve_cli(path, cli))


def not_a_session_file(path: Path) -> SessionFormatError:
    """The error for a path that names no regular file, saying what it is instead: missing,
    a directory, a device, pipe or socket (``/dev/null``), or a path the system will not
    look at (its reason)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        what = "not found"
    except OSError as exc:
        what = f"cannot be looked at: {exc.strerror or exc}"
    else:
        if stat.S_ISDIR(mode):
            what = "a directory, not a session file"
        elif stat.S_ISREG(mode):
            what = "changed while it was looked at; try again"  # it appeared just now
        else:
            what = "a device, pipe or socket, not a session file"
    return SessionFormatError(f"{path}: {what}")


def parse_session(path: Path, cli: str | None = None) -> Session:
    """Parse one session into a :class:`Session`.

    Args:
        path: the session file (``.jsonl``, ``.json`` or ``.jsonl.zst``), or a source's
            locator of a session kept in a database (``<state.vscdb>#<composerId>``).
        cli: the source that wrote it; detected from the content when ``None``.

    Raises:
        SessionFormatError: the path is missing, a directory, unreadable, of no
            supported format, or its content is plainly another CLI's than ``cli``.
        SessionNotFoundError: a locator names a session its store does not hold.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    return adapter_for(path, cli).parse(path)


def turn_snapshots(path: Path, cli: str | None = None) -> Iterator[Session]:
    """The session as it stood at the end of each turn, oldest first, then as it is now.

    A **turn** runs from a prompt the person typed to the next one; its end is the state
    just before the next prompt's line (that prompt left out). Read in one pass with the
    source's resumable parser, so a turn before a compaction is seen as it was then (its
    messages, its context, the compactions so far), not as the summary left it. The last
    snapshot is :func:`parse_session`'s result. A source read whole (a single JSON
    document, a database) gives its turns itself (:meth:`Adapter.turn_states`): a
    database that keeps every message (Cursor) as each turn stood, a file rewritten whole
    as the prefixes of what it still holds.

    Raises:
        SessionFormatError, SessionNotFoundError, UnknownNameError: as
            :func:`parse_session`.
    """
    adapter = adapter_for(path, cli)
    parser = adapter.line_parser(path)
    if parser is None:
        yield from adapter.turn_states(path)
        return
    try:
        with open_session_file(path) as stream:
            for line, terminated in iter_lines(stream):
                before = parser.prompts
                with bulk_reading():
                    parser.feed(line, terminated)
                if parser.prompts > before and before > 0:
                    yield _without_last_prompt(parser.session())
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    yield parser.session()


def _without_last_prompt(session: Session) -> Session:
    """``session`` without the prompt that has just been typed (its last message)."""
    last = session.messages[-1] if session.messages else None
    if last is None or last.role != "user" or last.is_summary:
        return session
    return dataclasses.replace(session, messages=session.messages[:-1])


def watched_files(path: Path) -> tuple[Path, ...]:
    """The files whose change may change the session ``path``: the session file itself,
    or the store files of a source's locator (a database and its write-ahead log)."""
    located = locator_adapter(path)
    return located.store_files(path) if located is not None else (path,)


def is_session_name(name: str) -> bool:
    """Whether a file named ``name`` may be (or hold) some source's sessions."""
    return any(adapter.is_session_name(name) for adapter in ADAPTERS)


def session_id_from_path(path: Path, cli: str | None) -> str | None:
    """The session id the name of ``cli``'s session file ``path`` carries, when its name
    alone tells it (``None`` otherwise, or without ``cli``).

    Raises:
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    return get_adapter(cli).session_id_from_path(path) if cli is not None else None
