"""Which session file a tool call is about (design.md §6, "Which session").

In order:

1. ``argument`` — an explicit ``session`` argument: a path to a session file, or a
   session id (a Claude/Codex UUID, a Gemini session id or its 8-character prefix, or a
   session file's name), looked up in every CLI's session folders. Over MCP
   (``folders`` given) a path must lie under those folders — the hosts' own
   (:func:`driftguard.discovery.session_folders`) or the config's ``sessionFolders`` —
   once symlinks are resolved, and an id finds only files there; anything else is refused
   with :class:`~driftguard.errors.RefusedPathError` before the file is even looked at
   (issue #9 item 2: the model names the file, and a transcript-shaped file anywhere else
   would be read back to it). The command line passes no ``folders``: a path the user
   types is read wherever it is;
2. ``pointer`` — the pointer file a ``SessionStart`` hook wrote for this project in
   ``~/.driftcli/pointers/`` (the only signal that follows Claude Code's ``/clear``);
3. ``env_session_id`` — ``CLAUDE_CODE_SESSION_ID`` with ``CLAUDE_PROJECT_DIR``, which
   Claude Code gives its MCP servers (frozen at spawn: after ``/clear`` it names the old
   session, which is why the pointer comes first);
4. ``newest_in_project`` — the newest session of the current project written by the
   calling host (told apart by ``clientInfo.name``, then by the environment); under
   Cursor, or an unknown host, the newest of any supported CLI.

The project is ``CLAUDE_PROJECT_DIR`` when the host sets it, else the working directory.
Nothing here writes; :func:`write_pointer` is for the hook shell.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftguard import discovery, paths
from driftguard._fileio import write_atomic
from driftguard.adapters._common import load_record
from driftguard.errors import RefusedPathError, SessionNotFoundError
from driftguard.model import CLI_NAMES, CliName, ResolvedBy

__all__ = [
    "HOST_CLIENT_NAMES",
    "ResolvedSession",
    "cli_for_host",
    "is_under",
    "pointer_path",
    "project_dir",
    "read_pointer",
    "resolve_session",
    "start_projects",
    "write_pointer",
]

HOST_CLIENT_NAMES: Mapping[str, CliName | None] = {
    "claude-code": "claude_code",
    "gemini-cli-mcp-client": "gemini_cli",
    "codex": "codex_cli",
    "codex-mcp-client": "codex_cli",
    "cursor-vscode": None,
}
"""``clientInfo.name`` of each known host (lower-cased) → the CLI whose sessions it
writes; ``None`` for Cursor, whose own chats driftguard does not read yet
(mcp-and-hosts.md §1.9, from the ``mcp-client-capabilities`` database)."""

HOST_ENV = "DRIFTGUARD_HOST"
"""Set by ``driftguard setup`` in each host's server entry: the CLI name it serves."""

_SESSION_SUFFIXES = (".jsonl", ".json", ".zst")


@dataclass(frozen=True, slots=True)
class ResolvedSession:
    """A session file, the CLI that wrote it (when known) and how it was chosen."""

    path: Path
    cli: CliName | None
    resolved_by: ResolvedBy
    note: str | None = None
    """Why this file, when ``resolved_by`` alone would mislead (Cursor's own chats)."""
    warnings: tuple[str, ...] = ()
    """State that could not be read on the way (a pointer file), one line each; the
    session was still found (issue #9 item 4)."""


