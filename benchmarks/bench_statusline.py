"""Time the live-feedback commands as whole processes. Not a unit test.

Usage: ``python benchmarks/bench_statusline.py [--runs 20] [--megabytes 45] [--keep DIR]``

Each figure is the wall-clock time (``time.perf_counter``) of one complete process — start,
imports, work, exit — as Claude Code runs it, with its JSON payload on stdin:

- ``statusline``, **cache hit**: the stop hook has cached a score for the session (the
  target is < 100 ms; Claude Code cancels a status line that is still running when the
  next update comes, 300 ms debounce);
- ``statusline``, **no cache**: the first status line of a session, which scores the
  transcript on the spot when it is at most ``ON_THE_SPOT_BYTES`` (45 MB is above: the
  line then says the score follows the turn);
- ``--spot-sizes 1,5,10 …``: the same first status line, scoring on the spot, for
  sessions of those sizes (MB) — the measurement that sets
  ``driftguard.live.statusline.ON_THE_SPOT_BYTES`` (the time must stay under Claude Code's
  300 ms, after which it cancels the command). The processes run with the threshold
  lifted (a ``python -c`` wrapper sets the constant before ``driftguard statusline``
  runs), so sizes above today's threshold are timed too;
- ``hook user-prompt-submit`` (runs before every prompt and delays it), and
  ``hook session-start`` (writes the pointer);
- ``hook stop`` on a ~45 MB Claude Code session (``gen_claude_session.py``): a cold,
  whole-file parse and score in a fresh process, since no parse state is kept between
  hook processes; with its peak RSS;
- ``watch``: under a pseudo-terminal, the time from appending one turn to the 45 MB
  session to the end of the redrawn frame (file event, debounce, incremental read,
  score, draw). POSIX only.

The processes run ``driftguard`` from the running interpreter's environment (the console
script beside ``sys.executable``, else ``python -m driftguard``), with ``DRIFTGUARD_HOME``
in a scratch folder. ``python -c pass`` is shown as the floor of any Python process here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SESSION_ID = "b3e1c2d4-5f60-4a7b-8c9d-0e1f2a3b4c5d"


def _driftguard() -> list[str]:
    beside = Path(sys.executable).parent / "driftguard"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "driftguard"]


def _timed(argv: Sequence[str], stdin: bytes, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed, done.stdout.decode("utf-8", "replace").strip()


def _series(argv: Sequence[str], stdin: bytes, env: dict[str, str], runs: int) -> list[float]:
    _timed(argv, stdin, env)  # warm the OS file cache first
    return [_timed(argv, stdin, env)[0] for _ in range(runs)]


def _row(label: str, times: list[float], extra: str = "") -> None:
    ms = sorted(t * 1000 for t in times)
    print(f"{label:<44} {statistics.median(ms):8.1f} {ms[0]:8.1f} {ms[-1]:8.1f}   {extra}".rstrip())


def _status_payload(transcript: Path) -> bytes:
    """A status-line payload of the current shape (docs/formats.md §A.13), values our own."""
    return json.dumps(
        {
            "session_id": SESSION_ID,
            "transcript_path": str(transcript),
            "cwd": str(transcript.parent),
            "model": {"id": "claude-opus-4-8[1m]", "display_name": "Opus 4.8"},
            "workspace": {"current_dir": str(transcript.parent)},
            "version": "2.1.197",
            "context_window": {
                "total_input_tokens": 871_000,
                "context_window_size": 1_000_000,
                "used_percentage": 87.1,
            },
        }
    ).encode()


def _last_reply(path: Path) -> str:
    from driftguard.adapters import parse_session

    return parse_session(path).assistant_texts[-1]


def _watch_latency(command: list[str], path: Path, writer: object, env: dict[str, str]) -> float:
    """Seconds from appending one turn to the end of the next frame, under a pty."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    child = subprocess.Popen(
        [*command, "watch", str(path)], stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    seen = b""

    def read_until_frame_end(deadline: float) -> None:
        nonlocal seen
        seen = b""
        while b"\x1b[J" not in seen:
            if time.monotonic() > deadline:
                raise SystemExit("watch drew no frame in time")
            if select.select([master], [], [], 0.05)[0]:
                seen += os.read(master, 1 << 16)

    try:
        read_until_frame_end(time.monotonic() + 60)  # the first frame: a cold parse
        time.sleep(0.5)
        started = time.perf_counter()
        writer.write_turn()  # type: ignore[attr-defined]
        read_until_frame_end(time.monotonic() + 30)
        return time.perf_counter() - started
    finally:
        child.terminate()
        child.wait()
        os.close(master)


