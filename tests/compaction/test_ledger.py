"""The compaction ledger: what each compaction dropped, told without a
model from the transcript, by every adapter; and the usable window the transcript's own
automatic compaction shows (review item M2).

The sessions are our own (tests/ledger_sessions.py): one story of a ``--dry-run`` flag,
told in each CLI's records, with one or two compactions; each compaction's summary names
one of the person's rules again and leaves out another.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, FIXTURES, corpus_file
from cursor_home import CursorHome
from ledger_sessions import (
    CWD,
    DROPPED_RULE_1,
    DROPPED_RULE_2,
    ERROR_LINE,
    FORGETFUL_SUMMARY_2,
    KEPT_RULE_1,
    KEPT_RULE_2,
    PROMPT_1,
    PROMPT_2,
    SESSION_ID,
    Event,
    claude_records,
    cursor_bubbles,
    story,
    write_claude,
    write_codex,
    write_gemini,
)

from driftguard.adapters import cursor, get_adapter, parse_session, turn_snapshots
from driftguard.adapters._common import LineParser, feed_file
from driftguard.compaction.ledger import LedgerBuilder, constraint_sentences
from driftguard.compaction.window import OBSERVED_MARGIN, observed_window
from driftguard.engine.drift import score_session
from driftguard.engine.window import usable_window
from driftguard.errors import DriftguardError
from driftguard.model import CompactionRecord, ParsedMessage, Session, ToolCall
from driftguard.presets import load_preset

CODING = load_preset("coding").weights


def _claude(tmp_path: Path, events: list[Event], **options: Any) -> Session:
    path = tmp_path / "projects" / "-home-dev-shop" / f"{SESSION_ID}.jsonl"
    return parse_session(write_claude(path, events, **options))


def _codex(tmp_path: Path, events: list[Event]) -> Session:
    return parse_session(write_codex(tmp_path, events))


def _gemini(tmp_path: Path, events: list[Event], *, legacy: bool = False) -> Session:
    name = "session-2026-11-30T10-00-7e1d9c2a." + ("json" if legacy else "jsonl")
    return parse_session(write_gemini(tmp_path / "chats" / name, events, legacy=legacy))


def _cursor(tmp_path: Path, events: list[Event]) -> Session:
    home = CursorHome(tmp_path / "Cursor" / "User")
    home.add_chat("ledger-chat", cursor_bubbles(events))
    return cursor.parse_composer(home.global_db, "ledger-chat", cwd=CWD)


def _carrying(events: list[Event], *prompts: str) -> list[Event]:
    """``events`` with every compaction re-sending ``prompts`` verbatim (Codex's
    replacement history, Gemini's kept tail)."""
    return [dataclasses.replace(e, carried=prompts) if e.kind == "compact" else e for e in events]


# --- which sentences are constraints ----------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (PROMPT_1, ["Never touch migrations/.", "Always run pytest -q before you say it works."]),
        (
            "Fix the parser, but don't rename the public API.",
            ["Fix the parser, but don't rename the public API."],
        ),
        ("Please always keep the tests green", ["Please always keep the tests green"]),
        (
            "You must not commit secrets. We never push on Fridays!",
            [
                "You must not commit secrets.",
                "We never push on Fridays!",
            ],
        ),
        ("- do not edit generated files\n- keep it short", ["do not edit generated files"]),
    ],
)
def test_a_sentence_that_opens_a_rule_with_always_never_dont_or_must_is_a_constraint(
    prompt: str, expected: list[str]
) -> None:
    assert constraint_sentences(prompt) == expected


@pytest.mark.parametrize(
    "prompt",
    [
        "Never mind the last question, carry on.",
        "You don't need to run the linter.",
        "Should we always run the full suite?",
        "It never worked on Windows anyway and I know why.",
        "Never.",
        "```\n# never touch this block of code\n```",
    ],
)
def test_a_grant_a_question_a_statement_a_fragment_or_code_is_not_a_constraint(
    prompt: str,
) -> None:
    assert constraint_sentences(prompt) == []


# --- the builder ------------------------------------------------------------------------


