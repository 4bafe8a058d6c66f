"""Time parsing and scoring of a large Claude Code session (docs/design.md §9). Not a unit test.

Usage: ``python benchmarks/bench_parse.py [--megabytes 45] [--turns 5] [--keep DIR]``

Generates a synthetic ~45 MB session with ``gen_claude_session.py`` plus a few more turns,
then measures, each scenario in a fresh Python process (so that its peak RSS is its own):

- ``parse_session``: a cold whole-file parse (:func:`driftguard.adapters.parse_session`);
- ``cold get+score``: the first :meth:`SessionCache.get_indexed` and ``score_session`` with
  its features on the file (what the server's first ``get_drift`` costs before MCP and
  history overhead; numpy's import included, as there);
- ``warm get+score``: after one more turn is appended to the file, ``get_indexed`` (which
  parses only the new lines and updates the features from the new messages) and
  ``score_session``; the median and the slowest of ``--turns`` such appends are shown;
- ``unchanged get+score``: a repeat call on a file that did not change.

Times are wall-clock seconds (``time.perf_counter``) and CPU seconds of the process
(``time.process_time``, all threads: numpy's BLAS pool spins for a moment after import,
so CPU can exceed wall time; ``OPENBLAS_NUM_THREADS=1`` removes that), with imports done
beforehand (the import time is shown on its own; numpy loads on the first score). Peak
RSS is ``resource.getrusage`` ``ru_maxrss`` of the measuring process, imports included.
Unix only (``resource``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SCENARIOS = ("parse", "cache")


def _peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def _measure(scenario: str, path: Path, base_size: int, turn_ends: list[int]) -> dict[str, Any]:
    """Run one scenario in this process; return its figures."""
    started = time.perf_counter()
    from driftguard.adapters import parse_session
    from driftguard.engine.drift import score_session
    from driftguard.presets import load_preset
    from driftguard.scoring import DriftReport
    from driftguard.sessions.incremental import SessionCache

    weights = load_preset("coding").weights
    imported = time.perf_counter() - started
    with path.open("r+b") as fh:  # back to the base session; the turns come later
        fh.seek(base_size)
        appended = fh.read()
        fh.truncate(base_size)
    result: dict[str, Any] = {"import": imported}

    def timed(work: Callable[[], object]) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        return time.perf_counter() - wall, time.process_time() - cpu

    if scenario == "parse":
        result["parse"] = timed(lambda: parse_session(path))
    else:
        cache = SessionCache()

        def get_and_score() -> DriftReport:
            indexed = cache.get_indexed(path)
            return score_session(indexed.session, weights=weights, features=indexed.features)

        result["cold"] = timed(get_and_score)
        report = get_and_score()
        result["score"], result["messages"] = report.score, report.messages
        result["unchanged"] = timed(get_and_score)
        warm: list[tuple[float, float]] = []
        done = base_size
        for end in turn_ends:
            with path.open("ab") as out:
                out.write(appended[done - base_size : end - base_size])
            done = end
            warm.append(timed(get_and_score))
        result["warm"] = warm
    with path.open("r+b") as fh:  # leave the file whole for the next scenario
        fh.seek(base_size)
        fh.write(appended)
    result["peak_rss_mb"] = _peak_rss_mb()
    return result


def _run_child(scenario: str, path: Path, base_size: int, turn_ends: list[int]) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--child",
        scenario,
        str(path),
        str(base_size),
        *map(str, turn_ends),
    ]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--megabytes", type=float, default=45.0, help="session size (MB)")
    parser.add_argument("--turns", type=int, default=5, help="turns appended for warm calls")
    parser.add_argument("--keep", type=Path, help="write the session here and keep it")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        scenario, raw_path, raw_base, *raw_ends = args.child
        figures = _measure(scenario, Path(raw_path), int(raw_base), [int(e) for e in raw_ends])
        print(json.dumps(figures))
        return

    from gen_claude_session import generate

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "bench-session.jsonl"
        started = time.perf_counter()
        writer = generate(path, int(args.megabytes * 1e6))
        base_size, base_turns = writer.bytes, writer.turns
        turn_ends = []
        for _ in range(args.turns):
            writer.write_turn()
            turn_ends.append(writer.bytes)
        generated = time.perf_counter() - started
        print(
            f"session: {base_size / 1e6:.1f} MB, {base_turns} turns "
            f"(+{args.turns} appended, {(writer.bytes - base_size) / args.turns / 1e3:.0f} KB "
            f"each); generated in {generated:.1f} s"
        )
        parse = _run_child("parse", path, base_size, turn_ends)
        cache = _run_child("cache", path, base_size, turn_ends)

    warm = sorted(cache["warm"])
    rows = [
        ("imports (driftguard)", (parse["import"], None), None),
        ("parse_session, cold", parse["parse"], parse["peak_rss_mb"]),
        ("cold  get_indexed + score_session", cache["cold"], cache["peak_rss_mb"]),
        ("unchanged file: get + score", cache["unchanged"], None),
        (f"warm  get + score, median of {len(warm)}", warm[len(warm) // 2], None),
        ("warm  get + score, slowest", warm[-1], None),
    ]
    print(f"messages scored: {cache['messages']}, score {cache['score']}")
    print(f"{'what':<42} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
    for label, (wall, cpu), rss in rows:
        cpu_text = f"{cpu:8.4f}" if cpu is not None else f"{'':8}"
        rss_text = f"{rss:12.0f}" if rss is not None else f"{'':12}"
        print(f"{label:<42} {wall:8.4f} {cpu_text} {rss_text}")


if __name__ == "__main__":
    main()
