"""The room left before the host compacts, in tokens and turns (issue #13)."""

from __future__ import annotations

from driftguard.budget import budget, turn_growths
from driftguard.model import ParsedMessage, Session


def session(turns: list[list[int]], *, estimated: bool = False, context: int = 0) -> Session:
    """A session of prompts, each answered by replies whose requests held these tokens."""
    messages: list[ParsedMessage] = []
    for index, requests in enumerate(turns):
        messages.append(ParsedMessage(role="user", content=f"prompt {index} " + "x" * 400))
        for tokens in requests:
            messages.append(ParsedMessage(role="assistant", content="y" * 80, token_count=tokens))
    last = [t for requests in turns for t in requests]
    return Session(
        cli="claude_code",
        path="/tmp/s.jsonl",
        session_id="s",
        cwd="/tmp",
        messages=tuple(messages),
        context_tokens=context or (last[-1] if last else 0),
        context_window=200_000,
        tokens_estimated=estimated,
        compactions=0,
        skipped_lines=0,
    )


def test_the_turns_left_divide_the_tokens_left_by_the_median_growth_of_recent_turns() -> None:
    s = session([[18_000, 20_000], [22_000, 25_000], [30_000, 33_000], [40_000]])
    assert turn_growths(s) == [5_000, 8_000, 7_000]
    room = budget(s, 167_000)
    assert (room.tokens_left, room.growth_per_turn, room.turns_left) == (127_000, 7_000, 18)


def test_a_turn_that_shrank_the_context_says_nothing_about_how_fast_it_fills() -> None:
    s = session([[50_000], [60_000], [20_000], [26_000]])  # a compaction in the third turn
    assert turn_growths(s) == [10_000, -40_000, 6_000]
    assert budget(s, 167_000).growth_per_turn == 8_000  # the median of 10k and 6k


def test_only_the_last_five_turns_count() -> None:
    s = session([[1_000 * i * i] for i in range(1, 10)])
    assert len(turn_growths(s)) == 5
    assert turn_growths(s)[-1] == 81_000 - 64_000


def test_without_usage_a_turns_growth_is_the_characters_it_added_over_four() -> None:
    s = session([[0], [0], [0]], estimated=True, context=1_000)
    # each turn: a 409-character prompt and an 80-character reply → 122 tokens
    assert turn_growths(s) == [122, 122, 122]
    assert budget(s, 95_000).turns_left == (95_000 - 1_000) // 122


def test_before_any_turn_grew_there_are_tokens_left_but_no_turns_estimate() -> None:
    room = budget(session([[20_000]]), 167_000)
    assert (room.tokens_left, room.growth_per_turn, room.turns_left) == (147_000, None, None)


def test_past_the_usable_window_nothing_is_left() -> None:
    room = budget(session([[100_000], [170_000]]), 167_000)
    assert (room.tokens_left, room.turns_left) == (0, 0)