def _edit(path: str) -> ParsedMessage:
    call = ToolCall(name="Edit", args_digest=path, target_path=path, kind="edit")
    return ParsedMessage(role="tool", content="", tool_calls=(call,))


def test_a_constraint_the_summary_names_again_survives_and_the_other_is_dropped() -> None:
    ledger = LedgerBuilder()
    ledger.compacted(
        [ParsedMessage(role="user", content=PROMPT_1)],
        timestamp=100.0,
        cwd=CWD,
        kept=["Summary: ALWAYS run   pytest -q before you say it works!"],
    )
    (record,) = ledger.records()
    assert record.dropped_constraints == (DROPPED_RULE_1,)
    assert record.timestamp == 100.0


def test_a_candidate_named_in_a_later_prompt_or_targeted_by_a_later_call_survives() -> None:
    ledger = LedgerBuilder()
    before = [
        ParsedMessage(role="user", content=PROMPT_1),
        _edit(f"{CWD}/src/cli.py"),
        _edit(f"{CWD}/src/db.py"),
    ]
    ledger.compacted(before, timestamp=None, cwd=CWD)
    first = ledger.records()
    assert first[0].dropped_files == (f"{CWD}/src/cli.py", f"{CWD}/src/db.py")
    ledger.named("As I said: never touch migrations/")
    ledger.targeted(f"{CWD}/src/db.py")
    ledger.named("and look at src/cli.py again")
    (record,) = ledger.records()
    assert record.dropped_constraints == (KEPT_RULE_1,)
    assert record.dropped_files == ()
    assert ledger.records() is ledger.records()  # the same tuple while nothing changes


def test_a_path_is_named_only_as_a_whole_path_relative_or_absolute() -> None:
    ledger = LedgerBuilder()
    ledger.compacted([_edit(f"{CWD}/src/db.py")], timestamp=None, cwd=CWD)
    ledger.named("we changed src/db.pyc and lib/src/db.py")  # other files
    assert ledger.records()[0].dropped_files == (f"{CWD}/src/db.py",)
    ledger.named(f"(see {CWD}/src/db.py)")
    assert ledger.records()[0].dropped_files == ()


def _failed(command: str, output: str) -> list[ParsedMessage]:
    call = ToolCall(name="Bash", args_digest=command, command=command, kind="shell")
    return [
        ParsedMessage(role="assistant", content="", tool_calls=(call,)),
        ParsedMessage(role="tool", content=output, is_error=True),
    ]


def _succeeded(command: str) -> list[ParsedMessage]:
    call = ToolCall(name="Bash", args_digest=command, command=command, kind="shell")
    return [
        ParsedMessage(role="assistant", content="", tool_calls=(call,)),
        ParsedMessage(role="tool", content="ok"),
    ]


def test_what_one_summary_kept_and_the_next_left_out_is_dropped_by_the_next() -> None:
    ledger = LedgerBuilder()
    before = [
        ParsedMessage(role="user", content="Never touch migrations/."),
        _edit(f"{CWD}/src/cli.py"),
        *_failed("pytest -q", "E   AssertionError: dry run wrote 2 rows"),
    ]
    ledger.compacted(
        before,
        timestamp=1.0,
        cwd=CWD,
        kept=["Summary: never touch migrations/. Edited src/cli.py; " + ERROR_LINE],
    )
    assert _dropped(ledger.records()[0]) == ((), (), ())
    ledger.compacted(
        [ParsedMessage(role="user", content="Carry on.")],
        timestamp=2.0,
        cwd=CWD,
        kept=["Summary: carrying on."],
    )
    first, second = ledger.records()
    assert _dropped(first) == ((), (), ())
    assert first.kept_files == (f"{CWD}/src/cli.py",)
    assert second.kept_files == ()
    assert _dropped(second) == (
        (f"{CWD}/src/cli.py",),
        ("Never touch migrations/.",),
        (ERROR_LINE,),
    )


