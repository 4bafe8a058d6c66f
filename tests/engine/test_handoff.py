"""The handoff prompt (docs/design.md §6 ``get_handoff``): facts read from
the remembered transcript, the five sections, the secret gate on every excerpt, and no
raw tool output.

Synthetic sessions are built from ParsedMessage/ToolCall directly (in our own words);
the corpus tests read real sessions in place and skip when the corpus is absent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import string

import pytest
from conftest import corpus_file

from driftguard.adapters import ADAPTERS, parse_session
from driftguard.engine.drift import score_session
from driftguard.engine.handoff import (
    COMMAND_LIMIT,
    ERROR_LIMIT,
    LINE_CHARS,
    SECTIONS,
    SUMMARY_CHARS,
    Handoff,
    build_handoff,
    pickup_any,
)
from driftguard.model import ParsedMessage, Session, ToolCall

CODING = {
    "context_saturation": 0.37,
    "repetition": 0.37,
    "length_collapse": 0.15,
    "goal_distance": 0.08,
    "uncertainty": 0.02,
    "confidence_drift": 0.01,
}
CWD = "/home/dev/shop"
ALNUM = string.ascii_letters + string.digits


def fake(alphabet: str, length: int, seed: int) -> str:
    """A deterministic random string standing in for a secret's body."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def call(name: str, *, path: str | None = None, command: str | None = None) -> ToolCall:
    """A tool call of the tool ``name``, of the kind the adapter knowing that name gives it
    (as the parsers set it)."""
    digest = hashlib.sha256(f"{name}{path}{command}".encode()).hexdigest()[:16]
    kinds = (adapter.tool_kind(name, command) for adapter in ADAPTERS)
    kind = next((kind for kind in kinds if kind != "other"), "other")
    return ToolCall(name=name, args_digest=digest, target_path=path, command=command, kind=kind)


def user(text: str) -> ParsedMessage:
    return ParsedMessage(role="user", content=text)


def reply(text: str, *calls: ToolCall) -> ParsedMessage:
    return ParsedMessage(role="assistant", content=text, tool_calls=calls)


def calls_only(*calls: ToolCall) -> ParsedMessage:
    """A response with tool calls and no text: the adapters keep it as a tool message."""
    return ParsedMessage(role="tool", content="", tool_calls=calls)


def result(text: str, *, error: bool = False) -> ParsedMessage:
    return ParsedMessage(role="tool", content=text, is_error=error)


def session(
    messages: list[ParsedMessage], *, compactions: int = 0, cwd: str | None = CWD
) -> Session:
    return Session(
        cli="claude_code",
        path=f"{cwd or '/tmp'}/.claude/projects/-home-dev-shop/abc.jsonl",
        session_id="abc",
        cwd=cwd,
        messages=tuple(messages),
        context_tokens=5000,
        context_window=200_000,
        tokens_estimated=False,
        compactions=compactions,
        skipped_lines=0,
        model="claude-sonnet-4-5",
    )


def handoff_of(s: Session) -> Handoff:
    return build_handoff(s, score_session(s, weights=CODING))


def everything(h: Handoff) -> str:
    """Every text the handoff carries: the prompt and the facts, as JSON."""
    return json.dumps(dataclasses.asdict(h), ensure_ascii=False)


BASIC = [
    user("Add a discount code field to the checkout form and validate it server-side."),
    reply(
        "I'll start by reading the form.",
        call("Read", path=f"{CWD}/src/checkout.tsx"),
    ),
    result("1→export function Checkout() {"),
    calls_only(call("Edit", path=f"{CWD}/src/checkout.tsx")),
    result("The file was updated."),
    calls_only(call("Write", path=f"{CWD}/src/discount.ts")),
    result("File created."),
    calls_only(call("Bash", command="npm test -- discount")),
    result("FAIL src/discount.test.ts\nTypeError: code.trim is not a function", error=True),
    calls_only(call("Edit", path=f"{CWD}/src/discount.ts")),
    result("The file was updated."),
    calls_only(call("Bash", command="npm test -- discount")),
    result("PASS src/discount.test.ts"),
    reply("The discount field works and its tests pass."),
    user("Also show the discount in the order summary."),
    reply("Done, the summary shows it now.", call("Edit", path=f"{CWD}/src/summary.tsx")),
]


