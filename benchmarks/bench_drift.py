"""Time ``get_drift`` end to end beside the earlier tool, through the real MCP client over
stdio (docs/design.md §9). Not a unit test.

Usage::

    python benchmarks/bench_drift.py [--sizes 1 10 45 150] [--shapes whole compacting]
                                     [--pairs 5] [--appends 5]
                                     [--peer DIR | --no-peer | --baseline PYTHON]
                                     [--no-command] [--keep DIR]

For each size (MB) and shape a synthetic Claude Code session is generated
(``benchmarks/gen_claude_session.py``: thousands of turns, split responses, large tool
results) with ``--appends`` more turns kept aside. Shapes:

- **whole**: never compacted, so the model is taken to remember all it can: the worst
  case for time and memory, which no host reaches (Claude Code compacts a 200k window at
  167,000 tokens, passed here at about 7.8 MB; a 1M window at 967,000, at about 52 MB);
  past 8,388,608 characters of messages the parser lets the oldest go
  (``REMEMBERED_CHARS``, ``adapters/_common.py``);
- **compacting**: compacted as Claude Code compacts a 200k window on its own
  (``--compact-at 167000``: a ``compact_boundary`` and its summary whenever a turn begins
  past that point, about every 7.8 MB), so most of a long file lies before its last
  compaction, as in a real long session.

Then ``--pairs`` times, interleaved (driftguard then the peer, and one shape then the other,
the next pair the other way round), each server runs two scenarios, each on a fresh server
process and on the same bytes (the file is cut back to its base size before each):

- **plain**: start + initialize, the first ``get_drift``, then ``--appends`` times: one
  turn appended, ``get_drift`` again ("warm"); then the process's peak RSS;
- **goal**: the same with a goal passed on every call;

and, unless ``--no-command``, driftguard's command on the base file:
``driftguard score FILE --json`` as a whole process (``python -m driftguard``), its wall
time from spawn to exit and its peak RSS (``ru_maxrss`` of ``wait4``).

Figures (medians over the pairs; warm calls: over every warm call of every pair):

- **start + initialize**: from spawning the server to the end of the MCP handshake
  (``Client(...).__aenter__``, legacy ``initialize`` as real hosts do);
- **first call**: the first ``tools/call`` on the fresh process (parses the whole file);
- **warm call**: ``get_drift`` after one more turn was appended (median and slowest);
- **goal adds**: the goal scenario's figure minus the plain one's, first and warm;
- **peak RSS**: the server process's ``VmHWM`` from ``/proc`` (Linux) after its calls, and
  the memory growth ``(peak at the largest size − peak at the smallest) / (size
  difference in MB)``, per shape;
- **command**: ``driftguard score FILE --json``'s wall time and peak RSS;
- **driftguard's start-up imports**: ``python -X importtime`` self times of the modules
  ``driftguard serve`` imports before it answers ``initialize`` that
  ``import mcp.server.mcpserver, mcp.server.stdio`` does not (median of 5 runs), beside the
  cumulative time of that SDK import itself.

The peer is the earlier TypeScript tool, driftguard-mcp 0.1.13 (``../shared/peers/`` beside
the project, or ``--peer DIR``): copied to a scratch folder and its two dependencies
installed with ``npm install --ignore-scripts``, then run as ``node dist/bin.js`` pointed at
the same file (``DRIFTCLI_HOME``, ``DRIFTCLI_SESSION_ID``, ``DRIFTCLI_ADAPTER=claude``, as its
README says). Without it (or with ``--no-peer``) only driftguard runs, and the reason is
printed. It re-reads and re-scores the whole file on every call.

``--baseline PYTHON`` runs, in the peer's place, another driftguard: ``PYTHON -m driftguard``
of another interpreter (the virtual environment of another checkout, e.g. the main branch's
before a change), server and command alike, interleaved the same way; its figures fill the
peer's column and its commands are printed beside driftguard's.

Each session lies in Claude Code's session folder of the scenario's scratch home
(``<home>/.claude/projects/-bench/<session-id>.jsonl``): over MCP driftguard reads session
files only there, and the peer finds it there by its id. driftguard is
passed the path (``session=<path>``), so discovery is not timed. Times are wall clock
(``time.perf_counter``) as the client sees them, JSON-RPC round trip included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_claude_session import CLAUDE_CODE_COMPACTS_AT, generate  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

GOAL = "keep the job scheduler's retry logic correct and its tests green"
PEER_NAME = "driftguard-mcp-0.1.13"
DEFAULT_PEER = HERE.parent.parent / "shared" / "peers" / PEER_NAME
SDK_IMPORT = "import mcp.server.mcpserver, mcp.server.stdio"
SERVE_IMPORT = "import driftguard.cli, driftguard.server; driftguard.server.create_server()"
"""What ``driftguard serve`` imports and builds before it reads the first message."""
_PEER_SCORE = re.compile(r"Score: (\d+)/100 · (\d+) messages")


SHAPES: dict[str, int | None] = {"whole": None, "compacting": CLAUDE_CODE_COMPACTS_AT}
"""Each shape's ``compact_at`` (module doc)."""


