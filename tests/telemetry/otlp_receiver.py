"""A real OTLP/HTTP receiver for the tests, on 127.0.0.1: it decodes what driftguard sends
with the ``opentelemetry-proto`` messages, as a collector would, and keeps the raw bytes
too (to search them for anything that must never leave). Also: a port nothing listens on,
a listener that never answers, a synthetic Claude Code session with secrets, paths and
text planted in it, and a runner of ``driftguard`` in a subprocess aimed at a receiver."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ledger_sessions import Event, claude_records

from driftguard.adapters.claude_code import project_dir_name

SESSION_ID = "3f6c2b1a-9d8e-4f70-8a6b-5c4d3e2f1a0b"
CWD = "/home/dev/project-zephyr"
PROJECT = "project-zephyr"
MODEL = "claude-sonnet-4-5-20250929"
SECRET_KEY = "sk-ant-api03-Qx7vT2mLp9Rk4Wz8Yb3Nc6Hd1Jf5Gs0Ae2Ui7Oy9Tr4Ew6Qa8Sd-AAAAAAAA"
PASSWORD = "Zq8vLw2Rt5Nx"
PLANTED_PATH = f"{CWD}/src/payments_internal.py"
PROMPT = (
    f"Fix the refund bug. The key is {SECRET_KEY}, never print it. "
    "PLANTED-PROMPT-TEXT see /home/dev/notes/zephyr-plan.txt"
)
SUMMARY = "Summary: PLANTED-SUMMARY-TEXT the refund code in src/payments_internal.py changed."
COMMAND = f"PGPASSWORD={PASSWORD} psql -h db.internal -U deploy zephyr_prod -c 'select 1'"
OUTPUT = "psql: PLANTED-OUTPUT-TEXT connection refused for user deploy"
SECOND_PROMPT = "Carry on: PLANTED-SECOND-PROMPT check the migration."
NEVER_SENT = (
    SECRET_KEY,
    PASSWORD,
    CWD,
    PROJECT,
    "zephyr",
    "payments_internal",
    "/home/dev",
    "PLANTED",
    "psql",
    "refund",
    "deploy",
)
"""Nothing of these may appear in any payload (``PROJECT`` only with otelIncludeProject)."""


def story(*, compactions: int = 1, loops: int = 1) -> list[Event]:
    """A session: a prompt with a key and a path, an edit, a compaction, a prompt, then a
    command holding a password failing 4 times in a row (a ``failing`` loop). Each further
    compaction adds a compaction and a prompt; each further loop a prompt and the same
    failing command again (after a new prompt: another loop)."""
    events = [
        Event("prompt", PROMPT),
        Event("edit", path=PLANTED_PATH),
        Event("reply", "Changed it.", tokens=150_000),
        Event("compact", SUMMARY, tokens=150_500),
    ]
    for extra in range(1, compactions):
        events += [
            Event("prompt", f"{SECOND_PROMPT} {extra}"),
            Event("reply", "Looked.", tokens=140_000),
            Event("compact", SUMMARY, tokens=150_500 + extra),
        ]
    for number in range(loops):
        events.append(Event("prompt", f"{SECOND_PROMPT} loop {number}"))
        events += [Event("shell", COMMAND, output=OUTPUT, failed=True)] * 4
        events.append(Event("reply", "The command still fails.", tokens=40_000))
    return events


def write_session(home: Path, events: list[Event]) -> Path:
    """The story as Claude Code writes it, where it keeps it (a session folder)."""
    records = claude_records(events, model=MODEL)
    for record in records:
        record["cwd"] = CWD
        record["sessionId"] = SESSION_ID
    folder = home / ".claude" / "projects" / project_dir_name(CWD)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@dataclass
class Received:
    """One request the receiver answered: its path, raw (decompressed) body, and the
    decoded message."""

    path: str
    body: bytes
    message: Any


@dataclass
class Receiver:
    """An OTLP/HTTP receiver on ``endpoint`` (``http://127.0.0.1:<port>``)."""

    endpoint: str
    requests: list[Received] = field(default_factory=list)
    headers: list[Mapping[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, ready: Callable[[Receiver], bool], timeout: float = 10.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ready(self):
                return True
            time.sleep(0.02)
        return ready(self)

    def bodies(self) -> list[bytes]:
        with self._lock:
            return [r.body for r in self.requests]

    def points(self) -> list[dict[str, Any]]:
        """Every metric data point received: name, unit, kind, value, attributes,
        start/time (ns), temporality (``"cumulative"``/``"delta"``, ``None`` for gauges),
        monotonic, and the resource's and scope's attributes."""
        found = []
        with self._lock:
            messages = [r.message for r in self.requests if r.path == "/v1/metrics"]
        for message in messages:
            for rm in message.resource_metrics:
                resource = attributes(rm.resource.attributes)
                for sm in rm.scope_metrics:
                    for metric in sm.metrics:
                        kind = metric.WhichOneof("data")
                        data = getattr(metric, kind)
                        temporality = None
                        if kind == "sum":
                            temporality = {1: "delta", 2: "cumulative"}[
                                data.aggregation_temporality
                            ]
                        for dp in data.data_points:
                            found.append(
                                {
                                    "name": metric.name,
                                    "unit": metric.unit,
                                    "kind": kind,
                                    "value": dp.as_int
                                    if dp.WhichOneof("value") == "as_int"
                                    else dp.as_double,
                                    "attributes": attributes(dp.attributes),
                                    "start": dp.start_time_unix_nano,
                                    "time": dp.time_unix_nano,
                                    "temporality": temporality,
                                    "monotonic": getattr(data, "is_monotonic", None),
                                    "resource": resource,
                                    "scope": sm.scope.name,
                                }
                            )
        return found

    def events(self) -> list[dict[str, Any]]:
        """Every log record received: event name, attributes, severity, time, body."""
        found = []
        with self._lock:
            messages = [r.message for r in self.requests if r.path == "/v1/logs"]
        for message in messages:
            for rl in message.resource_logs:
                resource = attributes(rl.resource.attributes)
                for sl in rl.scope_logs:
                    for record in sl.log_records:
                        found.append(
                            {
                                "event_name": record.event_name,
                                "attributes": attributes(record.attributes),
                                "severity": record.severity_number,
                                "time": record.time_unix_nano,
                                "body": record.body.WhichOneof("value"),
                                "resource": resource,
                                "scope": sl.scope.name,
                            }
                        )
        return found


def attributes(pairs: Any) -> dict[str, Any]:
    """OTLP ``KeyValue`` pairs as a dict of Python values."""
    result: dict[str, Any] = {}
    for pair in pairs:
        kind = pair.value.WhichOneof("value")
        result[pair.key] = getattr(pair.value, kind) if kind else None
    return result


@contextlib.contextmanager
def receiver() -> Iterator[Receiver]:
    """A running receiver for the block."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ExportLogsServiceRequest,
        ExportLogsServiceResponse,
    )
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
        ExportMetricsServiceResponse,
    )

    kinds = {
        "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse),
        "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse),
    }
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            encoding = self.headers.get("Content-Encoding", "")
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            if self.path not in kinds:
                self.send_response(404)
                self.end_headers()
                return
            request_type, response_type = kinds[self.path]
            message = request_type()
            message.ParseFromString(body)
            target = state["receiver"]
            with target._lock:
                target.requests.append(Received(self.path, body, message))
                target.headers.append(dict(self.headers.items()))
            reply = response_type().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest's output clean
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["receiver"] = Receiver(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["receiver"]
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def silent_listener() -> Iterator[int]:
    """A port that accepts connections and never answers (a collector that hangs)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                connection, _ = server.accept()
                held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join(2)
        for connection in held:
            connection.close()
        server.close()


def isolate(monkeypatch: Any) -> None:
    """No ``OTEL_*`` variable of the machine's reaches a test, and telemetry starts afresh
    (nothing said, nothing queued)."""
    from driftguard import telemetry

    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    telemetry._reset()


def otel_environment(endpoint: str, **more: str) -> dict[str, str]:
    """The process environment with every ``OTEL_*`` variable removed, then the OTLP
    endpoint and ``more`` set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    env.update(more)
    return env


def run_driftguard(
    *args: str,
    endpoint: str,
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 60,
    **more: str,
) -> subprocess.CompletedProcess[str]:
    """``driftguard ARGS`` in a subprocess of this interpreter, its OTLP endpoint set to
    ``endpoint`` (and ``more`` variables), from ``cwd``, with ``stdin`` (a hook's JSON
    payload) on its standard input; the test's private HOME holds. The process exits only
    after sending (or giving up, 1 s at most), so the receiver holds what it sent."""
    return subprocess.run(
        [sys.executable, "-m", "driftguard", *args],
        env=otel_environment(endpoint, **more),
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
