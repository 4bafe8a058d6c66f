"""Score history and stored goals: keys, records, locked appends, pruning (docs/design.md §7)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import stat
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftguard import paths
from driftguard.errors import UnknownNameError
from driftguard.model import FACTOR_NAMES, Session
from driftguard.scoring.composite import DriftReport
from driftguard.store.history import (
    MAX_KEY_LENGTH,
    HistoryStore,
    Snapshot,
    goal_sha256,
    history_key,
    history_key_for,
    is_valid_key,
    snapshot_from_report,
)

DAY = 86_400.0
NOW = 1_800_000_000.0
"""A fixed "now" for pruning tests (2027-01-15), so no test depends on the clock."""
SAFE_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def make_snapshot(
    score: int = 42, *, ts: float = NOW, messages: int = 10, context_tokens: int = 5_000
) -> Snapshot:
    return Snapshot(
        ts=ts,
        score=score,
        state="warming",
        factors={name: 1.5 for name in FACTOR_NAMES} | {"goal_distance": None},
        messages=messages,
        context_tokens=context_tokens,
        goal_sha256=None,
    )


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "state" / "history")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- keys ------------------------------------------------------------------------------


def test_a_uuid_session_id_is_kept_verbatim_after_the_cli_name() -> None:
    sid = "0b6c9a52-4b1e-4c8e-9a57-2f0d5e7c1a3b"
    assert history_key("claude_code", sid) == f"claude_code-{sid}"
    assert history_key("codex_cli", sid) == f"codex_cli-{sid}"


def test_the_same_id_under_two_clis_gives_two_keys() -> None:
    sid = "0b6c9a52-4b1e-4c8e-9a57-2f0d5e7c1a3b"
    assert history_key("claude_code", sid) != history_key("gemini_cli", sid)


@pytest.mark.parametrize(
    "sid",
    [
        "session-2026-03-01T10-15-abcd1234.json",
        "session-2026-03-01T10-15-abcd1234.jsonl",
        "session-2026-03-01T10-15-abcd1234",
    ],
)
def test_gemini_file_name_derived_ids_give_readable_safe_keys(sid: str) -> None:
    key = history_key("gemini_cli", sid)
    assert is_valid_key(key)
    # The upper-case "T" makes the id non-canonical: the readable text is kept and a digest
    # of the exact id follows, so it cannot clash with a lower-case twin on macOS.
    digest = hashlib.sha256(sid.encode()).hexdigest()[:16]
    assert key == f"gemini_cli-{sid}_{digest}"


@pytest.mark.parametrize(
    "sid",
    [
        "../../etc/passwd",
        "/abs/path",
        "/",
        "..",
        ".",
        "",
        "a/b",
        "a\\b",
        "nul\x00byte",
        "line\nbreak",
        "ünïcødé-日本",
        "x" * 10_000,
        "../" * 300,
        "C:\\Windows\\system32",
    ],
)
def test_hostile_session_ids_give_safe_keys_inside_the_folder(
    store: HistoryStore, sid: str
) -> None:
    key = history_key("claude_code", sid)
    assert is_valid_key(key)
    assert set(key) <= SAFE_CHARS
    assert key.startswith("claude_code-")
    assert len(key) <= MAX_KEY_LENGTH
    assert len((key + ".jsonl").encode()) < 255
    path = store.history_path(key)
    assert path.parent == store.root
    store.append(key, make_snapshot())
    assert store.read(key) == [make_snapshot()]
    assert [p.name for p in store.root.iterdir()] == [key + ".jsonl"]
    assert path.resolve().parent == store.root.resolve()


def test_ids_that_sanitise_to_the_same_text_get_distinct_keys() -> None:
    ids = ["a/b", "a\\b", "a:b", "a_b", "a b", "a\x00b"]
    keys = {history_key("claude_code", sid) for sid in ids}
    assert len(keys) == len(ids)


def test_long_ids_that_share_a_long_prefix_get_distinct_bounded_keys() -> None:
    prefix = "f" * 500
    first = history_key("codex_cli", prefix + "1")
    second = history_key("codex_cli", prefix + "2")
    assert first != second
    assert len(first) == len(second) == MAX_KEY_LENGTH


def test_an_unknown_cli_name_is_rejected() -> None:
    with pytest.raises(UnknownNameError, match="claude_code"):
        history_key("aider", "abc")  # type: ignore[arg-type]


def test_a_cursor_chat_is_keyed_by_its_composer_id() -> None:
    composer_id = "3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b"
    assert history_key("cursor", composer_id) == f"cursor-{composer_id}"


@given(st.text(), st.text())
def test_distinct_session_ids_never_share_a_key(first: str, second: str) -> None:
    if first == second:
        assert history_key("gemini_cli", first) == history_key("gemini_cli", second)
        return
    a, b = history_key("gemini_cli", first), history_key("gemini_cli", second)
    assert a != b
    # Also distinct on a case-insensitive file system (macOS, Windows).
    assert a.casefold() != b.casefold()


@given(st.lists(st.text(alphabet="aA_/.\\-\x00é", max_size=6), unique=True, max_size=40))
def test_ids_built_from_sanitised_characters_never_collide(ids: list[str]) -> None:
    keys = [history_key("claude_code", sid) for sid in ids]
    assert len({key.casefold() for key in keys}) == len(ids)
    assert all(is_valid_key(key) for key in keys)


@given(st.text(max_size=400))
def test_every_key_is_a_bounded_safe_file_name(sid: str) -> None:
    key = history_key("codex_cli", sid)
    assert is_valid_key(key)
    assert set(key) <= SAFE_CHARS
    assert 0 < len(key) <= MAX_KEY_LENGTH
    assert key not in (".", "..")


def test_a_session_without_id_is_keyed_by_its_resolved_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    transcript = real / "s.jsonl"
    transcript.write_text("", encoding="utf-8")
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    digest = hashlib.sha256(os.fsencode(transcript.resolve())).hexdigest()[:32]
    key = history_key_for("claude_code", None, transcript)
    assert key == f"claude_code-path_{digest}"
    assert history_key_for("claude_code", None, alias / "s.jsonl") == key
    assert history_key_for("claude_code", "", str(transcript)) == key
    assert history_key_for("claude_code", None, real / "other.jsonl") != key


def test_a_session_with_an_id_is_keyed_by_the_id_not_the_path(tmp_path: Path) -> None:
    assert history_key_for("codex_cli", "abc-1", tmp_path / "x.jsonl") == "codex_cli-abc-1"


@pytest.mark.parametrize(
    "key", ["", ".", "..", ".hidden", "../x", "a/b", "/abs", "a\x00b", "k" * 201]
)
def test_the_store_refuses_anything_that_is_not_a_key(store: HistoryStore, key: str) -> None:
    with pytest.raises(ValueError, match="not a history key"):
        store.append(key, make_snapshot())
    with pytest.raises(ValueError, match="not a history key"):
        store.read(key)
    with pytest.raises(ValueError, match="not a history key"):
        store.save_goal(key, "goal")
    assert not store.root.exists()


# --- records ---------------------------------------------------------------------------


def test_a_snapshot_record_has_the_design_layout_in_order() -> None:
    snap = Snapshot(
        ts=1_750_000_000.5,
        score=64,
        state="drifting",
        factors={"context_saturation": 71.2, "goal_distance": None},
        messages=88,
        context_tokens=140_000,
        goal_sha256="ab" * 32,
        scoring="calibrated",
        preset="coding",
    )
    record = snap.to_record()
    assert list(record) == [
        "v",
        "ts",
        "score",
        "state",
        "factors",
        "messages",
        "context_tokens",
        "goal_sha256",
        "scoring",
        "preset",
    ]
    assert record == {
        "v": 2,
        "ts": 1_750_000_000.5,
        "score": 64,
        "state": "drifting",
        "factors": {"context_saturation": 71.2, "goal_distance": None},
        "messages": 88,
        "context_tokens": 140_000,
        "goal_sha256": "ab" * 32,
        "scoring": "calibrated",
        "preset": "coding",
    }
    assert Snapshot.from_record(json.loads(json.dumps(record))) == snap


def test_a_version_1_record_reads_as_a_seed_score_of_no_known_preset() -> None:
    record = {
        "v": 1,
        "ts": 1_750_000_000.5,
        "score": 21,
        "state": "fresh",
        "factors": {"context_saturation": 4.0},
        "messages": 8,
        "context_tokens": 9_000,
        "goal_sha256": None,
    }
    snap = Snapshot.from_record(record)
    assert snap is not None
    assert (snap.score, snap.scoring, snap.preset) == (21, "seed", None)


def test_a_snapshot_keeps_its_own_copy_of_the_factors() -> None:
    factors = {"repetition": 3.0}
    snap = Snapshot(ts=1.0, score=0, state="fresh", factors=factors, messages=0, context_tokens=0)
    factors["repetition"] = 99.0
    assert snap.factors["repetition"] == 3.0
    assert asdict(snap)["factors"] == {"repetition": 3.0}


def _good_record() -> dict[str, Any]:
    return make_snapshot().to_record()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("v", 3),
        ("v", "1"),
        ("v", True),
        ("ts", "yesterday"),
        ("ts", float("nan")),
        ("ts", float("inf")),
        ("score", 101),
        ("score", -1),
        ("score", 42.0),
        ("score", True),
        ("state", "melting"),
        ("factors", [1, 2]),
        ("factors", {"repetition": "high"}),
        ("factors", {"repetition": False}),
        ("messages", -1),
        ("messages", None),
        ("context_tokens", 1.5),
        ("goal_sha256", "not-a-digest"),
        ("goal_sha256", "AB" * 32),
        ("scoring", "v3"),
        ("scoring", None),
        ("preset", 7),
    ],
)
def test_a_record_with_a_bad_field_or_another_version_is_not_read(
    field: str, value: object
) -> None:
    record = _good_record()
    record[field] = value
    assert Snapshot.from_record(record) is None


@pytest.mark.parametrize("field", ["v", "ts", "score", "state", "factors", "messages"])
def test_a_record_missing_a_field_is_not_read(field: str) -> None:
    record = _good_record()
    del record[field]
    assert Snapshot.from_record(record) is None


@pytest.mark.parametrize("value", [None, [], "text", 3])
def test_a_record_that_is_not_an_object_is_not_read(value: object) -> None:
    assert Snapshot.from_record(value) is None


def test_unknown_extra_fields_in_a_record_are_ignored() -> None:
    record = _good_record() | {"note": "from a later v2 writer"}
    assert Snapshot.from_record(record) == make_snapshot()


def _report(factors: dict[str, float | None], *, score: int = 37) -> DriftReport:
    session = Session(
        cli="claude_code",
        path="/tmp/s.jsonl",
        session_id="s",
        cwd="/tmp",
        messages=(),
        context_tokens=123_456,
        context_window=200_000,
        tokens_estimated=False,
        compactions=0,
        skipped_lines=0,
    )
    return DriftReport(
        score=score,
        state="warming",
        composite=float(score),
        factors=factors,
        weights=dict.fromkeys(FACTOR_NAMES, 0.2),
        messages=31,
        handoff_suggested=False,
        recommendation="Carry on.",
        session=session,
        resolved_by="path",
        context_window=200_000,
        warn_threshold=60,
    )


def test_a_snapshot_from_a_report_stores_the_one_decimal_display_values() -> None:
    report = _report(
        {
            "context_saturation": 12.25,  # half up → 12.3 (as the §5.5 JSON shows it)
            "repetition": 40.04,  # → 40.0
            "length_collapse": 0.0,
            "goal_distance": 33.333333,  # → 33.3
            "uncertainty": 99.95,  # → 100.0
            "confidence_drift": 5.0,
        }
    )
    snap = snapshot_from_report(report, "ship the parser", 1_750_000_000.25)
    assert snap == Snapshot(
        ts=1_750_000_000.25,
        score=37,
        state="warming",
        factors={
            "context_saturation": 12.3,
            "repetition": 40.0,
            "length_collapse": 0.0,
            "goal_distance": 33.3,
            "uncertainty": 100.0,
            "confidence_drift": 5.0,
        },
        messages=31,
        context_tokens=123_456,
        goal_sha256=hashlib.sha256(b"ship the parser").hexdigest(),
    )


@pytest.mark.parametrize("goal", [None, "", "   \n"])
def test_a_snapshot_without_a_usable_goal_has_no_goal_digest(goal: str | None) -> None:
    report = _report(dict.fromkeys(FACTOR_NAMES, 1.0) | {"goal_distance": None})
    snap = snapshot_from_report(report, goal, 1.0)
    assert snap.goal_sha256 is None
    assert snap.factors["goal_distance"] is None


# --- appending and reading -------------------------------------------------------------


def test_snapshots_read_back_in_append_order(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    written = [make_snapshot(score, ts=NOW + score) for score in (5, 50, 25)]
    for snap in written:
        store.append(key, snap)
    assert store.read(key) == written
    lines = store.history_path(key).read_bytes().split(b"\n")
    assert lines[-1] == b""  # every line, the last included, ends with a newline
    assert len(lines) == 4


def test_a_session_without_history_reads_as_empty(store: HistoryStore) -> None:
    assert store.read(history_key("codex_cli", "never-scored")) == []
    assert not store.root.exists()


def test_history_folders_are_private_and_files_owner_only(tmp_path: Path) -> None:
    state = tmp_path / "fresh-state"
    store = HistoryStore(state / "history")
    key = history_key("claude_code", "abc")
    store.append(key, make_snapshot())
    store.save_goal(key, "a goal")
    assert mode_of(state) == 0o700
    assert mode_of(state / "history") == 0o700
    assert mode_of(state / "sessions") == 0o700
    assert mode_of(store.history_path(key)) == 0o600
    assert mode_of(store.goal_path(key)) == 0o600


def test_the_default_folders_follow_driftguard_home(isolated_home: Path) -> None:
    store = HistoryStore()
    assert store.root == paths.history_dir() == isolated_home / ".driftcli" / "history"
    assert store.sessions_root == paths.sessions_dir()


def test_a_given_history_folder_keeps_goals_in_its_sibling_sessions_folder(
    tmp_path: Path,
) -> None:
    assert HistoryStore(tmp_path / "history").sessions_root == tmp_path / "sessions"
    other = HistoryStore(tmp_path / "h", sessions_root=tmp_path / "g")
    assert other.sessions_root == tmp_path / "g"


def test_corrupt_lines_are_skipped_and_the_rest_is_read(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    first, second = make_snapshot(10), make_snapshot(20)
    good = [json.dumps(s.to_record()) for s in (first, second)]
    newer = json.dumps(first.to_record() | {"v": 3})
    store.root.mkdir(parents=True)
    lines = [
        good[0].encode(),
        b"{not json",
        b"",
        b"[1, 2, 3]",
        newer.encode(),  # another version: skipped on purpose
        b"\xff\xfe not UTF-8",
        good[1].encode(),
        b"   ",
    ]
    store.history_path(key).write_bytes(b"\n".join(lines) + b"\n")
    assert store.read(key) == [first, second]


def test_a_half_written_last_line_is_skipped(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    store.append(key, make_snapshot(10))
    full = json.dumps(make_snapshot(90).to_record())
    with store.history_path(key).open("ab") as handle:
        handle.write(full.encode())  # complete JSON, but the newline never came
    assert store.read(key) == [make_snapshot(10)]


def test_an_append_after_a_half_written_line_starts_a_new_line(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    store.append(key, make_snapshot(10))
    with store.history_path(key).open("ab") as handle:
        handle.write(b'{"v": 1, "ts": 17')  # a writer died mid-line
    store.append(key, make_snapshot(30))
    assert store.read(key) == [make_snapshot(10), make_snapshot(30)]
    assert store.history_path(key).read_bytes().count(b"\n") == 3


def test_a_snapshot_with_a_non_finite_number_is_refused(store: HistoryStore) -> None:
    with pytest.raises(ValueError, match="JSON"):
        store.append(history_key("claude_code", "abc"), make_snapshot(ts=float("nan")))


WRITERS = 8
PER_WRITER = 200


def _write_many(root: str, key: str, writer: int, start: Any) -> None:
    """One writer process: 200 snapshots tagged with the writer (context_tokens) and the
    sequence number (messages)."""
    store = HistoryStore(Path(root))
    start.wait()
    for seq in range(PER_WRITER):
        store.append(key, make_snapshot(seq % 101, messages=seq, context_tokens=writer))


def test_concurrent_writer_processes_lose_and_corrupt_nothing(store: HistoryStore) -> None:
    key = history_key("gemini_cli", "shared-session")
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=_write_many, args=(str(store.root), key, writer, start))
        for writer in range(WRITERS)
    ]
    for worker in workers:
        worker.start()
    start.set()  # all processes race from here
    for worker in workers:
        worker.join(timeout=300)
    assert [worker.exitcode for worker in workers] == [0] * WRITERS

    raw = store.history_path(key).read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == WRITERS * PER_WRITER == 1600
    for line in lines[:-1]:
        assert Snapshot.from_record(json.loads(line)) is not None

    snapshots = store.read(key)
    assert len(snapshots) == 1600
    for writer in range(WRITERS):
        sequence = [s.messages for s in snapshots if s.context_tokens == writer]
        assert sequence == list(range(PER_WRITER))  # complete, and in that writer's order


# --- pruning ---------------------------------------------------------------------------


def _age(path: Path, days: float) -> None:
    when = NOW - days * DAY
    os.utime(path, (when, when))


def test_pruning_deletes_history_older_than_the_retention_only(store: HistoryStore) -> None:
    old, fresh, edge = (history_key("claude_code", name) for name in ("old", "fresh", "edge"))
    for key in (old, fresh, edge):
        store.append(key, make_snapshot())
    _age(store.history_path(old), 31)
    _age(store.history_path(fresh), 29)
    _age(store.history_path(edge), 30)  # exactly at the cutoff: not older, so kept
    assert store.prune(30, now=NOW) == 1
    assert not store.history_path(old).exists()
    assert store.history_path(fresh).exists()
    assert store.history_path(edge).exists()


def test_pruning_deletes_old_goals_only_when_their_history_is_gone(store: HistoryStore) -> None:
    gone, active, orphan_new = (
        history_key("codex_cli", name) for name in ("gone", "active", "orphan-new")
    )
    for key in (gone, active):
        store.append(key, make_snapshot())
    for key in (gone, active, orphan_new):
        store.save_goal(key, f"goal of {key}")
    _age(store.history_path(gone), 40)
    _age(store.goal_path(gone), 40)
    _age(store.goal_path(active), 40)  # old goal, but the session is still being scored
    _age(store.history_path(active), 1)
    _age(store.goal_path(orphan_new), 2)  # fresh, no history yet (saved before scoring): kept
    assert store.prune(30, now=NOW) == 2
    assert not store.history_path(gone).exists()
    assert not store.goal_path(gone).exists()
    assert store.load_goal(active) == f"goal of {active}"
    assert store.load_goal(orphan_new) == f"goal of {orphan_new}"


def test_pruning_leaves_files_that_are_not_ours_alone(store: HistoryStore) -> None:
    store.root.mkdir(parents=True)
    store.sessions_root.mkdir(parents=True)
    strangers = [
        store.root / "notes.txt",
        store.root / ".hidden.jsonl",
        store.sessions_root / "readme.md",
    ]
    for path in strangers:
        path.write_text("mine", encoding="utf-8")
        _age(path, 400)
    (store.root / "claude_code-dir.jsonl").mkdir()
    _age(store.root / "claude_code-dir.jsonl", 400)
    assert store.prune(30, now=NOW) == 0
    assert all(path.exists() for path in strangers)


def test_pruning_removes_old_leftover_temporary_goal_files(store: HistoryStore) -> None:
    store.sessions_root.mkdir(parents=True)
    leftover = store.sessions_root / ".claude_code-abc.k2j4h5g1.tmp"
    leftover.write_text("{", encoding="utf-8")
    _age(leftover, 31)
    assert store.prune(30, now=NOW) == 1
    assert not leftover.exists()


def test_pruning_folders_that_do_not_exist_removes_nothing(store: HistoryStore) -> None:
    assert store.prune(30, now=NOW) == 0


def test_a_retention_below_one_day_is_refused(store: HistoryStore) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        store.prune(0)


def test_a_pruned_session_starts_a_new_history_on_its_next_append(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    store.append(key, make_snapshot(10))
    _age(store.history_path(key), 60)
    assert store.prune(30, now=NOW) == 1
    store.append(key, make_snapshot(20))
    assert store.read(key) == [make_snapshot(20)]


# --- goals -----------------------------------------------------------------------------


def test_a_goal_round_trips_and_records_its_digest(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    goal = "Port the parser to Rust — keep the CLI flags; ünïcødé ✓"
    store.save_goal(key, goal)
    assert store.load_goal(key) == goal
    record = json.loads(store.goal_path(key).read_text(encoding="utf-8"))
    assert record["goal"] == goal
    assert record["goal_sha256"] == hashlib.sha256(goal.encode()).hexdigest() == goal_sha256(goal)
    assert isinstance(record["updated"], float)


def test_a_goal_with_a_lone_surrogate_round_trips(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    store.save_goal(key, "half a pair \ud83d")
    assert store.load_goal(key) == "half a pair \ud83d"


def test_a_new_goal_replaces_the_old_one(store: HistoryStore) -> None:
    key = history_key("gemini_cli", "abc")
    store.save_goal(key, "first goal")
    store.save_goal(key, "second goal")
    assert store.load_goal(key) == "second goal"
    assert [p.name for p in store.sessions_root.iterdir()] == [key + ".json"]


def test_a_session_without_a_stored_goal_has_none(store: HistoryStore) -> None:
    assert store.load_goal(history_key("codex_cli", "abc")) is None


@pytest.mark.parametrize("content", [b"", b"{half", b"[]", b'{"goal": 3}', b'{"other": "x"}'])
def test_an_unreadable_goal_file_reads_as_no_goal(store: HistoryStore, content: bytes) -> None:
    key = history_key("codex_cli", "abc")
    store.sessions_root.mkdir(parents=True)
    store.goal_path(key).write_bytes(content)
    assert store.load_goal(key) is None


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failed_goal_write_keeps_the_old_goal_and_leaves_no_temporary_file(
    store: HistoryStore, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    key = history_key("claude_code", "abc")
    store.save_goal(key, "the old goal")

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(OSError, match="disk full"):
        store.save_goal(key, "the new goal")
    monkeypatch.undo()
    assert store.load_goal(key) == "the old goal"
    assert [p.name for p in store.sessions_root.iterdir()] == [key + ".json"]


def test_a_goal_is_written_to_a_temporary_file_and_renamed_into_place(
    store: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = history_key("claude_code", "abc")
    store.save_goal(key, "the old goal")
    seen: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        # At the moment of the rename the old goal is still whole and the new one is
        # complete in a temporary file of the same folder.
        assert json.loads(Path(dst).read_text(encoding="utf-8"))["goal"] == "the old goal"
        assert json.loads(Path(src).read_text(encoding="utf-8"))["goal"] == "the new goal"
        seen.append((str(Path(src).parent), Path(src).name))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.save_goal(key, "the new goal")
    assert seen == [(str(store.sessions_root), seen[0][1])]
    assert seen[0][1].startswith(f".{key}.")
    assert store.load_goal(key) == "the new goal"


def test_the_last_snapshot_is_read_from_the_tail_of_a_long_history(store: HistoryStore) -> None:
    key = history_key("claude_code", "abc")
    for score in range(200):  # ~60 KB: more than the tail it reads
        store.append(key, make_snapshot(score % 100))
    last = store.last(key)
    assert last is not None
    assert last.score == 199 % 100
    assert store.last(history_key("claude_code", "none")) is None