@dataclass
class Session:
    """One generated session: its base bytes and the turns appended during a scenario."""

    path: Path
    session_id: str
    base: int
    turns: list[bytes]
    compactions: int = 0
    before_last_compaction: int = 0
    """Bytes of the base file before its last compaction's boundary."""

    def reset(self) -> None:
        """Cut the file back to its base size."""
        with self.path.open("r+b") as fh:
            fh.truncate(self.base)

    def append(self, index: int) -> None:
        with self.path.open("ab") as fh:
            fh.write(self.turns[index])


@dataclass
class Run:
    """One scenario on one fresh server process: seconds, and MB."""

    start: float
    first: float
    warm: list[float]
    peak_mb: float | None
    score: str


@dataclass
class CommandRun:
    """``driftguard score FILE --json`` once, as a whole process: seconds, and MB."""

    seconds: float
    peak_mb: float
    score: str


Key = tuple[float, str, str]
"""(size in MB, shape, scenario)."""


@dataclass
class Tool(ABC):
    """A server under test and its runs, keyed by (size in MB, shape, scenario)."""

    name: str
    runs: dict[Key, list[Run]] = field(default_factory=dict)

    @abstractmethod
    def params(self, home: Path, session: Session) -> StdioServerParameters:
        """How to start the server for ``session`` in the scratch ``home``."""

    @abstractmethod
    def arguments(self, session: Session, goal: str | None) -> dict[str, str]:
        """The ``get_drift`` arguments."""

    @abstractmethod
    def marker(self) -> bytes:
        """Bytes of the server's command line that find its process."""

    @abstractmethod
    def score(self, result: object) -> str:
        """``score/messages`` from a ``get_drift`` result."""


@dataclass
class Driftguard(Tool):
    python: str = sys.executable
    """The interpreter whose ``-m driftguard`` runs."""

    def params(self, home: Path, session: Session) -> StdioServerParameters:
        return StdioServerParameters(
            command=self.python,
            args=["-m", "driftguard", "serve"],
            env={
                "HOME": str(home),
                "DRIFTGUARD_HOME": str(home / ".driftcli"),
                "PATH": os.environ.get("PATH", ""),
            },
            cwd=str(home),
        )

    def arguments(self, session: Session, goal: str | None) -> dict[str, str]:
        arguments = {"session": str(session.path)}
        if goal is not None:
            arguments["goal"] = goal
        return arguments

    def marker(self) -> bytes:
        return b"driftguard"

    def score(self, result: object) -> str:
        data = getattr(result, "structured_content", None) or {}
        return f"{data.get('score')}/{data.get('messages')}"


