"""Codex CLI: its rollout files, where they live, and where it compacts.

``README.md`` beside this file describes the source format; :mod:`._parse` reads one
rollout (its docstring: the generations, record types read and the token semantics),
:mod:`._find` finds a project's rollouts, :mod:`._compaction` gives the usable window.
:data:`ADAPTER` is what the registry (:mod:`driftguard.adapters`) holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Final

from driftguard.adapters._base import Claim, FileAdapter, Finder
from driftguard.adapters._common import ToolKinds
from driftguard.adapters.codex_cli import _compaction, _find
from driftguard.adapters.codex_cli._find import root
from driftguard.adapters.codex_cli._parse import (
    DEFAULT_CONTEXT_WINDOW,
    TOOL_KINDS,
    CodexCliParser,
    parse,
)
from driftguard.compaction.window import HostSetting, UsableWindow
from driftguard.labels import HOST_LABELS
from driftguard.model import CliName, Session

__all__ = [
    "ADAPTER",
    "DEFAULT_CONTEXT_WINDOW",
    "TOOL_KINDS",
    "CodexCli",
    "CodexCliParser",
    "parse",
    "root",
]

_ENVELOPE_TYPES: Final = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"}
)
"""Top-level ``type`` values of G2/G3 lines that tell a rollout at once."""
_BARE_ITEM_TYPES: Final = frozenset(
    {"message", "function_call", "function_call_output", "reasoning"}
)
"""ResponseItem types a bare G1 line may have: Codex's when nothing surer claims it."""


class CodexCli(FileAdapter):
    """Codex CLI's ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]`` files."""

    name: ClassVar[CliName] = "codex_cli"
    finder: ClassVar[Finder] = _find
    tool_kinds: ClassVar[ToolKinds] = TOOL_KINDS
    label: ClassVar[str] = HOST_LABELS["codex_cli"]

    def claim(self, record: dict[str, Any]) -> Claim | None:
        kind = record.get("type")
        if not isinstance(kind, str):
            kind = None  # an array or object "type" is no type (and cannot be looked up)
        if isinstance(record.get("payload"), dict) and kind in _ENVELOPE_TYPES:
            return "sure"
        if "record_type" in record or (
            # Codex first generation: bare SessionMeta, then bare ResponseItems.
            "instructions" in record and "id" in record and "type" not in record
        ):
            return "sure"
        if kind in _BARE_ITEM_TYPES:
            return "likely"
        return None

    def is_session_file_of(self, path: Path, session_id: str) -> bool:
        """A rollout under ``sessions/`` or ``archived_sessions/`` whose name ends with the
        thread id (``rollout-<time>-<id>.jsonl[.zst]``, docs/real-clis.md §3): not a fork's or a
        subagent's rollout replaying its parent's ``session_meta``, not a copy elsewhere."""
        stem = path.name.split(".", 1)[0]
        return stem.startswith("rollout-") and stem.endswith(f"-{session_id}") and self.holds(path)

    def path_hint(self, path: Path) -> bool:
        return path.name.startswith("rollout-")

    def is_session_name(self, name: str) -> bool:
        return name.endswith((".jsonl", ".zst"))

    def parse(self, path: Path) -> Session:
        return parse(path)

    def line_parser(self, path: Path) -> CodexCliParser:
        return CodexCliParser(str(path))

    def usable_window(
        self, window: int, settings: Mapping[str, HostSetting], *, window_from_file: bool
    ) -> UsableWindow:
        return _compaction.usable_window(window, settings, window_from_file=window_from_file)

    def compaction_settings(
        self, *, env: Mapping[str, str], home: Path, project: Path | None
    ) -> dict[str, HostSetting]:
        return _compaction.compaction_settings(env, home)


ADAPTER = CodexCli()
"""The Codex CLI adapter the registry holds."""
