"""Dump ``driftguard score FILE --json`` for every corpus file and the demo, or compare two
dumps byte for byte: the check that a change to speed changes no result.

Usage::

    python scripts/score_dump.py dump OUT_DIR [--corpus DIR]
    python scripts/score_dump.py compare BEFORE_DIR AFTER_DIR

``dump`` runs the installed ``driftguard`` (``python -m driftguard`` of this interpreter)
once per file and variant, each in a fresh scratch ``HOME`` and ``DRIFTGUARD_HOME`` (no
history, no stored goal, no host settings, nothing of the real home read or written) with
a scratch working directory and an environment holding only ``PATH``. Variants:

- ``default``: ``driftguard score FILE --json``;
- ``goal``: with ``--goal`` :data:`GOAL` (goal distance through TF-IDF);
- ``seed-goal``: with ``--preset seed --goal`` :data:`GOAL` (the seed formulas);

and the demo (``driftguard score --demo --json``, with and without the goal). The variant
``raw`` prints, in process, the unrounded factors, composite and measures (``repr``) of
``score_session`` under the ``coding`` and ``seed`` presets, with and without the goal: a
check finer than the JSON's one decimal (the measures but ``goal_drift``, the g2
definition, which the shipped calibration does not use and no longer computes). Each file's
stdout, stderr and exit code are written to ``OUT_DIR/<variant>/<name>.out``; ``compare``
prints every file whose bytes differ and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"  # ../shared beside the project
GOAL = "keep the parser's error handling correct and its tests green"
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "goal": ["--goal", GOAL],
    "seed-goal": ["--preset", "seed", "--goal", GOAL],
}


RAW = """
import sys
from pathlib import Path
from driftguard.adapters import parse_session
from driftguard.presets import load_preset
from driftguard.engine.drift import score_session
MEASURED = (
    "conversation_tokens", "overlap", "loop", "slope", "corrections", "hedge_rise",
    "goal_distance_seed",
)
try:
    session = parse_session(Path(sys.argv[1]))
except Exception as exc:
    sys.exit(f"{type(exc).__name__}: {exc}")
for preset in ("coding", "seed"):
    config = load_preset(preset)
    for goal in (None, sys.argv[2]):
        report = score_session(session, weights=config.weights, goal=goal, scoring=config.scoring)
        print(preset, goal is not None, repr(report.composite), repr(dict(report.factors)))
        measures = report.measures
        if measures is not None:  # g2 is computed only when the calibration uses it
            print(", ".join(f"{name}={getattr(measures, name)!r}" for name in MEASURED))

"""


def _run(arguments: list[str], raw: bool = False) -> bytes:
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        env = {
            "HOME": str(home),
            "DRIFTGUARD_HOME": str(home / "state"),
            "PATH": os.environ.get("PATH", ""),
        }
        command = (
            [sys.executable, "-c", RAW, *arguments]
            if raw
            else [sys.executable, "-m", "driftguard", "score", *arguments, "--json"]
        )
        done = subprocess.run(
            command,
            capture_output=True,
            env=env,
            cwd=scratch,
            check=False,
        )
    return (
        b"exit "
        + str(done.returncode).encode()
        + b"\n--- stdout\n"
        + done.stdout
        + b"--- stderr\n"
        + done.stderr
    )


def dump(out: Path, corpus: Path) -> int:
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
    for variant, extra in VARIANTS.items():
        folder = out / variant
        folder.mkdir(parents=True, exist_ok=True)
        for path in files:
            name = str(path.relative_to(corpus)).replace("/", "__") + ".out"
            (folder / name).write_bytes(_run([str(path), *extra]))
        if variant != "seed-goal":
            # The demo's path is where driftguard is installed: the same file either way.
            demo = re.sub(
                rb'"path": "[^"]*/demo-session', b'"path": "<demo>', _run(["--demo", *extra])
            )
            (folder / "DEMO.out").write_bytes(demo)
    folder = out / "raw"
    folder.mkdir(parents=True, exist_ok=True)
    for path in files:
        name = str(path.relative_to(corpus)).replace("/", "__") + ".out"
        (folder / name).write_bytes(_run([str(path), GOAL], raw=True))
    print(f"{len(files)} files × {len(VARIANTS) + 1} variants (+ demo) dumped to {out}")
    return 0


def compare(before: Path, after: Path) -> int:
    names = sorted({p.relative_to(before) for p in before.rglob("*.out")})
    names_after = sorted({p.relative_to(after) for p in after.rglob("*.out")})
    differing = [n for n in names if (after / n).read_bytes() != (before / n).read_bytes()]
    missing = sorted(set(names) ^ set(names_after))
    for name in differing:
        print(f"differs: {name}")
    for name in missing:
        print(f"only in one dump: {name}")
    print(f"{len(names)} outputs compared: {len(differing)} differ, {len(missing)} unmatched")
    return 1 if differing or missing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("dump")
    one.add_argument("out", type=Path)
    one.add_argument("--corpus", type=Path, default=CORPUS)
    two = commands.add_parser("compare")
    two.add_argument("before", type=Path)
    two.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.corpus)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
