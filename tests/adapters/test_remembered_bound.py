"""The bound on what a parser remembers of a session that never compacts
(``adapters/_common.py``: :data:`REMEMBERED_CHARS`, :class:`RememberedBound`), in the
three line parsers, on synthetic sessions told with the ledger's story writers and a
bound made small for the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from ledger_sessions import (
    CWD,
    DROPPED_RULE_1,
    ERROR_LINE,
    FAILED_OUTPUT,
    KEPT_RULE_1,
    PROMPT_1,
    SESSION_ID,
    Event,
    write_claude,
    write_codex,
    write_gemini,
)

from driftguard.adapters import _common, get_adapter, parse_session
from driftguard.adapters._common import RememberedBound, iter_lines, open_session_file
from driftguard.engine.drift import score_session
from driftguard.engine.handoff import build_handoff
from driftguard.model import ParsedMessage, Session, ToolCall
from driftguard.presets import load_preset
from driftguard.render.text import render_session_line, to_json_dict

CODING = load_preset("coding").weights
LIMIT = 6_000
"""The bound in characters for these tests: a few turns of :func:`_long_story`."""


def _long_story(turns: int, *, compact: bool = False) -> list[Event]:
    """The first prompt (two rules), an edit and a failing test run, then ``turns`` turns
    of a prompt and a long reply each; with ``compact``, a compaction whose summary names
    nothing of the start, and one more turn."""
    events = [
        Event("prompt", PROMPT_1),
        Event("edit", path=f"{CWD}/src/db.py"),
        Event("shell", "pytest -q", output=FAILED_OUTPUT, failed=True),
        Event("reply", "One test still fails.", tokens=30_000),
    ]
    for turn in range(turns):
        events += [
            Event("prompt", f"Go on with step {turn}."),
            Event("reply", f"Step {turn} is done. " + "The work goes on. " * 30, tokens=40_000),
        ]
    if compact:
        events += [
            Event("compact", "Summary: the work went on.", tokens=150_000),
            Event("prompt", "Carry on with the changelog entry."),
            Event("reply", "Added the changelog entry.", tokens=20_000),
        ]
    return events


def _write_claude(tmp_path: Path, events: list[Event]) -> Path:
    return write_claude(tmp_path / "projects" / "-home-dev-shop" / f"{SESSION_ID}.jsonl", events)


def _write_codex(tmp_path: Path, events: list[Event]) -> Path:
    return write_codex(tmp_path, events)


def _write_gemini(tmp_path: Path, events: list[Event]) -> Path:
    return write_gemini(tmp_path / "chats" / "session-2026-11-30T10-00-7e1d9c2a.jsonl", events)


WRITERS: dict[str, Callable[[Path, list[Event]], Path]] = {
    "claude_code": _write_claude,
    "codex_cli": _write_codex,
    "gemini_cli": _write_gemini,
}


@pytest.fixture(params=sorted(WRITERS))
def writer(request: pytest.FixtureRequest) -> Callable[[Path, list[Event]], Path]:
    return WRITERS[request.param]


def _bounded(monkeypatch: pytest.MonkeyPatch, path: Path, limit: int = LIMIT) -> Session:
    with monkeypatch.context() as patch:
        patch.setattr(_common, "REMEMBERED_CHARS", limit)
        return parse_session(path)


def _chars(session: Session) -> int:
    return sum(len(m.content) for m in session.messages)


def test_a_session_past_the_bound_keeps_only_the_bound_and_says_how_many_it_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: Callable[[Path, list[Event]], Path]
) -> None:
    path = writer(tmp_path, _long_story(40))
    whole = parse_session(path)
    bounded = _bounded(monkeypatch, path)
    assert whole.messages_let_go == 0
    assert _chars(whole) > LIMIT
    assert _chars(bounded) <= LIMIT
    assert bounded.messages_let_go == len(whole.messages) - len(bounded.messages) > 0
    latest = len(bounded.messages) - 1  # all but the first prompt are the latest messages
    assert bounded.messages[-latest:] == whole.messages[-latest:]


def test_the_first_typed_prompt_stays_and_is_still_the_handoffs_goal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: Callable[[Path, list[Event]], Path]
) -> None:
    path = writer(tmp_path, _long_story(40))
    whole = parse_session(path)
    bounded = _bounded(monkeypatch, path)
    assert bounded.messages[0].content == PROMPT_1
    goal = build_handoff(bounded, score_session(bounded, weights=CODING)).goal
    assert goal is not None
    assert goal.startswith("Add a --dry-run flag")
    assert goal == build_handoff(whole, score_session(whole, weights=CODING)).goal


def test_a_session_within_the_bound_is_the_session_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: Callable[[Path, list[Event]], Path]
) -> None:
    path = writer(tmp_path, _long_story(40))
    whole = parse_session(path)
    assert _bounded(monkeypatch, path, limit=_chars(whole)) == whole


def test_read_line_by_line_with_a_snapshot_after_each_line_it_is_the_session_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: Callable[[Path, list[Event]], Path]
) -> None:
    path = writer(tmp_path, _long_story(40))
    monkeypatch.setattr(_common, "REMEMBERED_CHARS", LIMIT)
    parser = get_adapter(parse_session(path).cli).line_parser(path)
    assert parser is not None
    with open_session_file(path) as stream:
        for line, terminated in iter_lines(stream):
            parser.feed(line, terminated)
            assert _chars(parser.session()) <= LIMIT
    assert parser.session() == parse_session(path)
    assert parser.session().messages_let_go > 0


def test_what_the_bound_let_go_still_reaches_the_ledger_of_the_next_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: Callable[[Path, list[Event]], Path]
) -> None:
    path = writer(tmp_path, _long_story(40, compact=True))
    whole = parse_session(path)
    bounded = _bounded(monkeypatch, path)
    (record,) = bounded.compaction_ledger
    assert record.dropped_files == (f"{CWD}/src/db.py",)
    assert set(record.dropped_constraints) == {DROPPED_RULE_1, KEPT_RULE_1}
    assert record.dropped_errors == (ERROR_LINE,)
    assert bounded.compaction_ledger == whole.compaction_ledger
    # what the compaction dropped is no longer the bound's: the session is the same
    assert bounded.messages_let_go == 0
    assert bounded.messages == whole.messages


def test_the_report_says_how_many_messages_were_let_go_and_only_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write_claude(tmp_path, _long_story(40))
    bounded = _bounded(monkeypatch, path)
    report = score_session(bounded, weights=CODING)
    let_go = f"{bounded.messages_let_go} earlier messages let go"
    assert let_go in render_session_line(report)
    assert to_json_dict(report)["session"]["messages_let_go"] == bounded.messages_let_go
    whole = score_session(parse_session(path), weights=CODING)
    assert "let go" not in render_session_line(whole)
    assert "messages_let_go" not in to_json_dict(whole)["session"]


# --- the bound itself -------------------------------------------------------------------


def _call(command: str) -> ParsedMessage:
    call = ToolCall(name="Bash", args_digest=command, command=command, kind="shell")
    return ParsedMessage(role="tool", content="", tool_calls=(call,))


def test_the_bound_is_twice_the_largest_window_at_four_characters_a_token() -> None:
    from driftguard.adapters.claude_code._window import LARGE_WINDOW
    from driftguard.adapters.codex_cli._parse import DEFAULT_CONTEXT_WINDOW as CODEX_WINDOW
    from driftguard.adapters.cursor._parse import DEFAULT_CONTEXT_WINDOW as CURSOR_WINDOW
    from driftguard.adapters.gemini_cli._parse import GEMINI_CONTEXT_WINDOW

    known = (LARGE_WINDOW, CODEX_WINDOW, CURSOR_WINDOW, GEMINI_CONTEXT_WINDOW)
    assert max(known) == _common.LARGEST_WINDOW
    assert _common.REMEMBERED_CHARS == 2 * 4 * _common.LARGEST_WINDOW == 8_388_608


def test_a_cut_never_parts_a_tool_result_from_its_call() -> None:
    call = _call("pytest -q").tool_calls
    slots = [
        ParsedMessage(role="user", content="p" * 5),
        ParsedMessage(role="assistant", content="a" * 100, tool_calls=call),
        ParsedMessage(role="tool", content="r" * 5),
        ParsedMessage(role="assistant", content="b" * 5),
    ]
    bound = RememberedBound(limit=114)
    cut = bound.cut(slots, 0, 115)  # 58 characters must go: the reply with the call does
    assert cut is not None
    assert cut.end == 3  # after its result, not between the two
    assert cut.head == 0
    assert bound.head is slots[0]
    assert cut.count == bound.let_go == 2
    assert cut.chars == 105
    assert cut.messages == tuple(slots[:3])
    assert _common.after_cut(slots, cut) == [slots[0], slots[3]]
    # the head stays first: the next cut starts after it
    assert bound.start(_common.after_cut(slots, cut), 0) == 1


def test_nothing_is_cut_within_the_limit_nor_the_latest_message() -> None:
    slots = [ParsedMessage(role="assistant", content="a" * 500)]
    bound = RememberedBound(limit=100)
    assert bound.cut(slots, 0, 50) is None
    assert bound.cut(slots, 0, 500) is None
    assert bound.let_go == 0
