"""Time ``driftguard report`` as a whole process (< 3 s for 45 MB). Not a
unit test.

Usage: ``python benchmarks/bench_report.py [--megabytes 1 10 45] [--runs 5] [--keep DIR]``

For each size, a synthetic Claude Code session (``gen_claude_session.py``, deterministic)
is written, then ``driftguard report SESSION -o PAGE`` runs ``--runs`` times after one
warm-up run (which fills the OS file cache): the wall-clock time of each complete process
(``time.perf_counter`` around it: start, imports, one pass over the file scoring every
turn, the page, exit), and the peak RSS of the children. The table gives the median, the
fastest and the slowest, the turns charted and the page's size. One in-process breakdown
per size follows: reading the turn snapshots alone, and the series scored over them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _driftguard() -> list[str]:
    beside = Path(sys.executable).parent / "driftguard"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "driftguard"]


def _breakdown(session: Path) -> tuple[float, float, int]:
    """Seconds to read the snapshots alone, seconds for the scored series, turns."""
    from driftguard.adapters import turn_snapshots
    from driftguard.engine import drift as engine
    from driftguard.store.history import HistoryStore

    started = time.perf_counter()
    turns = sum(1 for _ in turn_snapshots(session))
    read = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as scratch:
        store = HistoryStore(Path(scratch))
        started = time.perf_counter()
        for _ in engine.series(turn_snapshots(session), project_for=lambda _: None, store=store):
            pass
        scored = time.perf_counter() - started
    return read, scored, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, nargs="+", default=[1, 10, 45])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the sessions here and keep them")
    args = parser.parse_args()

    import gen_claude_session

    folder = args.keep or Path(tempfile.mkdtemp(prefix="driftguard-bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DRIFTGUARD_HOME": str(folder / "state")}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; sessions in {folder}")
    print(f"{'session':<10} {'median s':>9} {'min s':>7} {'max s':>7} {'turns':>6} {'page':>8}")
    for size in args.megabytes:
        session = folder / f"report-{size:g}mb.jsonl"
        if not session.exists():
            gen_claude_session.generate(session, target_bytes=int(size * 1_000_000))
        page = folder / f"report-{size:g}mb.html"
        argv = [*_driftguard(), "report", str(session), "-o", str(page)]
        times = []
        for run in range(args.runs + 1):
            started = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, env=env, check=False)
            elapsed = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr!r}")
            if run:
                times.append(elapsed)
        turns = done.stdout.decode().split(": ", 1)[1].split(" turn", 1)[0]
        print(
            f"{session.stat().st_size / 1e6:>6.1f} MB {statistics.median(times):>9.2f} "
            f"{min(times):>7.2f} {max(times):>7.2f} {turns:>6} {page.stat().st_size / 1e3:>6.0f} kB"
        )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the report processes: {peak:.0f} MB")
    for size in args.megabytes:
        read, scored, turns = _breakdown(folder / f"report-{size:g}mb.jsonl")
        print(
            f"in process, {size:g} MB: turn snapshots alone {read:.2f} s; "
            f"snapshots scored by engine.series {scored:.2f} s ({turns} turns)"
        )


if __name__ == "__main__":
    main()