def project_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_PROJECT_DIR`` when set (Claude Code's stable project root), else the cwd."""
    environ = os.environ if env is None else env
    root = environ.get("CLAUDE_PROJECT_DIR", "").strip()
    return Path(root) if root else Path.cwd()


def start_projects(env: Mapping[str, str] | None = None) -> list[Path]:
    """The projects a command or server was started for, most likely first:
    ``$CLAUDE_PROJECT_DIR`` when set, then the working directory (once). Handoffs are
    saved only in these (or the MCP client's roots; issue #9 item 1)."""
    environ = os.environ if env is None else env
    projects = [project_dir(environ)]
    cwd = Path.cwd()
    if os.path.abspath(cwd) != os.path.abspath(projects[0]):
        projects.append(cwd)
    return projects


def cli_for_host(client_name: str | None, env: Mapping[str, str] | None = None) -> CliName | None:
    """The CLI whose sessions the calling host writes, or ``None`` for any.

    ``clientInfo.name`` decides first; then ``$DRIFTGUARD_HOST`` (written by setup),
    ``CLAUDECODE=1`` (Claude Code) and ``GEMINI_CLI=1`` (Gemini CLI).
    """
    if client_name:
        key = client_name.strip().lower()
        if key in HOST_CLIENT_NAMES:
            return HOST_CLIENT_NAMES[key]
    environ = os.environ if env is None else env
    hinted = environ.get(HOST_ENV, "").strip()
    for cli in CLI_NAMES:
        if hinted == cli:
            return cli
    if hinted == "cursor":
        return None
    if environ.get("CLAUDECODE") == "1":
        return "claude_code"
    if environ.get("GEMINI_CLI") == "1":
        return "gemini_cli"
    return None


def pointer_path(project: Path) -> Path:
    """``~/.driftcli/pointers/<first 16 hex of sha256(resolved project path)>.json``."""
    key = hashlib.sha256(str(project.resolve()).encode("utf-8")).hexdigest()[:16]
    return paths.pointers_dir() / f"{key}.json"


def read_pointer(project: Path) -> tuple[Path, CliName | None] | None:
    """The transcript a hook last pointed at for ``project``, when it still exists
    (``None`` also when the pointer cannot be read: :func:`_pointer_or_warning` says why)."""
    return _pointer_or_warning(project)[0]


def _pointer_or_warning(
    project: Path,
) -> tuple[tuple[Path, CliName | None] | None, str | None]:
    """:func:`read_pointer`, and a one-line warning when the pointer file exists but
    cannot be read (a missing pointer is no warning: there is simply none yet)."""
    location = pointer_path(project)
    try:
        raw = location.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"hook pointer not read: {location}: {exc.strerror or exc}"
    record = load_record(raw)
    if record is None:
        return None, None
    transcript = record.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return None, None
    path = Path(transcript)
    if not path.is_file():
        return None, None
    cli = record.get("cli")
    return (path, (cli if cli in CLI_NAMES else None)), None


def write_pointer(project: Path, transcript: Path, cli: CliName, session_id: str | None) -> Path:
    """Write the pointer for ``project`` (:func:`driftguard._fileio.write_atomic`: a
    temporary file, fsync-ed, renamed over the old pointer); returns its path.

    Raises:
        OSError: it cannot be written (the old pointer, if any, is unchanged).
    """
    target = pointer_path(project)
    record = {
        "transcript_path": str(transcript),
        "cli": cli,
        "session_id": session_id,
        "project": str(project),
        "ts": time.time(),
    }
    write_atomic(target, (json.dumps(record) + "\n").encode("utf-8"))
    return target


def _looks_like_path(value: str) -> bool:
    return os.sep in value or "/" in value or value.startswith("~")


def _candidates_by_id(session_id: str) -> Iterable[tuple[Path, CliName]]:
    """Session files any CLI wrote whose name carries ``session_id`` (any project)."""
    needle = session_id.lower()
    if needle.endswith(_SESSION_SUFFIXES):
        exact_name: str | None = needle
        needle = needle.split(".", 1)[0]
    else:
        exact_name = None
    for root in discovery.claude_roots():
        for path in (root / "projects").glob("*/*.jsonl"):
            name = path.name.lower()
            if name == exact_name or path.stem.lower() == needle:
                yield path, "claude_code"
    gemini_tmp = discovery.gemini_root() / "tmp"
    for path in gemini_tmp.glob("*/chats/session-*.json*"):
        name = path.name.lower()
        if name == exact_name or (len(needle) >= 8 and name.split(".")[0].endswith(needle[:8])):
            yield path, "gemini_cli"
    codex = discovery.codex_root()
    for pattern in ("sessions/*/*/*/rollout-*.jsonl*", "archived_sessions/rollout-*.jsonl*"):
        for path in codex.glob(pattern):
            name = path.name.lower()
            if name == exact_name or name.split(".")[0].endswith(needle):
                yield path, "codex_cli"


def is_under(path: Path, folders: Iterable[Path]) -> bool:
    """Whether ``path``, with every symlink resolved, lies strictly inside one of
    ``folders`` (each resolved too). A folder itself is not inside itself."""
    real = os.path.realpath(path)
    for folder in folders:
        root = os.path.realpath(folder)
        if real != root and os.path.commonpath([real, root]) == root:
            return True
    return False


def _refused(value: str, folders: Sequence[Path]) -> RefusedPathError:
    places = ", ".join(str(folder) for folder in folders)
    return RefusedPathError(
        f"session {value!r} refused: over MCP, session is a session id or a session file "
        f"under a session folder ({places}); add a folder to sessionFolders in "
        "~/.driftclirc or the project's .driftcli to allow more"
    )


def _by_argument(session: str, folders: Sequence[Path] | None) -> ResolvedSession:
    value = session.strip()
    named_path = _looks_like_path(value) or (folders is None and Path(value).is_file())
    if named_path:
        path = Path(value).expanduser()
        if folders is not None and not is_under(path.absolute(), folders):
            raise _refused(value, folders)
        if path.is_dir():
            raise SessionNotFoundError(f"{path} is a folder, not a session file")
        if not path.is_file():
            raise SessionNotFoundError(f"session file {path} does not exist")
        return ResolvedSession(path, None, "argument")
    found = list(_candidates_by_id(value))
    if folders is not None:
        found = [(path, cli) for path, cli in found if is_under(path, folders)]
    if not found:
        raise SessionNotFoundError(
            f"no session file named after {value!r} under {', '.join(_id_places())}"
        )
    # A Gemini resume writes a small stub first: prefer the largest file, then the newest.
    path, cli = max(found, key=lambda item: (item[0].stat().st_size, item[0].stat().st_mtime_ns))
    return ResolvedSession(path, cli, "argument")


def _id_places() -> list[str]:
    return [str(folder) for folder in discovery.session_folders()]


def _by_env_session_id(env: Mapping[str, str]) -> ResolvedSession | None:
    session_id = env.get("CLAUDE_CODE_SESSION_ID", "").strip()
    root = env.get("CLAUDE_PROJECT_DIR", "").strip()
    if not session_id or not root or _looks_like_path(session_id):
        return None
    folder_names = {discovery.claude_project_dir_name(root)}
    folder_names.add(discovery.claude_project_dir_name(str(Path(root).resolve())))
    for base in discovery.claude_roots():
        for name in sorted(folder_names):
            path = base / "projects" / name / f"{session_id}.jsonl"
            if path.is_file():
                return ResolvedSession(path, "claude_code", "env_session_id")
    return None


def resolve_session(
    session: str | None,
    *,
    client_name: str | None = None,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    only: CliName | None = None,
    folders: Sequence[Path] | None = None,
) -> ResolvedSession:
    """Choose the session file for a tool call (module docstring gives the order).

    Args:
        session: the tool's ``session`` argument (a path or an id), or ``None``.
        client_name: the host's ``clientInfo.name``, when it sent one.
        project: the project directory; default :func:`project_dir`.
        env: the environment to read; default ``os.environ``.
        only: look for this CLI's sessions only (``--cli``), whatever the host.
        folders: over MCP, the only folders a ``session`` argument may name files in
            (the session folders and ``sessionFolders``); ``None`` on the command line,
            where any path is read.

    Raises:
        SessionNotFoundError: nothing matched; the message says where it looked.
        RefusedPathError: with ``folders``, a ``session`` path outside all of them; the
            message states the rule and nothing of the file.
    """
    environ = os.environ if env is None else env
    if session is not None and session.strip():
        return _by_argument(session, folders)
    root = project if project is not None else project_dir(environ)
    pointed, problem = _pointer_or_warning(root)
    warnings = (problem,) if problem is not None else ()
    if pointed is not None and only in (None, pointed[1]):
        return ResolvedSession(pointed[0], pointed[1], "pointer")
    from_env = _by_env_session_id(environ) if only in (None, "claude_code") else None
    if from_env is not None:
        return dataclasses.replace(from_env, warnings=warnings)
    host_cli = only if only is not None else cli_for_host(client_name, environ)
    clis: tuple[CliName, ...] = (host_cli,) if host_cli is not None else CLI_NAMES
    cli, path = discovery.newest_session(root, clis)
    note = None
    if host_cli is None and only is None and _is_cursor(client_name, environ):
        note = (
            "Cursor keeps its own chats in a database driftguard does not read yet: this is "
            f"the newest {cli} session of the project"
        )
    return ResolvedSession(path, cli, "newest_in_project", note, warnings)


def _is_cursor(client_name: str | None, env: Mapping[str, str]) -> bool:
    if client_name and client_name.strip().lower() == "cursor-vscode":
        return True
    return env.get(HOST_ENV, "").strip() == "cursor"
