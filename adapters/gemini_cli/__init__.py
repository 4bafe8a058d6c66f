"""Gemini CLI: its session files, where they live, and where it compresses.

``README.md`` beside this file describes the source format; :mod:`._parse` reads one file
(its docstring: the record types read and the token semantics), :mod:`._find` finds a
project's sessions, :mod:`._compaction` gives the usable window. :data:`ADAPTER` is what
the registry (:mod:`driftguard.adapters`) holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Final

from driftguard.adapters._base import Claim, FileAdapter, Finder
from driftguard.adapters._common import ToolKinds
from driftguard.adapters._scan import ProjectPaths
from driftguard.adapters.gemini_cli import _compaction, _find
from driftguard.adapters.gemini_cli._find import project_hash, root
from driftguard.adapters.gemini_cli._parse import (
    GEMINI_CONTEXT_WINDOW,
    TOOL_KINDS,
    GeminiCliParser,
    decode_legacy,
    is_legacy_session,
    is_legacy_session_file,
    legacy_document_by_member,
    parse,
)
from driftguard.compaction.window import HostSetting, UsableWindow
from driftguard.labels import HOST_LABELS
from driftguard.model import CliName, Session

__all__ = [
    "ADAPTER",
    "GEMINI_CONTEXT_WINDOW",
    "TOOL_KINDS",
    "GeminiCli",
    "GeminiCliParser",
    "decode_legacy",
    "is_legacy_session",
    "legacy_document_by_member",
    "parse",
    "project_hash",
    "root",
]

_MESSAGE_TYPES: Final = frozenset({"user", "gemini", "info", "error", "warning"})


class GeminiCli(FileAdapter):
    """Gemini CLI's ``~/.gemini/tmp/<project>/chats/session-*.jsonl`` (and legacy
    ``.json``) files."""

    name: ClassVar[CliName] = "gemini_cli"
    finder: ClassVar[Finder] = _find
    tool_kinds: ClassVar[ToolKinds] = TOOL_KINDS
    label: ClassVar[str] = HOST_LABELS["gemini_cli"]

    def project_folders(self, project: ProjectPaths) -> list[Path]:
        """The ``chats`` folder of each of the project's ``tmp/<projectId>`` folders."""
        return [folder / "chats" for folder in _find.project_folders(project)]

    def claim(self, record: dict[str, Any]) -> Claim | None:
        if "$set" in record or "$rewindTo" in record or "projectHash" in record:
            return "sure"
        kind = record.get("type")
        if (
            isinstance(kind, str)
            and kind in _MESSAGE_TYPES
            and isinstance(record.get("id"), str)
            and "uuid" not in record
        ):
            return "sure"
        return None

    def is_session_file_of(self, path: Path, session_id: str) -> bool:
        """A chats file under ``tmp/<project>/chats/`` named after the id:
        ``session-<time>-<first 8 of the id>.json[l]`` (a ``--resume`` stub and a legacy
        ``.json``'s ``.jsonl`` twin included: the same session), or a subagent's
        ``chats/<parent>/<id>.jsonl``; not a copy elsewhere."""
        name = path.name
        if name.startswith("session-") and name.endswith((".jsonl", ".json")):
            named = name.removesuffix(".jsonl").removesuffix(".json").rsplit("-", 1)[-1]
            own = len(named) == 8 and session_id.startswith(named)
        else:
            own = path.suffix == ".jsonl" and path.stem == session_id
        return own and self.holds(path)

    def path_hint(self, path: Path) -> bool:
        return "/chats/" in path.as_posix() or path.name.startswith("session-")

    def sniff_whole(self, path: Path) -> bool | None:
        """A ``.json`` file is a legacy session or no session at all
        (:func:`is_legacy_session_file`)."""
        return is_legacy_session_file(path) if path.suffix == ".json" else None

    def is_session_name(self, name: str) -> bool:
        return name.endswith((".jsonl", ".json"))

    def parse(self, path: Path) -> Session:
        return parse(path)

    def line_parser(self, path: Path) -> GeminiCliParser | None:
        """``None`` for a legacy ``.json`` (one object, rewritten whole on every change)."""
        return None if path.suffix == ".json" else GeminiCliParser(str(path))

    def usable_window(
        self, window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
    ) -> UsableWindow:
        return _compaction.usable_window(window, settings)

    def compaction_settings(
        self, *, env: Mapping[str, str], home: Path, project: Path | None
    ) -> dict[str, HostSetting]:
        return _compaction.compaction_settings(env, home, project)


ADAPTER = GeminiCli()
"""The Gemini CLI adapter the registry holds."""
