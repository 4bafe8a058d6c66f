"""What the factors read from the messages, kept up to date message by message, is what
the factors' own definitions read from the whole sequence.

The definitions — ``Session.message_count``, ``Session.assistant_texts``,
``factors.hedge_rise``, ``loops.steps``, the walk of ``calibrated.first_request_tokens`` —
are the oracle; :class:`FeatureIndex` is checked against a fresh computation after every
snapshot of conversations that grow, whose last messages change, or whose earlier ones do.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from conftest import corpus_file
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.adapters import parse_session
from driftguard.model import ParsedMessage, Session, ToolCall
from driftguard.scoring import factors
from driftguard.scoring.features import RECENT, FeatureIndex, Features, shared_prefix
from driftguard.scoring.goal import GOAL_WINDOW
from driftguard.scoring.loops import recent_steps

CORPUS_SESSIONS = (
    "claude_code/cc_v1.0.24_summary-lines_fe869ecb.jsonl",
    "claude_code/cc_v2.0.37_legacy-agent-sidechain_agent-668b5ac2.jsonl",
    "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "generated/claude/claude-long-26turns-compact.jsonl",
    "gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl",
    "codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl",
    "generated/codex/codex-long-24turns-compact.jsonl",
)


def by_definition(messages: tuple[ParsedMessage, ...]) -> Features:
    """The features written out from the factors' own definitions."""
    session = Session(
        cli="claude_code",
        path="x",
        session_id=None,
        cwd=None,
        messages=messages,
        context_tokens=0,
        context_window=1,
        tokens_estimated=True,
        compactions=0,
        skipped_lines=0,
    )
    replies = session.assistant_texts
    chars = 0
    for message in messages:
        if message.role == "assistant" and not message.is_summary:
            break
        chars += len(message.content)
    return Features(
        messages=session.message_count,
        replies=len(replies),
        recent=replies[-RECENT:],
        first=replies[:GOAL_WINDOW],
        hedge_rise=factors.hedge_rise(replies),
        steps=tuple(recent_steps(messages)),
        chars_before_first_reply=chars,
    )


@pytest.mark.parametrize("name", CORPUS_SESSIONS)
def test_the_features_of_a_corpus_session_are_what_the_definitions_read(name: str) -> None:
    messages = parse_session(corpus_file(name)).messages
    assert Features.of(messages) == by_definition(messages)


# ---------------------------------------------------------------------- random conversations

HEDGED = ["It might work.", "I think so, maybe.", "Done.", "Perhaps not; unclear.", "", "Fixed."]
CALLS = [ToolCall("Bash", "d1", command="pytest"), ToolCall("Read", "d2", target_path="/a.py")]


@st.composite
def a_message(draw: st.DrawFn) -> ParsedMessage:
    role = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "tool"]))
    calls = tuple(draw(st.lists(st.sampled_from(CALLS), max_size=2))) if role != "user" else ()
    content = draw(st.sampled_from(HEDGED)) + draw(st.text(max_size=8))
    if role == "tool" and calls:
        content = draw(st.sampled_from(["", " ", "Exit code: 1", "ok"]))
    return ParsedMessage(
        role=role,
        content=content,
        tool_calls=calls,
        is_error=role == "tool" and draw(st.booleans()),
        is_summary=role == "user" and draw(st.integers(0, 9)) == 0,
    )


def snapshots(final: list[ParsedMessage], rng: random.Random) -> list[tuple[ParsedMessage, ...]]:
    """Snapshots of a conversation growing to ``final``: each a longer prefix, its last
    messages sometimes rebuilt (equal or not), now and then an earlier one changed or the
    conversation cut short (a compaction, a rewind)."""
    out: list[tuple[ParsedMessage, ...]] = []
    current: list[ParsedMessage] = []
    while len(current) < len(final):
        current = list(final[: len(current) + rng.randint(1, 4)])
        roll = rng.random()
        if roll < 0.3 and current:
            current[-1] = dataclasses.replace(current[-1])  # rebuilt, equal, another object
        elif roll < 0.45 and current:
            last = current[-1]
            current[-1] = dataclasses.replace(last, content=last.content + " maybe more")
        elif roll < 0.55 and len(current) > 3:
            at = rng.randrange(len(current) - 1)
            current[at] = dataclasses.replace(current[at], content="changed, I think")
        elif roll < 0.6:
            current = current[: rng.randint(0, len(current))]
        out.append(tuple(current))
    return out


@settings(max_examples=120, deadline=None)
@given(final=st.lists(a_message(), max_size=70), seed=st.integers(0, 2**16))
def test_an_index_kept_up_to_date_equals_the_definitions_after_every_snapshot(
    final: list[ParsedMessage], seed: int
) -> None:
    index = FeatureIndex()
    for snapshot in snapshots(final, random.Random(seed)):
        assert index.sync(snapshot) == by_definition(snapshot)


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.sampled_from(range(6)), max_size=12),
    new=st.lists(st.sampled_from(range(6)), max_size=12),
)
def test_shared_prefix_is_the_length_of_the_longest_common_prefix(
    old: list[int], new: list[int]
) -> None:
    messages = [ParsedMessage(role="user", content=str(n)) for n in range(6)]
    a = tuple(messages[n] for n in old)
    b = tuple(messages[n] for n in new)
    expected = 0
    while expected < min(len(a), len(b)) and a[expected] == b[expected]:
        expected += 1
    assert shared_prefix(a, b) == expected


def test_a_grown_conversation_reads_the_hedges_of_only_the_replies_entering_a_third(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    original = factors.hedge_features

    def counting(text: str) -> tuple[int, int]:
        read.append(text)
        return original(text)

    monkeypatch.setattr("driftguard.scoring.features.hedge_features", counting)
    replies = [ParsedMessage(role="assistant", content=f"reply {n}, maybe") for n in range(300)]
    index = FeatureIndex()
    index.sync(tuple(replies))
    assert len(read) == 2 * 100  # the first and the last third; the middle one is never read
    read.clear()
    more = (*replies, ParsedMessage(role="assistant", content="one more, perhaps"))
    assert index.sync(more) == by_definition(more)
    assert read == ["reply 100, maybe", "one more, perhaps"]  # one enters each third