def test_the_goal_is_the_first_user_request() -> None:
    h = handoff_of(session(BASIC))
    assert h.goal == ("Add a discount code field to the checkout form and validate it server-side.")
    assert f"Goal (the session's first request): “{h.goal}”" in h.prompt


def test_files_modified_are_edit_targets_deduplicated_in_first_seen_order() -> None:
    h = handoff_of(session(BASIC))
    # Read is not an edit; the cwd prefix is dropped
    assert h.files_modified == ("src/checkout.tsx", "src/discount.ts", "src/summary.tsx")
    for path in h.files_modified:
        assert f"- `{path}`" in h.prompt


def test_commands_are_deduplicated_and_an_error_a_later_run_fixed_is_left_out() -> None:
    h = handoff_of(session(BASIC))
    assert h.commands == ("npm test -- discount",)
    # `npm test -- discount` failed, then passed after an edit: nothing is left to fix.
    assert h.last_errors == ()
    assert "No failed tool calls in the remembered transcript." in h.prompt
    assert "code.trim" not in h.prompt


def test_an_error_not_fixed_since_is_summarised_in_one_line() -> None:
    h = handoff_of(session(BASIC[:10]))  # up to the failed `npm test -- discount`
    assert h.last_errors == ("TypeError: code.trim is not a function",)
    assert "`TypeError: code.trim is not a function`" in h.prompt


def test_each_error_is_listed_once_and_only_the_unfixed_ones() -> None:
    messages = [user("Make the build pass.")]
    for _ in range(3):  # the same failure three times
        messages.append(calls_only(call("Bash", command="make  lint")))
        messages.append(result("ruff: error: E501 line too long", error=True))
    messages.append(calls_only(call("Bash", command="make test")))
    messages.append(result("FAILED tests/test_a.py::test_x - AssertionError", error=True))
    messages.append(calls_only(call("Edit", path=f"{CWD}/src/a.py")))
    messages.append(result("String to replace not found in file.", error=True))
    messages.append(calls_only(call("Edit", path=f"{CWD}/src/a.py")))
    messages.append(result("The file was updated."))  # the edit went through after all
    messages.append(calls_only(call("Bash", command="make test")))
    messages.append(result("FAILED tests/test_a.py::test_x - AssertionError", error=True))
    messages.append(reply("Lint and one test still fail."))
    h = handoff_of(session(messages))
    assert h.last_errors == (
        "ruff: error: E501 line too long",
        "FAILED tests/test_a.py::test_x - AssertionError",
    )


def test_results_of_parallel_calls_are_paired_with_their_calls_in_order() -> None:
    messages = [
        user("Run both."),
        reply("Running both.", call("Bash", command="make a"), call("Bash", command="make b")),
        result("Error: a broke", error=True),
        result("Error: b broke", error=True),
        calls_only(call("Bash", command="make b")),
        result("ok"),
    ]
    assert handoff_of(session(messages)).last_errors == ("Error: a broke",)


def test_score_state_and_factors_come_from_the_report() -> None:
    s = session(BASIC)
    report = score_session(s, weights=CODING)
    h = build_handoff(s, report)
    assert (h.score, h.state, dict(h.factors)) == (report.score, report.state, report.factors)
    assert f"{report.score}/100 ({report.state})" in h.prompt


def test_the_five_sections_appear_once_each_in_order() -> None:
    for s in (session(BASIC), session([]), session(BASIC, compactions=2)):
        prompt = handoff_of(s).prompt
        positions = [prompt.find(f"\n{heading}\n") for heading in SECTIONS]
        assert all(p >= 0 for p in positions), positions
        assert positions == sorted(positions)
        assert all(prompt.count(heading) == 1 for heading in SECTIONS)
    assert SECTIONS == (
        "## What we accomplished",
        "## Current state",
        "## Files modified",
        "## Open questions and next steps",
        "## Context for next session",
    )


