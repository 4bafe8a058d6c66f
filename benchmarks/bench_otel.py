"""Time what the OpenTelemetry export (driftguard.telemetry, docs/telemetry.md) adds to a
recorded score. Not a unit test.

Usage: ``python benchmarks/bench_otel.py [--runs 15] [--megabytes 0.5]``

Needs the ``[otel]`` extra. Two measurements, each with the export off (no ``OTEL_*``
variable), on with a collector that answers (a local HTTP server that accepts every OTLP
request), on with the collector down (a closed port) and on with a collector that accepts
connections and never answers:

- **in process**: the time :func:`driftguard.telemetry.emit_recorded` takes to return (what
  a hook, a tool call or ``driftguard score`` waits for), and the time until the export is
  done or given up (:func:`driftguard.telemetry.flush`), after one warm-up export (the
  SDK's import is paid once per process);
- **whole process**: a fresh Python process that parses a synthetic Claude Code session
  (``gen_claude_session.py``, with compactions), scores it and hands the score to
  telemetry, then exits — as the stop hook does after every turn. The difference from the
  "off" row is what the export costs a hook (the SDK's import, the export, and at worst the
  wait at exit, bounded by the 1 s budget).

Figures are medians of ``--runs`` runs (wall clock, ``time.perf_counter``), in ms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SCRIPT = """
import sys, time
from pathlib import Path
from driftguard import paths, telemetry
from driftguard.engine import drift as engine
from driftguard.adapters import parse_session
from driftguard.store.history import HistoryStore
session = parse_session(Path(sys.argv[1]), "claude_code")
outcome = engine.drift(session, project=None, store=HistoryStore(), record=False)
telemetry.emit_recorded(
    outcome.report, config=outcome.config, recorded_at=time.time(), state_dir=paths.state_dir()
)
"""


class _Accept(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@contextlib.contextmanager
def collector() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Accept)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def down() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def hanging() -> Iterator[str]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(1)
        for connection in held:
            connection.close()
        server.close()


@contextlib.contextmanager
def off() -> Iterator[str]:
    yield ""


CASES = {
    "off": off,
    "on, collector up": collector,
    "on, collector down": down,
    "on, collector hangs": hanging,
}


def environment(endpoint: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["DRIFTGUARD_HOME"] = str(home / ".driftcli")
    env["HOME"] = str(home)
    if endpoint:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    return env


def in_process(session: Path, runs: int, home: Path) -> None:
    from driftguard import paths, telemetry
    from driftguard.adapters import parse_session
    from driftguard.engine import drift as engine
    from driftguard.store.history import HistoryStore

    os.environ["DRIFTGUARD_HOME"] = str(home / ".driftcli")
    outcome = engine.drift(
        parse_session(session, "claude_code"), project=None, store=HistoryStore(), record=False
    )
    print(f"in process ({runs} runs, ms)          return   done")
    for name, case in CASES.items():
        with case() as endpoint:
            for key in [k for k in os.environ if k.startswith("OTEL_")]:
                del os.environ[key]
            if endpoint:
                os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
            returned, done = [], []
            for run in range(runs + 1):
                telemetry._reset()
                start = time.perf_counter()
                telemetry.emit_recorded(
                    outcome.report,
                    config=outcome.config,
                    recorded_at=time.time(),
                    state_dir=paths.state_dir(),
                )
                middle = time.perf_counter()
                telemetry.flush(5)
                end = time.perf_counter()
                if run:  # the first pays the SDK's import
                    returned.append((middle - start) * 1000)
                    done.append((end - start) * 1000)
            print(f"  {name:<28} {statistics.median(returned):8.2f} {statistics.median(done):8.1f}")
    telemetry._reset()


def whole_process(session: Path, runs: int, home: Path) -> None:
    print(f"whole process: parse, score, hand over, exit ({runs} runs, ms)")
    baseline = None
    for name, case in CASES.items():
        with case() as endpoint:
            env = environment(endpoint, home)
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                result = subprocess.run(
                    [sys.executable, "-c", SCRIPT, str(session)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                times.append((time.perf_counter() - start) * 1000)
                if result.returncode != 0:
                    raise SystemExit(result.stderr)
            median = statistics.median(times)
            baseline = median if baseline is None else baseline
            print(f"  {name:<28} {median:8.1f}  (+{median - baseline:6.1f})  max {max(times):7.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--megabytes", type=float, default=0.5)
    args = parser.parse_args(argv)
    from gen_claude_session import generate

    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        session = home / "session.jsonl"
        generate(session, int(args.megabytes * 1e6), compact_every=20)
        print(f"session: {session.stat().st_size / 1e6:.2f} MB, python {sys.version.split()[0]}")
        in_process(session, args.runs, home)
        whole_process(session, args.runs, home)


if __name__ == "__main__":
    main()
