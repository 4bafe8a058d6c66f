"""The example outputs in the README and docs/ are what the program prints today.
``python scripts/readme_examples.py`` regenerates them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_examples", ROOT / "scripts" / "readme_examples.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["readme_examples"] = module
    spec.loader.exec_module(module)
    return module


def test_every_example_output_in_the_docs_is_what_the_program_prints() -> None:
    script = _script()
    marked = 0
    for path in script.documents():
        current = path.read_text(encoding="utf-8")
        marked += len(script.MARKER.findall(current))
        assert script.regenerate(current) == current, (
            f"{path.relative_to(ROOT)}: examples are stale: run python scripts/readme_examples.py"
        )
    assert marked, "no marked examples found"


def test_the_readme_shows_what_the_demo_prints() -> None:
    current = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- output: driftguard score --demo -->" in current


def test_the_examples_show_the_demo_by_a_path_that_names_no_machine() -> None:
    script = _script()
    for path in script.documents():
        current = path.read_text(encoding="utf-8")
        if script.MARKER.search(current):
            assert "…/site-packages/driftguard/demo/demo-session.jsonl" in current, path.name
        assert str(ROOT) not in current, path.name