def test_the_prompt_asks_to_verify_keep_short_and_never_copy_secrets() -> None:
    prompt = handoff_of(session(BASIC)).prompt
    assert "handoff.md" in prompt
    assert "Verify and complete them from your own memory of this session" in prompt
    assert "Keep it short" in prompt
    assert "Do NOT copy secrets into handoff.md" in prompt
    assert ".env contents" in prompt


def test_successful_tool_output_and_assistant_text_are_never_copied() -> None:
    marker = "ZQX-RAW-OUTPUT-7731"
    hidden = "ZQX-ASSISTANT-TEXT-4410"
    messages = [
        user("Rename the helper."),
        reply(f"Looking at it. {hidden}", call("Bash", command="grep -rn helper src")),
        result(f"src/a.py:3: helper()\n{marker}\nsrc/b.py:9: helper()"),
        calls_only(call("Edit", path=f"{CWD}/src/a.py")),
        result(f"edited {marker}"),
        reply("Renamed."),
    ]
    text = everything(handoff_of(session(messages)))
    assert marker not in text
    assert hidden not in text


def test_only_the_last_commands_are_kept_in_the_order_last_run() -> None:
    commands = [f"make step{n}" for n in range(COMMAND_LIMIT + 4)]
    messages = [user("Run the build steps.")]
    messages += [calls_only(call("Bash", command=c)) for c in commands]
    messages.append(calls_only(call("Bash", command="make step5")))  # run again: now last
    messages.append(reply("All steps ran."))
    h = handoff_of(session(messages))
    assert len(h.commands) == COMMAND_LIMIT
    assert h.commands[-1] == "make step5"
    assert h.commands[0] == "make step4"
    assert "make step3" not in h.commands
    assert h.commands.count("make step5") == 1


def test_only_the_last_errors_are_kept_and_each_is_one_short_line() -> None:
    long_line = "error: " + "x" * 400
    messages = [user("Fix the build.")]
    for n in range(ERROR_LIMIT + 2):
        messages.append(calls_only(call("Bash", command=f"make target{n}")))
        messages.append(result(f"building...\nError: target{n} failed\nmore\nlines", error=True))
    messages.append(calls_only(call("Bash", command="make long")))
    messages.append(result(f"log noise\n{long_line}", error=True))
    h = handoff_of(session(messages))
    assert len(h.last_errors) == ERROR_LIMIT
    assert h.last_errors[:2] == ("Error: target3 failed", "Error: target4 failed")
    assert len(h.last_errors[2]) == LINE_CHARS
    assert h.last_errors[2].endswith("…")
    assert all("\n" not in line for line in h.last_errors)


def test_an_error_line_is_the_one_that_reads_like_an_error_else_the_first() -> None:
    messages = [
        user("Check types."),
        calls_only(call("Bash", command="uv run pyright")),
        result(
            f"{CWD}/src/app.py\n  {CWD}/src/app.py:3:1 - error: Name is unknown\n1 error",
            error=True,
        ),
        calls_only(call("Write", path=f"{CWD}/notes.md")),
        result("<tool_use_error>File has not been read yet.</tool_use_error>", error=True),
        calls_only(call("Bash", command="true")),
        result("\n\n  permission denied on socket\nsecond", error=True),
    ]
    h = handoff_of(session(messages))
    assert h.last_errors == (
        "src/app.py:3:1 - error: Name is unknown",
        "File has not been read yet.",
        "permission denied on socket",
    )