def test_what_a_later_prompt_kept_stays_a_candidate_and_what_was_dropped_is_not_again() -> None:
    ledger = LedgerBuilder()
    ledger.compacted(
        [ParsedMessage(role="user", content=PROMPT_1)], timestamp=1.0, cwd=CWD, kept=[]
    )
    ledger.named("as agreed: always run pytest -q before you say it works")
    ledger.compacted([], timestamp=2.0, cwd=CWD)
    first, second = ledger.records()
    assert first.dropped_constraints == (DROPPED_RULE_1,)
    # the pytest rule was before the model until the second compaction; the migrations
    # rule was lost at the first and is not reported twice
    assert second.dropped_constraints == (KEPT_RULE_1,)


def test_a_kept_error_that_a_later_run_fixed_is_not_dropped_by_the_next_compaction() -> None:
    ledger = LedgerBuilder()
    failure = "E   AssertionError: dry run wrote 2 rows"
    ledger.compacted(_failed("pytest -q", failure), timestamp=1.0, cwd=CWD, kept=[failure])
    ledger.compacted(_succeeded("pytest -q"), timestamp=2.0, cwd=CWD)
    assert ledger.records()[1].dropped_errors == ()


def test_what_carries_over_keeps_the_digest_bounded_to_the_latest_items() -> None:
    ledger = LedgerBuilder()
    rules = [f"Never edit file number {n} by hand." for n in range(5)]
    ledger.compacted(
        [ParsedMessage(role="user", content=" ".join(rules))],
        timestamp=1.0,
        cwd=None,
        kept=[" ".join(rules)],
    )
    newer = [f"Always check module {n} twice." for n in range(3)]
    ledger.compacted([ParsedMessage(role="user", content=" ".join(newer))], timestamp=2.0, cwd=None)
    assert ledger.records()[1].dropped_constraints == (*rules[3:], *newer)


def _work() -> list[ParsedMessage]:
    """Twelve files edited, two prompts of rules, a failure fixed and one that was not."""
    return [
        ParsedMessage(role="user", content=PROMPT_1),
        *(_edit(f"{CWD}/src/m{n}.py") for n in range(6)),
        *_failed("pytest -q", "E   AssertionError: dry run wrote 2 rows"),
        *_failed("make lint", "error: line too long"),
        *_succeeded("make lint"),
        ParsedMessage(role="user", content="Don't rename the public API. Always log in JSON."),
        *(_edit(f"{CWD}/src/n{n}.py") for n in range(6)),
    ]


@pytest.mark.parametrize("split", [1, 7, 9, 11, 13, 14])
def test_messages_let_go_before_a_compaction_give_the_record_of_messages_kept_until_it(
    split: int,
) -> None:
    work = _work()
    whole = LedgerBuilder()
    whole.compacted(work, timestamp=1.0, cwd=CWD)
    let_go = LedgerBuilder()
    let_go.let_go(work[:split], cwd=CWD)
    let_go.compacted(work[split:], timestamp=1.0, cwd=CWD)
    assert let_go.records() == whole.records()
    assert len(whole.records()[0].dropped_files) == 10
    assert whole.records()[0].dropped_errors == (ERROR_LINE,)


def test_a_success_among_the_messages_let_go_fixes_an_error_the_last_compaction_kept() -> None:
    ledger = LedgerBuilder()
    failure = "E   AssertionError: dry run wrote 2 rows"
    ledger.compacted(_failed("pytest -q", failure), timestamp=1.0, cwd=CWD, kept=[failure])
    ledger.let_go(_succeeded("pytest -q"), cwd=CWD)
    ledger.compacted([ParsedMessage(role="user", content="Carry on.")], timestamp=2.0, cwd=CWD)
    assert ledger.records()[1].dropped_errors == ()


def test_an_error_let_go_and_fixed_after_is_not_dropped_and_what_is_let_go_is_read_once() -> None:
    ledger = LedgerBuilder()
    ledger.let_go(_failed("pytest -q", "E   AssertionError: dry run wrote 2 rows"), cwd=CWD)
    ledger.compacted(_succeeded("pytest -q"), timestamp=1.0, cwd=CWD)
    ledger.compacted([], timestamp=2.0, cwd=CWD)
    first, second = ledger.records()
    assert first.dropped_errors == second.dropped_errors == ()


