"""Each compaction and each loop counted once per session (driftguard.telemetry.counted),
and what a loop's identity and the explanation are made of (observation)."""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from pathlib import Path

from otlp_receiver import CWD, story, write_session

from driftguard.adapters import parse_session
from driftguard.engine import drift as engine
from driftguard.store.history import HistoryStore
from driftguard.telemetry.counted import SEEN_LOOPS, count_once, prune
from driftguard.telemetry.observation import Observation, explanation, observe, session_key

NOW = 2_000_000_000.0


def obs(**changes: object) -> Observation:
    base = Observation(
        key="claude_code-" + "0" * 32,
        recorded_at=NOW,
        started_at=NOW - 600,
        score=50,
        state="warming",
        context_tokens=1000,
        tokens_left=9000,
        compactions=0,
        handoff_suggested=False,
        loop_kind=None,
        loop_id=None,
        explanation=None,
        identity={"driftguard.host": "claude_code"},
        model=None,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_a_new_session_starts_counting_at_its_first_message(tmp_path: Path) -> None:
    counts = count_once(tmp_path, obs(compactions=2))
    assert counts is not None
    assert (counts.first, counts.previous) == (NOW - 600, NOW - 600)
    assert (counts.compactions, counts.new_compactions) == (2, 2)


def test_compactions_count_once_and_never_go_back(tmp_path: Path) -> None:
    totals = []
    for seen in (1, 1, 3, 2, 3):
        counts = count_once(tmp_path, obs(compactions=seen))
        assert counts is not None
        totals.append((counts.compactions, counts.new_compactions))
    assert totals == [(1, 1), (1, 0), (3, 2), (3, 0), (3, 0)]


def test_a_loop_counts_once_while_it_goes_on_and_again_as_another_loop(tmp_path: Path) -> None:
    news = []
    for kind, loop_id in [
        ("failing", "a"),
        ("failing", "a"),
        ("same_call", "b"),
        ("failing", "a"),
        ("failing", "c"),
    ]:
        counts = count_once(tmp_path, obs(loop_kind=kind, loop_id=loop_id))
        assert counts is not None
        news.append(dict(counts.new_loops))
    assert news == [{"failing": 1}, {}, {"same_call": 1}, {}, {"failing": 1}]
    assert dict(counts.loops) == {"failing": 2, "same_call": 1}


def test_only_the_latest_loop_ids_are_kept(tmp_path: Path) -> None:
    for number in range(SEEN_LOOPS + 5):
        count_once(tmp_path, obs(loop_kind="same_call", loop_id=str(number)))
    stored = json.loads((tmp_path / f"{obs().key}.json").read_text())
    assert len(stored["seen"]) == SEEN_LOOPS
    assert stored["loops"] == {"same_call": SEEN_LOOPS + 5}


def test_a_state_file_that_is_not_one_starts_afresh(tmp_path: Path) -> None:
    (tmp_path / f"{obs().key}.json").write_text('{"v": 1, "first": "yesterday"}')
    counts = count_once(tmp_path, obs(compactions=1))
    assert counts is not None
    assert counts.new_compactions == 1


def test_an_unwritable_folder_counts_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "telemetry"
    blocker.write_text("not a folder")
    assert count_once(blocker, obs(compactions=1)) is None


def test_processes_scoring_at_once_count_once(tmp_path: Path) -> None:
    results: list[int] = []

    def score() -> None:
        counts = count_once(tmp_path, obs(compactions=1, loop_kind="failing", loop_id="x"))
        assert counts is not None
        results.append(counts.new_compactions + sum(counts.new_loops.values()))

    threads = [threading.Thread(target=score) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0] * 7 + [2]


def test_old_state_files_are_removed_when_a_new_session_starts(tmp_path: Path) -> None:
    old, recent = tmp_path / "claude_code-old.json", tmp_path / "claude_code-recent.json"
    for path, days in ((old, 40), (recent, 20)):
        path.write_text("{}")
        stamp = time.time() - days * 86_400
        os.utime(path, (stamp, stamp))
    count_once(tmp_path, obs(), retention_days=30)
    assert not old.exists()
    assert recent.exists()
    assert prune(tmp_path, 30) == 0


def test_the_key_names_the_cli_and_hides_the_id() -> None:
    key = session_key("codex_cli", "../../etc/passwd", "/x")
    assert key.startswith("codex_cli-")
    assert "/" not in key
    assert len(key) == len("codex_cli-") + 32
    assert session_key("codex_cli", None, "/a") != session_key("codex_cli", None, "/b")


def test_a_loop_after_a_new_prompt_is_another_loop(isolated_home: Path) -> None:
    def loop_id(loops: int) -> str | None:
        session = parse_session(write_session(isolated_home, story(loops=loops)))
        report = engine.drift(session, project=None, store=HistoryStore(), record=False).report
        return observe(report, include_project=False, recorded_at=NOW).loop_id

    first, second = loop_id(1), loop_id(2)
    assert first is not None
    assert second is not None
    assert first != second


def test_without_the_loop_description_only_the_action_is_explained(isolated_home: Path) -> None:
    session = parse_session(write_session(isolated_home, story()))
    report = engine.drift(session, project=None, store=HistoryStore(), record=False).report
    assert report.measures is not None
    assert report.measures.loop is not None
    changed = dataclasses.replace(report, recommendation=f"Start fresh soon: {CWD} is full.")
    assert explanation(changed) == "Start fresh soon."
    assert explanation(report) is not None
    # a loop alone asks for a step back, its command replaced by the loop's kind
    assert (explanation(report) or "").startswith("Step back: a tool call failed 4 times")
