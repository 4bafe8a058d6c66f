"""Action loops going on at the latest step: the same call over and over, a failing call
retried, or two calls taking turns.

Thresholds: OpenHands' StuckDetector (4 identical action–observation pairs, 3 identical
failing actions, 6 steps of A-B alternation) and Gemini CLI's LoopDetectionService (5
identical calls, reset at a new prompt); a run of ``k`` scores ``100·(k−1)/(threshold−1)``.
"""

from __future__ import annotations

import pytest

from driftguard.adapters._common import make_tool_call
from driftguard.model import ParsedMessage, ToolCall
from driftguard.scoring.loops import action_loop, describe_loop, short_loop, steps


def bash(command: str) -> ToolCall:
    return make_tool_call("Bash", {"command": command})


def step(call: ToolCall, result: str, *, error: bool = False) -> list[ParsedMessage]:
    """A Claude-style step: a reply carrying the call, then its tool result."""
    return [
        ParsedMessage(role="assistant", content="Running it.", tool_calls=(call,)),
        ParsedMessage(role="tool", content=result, is_error=error),
    ]


def run(*pairs: tuple[ToolCall, str]) -> list[ParsedMessage]:
    return [message for call, result in pairs for message in step(call, result)]


TEST = bash("pytest -x tests/test_api.py")
LS = bash("ls src")
CAT = bash("cat src/app.py")


def test_four_identical_calls_with_the_same_result_are_a_loop_of_100_points() -> None:
    loop = action_loop(run(*[(TEST, "3 passed")] * 4))
    assert loop is not None
    assert (loop.kind, loop.count, loop.points) == ("same_result", 4, 100.0)
    assert describe_loop(loop) == (
        "`pytest -x tests/test_api.py` ran 4 times in a row with the same result"
    )


@pytest.mark.parametrize(("k", "points"), [(2, 100 / 3), (3, 200 / 3)])
def test_shorter_runs_of_the_same_call_and_result_score_in_proportion(
    k: int, points: float
) -> None:
    loop = action_loop(run(*[(TEST, "same")] * k))
    assert loop is not None
    assert loop.kind == "same_result"
    assert loop.points == pytest.approx(points)


def test_a_call_failing_three_times_in_a_row_is_a_loop_even_with_other_output() -> None:
    messages = [m for i in range(3) for m in step(TEST, f"FAILED in {i}.{i}s", error=True)]
    loop = action_loop(messages)
    assert loop is not None
    assert (loop.kind, loop.count, loop.points) == ("failing", 3, 100.0)
    assert describe_loop(loop) == "`pytest -x tests/test_api.py` failed 3 times in a row"


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        ("<returncode>1</returncode>\n<output>boom</output>", True),
        ("<returncode>0</returncode>\n<output>ok</output>", False),
        ("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nerr", True),
        ("Exit code: 0\nOutput:\n", False),
        ("the word <returncode>1</returncode> later in the text", False),
    ],
)
def test_a_non_zero_exit_code_the_harness_wrote_marks_the_step_failed(
    output: str, failed: bool
) -> None:
    (only,) = steps(step(TEST, output))
    assert only.failed is failed


def test_the_same_call_with_changing_results_counts_against_gemini_clis_five() -> None:
    read = make_tool_call("Read", {"file_path": "/app/log.txt"})
    loop = action_loop(run(*[(read, f"line {i}") for i in range(3)]))
    assert loop is not None
    assert (loop.kind, loop.count, loop.points) == ("same_call", 3, 50.0)
    assert describe_loop(loop) == "Read on /app/log.txt ran 3 times in a row"


def test_a_command_s_outcome_is_its_exit_status_not_its_output() -> None:
    # OpenHands compares a command's exit code, not the output (which holds timings)
    loop = action_loop(run(*[(LS, f"listing at {i} ms") for i in range(4)]))
    assert loop is not None
    assert (loop.kind, loop.count, loop.points) == ("same_result", 4, 100.0)


@pytest.mark.parametrize(("length", "points"), [(4, 50.0), (5, 75.0), (6, 100.0), (8, 100.0)])
def test_two_calls_alternating_score_from_four_steps_to_100_at_six(
    length: int, points: float
) -> None:
    pairs = [((LS, "a") if i % 2 == 0 else (CAT, "b")) for i in range(length)]
    loop = action_loop(run(*pairs))
    assert loop is not None
    assert (loop.kind, loop.count, loop.points) == ("alternating", length, points)
    first, second = (
        ("`ls src`", "`cat src/app.py`")
        if length % 2
        else (
            "`cat src/app.py`",
            "`ls src`",
        )
    )
    assert describe_loop(loop) == f"{first} and {second} alternated for {length} steps"


def test_three_steps_a_b_a_are_no_loop() -> None:
    assert action_loop(run((LS, "a"), (CAT, "b"), (LS, "a"))) is None


def test_distinct_calls_are_no_loop() -> None:
    assert action_loop(run(*[(bash(f"echo {i}"), str(i)) for i in range(12)])) is None