@pytest.mark.parametrize(
    ("kept", "dropped"),
    [
        ("We never use printf-style formatting.", True),
        ("We never use print-debugging.", True),
        ("We never use print anywhere.", False),
        ("Rule: never use print.", False),
    ],
)
def test_a_rule_is_named_only_by_its_whole_words(kept: str, dropped: bool) -> None:
    ledger = LedgerBuilder()
    ledger.compacted(
        [ParsedMessage(role="user", content="Never use print. Fix the loader.")],
        timestamp=None,
        cwd=None,
        kept=[kept],
    )
    expected = ("Never use print.",) if dropped else ()
    assert ledger.records()[0].dropped_constraints == expected


@pytest.mark.parametrize(
    ("kept", "dropped"),
    [
        ("Backed up src/db.py.bak first.", True),
        ("Backed up src/db.py~ first.", True),
        ("Backed up src/db.py.orig and src/db.py-old first.", True),
        ("Changed src/db.py.", False),
        ("Changed src/db.py: the loader.", False),
        ("Changed `src/db.py`, then ran the tests.", False),
    ],
)
def test_a_path_followed_by_more_of_a_path_does_not_name_the_file(kept: str, dropped: bool) -> None:
    ledger = LedgerBuilder()
    ledger.compacted([_edit(f"{CWD}/src/db.py")], timestamp=None, cwd=CWD, kept=[kept])
    expected = (f"{CWD}/src/db.py",) if dropped else ()
    assert ledger.records()[0].dropped_files == expected


def test_an_error_line_is_named_only_whole() -> None:
    ledger = LedgerBuilder()
    ledger.compacted(
        _failed("make", "error: exit 1"), timestamp=None, cwd=None, kept=["error: exit 12"]
    )
    assert ledger.records()[0].dropped_errors == ("error: exit 1",)


def test_a_compaction_closes_the_one_before_it() -> None:
    ledger = LedgerBuilder()
    ledger.compacted([ParsedMessage(role="user", content=PROMPT_1)], timestamp=1.0, cwd=None)
    ledger.compacted([ParsedMessage(role="user", content=PROMPT_2)], timestamp=2.0, cwd=None)
    ledger.named(PROMPT_1)  # too late for the first compaction: the model lost it then
    first, second = ledger.records()
    assert set(first.dropped_constraints) == {DROPPED_RULE_1, KEPT_RULE_1}
    assert set(second.dropped_constraints) == {KEPT_RULE_2, DROPPED_RULE_2}


def test_a_summary_adds_no_rule_of_its_own_and_the_digest_is_bounded() -> None:
    prompts = [
        ParsedMessage(role="user", content=f"Never edit file number {n} by hand.") for n in range(9)
    ]
    summary = ParsedMessage(
        role="user", content="Never say the summary is a rule.", is_summary=True
    )
    edits = [_edit(f"/src/f{n}.py") for n in range(14)]
    ledger = LedgerBuilder()
    ledger.compacted([summary, *prompts, *edits], timestamp=None, cwd=None)
    (record,) = ledger.records()
    assert record.dropped_constraints == tuple(
        f"Never edit file number {n} by hand." for n in range(4, 9)
    )
    assert record.dropped_files == tuple(f"/src/f{n}.py" for n in range(4, 14))


def test_what_the_file_no_longer_holds_is_said_and_nothing_is_guessed() -> None:
    ledger = LedgerBuilder()
    ledger.compacted(
        [ParsedMessage(role="user", content=PROMPT_1)],
        timestamp=None,
        cwd=None,
        unknown="the file was rewritten",
    )
    (record,) = ledger.records()
    assert record.dropped_unknown == "the file was rewritten"
    assert (record.dropped_constraints, record.dropped_files, record.dropped_errors) == (
        (),
        (),
        (),
    )


# --- the adapters -----------------------------------------------------------------------


def _expected_first() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    return ((f"{CWD}/src/db.py",), (DROPPED_RULE_1,), (ERROR_LINE,))


