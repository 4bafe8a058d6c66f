"""`driftguard statusline`: Claude Code's status-line JSON in, one short line out (payload
fields from docs/formats.md §A.13)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus_file, write_claude_session

from driftguard.cli import main
from driftguard.live import statusline
from driftguard.live.statusline import (
    NOT_SCORED,
    SCORED_AFTER_TURN,
    render_line,
    statusline_output,
)
from driftguard.store import livecache
from driftguard.store.history import HistoryStore, history_key
from driftguard.store.livecache import LiveStatus

SESSION_ID = "5b0e6a51-7f3c-4d2e-9a18-0c4f2b7d9e61"


def payload(**context: Any) -> dict[str, Any]:
    """A status-line payload of the current shape (docs/formats.md §A.13), values our own."""
    window: dict[str, Any] = {
        "total_input_tokens": 30_000,
        "total_output_tokens": 1_200,
        "context_window_size": 200_000,
        "used_percentage": 15,
        "remaining_percentage": 85,
        "current_usage": {
            "input_tokens": 12,
            "output_tokens": 300,
            "cache_creation_input_tokens": 988,
            "cache_read_input_tokens": 29_000,
        },
    }
    window.update(context)
    return {
        "cwd": "/home/dev/shop",
        "session_id": SESSION_ID,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-shop/{SESSION_ID}.jsonl",
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
        "workspace": {"current_dir": "/home/dev/shop", "project_dir": "/home/dev/shop"},
        "version": "2.1.197",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.12, "total_duration_ms": 50_000},
        "context_window": window,
        "exceeds_200k_tokens": False,
    }


def status(**changes: Any) -> LiveStatus:
    values: dict[str, Any] = {
        "session_id": SESSION_ID,
        "cli": "claude_code",
        "transcript_path": "/x.jsonl",
        "transcript_size": 1000,
        "ts": 1_700_000_000.0,
        "score": 47,
        "state": "warming",
        "factors": {
            "context_saturation": 40.0,
            "repetition": 31.4,
            "length_collapse": 12.0,
            "goal_distance": None,
            "uncertainty": 0.0,
            "confidence_drift": 0.0,
        },
        "messages": 40,
        "context_tokens": 124_000,
        "context_window": 200_000,
        "tokens_estimated": False,
        "handoff_suggested": False,
        "warn_threshold": 60,
    }
    values.update(changes)
    return LiveStatus(**values)


def test_a_cached_score_gives_score_state_host_context_and_the_top_factor() -> None:
    line = render_line(payload(used_percentage=62.4), status())
    assert line == "drift 47 warming · ctx 62% · rep 31"


def test_the_drift_segment_is_coloured_by_state_when_asked() -> None:
    line = render_line(payload(), status(score=85, state="polluted"), color=True)
    assert line.startswith("\x1b[1;31mdrift 85 polluted\x1b[0m · ")


def test_without_used_percentage_the_current_usage_tokens_over_the_window_are_used() -> None:
    # 12 + 988 + 29,000 = 30,000 of 200,000 = 15 %
    line = render_line(payload(used_percentage=None), None)
    assert line == f"{SCORED_AFTER_TURN} · ctx 15%"


def test_after_a_compaction_current_usage_is_null_and_total_input_tokens_is_used() -> None:
    line = render_line(payload(used_percentage=None, current_usage=None), None)
    assert line == f"{SCORED_AFTER_TURN} · ctx 15%"  # 30,000 of 200,000


def test_without_host_figures_the_cached_tokens_and_window_give_the_context() -> None:
    bare = {"session_id": SESSION_ID}
    assert render_line(bare, status()) == "drift 47 warming · ctx 62% · rep 31"  # 124k of 200k


def test_a_factor_below_ten_points_is_not_shown_and_a_suggested_handoff_is() -> None:
    quiet = status(
        factors={"context_saturation": 80.0, "repetition": 3.0, "length_collapse": 9.94},
        handoff_suggested=True,
    )
    assert render_line(payload(), quiet) == "drift 47 warming · ctx 15% · handoff suggested"


def test_a_narrow_terminal_drops_trailing_segments_first() -> None:
    line = render_line(payload(), status(handoff_suggested=True), columns=30)
    assert line == "drift 47 warming · ctx 15%"


def test_output_reads_the_cache_the_stop_hook_wrote() -> None:
    livecache.write_status(status(score=72, state="drifting"))
    raw = json.dumps(payload()).encode()
    assert statusline_output(raw, {"NO_COLOR": "1"}) == "drift 72 drifting · ctx 15% · rep 31"


def test_output_without_a_cache_or_a_transcript_yet_says_the_score_follows_the_turn() -> None:
    raw = json.dumps(payload()).encode()  # its transcript_path does not exist yet
    assert statusline_output(raw, {"NO_COLOR": "1"}) == f"{SCORED_AFTER_TURN} · ctx 15%"


@pytest.fixture
def transcript(isolated_home: Path) -> Path:
    return write_claude_session(
        isolated_home / ".claude" / "projects" / "-home-dev-shop" / f"{SESSION_ID}.jsonl",
        ["the same reply again and again here"] * 6,
        cwd="/home/dev/shop",
        session_id=SESSION_ID,
    )


def _first_call(transcript: Path) -> str:
    raw = json.dumps({**payload(), "transcript_path": str(transcript)}).encode()
    return statusline_output(raw, {"NO_COLOR": "1"})


def test_the_first_call_scores_a_small_transcript_on_the_spot(transcript: Path) -> None:
    assert _first_call(transcript) == (
        "drift 71 drifting · 137k to compact (over 50 turns) · rep 100 · handoff suggested"
    )
    # the stop hook stays the one writer of the cache
    assert livecache.read_status(SESSION_ID) is None


def test_the_first_call_of_a_transcript_too_large_to_score_in_time_says_it_follows(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(statusline, "ON_THE_SPOT_BYTES", transcript.stat().st_size - 1)
    assert _first_call(transcript) == f"{SCORED_AFTER_TURN} · ctx 15%"


def test_the_first_call_scores_a_remembered_goal_on_the_spot_too(transcript: Path) -> None:
    # goal distance no longer imports scikit-learn: a goal costs milliseconds
    HistoryStore().save_goal(history_key("claude_code", SESSION_ID), "ship the importer")
    line = _first_call(transcript)
    assert line.startswith("drift ")
    assert line.endswith("goal “ship the importer”")


def test_a_cached_score_of_a_goal_shows_the_goal_last_and_cut_short() -> None:
    cached = status(goal="import the CSV files of every branch office")
    assert render_line(payload(), cached) == (
        "drift 47 warming · ctx 15% · rep 31 · goal “import the CSV files of…”"
    )
    assert render_line(payload(), cached, columns=40) == "drift 47 warming · ctx 15% · rep 31"


def test_output_remembers_the_hosts_context_window_for_the_stop_hook() -> None:
    raw = json.dumps(payload(context_window_size=1_000_000)).encode()
    statusline_output(raw, {"NO_COLOR": "1"})
    assert livecache.read_host_window(SESSION_ID) == 1_000_000


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"context_window": 5}'])
def test_a_bad_payload_still_prints_a_line(raw: bytes) -> None:
    assert statusline_output(raw, {"NO_COLOR": "1"}) == NOT_SCORED


def test_the_real_1_0_88_payload_gives_the_context_from_its_total_input_tokens() -> None:
    # The sample holds context_window {total_input_tokens 42500, context_window_size
    # 200000} and no used_percentage (read with `cat` on the file): 42,500 / 200,000 = 21 %.
    sample = corpus_file("claude_code_statusline/statusline_v1.0.88_ccusage.json")
    line = statusline_output(sample.read_bytes(), {"NO_COLOR": "1"})
    assert line == f"{SCORED_AFTER_TURN} · ctx 21%"  # its transcript is not on this machine


def test_wrap_appends_the_drift_segment_to_the_users_own_status_line(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(
        "import json, sys\nprint('model ' + json.load(sys.stdin)['model']['display_name'])\n",
        encoding="utf-8",
    )
    raw = json.dumps(payload()).encode()
    command = f'"{sys.executable}" "{script}"'
    line = statusline_output(raw, {"NO_COLOR": "1"}, wrap=command)
    assert line == f"model Sonnet 4.5 │ {SCORED_AFTER_TURN} · ctx 15%"


def test_a_wrapped_command_that_hangs_is_left_out_and_its_children_are_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(statusline, "WRAP_TIMEOUT", 0.3)
    marker = tmp_path / "still-running"
    # the shell's child, not the shell, would go on writing: it must be stopped with it
    command = f"echo early; sleep 1; touch {marker}"
    line = statusline_output(json.dumps(payload()).encode(), {"NO_COLOR": "1"}, wrap=command)
    assert line == f"{SCORED_AFTER_TURN} · ctx 15%"
    assert "left out: still running after 0.3 s" in capsys.readouterr().err
    time.sleep(1.5)
    assert not marker.exists()


def test_cli_statusline_prints_one_line_and_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    livecache.write_status(status())
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr("sys.stdin", _Stdin(json.dumps(payload()).encode()))
    assert main(["statusline"]) == 0
    assert capsys.readouterr().out == "drift 47 warming · ctx 15% · rep 31\n"


def test_cli_statusline_exits_0_even_on_a_bad_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["statusline", "--no-such-flag"]) == 0
    assert "--no-such-flag" in capsys.readouterr().err


def test_a_whole_statusline_process_does_not_import_numpy_or_the_adapters() -> None:
    # What keeps a cache hit far below 100 ms (measured in benchmarks/bench_statusline.py).
    code = (
        "import sys, driftguard.cli as c; c.main(['statusline']); "
        "print(sorted(m for m in ('numpy', 'driftguard.adapters', 'driftguard.engine.drift', "
        "'importlib.metadata') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload()).encode(),
        capture_output=True,
        check=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.stdout.decode().splitlines() == [f"{SCORED_AFTER_TURN} · ctx 15%", "[]"]


class _Stdin:
    """A stand-in for ``sys.stdin`` whose ``buffer`` holds ``data``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