class Peer(Tool):
    def __init__(self, folder: Path) -> None:
        super().__init__("peer")
        self.folder = folder

    def params(self, home: Path, session: Session) -> StdioServerParameters:
        return StdioServerParameters(
            command=shutil.which("node") or "node",
            args=[str(self.folder / "dist" / "bin.js")],
            env={
                "HOME": str(home),
                "DRIFTCLI_HOME": str(home),
                "DRIFTCLI_SESSION_ID": session.session_id,
                "DRIFTCLI_ADAPTER": "claude",
                "PATH": os.environ.get("PATH", ""),
            },
            cwd=str(home),
        )

    def arguments(self, session: Session, goal: str | None) -> dict[str, str]:
        return {} if goal is None else {"goal": goal}

    def marker(self) -> bytes:
        return str(self.folder / "dist" / "bin.js").encode()

    def score(self, result: object) -> str:
        texts = [getattr(c, "text", "") for c in getattr(result, "content", [])]
        found = _PEER_SCORE.search("\n".join(texts))
        return f"{found.group(1)}/{found.group(2)}" if found else "?"


def _server_pid(parent: int, marker: bytes) -> int | None:
    """The pid of our child process whose command line holds ``marker`` (Linux ``/proc``)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and marker in cmdline:
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


async def _scenario(tool: Tool, session: Session, home: Path, goal: str | None) -> Run:
    session.reset()
    arguments = tool.arguments(session, goal)
    began = time.perf_counter()
    async with Client(stdio_client(tool.params(home, session)), mode="legacy") as client:
        start = time.perf_counter() - began
        began = time.perf_counter()
        result = await client.call_tool("get_drift", arguments)
        first = time.perf_counter() - began
        if result.is_error:
            raise SystemExit(f"{tool.name}: get_drift failed: {result.content}")
        warm: list[float] = []
        for index in range(len(session.turns)):
            session.append(index)
            began = time.perf_counter()
            result = await client.call_tool("get_drift", arguments)
            warm.append(time.perf_counter() - began)
            if result.is_error:
                raise SystemExit(f"{tool.name}: get_drift failed: {result.content}")
        peak = _peak_mb(_server_pid(os.getpid(), tool.marker()))
        score = tool.score(result)
    return Run(start=start, first=first, warm=warm, peak_mb=peak, score=score)


_COMMAND = """
import atexit, runpy, sys
def _peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"\\npeak-kb {kb}\\n")
atexit.register(_peak)
sys.argv = ["driftguard", *sys.argv[1:]]
runpy.run_module("driftguard", run_name="__main__", alter_sys=True)
"""
"""``python -m driftguard`` that prints its own peak RSS (``VmHWM``) on stderr as it exits.
``ru_maxrss`` from ``wait4`` cannot be used: a child started with ``vfork`` (as
``subprocess`` does on Linux) counts the benchmark's own resident memory before its
``exec``."""


def _command(session: Session, home: Path, python: str = sys.executable) -> CommandRun:
    """Run ``driftguard score FILE --json`` on the base file as a whole process, with the
    interpreter ``python``."""
    session.reset()
    env = {
        "HOME": str(home),
        "DRIFTGUARD_HOME": str(home / ".driftcli"),
        "PATH": os.environ.get("PATH", ""),
    }
    command = [python, "-c", _COMMAND, "score", str(session.path), "--json"]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env=env, cwd=home, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(
            f"driftguard score failed ({done.returncode}) on {session.path}: {done.stderr[-300:]!r}"
        )
    peak = re.findall(rb"peak-kb (\d+)", done.stderr)
    data = json.loads(done.stdout)
    score = f"{data.get('score')}/{data.get('messages')}"
    return CommandRun(seconds, int(peak[-1]) / 1024 if peak else float("nan"), score)


def _session(home: Path, megabytes: float, appends: int, compact_at: int | None) -> Session:
    folder = home / ".claude" / "projects" / "-bench"
    folder.mkdir(parents=True, exist_ok=True)
    scratch = folder / "generating.jsonl"
    writer = generate(scratch, int(megabytes * 1e6), compact_at=compact_at)
    compactions, before = writer.compactions, writer.compacted_at
    session_id = writer.transcript.session_id
    base = writer.bytes
    ends = []
    for _ in range(appends):
        writer.write_turn()
        ends.append(writer.bytes)
    path = folder / f"{session_id}.jsonl"
    scratch.rename(path)
    data = path.read_bytes()[base:]
    starts = [base, *ends[:-1]]
    turns = [data[s - base : e - base] for s, e in zip(starts, ends, strict=True)]
    session = Session(path, session_id, base, turns, compactions, before)
    session.reset()
    return session


@contextmanager
def _peer(folder: Path | None, scratch: Path) -> Iterator[Peer | None]:
    """The peer copied to ``scratch`` with its dependencies, or ``None`` (reason printed)."""
    if folder is None:
        print("peer: skipped (--no-peer)")
        yield None
        return
    if not (folder / "dist" / "bin.js").is_file():
        print(f"peer: skipped: {folder} not found (the earlier tool lives in ../shared/peers/)")
        yield None
        return
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        print("peer: skipped: node and npm are needed to run the earlier tool")
        yield None
        return
    target = scratch / "peer"
    shutil.copytree(folder, target)
    done = subprocess.run(
        [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund"],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"peer: skipped: npm install failed: {done.stderr.strip()[-300:]}")
        yield None
        return
    version = subprocess.check_output([node, "--version"], text=True).strip()
    print(f"peer: {PEER_NAME} (node {version})")
    yield Peer(target)


def _import_times(code: str) -> dict[str, tuple[int, int]]:
    """Module → (self µs, cumulative µs) from ``python -X importtime -c code``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, tuple[int, int]] = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
        if match:
            found[match.group(3)] = (int(match.group(1)), int(match.group(2)))
    return found


