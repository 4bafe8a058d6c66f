"""``driftguard.scoring`` is cheap to import: its public names load on first use, numpy
only in the factors that compute with it."""

from __future__ import annotations

import json
import subprocess
import sys

import driftguard.scoring


def _imported_after(statement: str, watched: tuple[str, ...]) -> list[str]:
    code = (
        f"import json, sys\n{statement}\n"
        f"print(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_the_loops_and_the_formatting_load_neither_the_composite_nor_numpy() -> None:
    watched = ("numpy", "driftguard.scoring.composite", "driftguard.adapters")
    statement = "import driftguard.scoring.loops, driftguard.format"
    assert _imported_after(statement, watched) == []


def test_the_public_names_load_on_first_use_and_numpy_does_not() -> None:
    watched = ("numpy", "driftguard.scoring.composite")
    statement = "from driftguard.scoring import score_session"
    assert _imported_after(statement, watched) == ["driftguard.scoring.composite"]


def test_every_public_name_is_there() -> None:
    assert all(hasattr(driftguard.scoring, name) for name in driftguard.scoring.__all__)
    assert set(driftguard.scoring.__all__) <= set(dir(driftguard.scoring))
