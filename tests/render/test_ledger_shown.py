"""The compaction ledger where it is shown: ``driftguard score`` (text and
``--json``), ``get_drift`` (structured content and text), ``watch``, the HTML report and the
handoff; every excerpt through the secret gate and, on a terminal, the printable filter.

The sessions are tests/ledger_sessions.py's story, in Claude Code's format.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from ledger_sessions import (
    CWD,
    DROPPED_RULE_1,
    DROPPED_RULE_2,
    ERROR_LINE,
    PROMPT_1,
    SESSION_ID,
    Event,
    story,
    write_claude,
    write_gemini,
)
from mcp import Client

from driftguard.adapters import parse_session
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.compaction.ledger import LedgerBuilder
from driftguard.engine.drift import score_session
from driftguard.engine.handoff import build_handoff
from driftguard.engine.timeline import session_timeline
from driftguard.live.watch import render_frame
from driftguard.model import CompactionRecord, ParsedMessage, ToolCall
from driftguard.presets import load_preset
from driftguard.render.html import render_session_page
from driftguard.render.ledger import LEDGER_SHOWN, EntryView, ledger_view
from driftguard.scoring.trend import compute_trend
from driftguard.server import create_server
from driftguard.store.handoff_files import placeholders_left
from driftguard.store.history import HistoryStore

CODING = load_preset("coding").weights
GEMINI_JSON = "session-2026-11-30T10-00-7e1d9c2a.json"
SECRET = "sk-ant-api03-" + "Zq8vR2mN5kL7pX3wT9yB4cF6hJ1dG0sA" * 2 + "-AbCdEfGh"
"""An Anthropic key shaped value (made up): the gate replaces it."""


def _write(folder: Path, events: list[Event]) -> Path:
    return write_claude(folder / f"{SESSION_ID}.jsonl", events)


def _secret_story() -> list[Event]:
    """The story with the dropped rule carrying a secret and a terminal escape."""
    return [
        dataclasses.replace(
            e,
            text=e.text.replace(
                "Never touch migrations/.",
                f"Never send the key {SECRET} to \x1b]0;pwned\x07 the logs.",
            ),
        )
        if e.kind == "prompt"
        else e
        for e in story(1)
    ]


def _page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert found is not None
    data = json.loads(found.group(1))
    assert isinstance(data, dict)
    return data


# --- the view ---------------------------------------------------------------------------


def test_the_view_shows_paths_relative_to_the_project_and_the_last_compaction_first(
    tmp_path: Path,
) -> None:
    view = ledger_view(parse_session(_write(tmp_path, story(2))))
    assert view.count == 2
    first, last = view.entries
    assert last is view.last
    assert (first.files, first.constraints, first.errors) == (
        ("src/db.py",),
        (DROPPED_RULE_1,),
        (ERROR_LINE,),
    )
    assert (last.files, last.constraints, last.errors) == (("src/log.py",), (DROPPED_RULE_2,), ())
    assert last.phrases() == (
        f"the constraint “{DROPPED_RULE_2}”",
        "the edited file src/log.py",
    )
    assert view.sentence() == (
        f"The last compaction dropped: the constraint “{DROPPED_RULE_2}”; "
        "the edited file src/log.py."
    )


def test_every_excerpt_passes_the_secret_gate_and_the_printable_filter(tmp_path: Path) -> None:
    view = ledger_view(parse_session(_write(tmp_path, _secret_story())))
    assert view.last is not None
    (shown,) = [c for c in view.last.constraints if c.startswith("Never send")]
    assert SECRET not in shown
    assert "[REDACTED:anthropic-key:" in shown
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "␛]0;pwned␇" in shown
    assert SECRET not in json.dumps(view.to_json())


def test_a_long_excerpt_is_cut_to_a_short_line(tmp_path: Path) -> None:
    rule = "Never " + "really " * 80 + "touch migrations."
    events = [
        dataclasses.replace(e, text=f"{rule} {e.text}") if e.text == PROMPT_1 else e
        for e in story(1)
    ]
    view = ledger_view(parse_session(_write(tmp_path, events)))
    assert view.last is not None
    long = view.last.constraints[0]
    assert long.endswith("…")
    assert len(long) <= 200


def test_only_the_latest_compactions_are_listed_and_their_numbers_say_which() -> None:
    records = tuple(
        CompactionRecord(timestamp=float(n), dropped_constraints=(f"Never do thing {n}.",))
        for n in range(1, 9)
    )
    session = dataclasses.replace(_bare_session(), compactions=8, compaction_ledger=records)
    view = ledger_view(session)
    assert view.count == 8
    assert [e.number for e in view.entries] == list(range(9 - LEDGER_SHOWN, 9))
    assert len(view.to_json()["ledger"]) == LEDGER_SHOWN


def test_the_earlier_line_names_files_and_errors_and_says_which_compactions_it_leaves_out() -> None:
    records = tuple(
        CompactionRecord(
            timestamp=float(n),
            dropped_constraints=(f"Never do thing {n}.",),
            dropped_files=(f"{CWD}/src/f{n}.py",),
            dropped_errors=(f"error: thing {n} failed",),
        )
        for n in range(1, 41)
    )
    session = dataclasses.replace(_bare_session(), compactions=40, compaction_ledger=records)
    earlier = ledger_view(session).lines()[1]
    assert earlier.startswith(
        "Earlier compactions 36–39 dropped: the constraint “Never do thing 36.”"
    )
    assert "the edited file src/f39.py" in earlier
    assert "1 more edited file" in earlier  # four files: the last three named
    assert "the error “error: thing 39 failed”" in earlier
    assert earlier.endswith("; what compactions 1–35 dropped is not listed.")
    few = dataclasses.replace(session, compactions=2, compaction_ledger=records[:2])
    assert ledger_view(few).lines()[1] == (
        "Earlier compactions dropped: the constraint “Never do thing 1.”; "
        "the edited file src/f1.py; the error “error: thing 1 failed”."
    )


def _bare_session() -> Any:
    from driftguard.model import Session

    return Session(
        cli="claude_code",
        path="/tmp/s.jsonl",
        session_id="s",
        cwd=CWD,
        messages=(),
        context_tokens=0,
        context_window=200_000,
        tokens_estimated=True,
        compactions=0,
        skipped_lines=0,
    )


def test_a_session_without_compactions_has_an_empty_ledger_object_and_no_line() -> None:
    view = ledger_view(_bare_session())
    assert view.to_json() == {
        "count": 0,
        "last_at": None,
        "dropped": {"files": [], "constraints": [], "errors": [], "withheld": 0},
        "dropped_unknown": None,
        "ledger": [],
    }
    assert view.lines() == []


# --- driftguard score and get_drift -----------------------------------------------------


def test_score_text_says_what_the_last_compaction_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, story(2))
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("Last compaction"))
    assert line.startswith("Last compaction (2 of 2, 2026-11-30 10:")
    assert "automatic at 151,000 tokens" in line
    assert f"dropped: the constraint “{DROPPED_RULE_2}”; the edited file src/log.py." in line
    assert (
        f"Earlier compactions dropped: the constraint “{DROPPED_RULE_1}”; "
        f"the edited file src/db.py; the error “{ERROR_LINE}”." in out
    )


def test_score_json_adds_the_ledger_and_keeps_every_field_it_had(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, story(2))
    assert main(["score", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["session"]["compactions"] == 2  # the count stays where it was
    ledger = data["compactions"]
    assert ledger["count"] == 2
    assert re.fullmatch(r"2026-11-30T10:\d\d:\d\dZ", ledger["last_at"])
    assert ledger["dropped"] == {
        "files": ["src/log.py"],
        "constraints": [DROPPED_RULE_2],
        "errors": [],
        "withheld": 0,
    }
    assert ledger["dropped_unknown"] is None
    first = ledger["ledger"][0]
    assert first["number"] == 1
    assert (first["trigger"], first["tokens_before"]) == ("auto", 150_000)
    assert first["dropped"]["constraints"] == [DROPPED_RULE_1]
    assert first["dropped"]["errors"] == [ERROR_LINE]
    keys = list(data)
    assert keys.index("compactions") == keys.index("loop") + 1


def test_a_gemini_json_rewritten_whole_says_so_in_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_gemini(tmp_path / "chats" / GEMINI_JSON, story(1), legacy=True)
    assert main(["score", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["compactions"]
    assert data["count"] == 1
    assert "no longer holds" in data["dropped_unknown"]
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "what it dropped is unknown: Gemini CLI rewrote the session whole" in out


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_get_drift_carries_the_ledger_as_score_json_does(
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", CWD)  # the project the story's file names
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(CWD)
    path = _write(folder, _secret_story())
    async with Client(create_server()) as client:
        result = await client.call_tool("get_drift", {})
    data = result.structured_content
    assert data is not None
    assert main(["score", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert data["compactions"] == printed["compactions"]
    constraints = data["compactions"]["dropped"]["constraints"]
    assert any("[REDACTED:anthropic-key:" in c for c in constraints)
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Last compaction (1 of 1, " in text
    assert SECRET not in text
    assert SECRET not in json.dumps(data)


# --- watch, the report, the handoff -----------------------------------------------------


def test_watch_shows_what_the_last_compaction_dropped_within_the_width(tmp_path: Path) -> None:
    report = score_session(parse_session(_write(tmp_path, _secret_story())), weights=CODING)
    lines = render_frame(report, compute_trend([], 60), [], width=72, now=0)
    text = "\n".join(lines)
    (line,) = [line for line in lines if line.startswith("Last compaction dropped: ")]
    assert line.startswith("Last compaction dropped: the constraint “Never send the key")
    assert line.endswith("; +2 more")  # the edited file and the error do not fit
    assert all(len(line) <= 72 for line in lines)
    assert "\x1b" not in text
    assert SECRET not in text


@pytest.mark.parametrize(
    ("width", "ending"),
    [
        (80, "the constraint “Never touch migrations/.”; +2 more"),
        (110, "the edited file src/db.py; +1 more"),
        (200, "the error “E AssertionError: dry run wrote 2 rows”"),
        (60, "Last compaction dropped: the constraint “Never tou…; +2 more"),
    ],
)
def test_watch_says_how_many_dropped_items_its_line_leaves_out(
    tmp_path: Path, width: int, ending: str
) -> None:
    report = score_session(parse_session(_write(tmp_path, story(1))), weights=CODING)
    lines = render_frame(report, compute_trend([], 60), [], width=width, now=0)
    (line,) = [line for line in lines if line.startswith("Last compaction dropped: ")]
    assert line.endswith(ending)
    assert len(line) <= width


def test_the_report_marks_each_compaction_with_what_it_dropped(tmp_path: Path) -> None:
    path = _write(tmp_path, story(2))
    timeline = session_timeline(
        path, project_for=lambda _: None, store=HistoryStore(tmp_path / "h")
    ).timeline
    first, second = timeline.compactions
    assert first.dropped == (
        f"the constraint “{DROPPED_RULE_1}”",
        "the edited file src/db.py",
        f"the error “{ERROR_LINE}”",
    )
    assert second.dropped == (f"the constraint “{DROPPED_RULE_2}”", "the edited file src/log.py")
    assert "automatic at 150,000 tokens" in first.detail
    page = render_session_page(timeline)
    titles = re.findall(r'<g class="compaction-marker"><title>(.*?)</title>', page)
    assert len(titles) == 2
    assert "dropped: the constraint “Never touch migrations/.”" in titles[0]
    assert "automatic at 150,000 tokens" in titles[0]
    data = _page_data(page)
    assert data["compactions"][1]["dropped"] == list(second.dropped)


def test_the_report_of_a_rewritten_gemini_json_says_what_it_dropped_is_unknown(
    tmp_path: Path,
) -> None:
    path = write_gemini(tmp_path / "chats" / GEMINI_JSON, story(1), legacy=True)
    timeline = session_timeline(
        path, project_for=lambda _: None, store=HistoryStore(tmp_path / "h")
    ).timeline
    (mark,) = timeline.compactions
    assert mark.unknown is not None
    assert "no longer holds" in mark.unknown
    page = render_session_page(timeline)
    assert "what it dropped is unknown" in page


def test_the_handoff_says_what_the_last_compaction_dropped(tmp_path: Path) -> None:
    session = parse_session(_write(tmp_path, story(2)))
    handoff = build_handoff(session, score_session(session, weights=CODING))
    draft = handoff.draft
    last = f"the constraint “{DROPPED_RULE_2}”; the edited file `src/log.py`"
    assert f"- The last compaction dropped: {last}." in draft
    assert (
        f"- Earlier compactions dropped: the constraint “{DROPPED_RULE_1}”; "
        f"the edited file `src/db.py`; the error `{ERROR_LINE}`." in draft
    )
    assert handoff.compaction_dropped == (
        f"the constraint “{DROPPED_RULE_2}”",
        "the edited file src/log.py",
    )
    assert draft in handoff.prompt


def _section(draft: str, heading: str) -> list[str]:
    lines = draft.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [line for line in lines[start:end] if line]


def test_the_handoff_lists_the_files_a_compaction_dropped_with_the_compaction(
    tmp_path: Path,
) -> None:
    session = parse_session(_write(tmp_path, story(2)))
    # nothing was edited after the second compaction; the ledger holds the rest
    assert not any(c.kind == "edit" for m in session.messages for c in m.tool_calls)
    handoff = build_handoff(session, score_session(session, weights=CODING))
    files = _section(handoff.draft, "## Files modified")
    # the second summary names src/cli.py and README.md; src/db.py and src/log.py were
    # left out by the first and the second
    assert files == [
        "- `src/cli.py` (edited before compaction 2, which kept it) — <what changed>",
        "- `README.md` (edited before compaction 2, which kept it) — <what changed>",
        "- `src/db.py` (edited before compaction 1, which dropped it) — <what changed>",
        "- `src/log.py` (edited before compaction 2, which dropped it) — <what changed>",
    ]
    assert handoff.files_modified == ("src/cli.py", "README.md", "src/db.py", "src/log.py")
    assert "none found in the transcript" not in handoff.draft


def test_the_handoff_of_a_compacted_session_says_no_file_was_edited_since_the_compaction(
    tmp_path: Path,
) -> None:
    events = [e for e in story(1) if e.kind != "edit"]
    session = parse_session(_write(tmp_path, events))
    handoff = build_handoff(session, score_session(session, weights=CODING))
    (line,) = _section(handoff.draft, "## Files modified")
    assert "none edited since the last compaction" in line
    assert "none found in the transcript" not in line
    assert placeholders_left(handoff.draft) > 0  # still a placeholder to replace


def test_the_handoff_quotes_the_summary_without_claude_codes_preamble(tmp_path: Path) -> None:
    preamble = (
        "This session is being continued from a previous conversation that ran out of "
        "context. The conversation is summarized below:\n"
    )
    events = [
        dataclasses.replace(e, text=preamble + e.text) if e.kind == "compact" else e
        for e in story(1)
    ]
    session = parse_session(_write(tmp_path, events))
    handoff = build_handoff(session, score_session(session, weights=CODING))
    assert handoff.compaction_summary is not None
    assert handoff.compaction_summary.startswith("we are adding --dry-run")
    assert "being continued" not in handoff.draft


def test_the_handoff_gates_what_the_compaction_dropped(tmp_path: Path) -> None:
    session = parse_session(_write(tmp_path, _secret_story()))
    handoff = build_handoff(session, score_session(session, weights=CODING))
    assert SECRET not in handoff.draft
    assert SECRET not in handoff.prompt
    assert "[REDACTED:anthropic-key:" in handoff.draft
    assert handoff.redactions  # counted with the handoff's own redactions
    assert "\x1b" not in handoff.draft


def test_a_handoff_without_compactions_has_no_ledger_line(tmp_path: Path) -> None:
    events = [e for e in story(1) if e.kind != "compact"]
    session = parse_session(_write(tmp_path, events))
    handoff = build_handoff(session, score_session(session, weights=CODING))
    assert "compaction" not in handoff.draft.lower()
    assert handoff.compaction_dropped == ()


@pytest.mark.anyio
async def test_get_handoff_lists_what_the_last_compaction_dropped(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTGUARD_PROJECT_DIR", CWD)
    _write(isolated_home / ".claude" / "projects" / claude_project_dir_name(CWD), story(1))
    async with Client(create_server()) as client:
        result = await client.call_tool("get_handoff", {})
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    data = result.structured_content
    assert data is not None
    assert data["compaction_dropped"] == [
        f"the constraint “{DROPPED_RULE_1}”",
        "the edited file src/db.py",
        f"the error “{ERROR_LINE}”",
    ]
    assert "- The last compaction dropped: the constraint" in data["prompt"]
    schema = tools["get_drift"].output_schema
    assert schema is not None
    ledger = schema["$defs"]["CompactionsInfo"]["properties"]["ledger"]
    assert f"at most {LEDGER_SHOWN}" in ledger["description"]


# --- the gate sees the whole source (review: the secret gate was applied after the cut) ---

ENV_DUMP = (
    "DB_HOST=db.internal.example\n"
    "DB_PASSWORD=Vt7qLm2xRw9pZk4s\n"
    "STRIPE_SECRET_KEY=rk_live_8fJ2mQ9xT4vB7nL1pR6w\n"
    "SESSION_SECRET=0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b\n"
)
"""A failed result that is a ``.env`` dump: its first line, which the ledger would pick as
the error line, says nothing secret on its own."""


def _env_dump_story() -> list[Event]:
    """The story whose failed run before the compaction printed :data:`ENV_DUMP`."""
    return [
        dataclasses.replace(e, text="./check-config", output=ENV_DUMP) if e.kind == "shell" else e
        for e in story(1)
    ]


def test_a_failed_result_the_gate_withholds_whole_is_counted_and_never_shown_as_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _env_dump_story())
    view = ledger_view(parse_session(path))
    assert view.last is not None
    assert view.last.errors == ()
    assert view.last.withheld == 1
    assert "1 excerpt withheld by the secret gate" in view.last.phrases()
    assert main(["score", str(path)]) == 0
    assert main(["score", str(path), "--json"]) == 0
    session = parse_session(path)
    handoff = build_handoff(session, score_session(session, weights=CODING))
    assert "a .env dump" in handoff.withheld_reasons
    timeline = session_timeline(
        path, project_for=lambda _: None, store=HistoryStore(tmp_path / "h")
    ).timeline
    shown = "\n".join(
        [capsys.readouterr().out, handoff.prompt, handoff.draft, render_session_page(timeline)]
    )
    for line in ENV_DUMP.splitlines():
        assert line.split("=")[0] not in shown
        assert line.split("=")[1] not in shown


def test_a_rule_in_a_prompt_the_gate_withholds_whole_is_counted_and_never_shown() -> None:
    builder = LedgerBuilder()
    prompt = f"Never print these values in logs.\n{ENV_DUMP}"
    builder.compacted(
        [ParsedMessage(role="user", content=prompt)], timestamp=None, cwd=CWD, kept=()
    )
    (record,) = builder.records()
    assert record.dropped_constraints == ()
    assert record.dropped_withheld == ("a .env dump",)


def test_a_dropped_error_is_cut_from_its_result_after_the_gate_saw_the_whole_result() -> None:
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEowIBAAKCAQEA7ZkQ2Vb1sY5nJ8cXr3pL0mW6tD9fK4hG2aQ1uE8oN3iR5vB\n"
        "-----END RSA PRIVATE KEY-----\n"
    )
    builder = LedgerBuilder()
    builder.compacted(
        [
            ParsedMessage(
                role="assistant",
                content="",
                tool_calls=(
                    ToolCall(name="Bash", args_digest="0", kind="shell", command="cat key.pem"),
                ),
            ),
            ParsedMessage(role="tool", content=pem, is_error=True),
        ],
        timestamp=None,
        cwd=CWD,
    )
    (record,) = builder.records()
    assert not any("PRIVATE KEY-----" in e or "MIIEow" in e for e in record.dropped_errors)


def test_the_handoff_counts_only_the_secrets_of_what_its_draft_shows() -> None:
    records = tuple(
        CompactionRecord(
            timestamp=float(n),
            dropped_constraints=(
                f"Never send the key {SECRET} anywhere." if n == 1 else f"Never do thing {n}.",
            ),
        )
        for n in range(1, LEDGER_SHOWN + 3)
    )
    session = dataclasses.replace(
        _bare_session(), compactions=len(records), compaction_ledger=records
    )
    handoff = build_handoff(session, score_session(session, weights=CODING))
    assert "thing 2." not in handoff.draft  # compactions 1 and 2 are not listed
    assert handoff.redactions == ()
    assert "redacted" not in handoff.prompt


def test_a_long_path_edited_again_since_a_compaction_that_dropped_it_is_listed_once() -> None:
    long_path = f"{CWD}/src/" + "deeply/" * 40 + "nested.py"
    edit = ToolCall(name="Edit", args_digest="1", target_path=long_path, kind="edit")
    session = dataclasses.replace(
        _bare_session(),
        messages=(
            ParsedMessage(role="user", content="Carry on."),
            ParsedMessage(role="assistant", content="", tool_calls=(edit,)),
        ),
        compactions=1,
        compaction_ledger=(CompactionRecord(dropped_files=(long_path,)),),
    )
    handoff = build_handoff(session, score_session(session, weights=CODING))
    files = _section(handoff.draft, "## Files modified")
    assert len(files) == 1
    assert handoff.files_modified == (long_path.removeprefix(f"{CWD}/"),)


def test_watch_never_cuts_its_line_inside_a_redaction_marker() -> None:
    marker = "[REDACTED:anthropic-key:0123abcd]"
    entry = EntryView(
        number=1,
        timestamp=None,
        trigger=None,
        tokens_before=None,
        files=(),
        constraints=(f"Never send {marker} to the logs or anywhere else at all.",),
        errors=(),
        withheld=0,
        unknown=None,
    )
    head = "Last compaction dropped: the constraint “Never send "
    for width in range(len(head) + 2, len(head) + len(marker) + 2):
        line = entry.fitted(width)
        assert len(line) <= width
        assert line.endswith("…")
        assert "[REDACTED" not in line or marker in line


def test_the_earlier_line_says_which_earlier_compactions_dropped_what_is_unknown() -> None:
    reason = "Gemini CLI rewrote the session whole"
    records = (
        CompactionRecord(dropped_unknown=reason),
        CompactionRecord(),
        CompactionRecord(dropped_constraints=("Never do thing 3.",)),
    )
    session = dataclasses.replace(_bare_session(), compactions=3, compaction_ledger=records)
    assert ledger_view(session).lines()[1] == (
        f"Earlier compaction 2 dropped no edited file, constraint or error; "
        f"what compaction 1 dropped is unknown: {reason}."
    )
    many = (*(CompactionRecord() for _ in range(4)), *records)
    session = dataclasses.replace(session, compactions=7, compaction_ledger=many)
    assert ledger_view(session).lines()[1] == (
        "Earlier compactions 3–4, 6 dropped no edited file, constraint or error; "
        f"what compaction 5 dropped is unknown: {reason}; "
        "what compactions 1–2 dropped is not listed."
    )
