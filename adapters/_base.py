"""The interface every session source implements (:class:`Adapter`), and what it hands
back (:class:`Found`, :data:`Claim`).

One adapter owns everything driftguard knows about one CLI's sessions (ccusage's adapter
anatomy; pipx's closed backend registry): where they live and the environment variables
that move them, which session is a project's newest, finding one by id, the places
searched (for error messages), recognising its records, parsing (whole, or resumably line
by line), the kind of each tool call, and where the CLI compacts. The rest of driftguard
asks the registry (:mod:`driftguard.adapters`) and knows no layout.

A session is named by a :class:`~pathlib.Path`: the session file itself for the CLIs that
write files, or a *locator* for a source that keeps its sessions inside a database
(Cursor: ``<state.vscdb>#<composerId>``); :meth:`Adapter.owns_locator` tells the two
apart, and :meth:`Adapter.store_files` names the files whose change means such a session
may have changed.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from driftguard.adapters._common import (
    LineParser,
    ToolKinds,
    iter_lines,
    load_record,
    open_session_file,
)
from driftguard.adapters._scan import Candidate, IdQuery, ProjectPaths, is_under
from driftguard.compaction.window import HostSetting, NominalWindow, UsableWindow
from driftguard.errors import SessionFormatError, from_os_error
from driftguard.model import CliName, Session, ToolKind

__all__ = ["Adapter", "Claim", "FileAdapter", "Finder", "Found", "prefix_snapshots"]

Claim = Literal["sure", "likely"]
"""How surely one record is a CLI's (:meth:`Adapter.claim`): ``"sure"`` decides at once;
``"likely"`` decides only when no adapter is sure of the record."""


@dataclass(frozen=True, slots=True)
class Found:
    """A project's newest session of one source.

    Attributes:
        path: the session file, or the source's locator of it.
        time_ns: when it last changed, in ns since the epoch (a file's mtime; the time
            the source itself records for a session kept in a database).
    """

    path: Path
    time_ns: int


class Adapter(ABC):
    """One session source: a CLI whose sessions driftguard finds, reads and scores.

    Subclasses set :attr:`name` and :attr:`label` and implement the abstract methods; the
    others have the defaults of a CLI that writes one file per session.
    """

    name: ClassVar[CliName]
    """The source's name (``--cli``, ``Session.cli``, history keys)."""
    label: ClassVar[str]
    """The source's name for people (``"Claude Code"``)."""
    noun: ClassVar[str] = "session"
    """What the source calls one conversation, for messages (``"chat"`` for Cursor)."""

    # ---------------------------------------------------------------- where sessions live

    @abstractmethod
    def session_folders(self) -> list[Path]:
        """The folders holding this source's session files and nothing else of the
        user's, read from the environment now (may not exist). Over MCP a ``session``
        argument may name files under these only."""

    def holds(self, path: Path) -> bool:
        """Whether ``path`` is a session of this source where it keeps them: by default,
        a file strictly inside one of :meth:`session_folders` (symlinks resolved)."""
        return is_under(path, self.session_folders())

    @abstractmethod
    def newest(self, project: ProjectPaths) -> Found | None:
        """The project's current session: the newest of those that belong to it, never
        another project's; ``None`` when it has none.

        Raises:
            SessionFormatError: a store that exists cannot be read (a source whose
                sessions live in a database; file sources pass unreadable files over).
        """

    @abstractmethod
    def sessions(self, project: ProjectPaths) -> Iterator[Found]:
        """Every session of ``project``, newest first (the first is :meth:`newest`'s), for
        ``driftguard report --all``.

        Raises:
            SessionFormatError: as :meth:`newest`.
        """

    @abstractmethod
    def search_places(self, project: ProjectPaths) -> list[str]:
        """Where :meth:`newest` looks, one readable line each (``"<label>: <folder>
        (<what is looked for>)"``), for error messages; a folder's line may be followed by
        an indented note of the files passed over there
        (:class:`~driftguard.adapters._scan.PassedOver`)."""

    @abstractmethod
    def by_id(self, query: IdQuery) -> Iterator[Path]:
        """The sessions of any project whose id or file name the query names.

        Raises:
            SessionFormatError: as :meth:`newest`.
        """

    def id_places(self) -> list[Path]:
        """Where :meth:`by_id` looks (for the message when nothing matched)."""
        return self.session_folders()

    def project_folders(self, project: ProjectPaths) -> list[Path]:
        """The folders that hold only ``project``'s session files (a file there is the
        project's even when it records no working directory); ``[]`` for a source with
        no per-project folder."""
        return []

    def session_in_project(self, project: ProjectPaths, session_id: str) -> Path | None:
        """The session file named after ``session_id`` in ``project``'s own folders, when
        one exists (what a host's session-id variable finds); ``None`` otherwise."""
        return None

    def is_session_file_of(self, path: Path, session_id: str) -> bool:
        """Whether ``path`` is *the* session of ``session_id``: the one this source
        itself keeps for that id where it keeps its sessions (:meth:`holds`), not another
        file whose records carry the id too (a subagent's transcript naming its parent's
        session, a copy anywhere else). History and the remembered goal are keyed by the
        id only for this file (:func:`driftguard.engine.drift.history_key`). Reads nothing but
        the file system's links."""
        return False

    def session_id_from_path(self, path: Path) -> str | None:
        """The session id a file's name carries, when the name alone tells it reliably
        (``None`` otherwise: then only its content does)."""
        return None

    # ---------------------------------------------------------------- recognising records

    def claim(self, record: dict[str, Any]) -> Claim | None:
        """How surely one decoded record of a JSONL file is this source's (``None``: not
        at all)."""
        return None

    def path_hint(self, path: Path) -> bool:
        """Whether the name and folder of a file with nothing in it say it is this
        source's (an empty file tells nothing else)."""
        return False

    def foreign_lines(self, path: Path) -> int | None:
        """How many non-blank lines the file ``path`` holds when not one of them is a
        record of this source (:meth:`claim`); ``None`` when one is, when it has no
        line at all (an empty file is a session with nothing in it yet), or when this
        source's files are not read by lines (a database, a whole JSON document: their
        parser decides). Reads up to the first record of this source.

        Raises:
            SessionFormatError: the file cannot be read.
        """
        return None

    def sniff_whole(self, path: Path) -> bool | None:
        """For a file this source writes as one document rather than lines (Gemini's
        legacy ``.json``): ``True`` when ``path`` is one of its sessions; ``None`` when
        ``path`` is not such a file (its lines decide).

        Raises:
            SessionFormatError: ``path`` has this source's whole-document form but is not a
                readable session of it.
        """
        return None

    def owns_locator(self, path: Path) -> bool:
        """Whether ``path`` is this source's locator of a session kept in a database
        (never a file of its own). Reads nothing."""
        return False

    def is_session_name(self, name: str) -> bool:
        """Whether a file of this name may be (or hold) one of this source's sessions: a
        change to it may change a session (``driftguard watch`` wakes up)."""
        return False

    # ---------------------------------------------------------------- reading

    @abstractmethod
    def parse(self, path: Path) -> Session:
        """The session at ``path`` (a file of this source, or its locator).

        Raises:
            SessionFormatError: it cannot be read (names the file).
            SessionNotFoundError: a locator names a session its store does not hold.
        """

    def line_parser(self, path: Path) -> LineParser | None:
        """A resumable parser for the session file ``path`` (fed its lines in order), or
        ``None`` when the file must be read whole (a single JSON document, a database)."""
        return None

    def turn_states(self, path: Path) -> Iterator[Session]:
        """For a source read whole (no :meth:`line_parser`): the session as it stood at
        the end of each turn, oldest first, then :meth:`parse`'s result (see
        :func:`driftguard.adapters.turn_snapshots`). By default the prefixes of the
        remembered messages that end before each typed prompt, with the context of the
        latest usage in the prefix (characters ÷ 4 without one, docs/design.md §5.3) and the
        compactions of the whole session: a file rewritten whole keeps no earlier state.
        A source whose store keeps what a compaction dropped overrides it.

        Raises:
            SessionFormatError, SessionNotFoundError: as :meth:`parse`.
        """
        yield from prefix_snapshots(self.parse(path))

    def store_files(self, path: Path) -> tuple[Path, ...]:
        """For a locator, the files whose change means the session may have changed (a
        database and its write-ahead log); ``()`` for a session file, which is its own."""
        return ()

    # ---------------------------------------------------------------- tool calls

    @abstractmethod
    def tool_kind(self, name: str, command: str | None = None) -> ToolKind:
        """What a call of the tool ``name`` (with the shell command line ``command``)
        does; the parsers set it on every :class:`~driftguard.model.ToolCall`."""

    # ---------------------------------------------------------------- compaction

    @abstractmethod
    def usable_window(
        self, window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
    ) -> UsableWindow:
        """Where this CLI compacts a session whose model has ``window`` tokens (> 0), with
        the overrides ``settings`` hold (:meth:`compaction_settings`).

        ``window_from_file``: ``window`` is what the session file reports (Codex reports
        95 % of the model's); ``False`` when the user or a config named the model's.
        """

    def compaction_settings(
        self, *, env: Mapping[str, str], home: Path, project: Path | None
    ) -> dict[str, HostSetting]:
        """The environment variables and settings that move this CLI's compaction point
        (only those that are set), the model's window among them; ``project``'s own
        settings files count where the CLI reads them. Never raises for a missing or
        broken file."""
        return {}

    def nominal_window(
        self, session: Session, settings: Mapping[str, HostSetting]
    ) -> NominalWindow:
        """The model's context window for ``session`` when neither the user nor the host
        named it, with the environment and settings ``settings`` hold
        (:meth:`compaction_settings`). By default the session's own window, told by the
        file and the model name; a CLI whose models may run with either of two windows
        says which it assumes (Claude Code's 200k or 1M)."""
        return NominalWindow(session.context_window)


