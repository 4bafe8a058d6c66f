"""No module outside ``adapters/`` knows a session source's layout or records (issue #12):
where a CLI keeps its sessions, the variables that move them, the names of its records
and fields, and where it compacts are its adapter's to know. The rest of driftguard asks
the registry (``driftguard.adapters``). ``setup_scripts/`` keeps its knowledge of the
hosts' *config* files (and the variables that move those), but not of their sessions.

Checked on the code, not the prose: every string constant of every module but its
docstrings, and every import.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from conftest import REPO_ROOT

SOURCES = ("claude_code", "gemini_cli", "codex_cli", "cursor")
"""The per-source adapter packages."""

SESSION_LAYOUT: dict[str, tuple[str, ...]] = {
    "claude_code": (
        "projects",
        "agent-",
        "compact_boundary",
        "isCompactSummary",
        "isSidechain",
        "leafUuid",
        "isApiErrorMessage",
    ),
    "gemini_cli": (
        "chats",
        "projects.json",
        ".project_root",
        "$set",
        "$rewindTo",
        "projectHash",
        "<state_snapshot>",
        "toolCalls",
        "functionCall",
    ),
    "codex_cli": (
        "rollout-",
        "archived_sessions",
        "session_meta",
        "turn_context",
        "event_msg",
        "response_item",
        "token_count",
        "function_call",
        "*** Begin Patch",
    ),
    "cursor": (
        "state.vscdb",
        "cursorDiskKV",
        "ItemTable",
        "composerData",
        "bubbleId",
        "workspaceStorage",
        "globalStorage",
        "workspace.json",
        "toolFormerData",
    ),
}
"""Where each source's session files live and what its records are called."""

HOMES = (
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "GEMINI_CLI_HOME",
    "CODEX_HOME",
    "DRIFTGUARD_CURSOR_USER_DIR",
)
"""The variables that move a source's sessions."""

COMPACTION = (
    "autoCompactWindow",
    "autoCompactEnabled",
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "DISABLE_AUTO_COMPACT",
    "compressionThreshold",
    "model_auto_compact_token_limit",
)
"""What moves a host's compaction point."""


def _modules(folder: str) -> list[Path]:
    return sorted((REPO_ROOT / folder).rglob("*.py"))


CORE = _modules("driftguard")
SETUP = _modules("setup_scripts")


def _docstrings(tree: ast.Module) -> set[int]:
    nodes: list[ast.AST] = [tree]
    nodes += [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    nodes += [n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)]
    found: set[int] = set()
    for node in nodes:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            found.add(id(body[0].value))
    # the string right after an assignment documents it (attribute docstrings)
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for before, after in itertools.pairwise(block):
                if (
                    isinstance(before, ast.Assign | ast.AnnAssign)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                ):
                    found.add(id(after.value))
    return found


def _code_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [
        node.value if isinstance(node.value, str) else node.value.decode("latin-1")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str | bytes)
        and id(node) not in skip
    ]


def _mentions(text: str, marker: str) -> bool:
    """A plain word marks only as a whole string or a path segment; anything else as a
    substring."""
    if marker.isalpha() and marker.islower():
        return text == marker or f"/{marker}/" in text or text.endswith(f"/{marker}")
    return marker in text


def _found(paths: list[Path], markers: tuple[str, ...]) -> list[str]:
    return [
        f"{path.relative_to(REPO_ROOT)}: {marker!r} in {text[:60]!r}"
        for path in paths
        for text in _code_strings(path)
        for marker in markers
        if _mentions(text, marker)
    ]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


@pytest.mark.parametrize("source", SOURCES)
def test_no_core_module_names_a_sources_session_files_or_records(source: str) -> None:
    assert _found(CORE, SESSION_LAYOUT[source]) == []


def test_no_core_module_names_the_variables_that_move_a_sources_sessions() -> None:
    assert _found(CORE, HOMES) == []


def test_no_core_module_names_what_moves_a_hosts_compaction_point() -> None:
    assert _found(CORE, COMPACTION) == []


@pytest.mark.parametrize("source", SOURCES)
def test_setup_names_host_config_files_but_no_sessions_files_or_records(source: str) -> None:
    assert _found(SETUP, SESSION_LAYOUT[source]) == []


def test_no_core_module_imports_a_sources_own_package() -> None:
    owned = tuple(f"driftguard.adapters.{source}" for source in SOURCES)
    found = [
        f"{path.relative_to(REPO_ROOT)} imports {name}"
        for path in CORE
        for name in _imports(path)
        if name.startswith(owned)
    ]
    assert found == []


def test_the_check_sees_a_layout_written_in_code() -> None:
    module = ast.parse('ROOT = "~/.codex/sessions"\nNAME = "rollout-" + stamp\n')
    strings = [n.value for n in ast.walk(module) if isinstance(n, ast.Constant)]
    assert any(_mentions(s, "rollout-") for s in strings)
    assert _mentions("~/.claude/projects/x", "projects")
    assert not _mentions("the projects it was started for", "projects")