def _dropped(record: CompactionRecord) -> tuple[tuple[str, ...], ...]:
    return (record.dropped_files, record.dropped_constraints, record.dropped_errors)


def test_claude_code_one_compaction_drops_a_rule_a_file_and_the_error_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    session = _claude(tmp_path, story(1))
    assert session.compactions == len(session.compaction_ledger) == 1
    (record,) = session.compaction_ledger
    assert _dropped(record) == _expected_first()
    assert (record.trigger, record.tokens_before) == ("auto", 150_000)
    assert record.timestamp is not None
    # the scored messages stay what the model remembers: the summary and what follows
    assert session.messages[0].is_summary
    assert all(PROMPT_1 not in m.content for m in session.messages)


def test_claude_code_several_compactions_each_have_their_own_digest(tmp_path: Path) -> None:
    session = _claude(tmp_path, story(2, trigger="manual"))
    assert session.compactions == len(session.compaction_ledger) == 2
    first, second = session.compaction_ledger
    assert _dropped(first) == _expected_first()
    assert _dropped(second) == ((f"{CWD}/src/log.py",), (DROPPED_RULE_2,), ())
    assert (first.trigger, second.trigger) == ("manual", "manual")
    assert (first.tokens_before, second.tokens_before) == (150_000, 151_000)
    assert first.timestamp is not None
    assert second.timestamp is not None
    assert first.timestamp < second.timestamp


def test_claude_code_counts_the_preserved_segment_as_kept(tmp_path: Path) -> None:
    records = claude_records(story(1))
    boundary = next(r for r in records if r.get("subtype") == "compact_boundary")
    edit_db = next(
        r
        for r in records
        if r["type"] == "assistant"
        and r["message"]["content"][0].get("input", {}).get("file_path") == f"{CWD}/src/db.py"
    )
    index = records.index(edit_db)
    preserved = [edit_db["uuid"], records[index + 1]["uuid"]]
    boundary["compactMetadata"]["preservedSegment"] = {
        "headUuid": preserved[0],
        "anchorUuid": "x",
        "tailUuid": preserved[-1],
    }
    boundary["compactMetadata"]["preservedMessages"] = {"uuids": preserved}
    path = tmp_path / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (record,) = parse_session(path).compaction_ledger
    assert record.dropped_files == ()  # its edit is in the preserved segment
    assert record.dropped_constraints == (DROPPED_RULE_1,)


def test_claude_code_a_boundary_without_metadata_has_no_trigger_or_size(tmp_path: Path) -> None:
    records = claude_records(story(1))
    for record in records:
        if record.get("subtype") == "compact_boundary":
            record["compactMetadata"] = {"trigger": "later", "preTokens": "many"}
    path = tmp_path / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (record,) = parse_session(path).compaction_ledger
    assert (record.trigger, record.tokens_before) == (None, None)
    assert _dropped(record) == _expected_first()


def test_codex_the_prompts_it_re_sends_survive_and_older_ones_are_dropped(tmp_path: Path) -> None:
    session = _codex(tmp_path, _carrying(story(2), PROMPT_2))
    assert session.compactions == len(session.compaction_ledger) == 2
    first, second = session.compaction_ledger
    assert _dropped(first) == _expected_first()
    # the second compaction re-sends PROMPT_2 in its replacement history: both its rules
    # are still before the model; only the edit of src/log.py is gone
    assert _dropped(second) == ((f"{CWD}/src/log.py",), (), ())
    assert (first.trigger, first.tokens_before) == (None, None)


def test_gemini_a_compression_rewrite_drops_what_it_leaves_out(tmp_path: Path) -> None:
    session = _gemini(tmp_path, story(2))
    assert session.compactions == len(session.compaction_ledger) == 2
    first, second = session.compaction_ledger
    assert _dropped(first) == _expected_first()
    assert _dropped(second) == ((f"{CWD}/src/log.py",), (DROPPED_RULE_2,), ())
    assert first.dropped_unknown is None


