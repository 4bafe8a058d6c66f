"""Telemetry as the hooks meet it: each score in a short-lived process of its own. The
process sends before it exits (waiting at most the budget), counts nothing twice across
processes, and imports no OpenTelemetry at all when the export is off."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from otlp_receiver import (
    Event,
    closed_port,
    otel_environment,
    receiver,
    run_driftguard,
    story,
    write_session,
)

SCORE_AND_EMIT = """
import sys
from pathlib import Path
from driftguard.engine import drift as engine
from driftguard.adapters import parse_session
from driftguard.store.history import HistoryStore
session = parse_session(Path(sys.argv[1]))
outcome = engine.drift(session, project=None, store=HistoryStore(), record=True)
print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
"""
"""Score and record a session (the engine sends what it records), then exit, as a hook
process does."""


def run_script(
    session: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", SCORE_AND_EMIT, str(session)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result, time.monotonic() - start


def test_a_process_that_scores_and_exits_sends_first_and_counts_once_across_processes(
    isolated_home: Path,
) -> None:
    with receiver() as collector:
        env = otel_environment(collector.endpoint)
        # the second process scores the session one reply later: a new moment, recorded
        # and sent again, with the same compaction and loop as before
        for later in ([], [Event("reply", "Still failing; looking at the logs.", tokens=40_100)]):
            session = write_session(isolated_home, story() + later)
            result, _seconds = run_script(session, env)
            assert result.returncode == 0, result.stderr
            assert result.stderr == ""
        compactions = [p for p in collector.points() if p["name"].endswith("compactions")]
        loops = [p for p in collector.points() if p["name"] == "driftguard.loops"]
    assert [p["value"] for p in compactions] == [1, 1]
    assert [p["value"] for p in loops] == [1, 1]
    assert len(collector.events()) == 2


def test_a_process_whose_collector_is_down_exits_with_one_warning_line(
    isolated_home: Path,
) -> None:
    session = write_session(isolated_home, story())
    env = otel_environment(f"http://127.0.0.1:{closed_port()}")
    result, _seconds = run_script(session, env)
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("driftguard: warning: telemetry: could not send")


@pytest.mark.parametrize(
    ("config", "variables"),
    [
        ({}, {}),
        ({"otel": False}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}),
        ({}, {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}),
    ],
    ids=["nothing-configured", "otel-false", "sdk-disabled"],
)
def test_with_the_export_off_no_opentelemetry_module_is_imported(
    isolated_home: Path, config: dict[str, bool], variables: dict[str, str]
) -> None:
    (isolated_home / ".driftclirc").write_text(json.dumps(config))
    env = otel_environment("")
    del env["OTEL_EXPORTER_OTLP_ENDPOINT"]
    env.update(variables)
    result, _seconds = run_script(write_session(isolated_home, story()), env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    assert result.stderr == ""
    assert not (isolated_home / ".driftcli" / "telemetry").exists()


def test_driftguard_score_sends_the_score_it_records(isolated_home: Path) -> None:
    session = write_session(isolated_home, story())
    with receiver() as collector:
        result = run_driftguard(
            "score", str(session), endpoint=collector.endpoint, cwd=isolated_home
        )
        assert result.returncode == 0, result.stderr
        names = {p["name"] for p in collector.points()}
        assert "driftguard.session.drift" in names
        (event,) = collector.events()
    assert event["attributes"]["gen_ai.evaluation.name"] == "driftguard.drift"


def test_the_stop_hook_after_a_turn_sends_the_score_it_records(isolated_home: Path) -> None:
    session = write_session(isolated_home, story())
    payload = json.dumps(
        {
            "session_id": session.stem,
            "transcript_path": str(session),
            "cwd": str(isolated_home),
            "hook_event_name": "Stop",
            "last_assistant_message": "The command still fails.",
        }
    )
    with receiver() as collector:
        result = run_driftguard(
            "hook", "stop", endpoint=collector.endpoint, cwd=isolated_home, stdin=payload
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout == ""
        drift = [p for p in collector.points() if p["name"] == "driftguard.session.drift"]
        (event,) = collector.events()
    assert [p["attributes"]["session.id"] for p in drift] == [session.stem]
    assert event["attributes"]["gen_ai.evaluation.name"] == "driftguard.drift"
