"""The one exception root of driftguard, and its tree.

Every error driftguard raises on purpose derives from :class:`DriftguardError`, so each
edge (the command line, the MCP server) catches exactly one type, prints one line and
chooses its exit code or tool error::

    DriftguardError
    ├── SessionNotFoundError     no session file where one was looked for
    ├── SessionFormatError       a file that is not a session of any supported CLI
    │   └── UnknownFormatError   nothing in the file tells which CLI wrote it
    ├── ConfigError              a config or preset that cannot be used (names file and key)
    │   ├── DuplicateKeyError    a driftguard config object that names one key twice
    │   └── ConfigSyntaxError    a host's config file setup cannot edit safely   (ValueError)
    │       └── HookSettingsError  Claude Code settings the hooks cannot be merged into
    ├── TextFormatError          text that is not valid in its format             (ValueError)
    │   ├── JsonTooDeepError     JSON nested deeper than the adapters' limit
    │   ├── JsonSyntaxError      not (commented) JSON; says line and column
    │   ├── TomlSyntaxError      not TOML; says line and column
    │   └── HookInputError       a hook's stdin that is not the payload the host sends
    ├── UnknownNameError         an unknown CLI, preset or factor name (lists the valid ones)
    ├── RefusedPathError         a path driftguard will not read or write there (states the
    │                            rule: a session outside the session folders over MCP, a
    │                            symlink in the project's .driftguard folder, a path with
    │                            a NUL byte)
    └── UntrustedHandoffError    a waiting handoff driftguard did not save on this machine

The classes marked ``(ValueError)`` are also :class:`ValueError`: the parsers that raise
them are plain text parsers, and their callers catch them as such. Most are caught inside
driftguard and turned into a one-line report (setup's per-host result, a hook's stderr);
none reaches an edge uncaught as anything but a :class:`DriftguardError`.

Malformed *lines* inside a session file are never errors: adapters skip and count them
(``Session.skipped_lines``).

**OSError** (the file system's failures) becomes a :class:`DriftguardError` in one place,
:func:`from_os_error` (``"<what failed>: <strerror>"``), wherever a failure to read or
write is the user's to know rather than a bug; state that is only a cache or a marker is
never worth an error and is dropped or reported as a warning instead.

An error may carry ``details``: more lines that help but would make the first one long
(the folders searched for a session). The command line prints them below the error, one
per line; over MCP they follow the message (:meth:`DriftguardError.full_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, overload

__all__ = [
    "ConfigError",
    "ConfigSyntaxError",
    "DriftguardError",
    "DuplicateKeyError",
    "HookInputError",
    "HookSettingsError",
    "JsonSyntaxError",
    "JsonTooDeepError",
    "RefusedPathError",
    "SessionFormatError",
    "SessionNotFoundError",
    "TextFormatError",
    "TomlSyntaxError",
    "UnknownFormatError",
    "UnknownNameError",
    "UntrustedHandoffError",
    "from_os_error",
]


class DriftguardError(Exception):
    """Root of every error driftguard raises on purpose; the message is one readable line.

    Args:
        message: the error, one line.
        details: more lines for whoever wants them (e.g. every folder searched), shown
            below the message on the command line.
    """

    def __init__(self, message: str = "", *, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details: tuple[str, ...] = tuple(details)

    def full_text(self) -> str:
        """The message and its details on one line (``message detail; detail``)."""
        return " ".join([str(self), "; ".join(self.details)]) if self.details else str(self)


class SessionNotFoundError(DriftguardError):
    """No session file exists where driftguard looked; the message names the places."""


class SessionFormatError(DriftguardError):
    """A path that exists but is not a readable session file of a supported CLI."""


class UnknownFormatError(SessionFormatError):
    """Nothing in a file (or its name) tells which CLI wrote it; the command line then
    suggests ``--cli`` with one of :attr:`choices`.

    Args:
        message: the error, one line.
        choices: the names of the sources that could have written the file.
        details: as :class:`DriftguardError`.
    """

    def __init__(
        self, message: str = "", *, choices: Sequence[str] = (), details: Sequence[str] = ()
    ) -> None:
        super().__init__(message, details=details)
        self.choices: tuple[str, ...] = tuple(choices)


class ConfigError(DriftguardError):
    """A config file or preset driftguard cannot use; the message names the file and the key.

    driftguard never rewrites a config file it could not parse.
    """


class UnknownNameError(DriftguardError):
    """An unknown CLI, preset or factor name; the message lists the valid names."""


class RefusedPathError(DriftguardError):
    """A path driftguard refuses to read or write: over MCP, a
    session file outside the session folders; a handoff file reached through a symlink
    below the project folder. The message states the rule, never the file's content."""


class UntrustedHandoffError(DriftguardError):
    """A handoff waits in the project, but driftguard did not save it on this machine (no
    record of its checkpoint, or a record of another project or content), or git tracks
    it: a cloned repository could ship one to steer the next session, so it is not handed
    over. The message says which, in one line."""


class DuplicateKeyError(ConfigError):
    """A JSON object of a driftguard config names one key twice (raised from inside
    ``json.loads``; :mod:`driftguard.config` reports it with the file's name)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class ConfigSyntaxError(ConfigError, ValueError):
    """A host's config file ``driftguard setup`` cannot read or edit safely; the message is
    one line (setup reports it as that host's result and leaves the file alone)."""


class HookSettingsError(ConfigSyntaxError):
    """Claude Code's settings file cannot take driftguard's status line and hooks safely
    (a key given twice, a ``hooks`` entry of another shape); the message says why."""


class TextFormatError(DriftguardError, ValueError):
    """Text that is not valid in its format (JSON, commented JSON, TOML, a hook payload)."""


class JsonTooDeepError(TextFormatError):
    """A JSON text nested deeper than :data:`driftguard.adapters._common.MAX_JSON_DEPTH`
    (or too deep to decode at all)."""


class JsonSyntaxError(TextFormatError):
    """The text is not valid (strict or commented) JSON; the message gives line and column.

    Args:
        message: what is wrong.
        text: the whole text.
        position: the character offset of the fault in ``text``.
    """

    def __init__(self, message: str, text: str, position: int) -> None:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        super().__init__(f"line {line}, column {column}: {message}")
        self.position = position


class TomlSyntaxError(TextFormatError):
    """The text is not valid TOML; the message is :mod:`tomllib`'s (it names line and
    column)."""


class HookInputError(TextFormatError):
    """A hook's stdin is not the JSON object the host sends, or lacks a needed field."""


_E = TypeVar("_E", bound=DriftguardError)


@overload
def from_os_error(exc: OSError, doing: str) -> DriftguardError: ...
@overload
def from_os_error(exc: OSError, doing: str, kind: type[_E]) -> _E: ...
def from_os_error(
    exc: OSError, doing: str, kind: type[DriftguardError] = DriftguardError
) -> DriftguardError:
    """The error to raise for an :class:`OSError`: ``"<doing>: <strerror>"`` (the whole
    text of ``exc`` when it has no ``strerror``), as a ``kind`` (default
    :class:`DriftguardError`). Raise it ``from exc``.

    Example: ``raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc``.
    """
    return kind(f"{doing}: {exc.strerror or exc}")