def test_gemini_the_kept_tail_of_a_rewrite_counts_as_kept(tmp_path: Path) -> None:
    session = _gemini(tmp_path, _carrying(story(1), PROMPT_1))
    (record,) = session.compaction_ledger
    assert record.dropped_constraints == ()
    assert record.dropped_files == (f"{CWD}/src/db.py",)


@pytest.mark.parametrize("compactions", [1, 2])
def test_gemini_a_legacy_json_rewritten_whole_says_what_it_dropped_is_unknown(
    tmp_path: Path, compactions: int
) -> None:
    session = _gemini(tmp_path, story(compactions), legacy=True)
    # the file holds the last compression's snapshot only: one compaction it can tell of
    assert session.compactions == len(session.compaction_ledger) == 1
    (record,) = session.compaction_ledger
    assert record.dropped_unknown is not None
    assert "no longer holds" in record.dropped_unknown
    assert _dropped(record) == ((), (), ())


@pytest.mark.parametrize("make", [_claude, _codex, _gemini, _cursor])
def test_each_cli_a_second_summary_that_leaves_out_what_the_first_kept_drops_it(
    tmp_path: Path, make: Callable[[Path, list[Event]], Session]
) -> None:
    session = make(tmp_path, story(2, second_summary=FORGETFUL_SUMMARY_2))
    first, second = session.compaction_ledger
    assert _dropped(first) == _expected_first()
    assert _dropped(second) == (
        (f"{CWD}/src/cli.py", f"{CWD}/src/log.py"),
        (KEPT_RULE_1, DROPPED_RULE_2),
        (),
    )


def test_cursor_each_summary_drops_what_lies_before_its_boundary(tmp_path: Path) -> None:
    session = _cursor(tmp_path, story(2))
    assert session.compactions == len(session.compaction_ledger) == 2
    first, second = session.compaction_ledger
    assert _dropped(first) == _expected_first()
    assert _dropped(second) == ((f"{CWD}/src/log.py",), (DROPPED_RULE_2,), ())


def test_a_session_without_compactions_has_an_empty_ledger(tmp_path: Path) -> None:
    events = [e for e in story(1) if e.kind != "compact"]
    for session in (
        _claude(tmp_path / "c", events),
        _codex(tmp_path / "x", events),
        _gemini(tmp_path / "g", events),
        _cursor(tmp_path / "u", events),
    ):
        assert (session.compactions, session.compaction_ledger) == (0, ())


def test_each_turn_snapshot_has_as_many_ledger_entries_as_compactions(tmp_path: Path) -> None:
    path = write_claude(tmp_path / f"{SESSION_ID}.jsonl", story(2))
    snapshots = list(turn_snapshots(path))
    # a turn ends when the next prompt arrives: after the compaction that came between
    assert [s.compactions for s in snapshots] == [1, 2, 2]
    assert all(len(s.compaction_ledger) == s.compactions for s in snapshots)


# --- what a parser keeps of what came before the last compaction --------------------------

FORGOTTEN = "forgotten-marker-4c1e"
"""Text only the messages before the compaction hold (a reply, a successful tool output)."""
REMEMBERED = "remembered-marker-9b2d"
"""Text only a message after the last compaction holds."""


def _with_markers(events: list[Event]) -> list[Event]:
    """``events`` with a reply and a successful command output naming :data:`FORGOTTEN`
    before the first compaction, and a reply naming :data:`REMEMBERED` at the end."""
    first = next(i for i, e in enumerate(events) if e.kind == "compact")
    before = [
        Event("shell", "cat NOTES", output=f"notes: {FORGOTTEN}\n" * 200),
        Event("reply", f"The notes say {FORGOTTEN}.", tokens=149_000),
    ]
    after = Event("reply", f"Still here: {REMEMBERED}.", tokens=31_000)
    return [*events[:first], *before, *events[first:], after]


