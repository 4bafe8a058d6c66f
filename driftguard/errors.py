"""The one exception root of driftguard, and its tree.

Every error driftguard raises on purpose derives from :class:`DriftguardError`, so each
edge (the command line, the MCP server) catches exactly one type, prints one line and
chooses its exit code or tool error::

    DriftguardError
    ├── SessionNotFoundError     no session file where one was looked for
    ├── SessionFormatError       a file that is not a session of any supported CLI
    │   └── UnknownFormatError   nothing in the file tells which CLI wrote it
    ├── ConfigError              a config or preset that cannot be used (names file and key)
    ├── UnknownNameError         an unknown CLI, preset or factor name (lists the valid ones)
    └── RefusedPathError         a path driftguard will not read or write there (states the
                                 rule: a session outside the session folders over MCP, a
                                 symlink in the project's .driftguard folder)

Malformed *lines* inside a session file are never errors: adapters skip and count them
(``Session.skipped_lines``).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DriftguardError",
    "RefusedPathError",
    "SessionFormatError",
    "SessionNotFoundError",
    "UnknownFormatError",
    "UnknownNameError",
]


class DriftguardError(Exception):
    """Root of every error driftguard raises on purpose; the message is one readable line."""


class SessionNotFoundError(DriftguardError):
    """No session file exists where driftguard looked; the message names the places."""


class SessionFormatError(DriftguardError):
    """A path that exists but is not a readable session file of a supported CLI."""


class UnknownFormatError(SessionFormatError):
    """Nothing in a file (or its name) tells which CLI wrote it; the command line then
    suggests ``--cli``."""


class ConfigError(DriftguardError):
    """A config file or preset driftguard cannot use; the message names the file and the key.

    driftguard never rewrites a config file it could not parse.
    """


class UnknownNameError(DriftguardError):
    """An unknown CLI, preset or factor name; the message lists the valid names."""


class RefusedPathError(DriftguardError):
    """A path driftguard refuses to read or write (issue #9 items 1 and 2): over MCP, a
    session file outside the session folders; a handoff file reached through a symlink
    below the project folder. The message states the rule, never the file's content."""