_SPOT_WRAPPER = (
    "import sys, driftguard.live.statusline as s, driftguard.cli as c; "
    "s.ON_THE_SPOT_BYTES = 10**12; sys.exit(c.main(['statusline']))"
)
"""A ``driftguard statusline`` process with the on-the-spot size limit lifted."""


def _spot_series(sizes: Sequence[float], runs: int, scratch: Path) -> None:
    """Time the first status line (nothing cached: scored on the spot) per session size."""
    from gen_claude_session import generate

    print(f"{'statusline, no cache, scored on the spot':<44} {'median':>8} {'min':>8} {'max':>8}")
    for megabytes in sizes:
        folder = scratch / f"spot-{megabytes:g}"
        folder.mkdir()
        path = folder / f"{SESSION_ID}.jsonl"
        writer = generate(path, int(megabytes * 1e6))
        env = {**os.environ, "DRIFTGUARD_HOME": str(folder / "state"), "NO_COLOR": "1"}
        argv = [sys.executable, "-c", _SPOT_WRAPPER]
        times = _series(argv, _status_payload(path), env, runs)
        shown = _timed(argv, _status_payload(path), env)[1]
        _row(f"  {writer.bytes / 1e6:.1f} MB, {writer.turns} turns", times, shown)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="runs of each short command")
    parser.add_argument("--megabytes", type=float, default=45.0, help="session size (MB)")
    parser.add_argument("--keep", type=Path, help="write the session here and keep it")
    parser.add_argument(
        "--spot-sizes",
        type=lambda text: [float(part) for part in text.split(",")],
        help="only time the first status line scoring on the spot, for these sizes (MB)",
    )
    args = parser.parse_args(argv)
    from gen_claude_session import generate

    if args.spot_sizes:
        with tempfile.TemporaryDirectory() as scratch:
            _spot_series(args.spot_sizes, args.runs, Path(scratch))
        return
    command = _driftguard()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "DRIFTGUARD_HOME": str(Path(scratch) / "state"), "NO_COLOR": "1"}
        path = folder / f"{SESSION_ID}.jsonl"
        writer = generate(path, int(args.megabytes * 1e6))
        print(f"session: {writer.bytes / 1e6:.1f} MB, {writer.turns} turns; {' '.join(command)}")
        print(f"{'whole process':<44} {'median':>8} {'min':>8} {'max':>8}   (ms)")
        _row("python -c pass (floor)", _series([sys.executable, "-c", "pass"], b"", env, args.runs))

        status = _status_payload(path)
        miss = _series([*command, "statusline"], status, env, args.runs)
        _row(
            f"statusline, no cache ({writer.bytes / 1e6:.0f} MB)",
            miss,
            _timed([*command, "statusline"], status, env)[1],
        )

        stop_payload = json.dumps(
            {
                "session_id": SESSION_ID,
                "transcript_path": str(path),
                "cwd": str(folder),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": _last_reply(path),
            }
        ).encode()
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        stops = [_timed([*command, "hook", "stop"], stop_payload, env)[0] for _ in range(3)]
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        scale = 1 if sys.platform == "darwin" else 1024
        rss = f"peak RSS {max(before, after) * scale / 1e6:.0f} MB (largest child so far)"
        _row(f"hook stop, {writer.bytes / 1e6:.0f} MB session (3 runs)", stops, rss)

        hit = _series([*command, "statusline"], status, env, args.runs)
        _row("statusline, cache hit", hit, _timed([*command, "statusline"], status, env)[1])

        prompt = json.dumps(
            {"session_id": SESSION_ID, "hook_event_name": "UserPromptSubmit", "prompt": "go on"}
        ).encode()
        _row(
            "hook user-prompt-submit",
            _series([*command, "hook", "user-prompt-submit"], prompt, env, args.runs),
        )
        start = json.dumps(
            {
                "session_id": SESSION_ID,
                "transcript_path": str(path),
                "cwd": str(folder),
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        ).encode()
        _row(
            "hook session-start",
            _series([*command, "hook", "session-start"], start, env, args.runs),
        )

        if sys.platform != "win32":
            latency = [_watch_latency(command, path, writer, env) for _ in range(3)]
            _row("watch: append a turn -> frame redrawn (3 runs)", latency)


if __name__ == "__main__":
    main()
