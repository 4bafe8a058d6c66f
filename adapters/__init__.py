"""Session adapters: one module per CLI's on-disk format, one closed registry.

Each adapter module (``claude_code``, ``gemini_cli``, ``codex_cli``) is a pure parser
from a session file to a :class:`driftguard.model.Session`, and documents in its own
docstring where the files live, the record types it reads and its token semantics.

Use :func:`parse_session` to parse a file, naming the CLI or letting
:func:`detect_cli` tell it from the file's first records.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from driftguard.adapters import claude_code, codex_cli, gemini_cli
from driftguard.adapters._common import (
    JsonTooDeepError,
    iter_lines,
    load_record,
    open_session_file,
)
from driftguard.errors import (
    SessionFormatError,
    UnknownFormatError,
    UnknownNameError,
    from_os_error,
)
from driftguard.model import CLI_NAMES, CliName, Session

__all__ = ["ADAPTERS", "detect_cli", "get_parser", "parse_session", "resolve_cli"]

Parser = Callable[[Path], Session]

ADAPTERS: dict[CliName, Parser] = {
    "claude_code": claude_code.parse,
    "gemini_cli": gemini_cli.parse,
    "codex_cli": codex_cli.parse,
}
"""The parser of each supported CLI, keyed by its CLI name."""

_SNIFF_RECORDS = 20

_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"}
)
_GEMINI_MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})


def get_parser(cli: str) -> Parser:
    """The parser of the CLI named ``cli``.

    Raises:
        UnknownNameError: ``cli`` is not one of ``claude_code``, ``gemini_cli``, ``codex_cli``.
    """
    if cli not in ADAPTERS:
        raise UnknownNameError(f"unknown CLI {cli!r}; choose one of: {', '.join(CLI_NAMES)}")
    return ADAPTERS[cli]


def _classify(record: dict[str, Any]) -> CliName | None:
    kind = record.get("type")
    if not isinstance(kind, str):
        kind = None  # an array or object "type" is no type (and cannot be looked up)
    if isinstance(record.get("payload"), dict) and kind in _CODEX_TYPES:
        return "codex_cli"
    if "record_type" in record or (
        # Codex first generation: bare SessionMeta, then bare ResponseItems.
        "instructions" in record and "id" in record and "type" not in record
    ):
        return "codex_cli"
    if "$set" in record or "$rewindTo" in record or "projectHash" in record:
        return "gemini_cli"
    if kind in _GEMINI_MESSAGE_TYPES and isinstance(record.get("id"), str) and "uuid" not in record:
        return "gemini_cli"
    if kind in claude_code.RECORD_TYPES or "uuid" in record or "leafUuid" in record:
        return "claude_code"
    if kind in ("message", "function_call", "function_call_output", "reasoning"):
        return "codex_cli"
    return None


def _hint_from_path(path: Path) -> CliName | None:
    text = path.as_posix()
    if ("/projects/" in text and ".claude" in text) or path.name.startswith("agent-"):
        return "claude_code"
    if "/chats/" in text or path.name.startswith("session-"):
        return "gemini_cli"
    if path.name.startswith("rollout-"):
        return "codex_cli"
    return None


def _detect_json(path: Path) -> CliName:
    """A ``.json`` file is a session only with a legacy Gemini session's shape
    (:func:`gemini_cli.is_legacy_session`, read member by member when a value in it is
    nested too deeply). A file that does not decode at all counts when its first 4 KiB
    name both ``sessionId`` and ``messages``: Gemini CLI rewrites the file in place, and
    the parser reads it again before it gives up.

    Raises:
        SessionFormatError: unreadable, or not such a session file.
    """
    try:
        with path.open("rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
    try:
        document = gemini_cli.decode_legacy(data)
    except JsonTooDeepError as exc:
        raise SessionFormatError(f"{path} is not a JSON session file: {exc}") from exc
    except ValueError as exc:  # not JSON (yet: perhaps caught mid-rewrite)
        head = data[:4096].lstrip()
        if head.startswith(b"{") and b'"sessionId"' in head and b'"messages"' in head:
            return "gemini_cli"
        raise SessionFormatError(f"{path} is not a JSON session file: {exc}") from exc
    if gemini_cli.is_legacy_session(document):
        return "gemini_cli"
    raise SessionFormatError(f"{path} is JSON but not a session file of a supported CLI")


def detect_cli(path: Path) -> CliName:
    """Tell which CLI wrote ``path`` from its first records (its name for empty files).

    Lines that are not JSON objects (nested too deeply included) are passed over.

    Raises:
        SessionFormatError: the file cannot be read (corrupt or truncated zstd included),
            a ``.json`` file is not JSON (or nested too deeply), or nothing in it or its
            name says which CLI wrote it.
    """
    if path.suffix == ".json":
        return _detect_json(path)
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
        hint = _hint_from_path(path)
        if hint is not None:
            return hint
        raise UnknownFormatError(f"{path} is empty: nothing in it tells which CLI wrote it")
    raise UnknownFormatError(
        f"cannot tell which CLI wrote {path}: no Claude Code, Gemini CLI or Codex CLI record "
        "in its first lines"
    )


def resolve_cli(path: Path, cli: str | None) -> CliName:
    """The CLI to read ``path`` as: detected when ``cli`` is ``None``; when given, checked
    against the content.

    Raises:
        SessionFormatError: nothing tells which CLI wrote the file (``cli`` not given),
            or the content is plainly another CLI's than ``cli``.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    if cli is None:
        return detect_cli(path)
    get_parser(cli)
    try:
        detected: CliName | None = detect_cli(path)
    except SessionFormatError:
        detected = None  # empty or unrecognisable: the caller's word decides
    if detected is not None and detected != cli:
        raise SessionFormatError(
            f"{path} looks like a {detected} session, not {cli}; "
            f"drop --cli or pass --cli {detected}"
        )
    return detected if detected is not None else cast(CliName, cli)


def parse_session(path: Path, cli: str | None = None) -> Session:
    """Parse one session file into a :class:`Session`.

    Args:
        path: the session file (``.jsonl``, ``.json`` or ``.jsonl.zst``).
        cli: the CLI that wrote it; detected from the content when ``None``.

    Raises:
        SessionFormatError: the path is missing, a directory, unreadable, of no
            supported format, or its content is plainly another CLI's than ``cli``.
        UnknownNameError: ``cli`` is not a supported CLI name.
    """
    if not path.is_file():
        what = "a directory, not a session file" if path.is_dir() else "not found"
        raise SessionFormatError(f"{path}: {what}")
    return ADAPTERS[resolve_cli(path, cli)](path)
