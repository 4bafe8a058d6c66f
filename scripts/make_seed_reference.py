"""Record what the seed engine said about every corpus session and the demo.

Usage (with driftguard 0.1.0 — main @ 03ab330, the engine before the calibrated scoring —
installed in the running Python)::

    python scripts/make_seed_reference.py ../shared/corpus > tests/fixtures/seed_reference.json

For each session file under the corpus folder (the request logs, turn summaries and status
line payloads are not sessions) and for the shipped demo, it scores the file as
``driftguard score FILE --json`` does, in an empty temporary home, and keeps only the
numbers: score, state, factors (as shown and unrounded), the unrounded composite, weights,
messages, handoff_suggested and the session's token figures. No text of the corpus goes
into the output. ``tests/test_seed_preset.py`` checks that ``--preset seed`` reproduces
them exactly.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

NUMBERS = ("score", "state", "factors", "weights", "messages", "handoff_suggested")
SESSION_NUMBERS = (
    "context_tokens",
    "context_window",
    "tokens_estimated",
    "compactions",
    "skipped_lines",
)
NOT_SESSIONS = (".requests.jsonl", ".turns.json", ".meta.json", "PROVENANCE.md")
GOAL = "Fix the failing parser tests and document the session format"
"""The goal of the ``<name> [goal]`` entries: each session is scored without and with it."""


def session_files(corpus: Path) -> list[Path]:
    """The corpus's session files, sorted by relative path."""
    return sorted(
        path
        for path in corpus.rglob("*")
        if path.is_file()
        and path.suffix in (".jsonl", ".json", ".zst")
        and not path.name.endswith(NOT_SESSIONS)
        and "statusline" not in path.parent.name
    )


def score(path: Path, goal: str | None = None) -> dict[str, Any]:
    """The numbers of ``driftguard score PATH --json [--goal GOAL]``, or the error it gave
    (nothing is recorded, so a goal is never remembered from one entry to the next)."""
    from driftguard.adapters import parse_session
    from driftguard.engine.drift import drift
    from driftguard.errors import DriftguardError
    from driftguard.render.text import to_json_dict
    from driftguard.store.history import HistoryStore

    try:
        session = parse_session(path)
        report = drift(
            session,
            project=None,
            store=HistoryStore(Path(os.environ["HOME"]) / "h"),
            goal=goal,
            record=False,
        ).report
    except DriftguardError as exc:
        return {"error": type(exc).__name__}
    payload = to_json_dict(report)
    out = {key: payload[key] for key in NUMBERS}
    out["session"] = {key: payload["session"][key] for key in SESSION_NUMBERS}
    out["composite"] = report.composite  # unrounded, as are the next
    out["unrounded_factors"] = dict(report.factors)
    return out


def main() -> int:
    corpus = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as home:
        os.environ["HOME"] = home
        os.environ["DRIFTGUARD_HOME"] = str(Path(home) / ".driftcli")
        from importlib import resources

        demo = Path(str(resources.files("driftguard.demo").joinpath("demo-session.jsonl")))
        files = {str(p.relative_to(corpus)): p for p in session_files(corpus)}
        files["<demo>"] = demo
        result = {}
        for name, path in files.items():
            result[name] = score(path)
            result[f"{name} [goal]"] = score(path, GOAL)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