def test_an_error_line_skips_the_exit_code_header_the_cli_puts_before_the_output() -> None:
    messages = [
        user("Run the checks."),
        calls_only(call("Bash", command="test -f marker.txt || echo missing marker.txt >&2")),
        result("Exit code 1\nmissing marker.txt", error=True),  # Claude Code 2.1.197
        calls_only(call("shell", command="make lint")),
        result("Exit code: 2\nWall time: 0.2 seconds\nOutput:\nlint found 3 problems", error=True),
        calls_only(call("exec_command", command="pytest -x")),
        result(
            "Chunk ID: 4f2a\nWall time: 1.3 seconds\nProcess exited with code 1\n"
            "Original token count: 12\nOutput:\n1 test did not pass",
            error=True,
        ),
    ]
    assert handoff_of(session(messages)).last_errors == (
        "missing marker.txt",
        "lint found 3 problems",
        "1 test did not pass",
    )
    only_header = [
        user("Go."),
        calls_only(call("Bash", command="false")),
        result("Exit code 1", error=True),
    ]
    assert handoff_of(session(only_header)).last_errors == ("Exit code 1",)


def test_an_error_line_of_gemini_reads_the_output_inside_its_wrapper_and_sections() -> None:
    # Gemini CLI 0.61.0's shell result (19-seams §2.8), and its earlier versions' form
    messages = [
        user("Run the checks."),
        calls_only(call("run_shell_command", command="ls /nonexistent")),
        result(
            "<untrusted_context>\nOutput: ls: cannot access '/nonexistent': No such file or "
            "directory\nExit Code: 2\nProcess Group PGID: 16732\n</untrusted_context>",
            error=True,
        ),
        calls_only(call("run_shell_command", command="false")),
        result(
            "<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 16593\n"
            "</untrusted_context>",
            error=True,
        ),
        calls_only(call("run_shell_command", command="make")),
        result(
            "Command: make\nDirectory: (root)\nStdout: (empty)\nStderr: no rule to make it\n"
            "Error: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\n"
            "Process Group PGID: 77",
            error=True,
        ),
    ]
    assert handoff_of(session(messages)).last_errors == (
        "ls: cannot access '/nonexistent': No such file or directory",
        "Exit Code: 1",
        "no rule to make it",
    )


def test_gemini_and_codex_edit_and_shell_tools_are_recognised() -> None:
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: lib/tax.py\n@@\n-a\n+b\nEOF"
    messages = [
        user("Fix the tax rounding."),
        calls_only(
            call("write_file", path="lib/new.py"),
            call("replace", path=f"{CWD}/lib/rates.py"),
            call("run_shell_command", command="pytest -q"),
        ),
        calls_only(
            call("shell", command=f"bash -lc {patch}", path="lib/tax.py"),
            call("apply_patch", path="lib/other.py"),
            call("exec_command", command="cargo test"),
            call("local_shell", command="ls -la"),
            call("shell", command="bash -lc git status"),
        ),
        reply("Rounding fixed."),
    ]
    h = handoff_of(session(messages))
    assert h.files_modified == ("lib/new.py", "lib/rates.py", "lib/tax.py", "lib/other.py")
    # the patch body is an edit, not a command; Codex's bash -lc wrapper is dropped
    assert h.commands == ("pytest -q", "cargo test", "ls -la", "git status")
    assert "Begin Patch" not in h.prompt


def test_an_empty_session_gives_placeholders_under_the_five_sections() -> None:
    h = handoff_of(session([], cwd=None))
    assert h.goal is None
    assert (h.files_modified, h.commands, h.last_errors) == ((), (), ())
    assert "<the request this session set out to do>" in h.prompt
    assert "in the project's root directory" in h.prompt


def test_a_compacted_session_says_so_and_quotes_a_short_gated_summary() -> None:
    secret = "ghp_" + fake(ALNUM, 36, 1)
    summary = (
        "This session is being continued from a previous conversation. "
        f"The user set the deploy token {secret} and asked for a blue-green rollout. "
        + "Details follow. "
        * 80
    )
    messages = [
        ParsedMessage(role="user", content=summary, is_summary=True),
        user("Carry on with the rollout script."),
        reply("Continuing with the script."),
    ]
    h = handoff_of(session(messages, compactions=2))
    assert h.goal == "Carry on with the rollout script."
    assert "First request after the last compaction: “Carry on with the rollout script.”" in (
        h.prompt
    )
    assert "This session was compacted 2 times" in h.prompt
    assert h.compaction_summary is not None
    assert len(h.compaction_summary) <= SUMMARY_CHARS
    assert h.compaction_summary.startswith("This session is being continued")
    assert f"Compaction summary (excerpt): “{h.compaction_summary}”" in h.prompt
    assert "[REDACTED:github-token:" in h.compaction_summary
    assert secret not in everything(h)