def startup_imports(runs: int = 5) -> tuple[float, float, list[tuple[str, float]]]:
    """Milliseconds: driftguard's own start-up imports (median), the SDK import (median,
    cumulative), and the heaviest of driftguard's modules in the last run."""
    own: list[float] = []
    sdk: list[float] = []
    extra: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        base = _import_times(SDK_IMPORT)
        sdk.append(max(cumulative for _, cumulative in base.values()) / 1000)
        serve = _import_times(SERVE_IMPORT)
        extra = {name: t for name, t in serve.items() if name not in base}
        own.append(sum(t[0] for t in extra.values()) / 1000)
    heaviest = sorted(((n, t[0] / 1000) for n, t in extra.items()), key=lambda x: -x[1])[:8]
    return statistics.median(own), statistics.median(sdk), heaviest


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def _ratio(a: float, b: float | None) -> str:
    return f"{a / b:6.2f}" if b else "     -"


def report(
    tools: list[Tool],
    sizes: Sequence[float],
    shapes: Sequence[str],
    commands: dict[tuple[float, str], list[CommandRun]],
    baseline_commands: dict[tuple[float, str], list[CommandRun]] | None = None,
) -> None:
    """Print every figure of docs/design.md §9, per shape and size, with the ratio
    driftguard / peer; then the command's."""
    ours, peer = tools[0], (tools[1] if len(tools) > 1 else None)

    def fig(tool: Tool | None, size: float, shape: str, scenario: str, what: str) -> float | None:
        if tool is None:
            return None
        runs = tool.runs.get((size, shape, scenario), [])
        if not runs:
            return None
        if what == "start":
            return _median([r.start for r in runs])
        if what == "first":
            return _median([r.first for r in runs])
        if what == "warm":
            return _median([w for r in runs for w in r.warm])
        if what == "warm_max":
            return max(w for r in runs for w in r.warm)
        peaks = [r.peak_mb for r in runs if r.peak_mb is not None]
        return _median(peaks) if peaks else None

    rows = [
        ("start + initialize", "plain", "start", 1000),
        ("first get_drift", "plain", "first", 1000),
        ("warm get_drift, median", "plain", "warm", 1000),
        ("warm get_drift, slowest", "plain", "warm_max", 1000),
        ("first get_drift with a goal", "goal", "first", 1000),
        ("warm get_drift with a goal, median", "goal", "warm", 1000),
        ("peak RSS", "plain", "peak", 1),
        ("peak RSS with a goal", "goal", "peak", 1),
    ]
    for shape in shapes:
        print()
        print(f"shape: {shape}")
        print(
            f"{'figure (ms; RSS in MB)':<34} {'size':>6} {'driftguard':>10} "
            f"{peer.name if peer is not None else 'peer':>10} "
            f"{'ratio':>6}"
        )
        for label, scenario, what, scale in rows:
            for size in sizes:
                a = fig(ours, size, shape, scenario, what)
                b = fig(peer, size, shape, scenario, what)
                if a is None:
                    continue
                b_text = f"{b * scale:10.1f}" if b is not None else f"{'-':>10}"
                print(f"{label:<34} {size:>4g}MB {a * scale:10.1f} {b_text} {_ratio(a, b)}")
            print()
        for label, table in (("", commands), (" (baseline)", baseline_commands or {})):
            for size in sizes:
                runs = table.get((size, shape), [])
                if runs:
                    seconds = _median([r.seconds for r in runs]) * 1000
                    peak = _median([r.peak_mb for r in runs])
                    print(
                        f"{'command: score --json' + label:<34} {size:>4g}MB {seconds:10.1f} "
                        f"ms, peak RSS {peak:6.1f} MB"
                    )
        print("goal adds (goal scenario − plain), ms:")
        for size in sizes:
            parts = []
            for tool in tools:
                first = (fig(tool, size, shape, "goal", "first") or 0) - (
                    fig(tool, size, shape, "plain", "first") or 0
                )
                warm = (fig(tool, size, shape, "goal", "warm") or 0) - (
                    fig(tool, size, shape, "plain", "warm") or 0
                )
                parts.append(f"{tool.name}: first {first * 1000:+.1f}, warm {warm * 1000:+.1f}")
            print(f"  {size:>4g} MB  " + "; ".join(parts))
        lo, hi = min(sizes), max(sizes)
        if lo != hi:
            print(f"flatness, warm median at {hi:g} MB / at {lo:g} MB:")
            for tool in tools:
                for scenario in ("plain", "goal"):
                    a, b = (
                        fig(tool, hi, shape, scenario, "warm"),
                        fig(tool, lo, shape, scenario, "warm"),
                    )
                    if a and b:
                        print(f"  {tool.name:<10} {scenario:<5} {a / b:6.2f}")
            print(f"memory growth, (peak RSS at {hi:g} MB − at {lo:g} MB) / {hi - lo:g} MB:")
            for tool in tools:
                for scenario in ("plain", "goal"):
                    a, b = (
                        fig(tool, hi, shape, scenario, "peak"),
                        fig(tool, lo, shape, scenario, "peak"),
                    )
                    if a is not None and b is not None:
                        print(
                            f"  {tool.name:<10} {scenario:<5} {(a - b) / (hi - lo):6.3f} MB per MB"
                        )
            ends = [commands.get((size, shape), []) for size in (lo, hi)]
            if all(ends):
                a, b = (_median([r.peak_mb for r in runs]) for runs in ends)
                print(f"  command    score {(b - a) / (hi - lo):6.3f} MB per MB")
    print("scores (score/messages of the last call):")
    for tool in tools:
        for (size, shape, scenario), runs in sorted(tool.runs.items()):
            print(f"  {tool.name:<10} {size:>4g} MB {shape:<10} {scenario:<5} {runs[-1].score}")
    for (size, shape), command_runs in sorted(commands.items()):
        print(f"  command    {size:>4g} MB {shape:<10} score {command_runs[-1].score}")
    for (size, shape), command_runs in sorted((baseline_commands or {}).items()):
        print(f"  baseline   {size:>4g} MB {shape:<10} score {command_runs[-1].score}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10, 45, 150], metavar="MB")
    parser.add_argument(
        "--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES), help="(module doc)"
    )
    parser.add_argument("--pairs", type=int, default=5, help="interleaved runs of each server")
    parser.add_argument("--appends", type=int, default=5, help="turns appended, one per call")
    parser.add_argument("--peer", type=Path, default=DEFAULT_PEER, help="the earlier tool")
    parser.add_argument("--no-peer", action="store_true", help="run driftguard only")
    parser.add_argument(
        "--baseline",
        metavar="PYTHON",
        help="run another driftguard (this interpreter's -m driftguard) in the peer's place",
    )
    parser.add_argument(
        "--no-command", action="store_true", help="leave out `driftguard score FILE --json`"
    )
    parser.add_argument("--keep", type=Path, help="generate the sessions under this folder")
    args = parser.parse_args(argv)

    own, sdk, heaviest = startup_imports()
    print(
        f"start-up imports: driftguard's own {own:.1f} ms (median of 5, -X importtime self "
        f"times beyond `{SDK_IMPORT}`, which takes {sdk:.0f} ms)"
    )
    print("  heaviest: " + ", ".join(f"{name} {ms:.1f}" for name, ms in heaviest))
    commands: dict[tuple[float, str], list[CommandRun]] = {}
    baseline_commands: dict[tuple[float, str], list[CommandRun]] = {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        root = args.keep.resolve() if args.keep else scratch
        no_peer = args.no_peer or args.baseline is not None
        with _peer(None if no_peer else args.peer, scratch) as peer:
            tools: list[Tool] = [Driftguard("driftguard")]
            if peer is not None:
                tools.append(peer)
            if args.baseline is not None:
                tools.append(Driftguard("baseline", python=args.baseline))
            for size in args.sizes:
                homes = {shape: root / f"home-{size:g}MB-{shape}" for shape in args.shapes}
                sessions = {
                    shape: _session(homes[shape], size, args.appends, SHAPES[shape])
                    for shape in args.shapes
                }
                for shape, session in sessions.items():
                    print(
                        f"session {size:g} MB, {shape}: {session.base / 1e6:.1f} MB, "
                        f"{session.compactions} compactions, the last after "
                        f"{session.before_last_compaction / 1e6:.1f} MB; + {args.appends} "
                        f"turns of {sum(map(len, session.turns)) / len(session.turns) / 1e3:.0f} KB"
                    )
                # shapes interleaved too: the machine's load then weighs on both alike
                for pair in range(args.pairs):
                    shapes = args.shapes if pair % 2 == 0 else args.shapes[::-1]
                    for shape in shapes:
                        session, home = sessions[shape], homes[shape]
                        order = tools if pair % 2 == 0 else tools[::-1]
                        for tool in order:
                            for scenario, goal in (("plain", None), ("goal", GOAL)):
                                # no history, stored goal or state of an earlier run
                                shutil.rmtree(home / ".driftcli", ignore_errors=True)
                                run = asyncio.run(_scenario(tool, session, home, goal))
                                tool.runs.setdefault((size, shape, scenario), []).append(run)
                        if not args.no_command:
                            interpreters = [(commands, sys.executable)]
                            if args.baseline is not None:
                                interpreters.append((baseline_commands, args.baseline))
                            if pair % 2:
                                interpreters.reverse()
                            for table, python in interpreters:
                                shutil.rmtree(home / ".driftcli", ignore_errors=True)
                                table.setdefault((size, shape), []).append(
                                    _command(session, home, python)
                                )
                for shape, session in sessions.items():
                    session.reset()
                    if not args.keep:
                        shutil.rmtree(homes[shape], ignore_errors=True)  # a 1 GB file is not kept
    report(tools, args.sizes, args.shapes, commands, baseline_commands)


if __name__ == "__main__":
    main()
