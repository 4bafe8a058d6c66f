"""No module outside ``adapters/`` knows a session source's layout or records:
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
import tomllib
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
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_DISABLE_1M_CONTEXT",
    "[1m]",
)
"""What moves a host's compaction point, its model's window included."""


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


# The layers of the installed package, from the ground up: a module may import its own
# wing and any wing on a lower floor, never one on its own floor or above. Each wing's
# ``__init__`` docstring says the same in words.
FLOORS: tuple[tuple[str, ...], ...] = (
    (
        "model",
        "errors",
        "paths",
        "_fileio",
        "_process",
        "_values",
        "_version",
        "terminal",
        "secrets",
        "text",
        "format",
        "jsonc",
        "labels",
        "demo",
    ),
    ("presets",),
    ("config",),
    ("compaction",),
    ("scoring", "adapters"),
    ("sessions",),
    ("store", "render", "telemetry"),
    ("engine",),
    ("setup_scripts",),
    ("live", "server"),
    ("cli",),
    ("__init__", "__main__"),
)
"""Floors, lowest first; the wings on one floor do not import each other."""
GROUND = FLOORS[0]
"""The ground modules import one another freely: each is a leaf of the standard library
and its third-party dependencies with at most a lazy import of another."""
_FLOOR_OF = {wing: floor for floor, wings in enumerate(FLOORS) for wing in wings}
_FOLDERS = {"driftguard": "driftguard", "adapters": "adapters", "presets": "presets"}
_FOLDERS["setup_scripts"] = "setup_scripts"


def _installed_name(path: Path) -> str:
    """``driftguard.<…>`` as the module installs (pyproject's package-dir mapping)."""
    relative = path.relative_to(REPO_ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[0] != "driftguard":
        parts.insert(0, "driftguard")
    if parts[-1] == "__init__" and len(parts) > 1 and parts != ["driftguard", "__init__"]:
        parts.pop()
    return ".".join(parts)


def _wing(module: str) -> str:
    """The wing of an installed module name: ``driftguard.engine.drift`` → ``engine``."""
    parts = module.split(".")
    if module == "driftguard.__init__" or module == "driftguard":
        return "__init__"
    return parts[1]


def _package_modules() -> list[Path]:
    paths = [*_modules("driftguard"), *_modules("adapters"), *_modules("presets")]
    return [*paths, *_modules("setup_scripts")]


def _imported_modules(path: Path) -> list[str]:
    """Every ``driftguard.*`` module the file imports, at any depth (lazy imports and
    ``TYPE_CHECKING`` blocks included); ``from driftguard.x import y`` counts as
    ``driftguard.x.y`` when ``y`` is a module of the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _installed_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("driftguard")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("driftguard"):
                continue
            for alias in node.names:
                if base == "driftguard" and alias.name.startswith("__"):
                    continue  # the package's own metadata (``__version__``), not a module
                found.append(f"{base}.{alias.name}" if base == "driftguard" else base)
    return found


def _upward_imports() -> list[str]:
    wrong = []
    for path in _package_modules():
        name = _installed_name(path)
        wing = "__init__" if path == REPO_ROOT / "driftguard" / "__init__.py" else _wing(name)
        if name == "driftguard.__main__":
            wing = "__main__"
        for target in _imported_modules(path):
            other = _wing(target)
            if other == wing or (wing in GROUND and other in GROUND):
                continue
            if _FLOOR_OF[other] >= _FLOOR_OF[wing]:
                wrong.append(f"{path.relative_to(REPO_ROOT)} ({wing}) imports {target} ({other})")
    return wrong


def test_every_module_of_the_package_has_a_floor() -> None:
    wings = {_wing(_installed_name(path)) for path in _package_modules()}
    assert wings - set(_FLOOR_OF) == set()


def test_no_module_imports_a_wing_on_its_own_floor_or_above() -> None:
    assert _upward_imports() == []


def test_each_wing_says_in_its_docstring_what_it_may_import() -> None:
    for folder in ("compaction", "sessions", "store", "render", "engine", "live", "server"):
        text = (REPO_ROOT / "driftguard" / folder / "__init__.py").read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        assert "may import" in doc.lower(), folder
    for folder in ("cli", "scoring"):
        text = (REPO_ROOT / "driftguard" / folder / "__init__.py").read_text(encoding="utf-8")
        assert "import" in (ast.get_docstring(ast.parse(text)) or ""), folder


def test_the_layer_check_sees_an_import_that_looks_up() -> None:
    engine_file = REPO_ROOT / "driftguard" / "engine" / "drift.py"
    tree_imports = _imported_modules(engine_file)
    assert all(_wing(name) != "cli" for name in tree_imports)
    assert _FLOOR_OF["cli"] > _FLOOR_OF["engine"] > _FLOOR_OF["store"] > _FLOOR_OF["scoring"]


def test_every_package_folder_of_the_source_is_listed_for_the_wheel() -> None:
    # setuptools builds only the packages pyproject names: a wing folder left out is
    # missing from the wheel while every test of the source tree still passes.
    with (REPO_ROOT / "pyproject.toml").open("rb") as file:
        setuptools = tomllib.load(file)["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    folders = {
        _installed_name(init.parent / "__init__.py").removesuffix(".__init__")
        for folder in _FOLDERS.values()
        for init in (REPO_ROOT / folder).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert folders - listed == set(), "add these to [tool.setuptools] packages"
    assert listed - folders - set(setuptools["package-dir"]) == set()
