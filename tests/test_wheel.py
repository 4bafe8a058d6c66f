"""The built wheel, installed in a clean virtual environment, is the whole product.

Builds the wheel from this tree, installs it (runtime dependencies only, no dev tools) in
a fresh venv, then imports every module, loads every preset and runs the console script
the way a new user would.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT, corpus_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean venv with the freshly built wheel installed; returns its bin folder."""
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO_ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("driftguard_mcp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_folders = ("adapters/", "presets/", "setup_scripts/", "tests/")
    assert not any(name.startswith(top_folders) for name in names), (
        "the wheel must install only the driftguard package"
    )
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
    )
    return bin_dir


def _source_modules() -> set[str]:
    """Every module of the source tree by the name it installs under (``adapters/x.py`` →
    ``driftguard.adapters.x``; pyproject's package-dir mapping), but ``__main__``."""
    names = set()
    for folder in ("driftguard", "adapters", "presets", "setup_scripts"):
        for path in (REPO_ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
            if parts[0] != "driftguard":
                parts.insert(0, "driftguard")
            if parts[-1] == "__init__":
                parts.pop()
            if parts[-1] != "__main__" and "__pycache__" not in parts:
                names.add(".".join(parts))
    return names


def run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_the_installed_wheel_imports_every_module_and_loads_every_preset(
    installed: Path, tmp_path: Path
) -> None:
    script = (
        "import importlib, pkgutil, driftguard\n"
        "from driftguard.presets import PRESET_NAMES, load_preset\n"
        "mods = [m.name for m in pkgutil.walk_packages(driftguard.__path__, 'driftguard.')\n"
        "        if not m.name.endswith('__main__')]\n"
        "for m in mods: importlib.import_module(m)\n"
        "presets = {n: sum(load_preset(n).weights.values()) for n in PRESET_NAMES}\n"
        "print(sorted(mods)); print(presets)\n"
    )
    result = run(installed, "python", "-c", script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    modules = set(ast.literal_eval(result.stdout.splitlines()[0]))
    installed_names = modules | {"driftguard"}  # walk_packages lists what is below it
    assert _source_modules() - installed_names == set(), "source modules not installed"
    presets = result.stdout.splitlines()[1]
    for name in ("coding", "research", "brainstorm", "strict"):
        assert f"'{name}'" in presets


def test_the_installed_console_script_scores_the_demo(installed: Path, tmp_path: Path) -> None:
    result = run(installed, "driftguard", "score", "--demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Score: " in result.stdout
    assert "/100" in result.stdout


def test_the_installed_console_script_scores_a_corpus_file_as_json(
    installed: Path, tmp_path: Path
) -> None:
    session = corpus_file("claude_code/cc_v1.0.98_ccviewer_1af7fc5e.jsonl")
    result = run(installed, "driftguard", "score", "--json", str(session), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["session"]["cli"] == "claude_code"
    assert report["session"]["path"] == str(session)
    assert 0 <= report["score"] <= 100


def test_the_installed_wheel_has_both_console_scripts(installed: Path, tmp_path: Path) -> None:
    assert (installed / "driftguard-mcp").is_file()
    result = run(installed, "driftguard", "--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for command in ("score", "trend", "handoff", "serve"):
        assert command in result.stdout


def test_the_installed_console_script_registers_itself_with_setup(
    installed: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "DRIFTGUARD_HOME": str(home / ".driftcli")}
    result = subprocess.run(
        [str(installed / "driftguard"), "setup", "--host", "gemini_cli"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    settings = json.loads((home / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    entry = settings["mcpServers"]["driftguard"]
    assert entry["command"] == str(installed / "driftguard")  # the venv's own script
    assert entry["args"] == ["serve"]