class Finder(Protocol):
    """What a file-based adapter's ``_find`` module provides (a module satisfies it)."""

    def session_folders(self) -> list[Path]:
        """The folders holding the source's session files."""

    def newest(self, project: ProjectPaths) -> Candidate | None:
        """The project's current session file."""

    def sessions(self, project: ProjectPaths) -> Iterator[Candidate]:
        """The project's session files, newest first."""

    def search_places(self, project: ProjectPaths, label: str) -> list[str]:
        """Where :meth:`newest` looks, one line each, labelled ``label``."""

    def by_id(self, query: IdQuery) -> Iterator[Path]:
        """The session files of any project the query names."""


class FileAdapter(Adapter):
    """A CLI that writes one file per session: its discovery is its ``_find`` module
    (:attr:`finder`), its tools' kinds :attr:`tool_kinds`."""

    finder: ClassVar[Finder]
    """The module that finds the source's session files."""
    tool_kinds: ClassVar[ToolKinds]
    """The source's tool names by kind (what its parser sets on every call)."""

    def session_folders(self) -> list[Path]:
        return self.finder.session_folders()

    def newest(self, project: ProjectPaths) -> Found | None:
        found = self.finder.newest(project)
        return Found(found.path, found.time_ns) if found is not None else None

    def sessions(self, project: ProjectPaths) -> Iterator[Found]:
        for found in self.finder.sessions(project):
            yield Found(found.path, found.time_ns)

    def search_places(self, project: ProjectPaths) -> list[str]:
        return self.finder.search_places(project, self.label)

    def by_id(self, query: IdQuery) -> Iterator[Path]:
        return self.finder.by_id(query)

    def tool_kind(self, name: str, command: str | None = None) -> ToolKind:
        return self.tool_kinds.of(name, command)

    def foreign_lines(self, path: Path) -> int | None:
        if self.line_parser(path) is None:
            return None
        lines = 0
        try:
            with open_session_file(path) as stream:
                for line, _ in iter_lines(stream):
                    if not line.strip():
                        continue
                    lines += 1
                    record = load_record(line)
                    if record is not None and self.claim(record) is not None:
                        return None
        except OSError as exc:
            raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc
        return lines or None


def prefix_snapshots(session: Session) -> Iterator[Session]:
    """The turns of a session read whole (:meth:`Adapter.turn_states`' default), then
    ``session``: each prefix of its messages that ends before a typed prompt (not the
    first), with the context of the latest usage in it, else characters ÷ 4."""
    messages = session.messages
    prompts = [i for i, m in enumerate(messages) if m.role == "user" and not m.is_summary]
    for end in prompts[1:]:
        prefix = messages[:end]
        usage = next((m.token_count for m in reversed(prefix) if m.token_count), None)
        tokens = usage if usage is not None else sum(len(m.content) for m in prefix) // 4
        yield dataclasses.replace(
            session, messages=prefix, context_tokens=tokens, tokens_estimated=usage is None
        )
    yield session