# --- the budget and loops ------------------------------------------------------


def test_the_line_shows_the_tokens_and_turns_left_before_the_host_compacts() -> None:
    cached = status(usable_window=167_000, growth_per_turn=6_000)
    # the payload's context (12 + 988 + 29,000 = 30,000) is fresher than the cache's
    line = render_line(payload(), cached)
    assert line == "drift 47 warming · 137k to compact (~22 turns) · rep 31"


def test_without_a_growth_the_line_shows_the_tokens_left_alone() -> None:
    line = render_line(payload(), status(usable_window=167_000))
    assert "137k to compact · " in line


def test_at_the_compaction_point_the_line_says_it_compacts_next() -> None:
    line = render_line(
        payload(current_usage=None, total_input_tokens=170_000), status(usable_window=167_000)
    )
    assert "compacting next" in line


def test_a_loop_going_on_shows_at_once_after_the_budget() -> None:
    cached = status(usable_window=167_000, growth_per_turn=6_000, loop="npm test ×3")
    assert render_line(payload(), cached) == (
        "drift 47 warming · 137k to compact (~22 turns) · loop: npm test ×3 · rep 31"
    )


def test_a_record_without_the_budget_still_shows_the_context_percentage() -> None:
    assert render_line(payload(), status()) == "drift 47 warming · ctx 15% · rep 31"