def test_a_loop_the_agent_got_out_of_no_longer_counts() -> None:
    looping = [m for _ in range(3) for m in step(TEST, "1 failed", error=True)]
    assert action_loop(looping) is not None
    fixed = [*looping, *step(TEST, "12 passed"), *step(CAT, "code")]
    assert action_loop(fixed) is None


def test_a_new_prompt_starts_afresh_as_gemini_cli_resets_its_detector() -> None:
    looping = run(*[(TEST, "same")] * 4)
    after = [ParsedMessage(role="user", content="now add pagination"), *step(TEST, "same")]
    assert action_loop(looping + after) is None


def test_a_failing_call_retried_between_edits_is_a_loop_until_it_passes() -> None:
    edit = [
        make_tool_call("Edit", {"file_path": "src/api.js", "new_string": f"v{i}"}) for i in range(5)
    ]
    messages: list[ParsedMessage] = []
    for index in range(4):
        messages += step(TEST, f"FAIL after {index}.2s", error=True)
        messages += step(edit[index], "edited")
    loop = action_loop(messages)
    assert loop is not None
    assert (loop.kind, loop.count, loop.span, loop.points) == ("retried", 4, 8, 100.0)
    assert describe_loop(loop) == (
        "`pytest -x tests/test_api.py` failed 4 times in the last 8 steps, never passing in between"
    )
    assert action_loop([*messages, *step(TEST, "12 passed")]) is None


def test_a_run_filling_the_whole_window_is_described_as_at_least_that_long() -> None:
    loop = action_loop([m for _ in range(30) for m in step(TEST, "boom", error=True)])
    assert loop is not None
    assert describe_loop(loop) == "`pytest -x tests/test_api.py` failed at least 20 times in a row"


def test_identical_failing_runs_are_described_as_failing_not_as_the_same_result() -> None:
    loop = action_loop([m for _ in range(4) for m in step(TEST, "1 failed", error=True)])
    assert loop is not None
    assert loop.kind == "failing"
    assert describe_loop(loop) == "`pytest -x tests/test_api.py` failed 4 times in a row"


def test_arguments_in_another_key_order_are_the_same_call() -> None:
    first = make_tool_call("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"})
    second = make_tool_call("Edit", {"new_string": "y", "file_path": "a.py", "old_string": "x"})
    loop = action_loop(run((first, "ok"), (second, "ok")))
    assert loop is not None
    assert loop.kind == "same_result"
    assert describe_loop(loop) == "Edit on a.py ran 2 times in a row with the same result"


def test_codex_style_calls_on_call_only_messages_are_read_as_steps() -> None:
    call = make_tool_call("shell", {"command": ["bash", "-lc", "npm test"]})
    messages = [
        ParsedMessage(role="user", content="fix the tests"),
        *[
            m
            for _ in range(3)
            for m in (
                ParsedMessage(role="tool", content="", tool_calls=(call,)),
                ParsedMessage(role="tool", content="Exit code: 1\nOutput:\nfail", is_error=True),
            )
        ],
    ]
    loop = action_loop(messages)
    assert loop is not None
    assert (loop.kind, loop.count) == ("failing", 3)
    assert describe_loop(loop) == "`bash -lc npm test` failed 3 times in a row"


def test_parallel_calls_written_one_item_each_are_one_step() -> None:
    first, second = bash("ls a"), bash("ls b")
    messages = [
        ParsedMessage(role="tool", content="", tool_calls=(first,)),
        ParsedMessage(role="tool", content="", tool_calls=(second,)),
        ParsedMessage(role="tool", content="a"),
        ParsedMessage(role="tool", content="b"),
    ]
    (only,) = steps(messages)
    assert only.calls == (first, second)
    assert only.result == "a\nb"


def test_a_prompt_between_two_calls_ends_the_first_step() -> None:
    messages = [
        *step(TEST, "ok"),
        ParsedMessage(role="user", content="again please"),
        *step(TEST, "ok"),
    ]
    assert [s.result for s in steps(messages)] == ["ok", "ok"]


def test_a_loop_label_passes_the_secret_gate_everywhere_it_is_shown() -> None:
    secret = bash("mysql -uroot -pS3cretPassw0rd -e 'select 1'")
    loop = action_loop([m for _ in range(3) for m in step(secret, "ERROR 1045", error=True)])
    assert loop is not None
    assert "-p[REDACTED:cli-password:" in describe_loop(loop)
    for text in (describe_loop(loop), short_loop(loop)):
        assert "S3cret" not in text


def test_a_loop_label_shows_terminal_control_characters_as_symbols() -> None:
    hostile = bash("printf '\x1b]0;PWNED\x07\x1b[2J' && make build")
    loop = action_loop([m for _ in range(3) for m in step(hostile, "boom", error=True)])
    assert loop is not None
    for text in (describe_loop(loop), short_loop(loop)):
        assert "\x1b" not in text
        assert "\x07" not in text
    assert "␛]0;PWNED␇␛[2J" in describe_loop(loop)