def test_a_session_never_compacted_does_not_mention_compaction() -> None:
    assert "compacted" not in handoff_of(session(BASIC)).prompt


# --- secrets --------------------------------------------------------------------------

AWS_KEY = "AKIA" + fake(string.ascii_uppercase + string.digits, 16, 2)
GITHUB = "ghp_" + fake(ALNUM, 36, 3)
ANTHROPIC = "sk-ant-api03-" + fake(ALNUM + "_-", 93, 4) + "AA"
OPENAI = "sk-proj-" + fake(ALNUM, 30, 5) + "T3BlbkFJ" + fake(ALNUM, 30, 6)
SLACK = "xoxb-" + fake(string.digits, 12, 7) + "-" + fake(ALNUM, 24, 8)
GOOGLE = "AIza" + fake(ALNUM + "_-", 35, 9)
JWT = "eyJ" + fake(ALNUM, 20, 10) + ".eyJ" + fake(ALNUM, 40, 11) + "." + fake(ALNUM, 43, 12)
BEARER = fake(ALNUM, 40, 13)
PASSWORD = fake(ALNUM, 14, 14)
ENTROPY = fake(ALNUM + "+/", 40, 15)
KEY_BODY = fake(ALNUM + "+/", 64, 16)
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
DOTENV_VALUE = fake(ALNUM, 12, 17)
SECRETS = [
    AWS_KEY,
    GITHUB,
    ANTHROPIC,
    OPENAI,
    SLACK,
    GOOGLE,
    JWT,
    BEARER,
    PASSWORD,
    ENTROPY,
    KEY_BODY,
    DOTENV_VALUE,
]


def secret_session() -> Session:
    """Each secret kind in a prompt, in commands, in file paths and in error output."""
    return session(
        [
            user(
                f"Deploy with AWS key {AWS_KEY} and GitHub token {GITHUB}; "
                f"our Anthropic key is {ANTHROPIC}.\nHere is the deploy key:\n{PRIVATE_KEY}"
            ),
            reply(
                "On it.",
                call("Bash", command=f"OPENAI_API_KEY={OPENAI} python seed.py"),
                call("Bash", command=f"curl -H 'Authorization: Bearer {BEARER}' https://api"),
                call("Bash", command=f"psql postgres://app:{PASSWORD}@db.internal/app"),
                call(
                    "Bash",
                    command=f"cat > .env <<EOF\nAPI_KEY={DOTENV_VALUE}\n"
                    f"DB_PASSWORD={DOTENV_VALUE}\nEOF",
                ),
                call("Write", path=f"{CWD}/tokens/{SLACK}.json"),
                call("Edit", path=f"{CWD}/config/{GOOGLE}/settings.py"),
            ),
            result(f"error: bad token {JWT}", error=True),
            result(f"Error: rejected client_secret={ENTROPY}", error=True),
            result(f"fatal: {PRIVATE_KEY}\nfollowed by more", error=True),
            reply("Deployed."),
        ]
    )


def test_a_session_holding_every_secret_kind_yields_a_handoff_with_none_of_them() -> None:
    h = handoff_of(secret_session())
    text = everything(h)
    for secret in SECRETS:
        assert secret not in text, secret
    assert "BEGIN RSA PRIVATE KEY" not in text
    for rule in (
        "aws-access-key",
        "github-token",
        "anthropic-key",
        "private-key",
        "openai-key",
        "bearer-token",
        "url-credentials",
        "slack-token",
        "google-api-key",
        "jwt",
        "entropy-assignment",
    ):
        assert f"[REDACTED:{rule}:" in h.prompt, rule