def _texts_held(root: object) -> Iterator[str]:
    """Every string reachable from ``root`` through what the garbage collector follows
    (containers, instances, slots), classes, modules and functions left out (they reach
    every module, this test's own constants too)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        held = stack.pop()
        if id(held) in seen:
            continue
        seen.add(id(held))
        if isinstance(held, str):
            yield held
        elif not isinstance(
            held, type | types.ModuleType | types.FunctionType | types.BuiltinFunctionType
        ):
            stack.extend(gc.get_referents(held))


def _parser_after(path: Path) -> tuple[LineParser, Session]:
    adapter = get_adapter(parse_session(path).cli)
    parser = adapter.line_parser(path)
    assert parser is not None
    feed_file(parser, path)
    return parser, parser.session()


@pytest.mark.parametrize("cli", ["claude_code", "codex_cli", "gemini_cli"])
def test_a_parser_keeps_nothing_of_the_messages_before_the_last_compaction_but_the_digest(
    tmp_path: Path, cli: str
) -> None:
    writers: dict[str, Callable[[Path, list[Event]], Path]] = {
        "claude_code": lambda folder, events: write_claude(folder / f"{SESSION_ID}.jsonl", events),
        "codex_cli": write_codex,
        "gemini_cli": lambda folder, events: write_gemini(folder / "chats" / "s.jsonl", events),
    }
    write = writers[cli]
    for compactions in (1, 2):
        path = write(tmp_path / f"{compactions}", _with_markers(story(compactions)))
        parser, session = _parser_after(path)
        held = list(_texts_held(parser))
        assert not [text for text in held if FORGOTTEN in text]
        assert [text for text in held if REMEMBERED in text]
        # what the compaction dropped is still told
        assert _dropped(session.compaction_ledger[0]) == _expected_first()
    # without the compaction the same messages are remembered, and held
    uncompacted = [e for e in _with_markers(story(1)) if e.kind != "compact"]
    parser, _ = _parser_after(write(tmp_path / "0", uncompacted))
    assert [text for text in _texts_held(parser) if FORGOTTEN in text]


def _session_files() -> list[Path]:
    fixtures = [p for p in FIXTURES.rglob("*.jsonl") if "setup" not in p.parts]
    corpus = sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file() and p.suffix in (".jsonl", ".json") and ".requests." not in p.name
    )
    return [*sorted(fixtures), *corpus]


def test_every_fixture_and_corpus_session_has_one_ledger_entry_per_compaction() -> None:
    corpus_file("claude_code")  # skips, with the reason, where the shared corpus is absent
    checked = 0
    for path in _session_files():
        try:
            session = parse_session(path)
        except DriftguardError:
            continue  # not a session file (a registry, a settings file)
        assert len(session.compaction_ledger) == session.compactions, path
        checked += 1
    assert checked >= 20


def test_the_real_claude_compactions_give_their_trigger_and_size() -> None:
    session = parse_session(corpus_file("generated/claude/claude-long-26turns-compact.jsonl"))
    # compact_boundary lines 63 and 169: compactMetadata {"trigger": "manual", "preTokens":
    # 111012} and {"trigger": "auto", "preTokens": 167016} (read with json.loads per line)
    assert [(r.trigger, r.tokens_before) for r in session.compaction_ledger] == [
        ("manual", 111_012),
        ("auto", 167_016),
    ]


# --- the ledger never changes a score ---------------------------------------------------


@pytest.mark.parametrize("make", [_claude, _codex, _gemini, _cursor])
def test_the_ledger_changes_no_factor_and_no_score(
    tmp_path: Path, make: Callable[[Path, list[Event]], Session]
) -> None:
    session = make(tmp_path, story(2, trigger="manual"))
    bare = dataclasses.replace(session, compaction_ledger=())
    with_ledger = score_session(session, weights=CODING)
    without = score_session(bare, weights=CODING)
    assert (with_ledger.score, dict(with_ledger.factors), with_ledger.usable) == (
        without.score,
        dict(without.factors),
        without.usable,
    )


# --- M2: the usable window the transcript shows -----------------------------------------


def _one_million_session(tmp_path: Path, pre_tokens: int) -> Session:
    """A Claude Code session of a 1M-native model that auto-compacted at ``pre_tokens``."""
    return _claude(tmp_path, story(1, pre_tokens=pre_tokens), model="claude-opus-4-8")


def test_an_auto_compaction_well_below_the_rule_becomes_the_usable_window(tmp_path: Path) -> None:
    session = _one_million_session(tmp_path, 167_016)
    assert session.context_window == 1_000_000
    report = score_session(session, weights=CODING)
    assert report.usable is not None
    assert report.usable_window == 167_016
    assert "auto-compacted at 167,016 tokens" in report.usable.rule
    assert "967,000" in report.usable.rule  # the rule it replaced is named
    assert report.usable.overrides == ("transcript: the host auto-compacted at 167,016 tokens",)
    assert report.tokens_until_compaction == 167_016 - session.context_tokens


def test_an_auto_compaction_near_the_rule_or_a_manual_one_changes_nothing(tmp_path: Path) -> None:
    near = _one_million_session(tmp_path / "near", 960_000)
    assert score_session(near, weights=CODING).usable_window == 967_000
    manual = _claude(
        tmp_path / "manual", story(1, trigger="manual", pre_tokens=167_016), model="claude-opus-4-8"
    )
    assert score_session(manual, weights=CODING).usable_window == 967_000


def test_the_latest_auto_compaction_with_a_size_is_the_one_that_counts() -> None:
    rule = usable_window("claude_code", 1_000_000)
    ledger = (
        CompactionRecord(trigger="auto", tokens_before=150_000),
        CompactionRecord(trigger="auto", tokens_before=170_000),
        CompactionRecord(trigger="manual", tokens_before=50_000),
        CompactionRecord(trigger="auto"),
    )
    assert observed_window(rule, ledger).tokens == 170_000
    limit = int(rule.tokens * (1 - OBSERVED_MARGIN))
    assert observed_window(rule, (CompactionRecord(trigger="auto", tokens_before=limit),)) == rule
    assert observed_window(rule, ()) is rule


def test_score_and_the_engine_report_the_observed_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    session = _one_million_session(tmp_path, 167_016)
    assert main(["score", session.path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["session"]
    assert data["context_window"] == 1_000_000
    assert data["usable_window"] == 167_016
    assert data["usable_window_overrides"] == [
        "transcript: the host auto-compacted at 167,016 tokens"
    ]
    assert main(["score", session.path]) == 0
    text = capsys.readouterr().out
    assert f"{167_016 - session.context_tokens:,} tokens before the host compacts" in text


def test_a_window_the_user_names_keeps_the_hosts_rule_over_an_observed_compaction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    session = _one_million_session(tmp_path, 167_016)
    assert main(["score", session.path, "--json", "--context-window", "1000000"]) == 0
    data = json.loads(capsys.readouterr().out)["session"]
    assert data["usable_window"] == 967_000
    assert data["usable_window_overrides"] == []
    assert data["usable_window_rule"].endswith(
        "; the host auto-compacted at 167,016 tokens in this transcript, not used, as the "
        "window was named"
    )


def test_a_context_grown_well_past_the_observed_compaction_falls_back_to_the_rule() -> None:
    rule = usable_window("claude_code", 1_000_000)
    ledger = (CompactionRecord(trigger="auto", tokens_before=167_016),)
    # The host compacts on the first request past its threshold: just past it, it compacts next.
    assert observed_window(rule, ledger, context_tokens=180_000).tokens == 167_016
    grown = observed_window(rule, ledger, context_tokens=320_005)
    assert grown.tokens == 967_000
    assert grown.overrides == rule.overrides
    assert grown.rule.endswith("not used, as the context has grown well past it since")


def test_a_line_the_secret_gate_replaced_whole_is_not_taken_for_the_error() -> None:
    from driftguard.compaction.ledger import error_line

    gated = (
        "Exit code 1\n[REDACTED:private-key:55d1a7cd]\n"
        "Error connecting to agent: No such file or directory"
    )
    assert error_line(gated, None) == "Error connecting to agent: No such file or directory"
    assert error_line("[REDACTED:private-key:55d1a7cd]", None) == "[REDACTED:private-key:55d1a7cd]"
