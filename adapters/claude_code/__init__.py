"""Claude Code: its session files, where they live, and where it compacts.

``README.md`` beside this file describes the source format; :mod:`._parse` reads one file
(its docstring: the record types read and the token semantics), :mod:`._find` finds a
project's sessions, :mod:`._window` chooses the model's window (200k or 1M) and
:mod:`._compaction` gives the usable window. :data:`ADAPTER` is what
the registry (:mod:`driftguard.adapters`) holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from driftguard.adapters._base import Claim, FileAdapter, Finder
from driftguard.adapters._common import ToolKinds
from driftguard.adapters._scan import ProjectPaths
from driftguard.adapters.claude_code import _compaction, _find, _window
from driftguard.adapters.claude_code._find import project_dir_name, roots
from driftguard.adapters.claude_code._parse import (
    RECORD_TYPES,
    TOOL_KINDS,
    ClaudeCodeParser,
    parse,
)
from driftguard.compaction.window import HostSetting, NominalWindow, UsableWindow
from driftguard.labels import HOST_LABELS
from driftguard.model import CliName, Session

__all__ = [
    "ADAPTER",
    "RECORD_TYPES",
    "TOOL_KINDS",
    "ClaudeCode",
    "ClaudeCodeParser",
    "parse",
    "project_dir_name",
    "roots",
]


class ClaudeCode(FileAdapter):
    """Claude Code's ``~/.claude/projects/<project>/<session-id>.jsonl`` files."""

    name: ClassVar[CliName] = "claude_code"
    finder: ClassVar[Finder] = _find
    tool_kinds: ClassVar[ToolKinds] = TOOL_KINDS
    label: ClassVar[str] = HOST_LABELS["claude_code"]

    def project_folders(self, project: ProjectPaths) -> list[Path]:
        return _find.project_folders(project)

    def search_places(self, project: ProjectPaths) -> list[str]:
        """Each folder, and under it how many files there were passed over as another
        folder's (their ``cwd``): a file copied into the project's folder, or a project
        whose folder name collides, would otherwise leave "no session found" unexplained."""
        return _find.search_places(project, self.label, _find.passed_over(project))

    def session_in_project(self, project: ProjectPaths, session_id: str) -> Path | None:
        return _find.session_in_project(project, session_id)

    def is_session_file_of(self, path: Path, session_id: str) -> bool:
        """``<project folder>/<session id>.jsonl`` under a ``projects`` folder: not a
        subagent's transcript (``agent-*.jsonl``, or in ``<session>/subagents/``, whose
        lines name the parent's ``sessionId``; docs/formats.md §A.1, corpus
        ``tree_v2.1.114_subagents``), not a copy elsewhere."""
        return (
            path.stem == session_id
            and path.suffix == ".jsonl"
            and path.parent.name != "subagents"
            and self.holds(path)
        )

    def session_id_from_path(self, path: Path) -> str | None:
        """A session file is named ``<session id>.jsonl`` (a subagent's ``agent-<id>``)."""
        return path.stem

    def claim(self, record: dict[str, Any]) -> Claim | None:
        kind = record.get("type")
        if (isinstance(kind, str) and kind in RECORD_TYPES) or (
            "uuid" in record or "leafUuid" in record
        ):
            return "sure"
        return None

    def path_hint(self, path: Path) -> bool:
        text = path.as_posix()
        return ("/projects/" in text and ".claude" in text) or path.name.startswith("agent-")

    def is_session_name(self, name: str) -> bool:
        return name.endswith(".jsonl")

    def parse(self, path: Path) -> Session:
        return parse(path)

    def line_parser(self, path: Path) -> ClaudeCodeParser:
        return ClaudeCodeParser(str(path))

    def usable_window(
        self, window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
    ) -> UsableWindow:
        return _compaction.usable_window(window, settings)

    def compaction_settings(
        self, *, env: Mapping[str, str], home: Path, project: Path | None
    ) -> dict[str, HostSetting]:
        return _compaction.compaction_settings(env, home, project)

    def nominal_window(
        self, session: Session, settings: Mapping[str, HostSetting]
    ) -> NominalWindow:
        return _window.model_window(session, settings)


ADAPTER = ClaudeCode()
"""The Claude Code adapter the registry holds."""