def test_excerpts_holding_credential_files_are_withheld_and_noted() -> None:
    h = handoff_of(secret_session())
    assert h.withheld_excerpts == 1
    assert h.withheld_reasons == ("a .env dump",)
    assert "1 excerpt withheld: it looked like credential-file contents (a .env dump)." in h.prompt
    assert not any(".env <<EOF" in command for command in h.commands)


def test_a_withheld_goal_leaves_a_placeholder() -> None:
    s = session(
        [
            user("-----BEGIN OPENSSH PRIVATE KEY-----\n" + KEY_BODY),
            reply("Please do not paste keys here."),
        ]
    )
    h = handoff_of(s)
    assert h.goal is None
    assert h.withheld_reasons == ("an incomplete private key block",)
    assert KEY_BODY not in everything(h)
    assert "<the request this session set out to do>" in h.prompt


def test_a_cut_never_splits_a_redaction_marker() -> None:
    command = "x" * (LINE_CHARS - 20) + f" --token {ENTROPY}"
    s = session([user("Run it."), calls_only(call("Bash", command=command)), reply("Ran.")])
    (shown,) = handoff_of(s).commands
    assert shown.endswith("--token…")
    assert ENTROPY[:8] not in shown


# --- real sessions --------------------------------------------------------------------


def corpus_handoff(relative: str) -> Handoff:
    s = parse_session(corpus_file(relative))
    return handoff_of(s)


def test_real_claude_session_facts() -> None:
    h = corpus_handoff("claude_code/cc_v1.0.24_summary-lines_fe869ecb.jsonl")
    # Established with python3 -c over the raw JSONL: the first `user` line's
    # message.content (a string), cwd /Users/user/workspace/claude-code-log; the
    # Write/Edit/MultiEdit tool_use inputs' file_path values, deduplicated, are
    # .github/workflows/ci.yml then claude_code_log/converter.py under the cwd; the Bash
    # commands in order are mkdir, act -l, act --container…, uv run ruff format,
    # act --container… ×2, uv run pyright ×5, act --container…; 6 tool_result blocks
    # have is_error: act twice, then pyright 4 times ("…converter.py:18x:1x - error: …");
    # the last pyright reported "0 errors" and the last act passed.
    assert h.goal == (
        "Hey Claude, can you please add a Github Action to run tests and linting? "
        "You can test it with `act`."
    )
    assert h.files_modified == (".github/workflows/ci.yml", "claude_code_log/converter.py")
    assert h.commands == (
        "mkdir -p .github/workflows",
        "act -l",
        "uv run ruff format",
        "uv run pyright",
        "act --container-architecture linux/amd64 -j test",
    )
    assert h.last_errors == ()  # every error was fixed by a later run of its command
    assert h.compactions == 0
    assert h.withheld_excerpts == 0


def test_real_gemini_session_files_written() -> None:
    h = corpus_handoff("gemini/gemini_legacy-json_2026-03_vibecodingtracker.json")
    # Established with python3 -c over the raw JSON: the write_file toolCalls' args
    # file_path values in order are README.md, README.zh-CN.md, README.zh-TW.md,
    # CONTRIBUTING.md; the first `user` message starts "請幫我依照專案實際狀況更新".
    assert h.files_modified == (
        "README.md",
        "README.zh-CN.md",
        "README.zh-TW.md",
        "CONTRIBUTING.md",
    )
    assert h.goal is not None
    assert h.goal.startswith("請幫我依照專案實際狀況更新 README.md")


def test_real_codex_session_patches_are_files_not_commands() -> None:
    h = corpus_handoff("codex/codex_v0.39.0_vscode_vibecodingtracker.jsonl")
    # Established with python3 -c over the raw JSONL: the `shell` function_calls whose
    # command runs "applypatch << 'PATCH'" name, in order, "*** Update File:" go.mod,
    # README.zh-TW.md, README.zh-CN.md, (an empty patch), .python-version; the last
    # shell command is `bash -lc` "rm -f TODO.md && echo removed && …".
    assert h.files_modified == ("go.mod", "README.zh-TW.md", "README.zh-CN.md", ".python-version")
    assert not any("Begin Patch" in c or "applypatch" in c for c in h.commands)
    assert h.commands[-1].startswith("rm -f TODO.md")
    assert h.goal is not None
    assert "go.mod" in h.goal


