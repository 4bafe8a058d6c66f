"""The README's example outputs are what the program prints today (issue #8: every number
in them changed with the calibrated scoring). ``python scripts/readme_examples.py``
regenerates them."""

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


def test_every_example_output_in_the_readme_is_what_the_program_prints() -> None:
    script = _script()
    current = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.MARKER.findall(current), "no marked examples found"
    assert script.regenerate(current) == current, (
        "README examples are stale: run python scripts/readme_examples.py"
    )


def test_the_examples_show_the_demo_by_a_path_that_names_no_machine() -> None:
    current = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "…/site-packages/driftguard/demo/demo-session.jsonl" in current
    assert str(ROOT) not in current
