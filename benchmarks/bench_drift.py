"""Time ``get_drift`` end to end, through the real MCP client over stdio (design.md §9).

Not a unit test. Usage::

    python benchmarks/bench_drift.py [--megabytes 45] [--repeats 5] [--keep DIR]

Generates a synthetic Claude Code session of about 45 MB with
``benchmarks/gen_claude_session.py`` (thousands of turns, split responses, large tool
results), then, for each of two scenarios (without and with a goal) on a fresh server
process (``python -m driftguard serve``, what ``driftguard serve`` runs):

- **start + initialize**: from spawning the server to the end of the MCP handshake
  (``Client(...).__aenter__``, legacy ``initialize`` as real hosts do);
- **cold get_drift**: the first ``tools/call`` on that fresh process (parses the whole file);
- **warm get_drift**: a repeat call after one more turn was appended to the file (parses only
  the new lines); the median and the slowest of ``--repeats`` appends;
- **peak RSS**: the server process's ``VmHWM`` from ``/proc`` (Linux), after those calls.

The session is passed explicitly (``session=<path>``), so discovery is not timed; it lies in
Claude Code's session folder of each scenario's temporary home
(``<home>/.claude/projects/-bench/``), since over MCP a session path must lie in a session
folder (issue #9 item 2). With ``--keep DIR`` it is written to ``DIR`` instead, which the
temporary home's ``~/.driftclirc`` then lists in ``sessionFolders``. Times are wall clock
(``time.perf_counter``) as the client sees them, JSON-RPC round trip included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_claude_session import TARGET_BYTES, SessionWriter, generate  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

GOAL = "keep the job scheduler's retry logic correct and its tests green"


@dataclass
class Figures:
    """One scenario's measurements, in seconds and megabytes."""

    start: float
    cold: float
    warm: list[float]
    peak_mb: float | None
    score: int
    messages: int


def _server_pid(parent: int) -> int | None:
    """The pid of our child process running ``driftguard serve`` (Linux ``/proc``)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"driftguard" in cmdline:
            return int(entry.name)
    return None


def _peak_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _params(home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "driftguard", "serve"],
        env={
            "HOME": str(home),
            "DRIFTGUARD_HOME": str(home / ".driftcli"),
            "PATH": os.environ.get("PATH", ""),
        },
        cwd=str(home),
    )


async def _scenario(writer: SessionWriter, home: Path, goal: str | None, repeats: int) -> Figures:
    arguments: dict[str, str] = {"session": str(writer.path)}
    if goal is not None:
        arguments["goal"] = goal
    began = time.perf_counter()
    async with Client(stdio_client(_params(home), errlog=sys.stderr), mode="legacy") as client:
        start = time.perf_counter() - began
        began = time.perf_counter()
        result = await client.call_tool("get_drift", arguments)
        cold = time.perf_counter() - began
        if result.is_error or result.structured_content is None:
            raise SystemExit(f"get_drift failed: {result.content}")
        warm: list[float] = []
        for _ in range(repeats):
            writer.write_turn()
            began = time.perf_counter()
            result = await client.call_tool("get_drift", arguments)
            warm.append(time.perf_counter() - began)
        peak = _peak_mb(_server_pid(os.getpid()))
        data = result.structured_content or {}
    return Figures(
        start=start,
        cold=cold,
        warm=warm,
        peak_mb=peak,
        score=int(data.get("score", -1)),
        messages=int(data.get("messages", -1)),
    )


def _session_folder(home: Path, keep: Path | None) -> Path:
    """Where the scenario's session goes: Claude Code's session folder of ``home``, or
    ``keep``, which ``home``'s ``~/.driftclirc`` then lists in ``sessionFolders`` (over MCP
    the server reads session files only in such folders)."""
    if keep is None:
        folder = home / ".claude" / "projects" / "-bench"
    else:
        folder = keep.resolve()
        config = {"sessionFolders": [str(folder)]}
        (home / ".driftclirc").write_text(json.dumps(config), encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=TARGET_BYTES / 1e6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the session here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        rows = []
        for label, goal in (("no goal", None), ("with goal", GOAL)):
            home = Path(tempfile.mkdtemp(dir=scratch))
            folder = _session_folder(home, args.keep)
            writer = generate(
                folder / f"bench-{label.replace(' ', '-')}.jsonl",
                target_bytes=int(args.megabytes * 1e6),
            )
            figures = asyncio.run(_scenario(writer, home, goal, args.repeats))
            rows.append((label, writer.bytes / 1e6, figures))
        print(
            f"{'scenario':<10} {'size':>7} {'start+init':>10} {'cold call':>10} "
            f"{'warm median':>12} {'warm max':>9} {'peak RSS':>9}  score/messages"
        )
        for label, size, f in rows:
            peak = f"{f.peak_mb:.0f} MB" if f.peak_mb is not None else "n/a"
            print(
                f"{label:<10} {size:>5.1f}MB {f.start:>9.3f}s {f.cold:>9.3f}s "
                f"{statistics.median(f.warm) * 1000:>10.1f}ms {max(f.warm) * 1000:>7.1f}ms "
                f"{peak:>9}  {f.score}/{f.messages}"
            )


if __name__ == "__main__":
    main()