def test_real_compacted_claude_session_uses_the_summary() -> None:
    h = corpus_handoff("generated/claude/claude-long-26turns-compact.jsonl")
    # Established with python3 -c over the raw JSONL: 2 system/compact_boundary lines;
    # the user line after the last one has isCompactSummary and starts "This session is
    # being continued from a previous conversation that ran out of context. The summary
    # below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary
    # Request: …"; the next real prompt is "Turn 26: summarize progress so far in one
    # line". The summary ends "4. Current Work: idle.", then "If you need specific details
    # from before compaction (…), read the full transcript at: …" and "Continue the
    # conversation from where it left off …". The excerpt leaves both out.
    assert h.compactions == 2
    assert h.goal == "Turn 26: summarize progress so far in one line"
    assert h.compaction_summary is not None
    assert h.compaction_summary.startswith("1. Primary Request: the user repeatedly asked")
    assert h.compaction_summary.endswith("4. Current Work: idle.")
    assert len(h.compaction_summary) <= SUMMARY_CHARS
    assert "This session was compacted 2 times" in h.prompt


@pytest.mark.parametrize(
    "relative",
    [
        "claude_code/cc_v1.0.108_inline-sidechain_ccviewer_5c0375b4.jsonl",
        "claude_code/tree_v2.1.114_subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
        "gemini/gemini_jsonl_2026-04_vibecodingtracker.jsonl",
        "codex/codex_REDACTED_schema-catalog_v0.146_agentsessions.jsonl",
        "generated/gemini/gemini-long-24turns-compress.jsonl",
        "generated/codex/codex-long-24turns-compact.jsonl",
    ],
)
def test_real_sessions_give_a_prompt_with_the_five_sections(relative: str) -> None:
    prompt = corpus_handoff(relative).prompt
    positions = [prompt.find(f"\n{heading}\n") for heading in SECTIONS]
    assert all(p >= 0 for p in positions)
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("cli", "said"),
    [
        ("claude_code", "The next Claude Code session started in this project begins with it"),
        ("codex_cli", "The next Codex session started in this project begins with it"),
        ("gemini_cli", "The next Gemini CLI session started in this project begins with it"),
        ("cursor", "The next Cursor session started in this project begins with it"),
    ],
)
def test_a_saved_handoff_says_how_the_next_session_of_that_host_gets_it(
    cli: str, said: str
) -> None:
    s = dataclasses.replace(session(BASIC), cli=cli)  # type: ignore[arg-type]
    saved = build_handoff(s, score_session(s, weights=CODING), saved_to="/p/.driftguard/handoff.md")
    assert said in " ".join(saved.prompt.split())


# --- how the next session gets a waiting handoff, whichever host starts it -------------


def test_pickup_any_without_a_hooked_host_says_nothing_hands_it_over() -> None:
    text = pickup_any(())
    assert text.startswith("Nothing hands it to the next session: driftguard's hooks are ")
    assert "`driftguard setup --hooks` installs them" in text
    assert text.endswith("“Read .driftguard/handoff.md and continue from it.”")


def test_pickup_any_names_the_hooked_hosts_and_what_to_do_in_the_others() -> None:
    text = pickup_any(("claude_code", "codex_cli"))
    assert text.startswith(
        "The next Claude Code or Codex session started in this project gets it "
        "(driftguard's hooks). In another host, driftguard's hooks are not installed"
    )
    assert "`driftguard setup --hooks`" in text


def test_pickup_any_with_every_host_hooked_is_one_sentence() -> None:
    text = pickup_any(("claude_code", "gemini_cli", "codex_cli", "cursor"), "/work/app")
    assert text.startswith("The next Claude Code, Gemini CLI, Codex or Cursor session ")
    assert text.endswith("started in /work/app gets it (driftguard's hooks).")
