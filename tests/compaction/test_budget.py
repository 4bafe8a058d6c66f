"""The room left before the host compacts, in tokens and turns."""

from __future__ import annotations

from driftguard.compaction.budget import budget, turn_growths, turns_phrase
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


def test_the_turns_left_divide_the_tokens_left_by_the_median_growth_of_finished_turns() -> None:
    s = session([[18_000, 20_000], [22_000, 25_000], [30_000, 33_000], [40_000], [41_000]])
    assert turn_growths(s) == [5_000, 8_000, 7_000]  # the turn of the latest prompt is left out
    room = budget(s, 167_000)
    assert (room.tokens_left, room.growth_per_turn, room.turns_left) == (126_000, 7_000, 18)


def test_a_turn_still_going_on_does_not_stretch_the_estimate() -> None:
    s = session([[20_000], [30_000], [40_000], [50_000], [50_100]])  # the last has barely begun
    assert turn_growths(s) == [10_000, 10_000, 10_000]
    assert budget(s, 167_000).growth_per_turn == 10_000


def test_a_turn_that_shrank_the_context_says_nothing_about_how_fast_it_fills() -> None:
    s = session([[50_000], [60_000], [20_000], [26_000], [27_000]])  # compaction in turn 3
    assert turn_growths(s) == [10_000, -40_000, 6_000]
    assert budget(s, 167_000).growth_per_turn == 8_000  # the median of 10k and 6k


def test_only_the_last_five_finished_turns_count() -> None:
    s = session([[1_000 * i * i] for i in range(1, 11)])
    assert len(turn_growths(s)) == 5
    assert turn_growths(s)[-1] == 81_000 - 64_000


def test_without_usage_a_turns_growth_is_the_characters_it_added_over_four() -> None:
    s = session([[0], [0], [0], [0]], estimated=True, context=1_000)
    # each turn: a 409-character prompt and an 80-character reply → 122 tokens
    assert turn_growths(s) == [122, 122, 122]
    assert budget(s, 95_000).turns_left == (95_000 - 1_000) // 122


def test_one_grown_turn_gives_tokens_left_but_no_turns_estimate() -> None:
    # a one-question session once gave "~11,132 turns"
    for turns in ([[20_000]], [[20_000], [20_015]], [[20_000], [20_015], [20_030]]):
        room = budget(session(turns), 167_000)
        assert (room.growth_per_turn, room.turns_left) == (None, None)
        assert room.tokens_left > 0
    estimated = budget(session([[0], [0]], estimated=True, context=15), 167_000)
    assert (estimated.growth_per_turn, estimated.turns_left) == (None, None)


def test_past_the_usable_window_nothing_is_left() -> None:
    room = budget(session([[100_000], [140_000], [170_000], [171_000]]), 167_000)
    assert (room.tokens_left, room.turns_left) == (0, 0)


def test_turns_read_as_a_rough_count_capped_far_ahead() -> None:
    assert turns_phrase(None) is None
    assert turns_phrase(0) == "under a turn"
    assert turns_phrase(1) == "~1 turn"
    assert turns_phrase(18) == "~18 turns"
    assert turns_phrase(50) == "~50 turns"
    assert turns_phrase(51) == "over 50 turns"
    assert turns_phrase(11_132) == "over 50 turns"
