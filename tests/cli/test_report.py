"""``driftguard report``: the session scored after every turn with the
engine, compactions and loops placed where they happened, one page per session or an index
of a project's sessions. The page's own rendering in a browser: test_report_browser.py."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, corpus_file, write_claude_session, write_loop_session
from cursor_home import CursorHome
from ledger_sessions import (
    PROMPT_1,
    SESSION_ID,
    Event,
    cursor_bubbles,
    story,
    write_claude,
    write_codex,
    write_gemini,
)

from driftguard.adapters import parse_session, turn_snapshots
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.engine import drift as engine
from driftguard.engine.timeline import session_timeline
from driftguard.errors import SessionNotFoundError
from driftguard.sessions.discovery import project_sessions
from driftguard.store.history import HistoryStore

CLAUDE_ALPHA = (
    FIXTURES / "claude/projects/-home-dev-project-alpha/11111111-aaaa-4aaa-8aaa-000000000001.jsonl"
)
COMPACTED_CLAUDE = "generated/claude/claude-long-26turns-compact.jsonl"
COMPACTED_CODEX = "generated/codex/codex-long-24turns-compact.jsonl"
COMPRESSED_GEMINI = "generated/gemini/gemini-long-24turns-compress.jsonl"


def _page_data(page: str) -> dict[str, Any]:
    """The series a page carries as JSON (``<script id="data">``)."""
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert found is not None
    data = json.loads(found.group(1))
    assert isinstance(data, dict)
    return data


def _prompts(path: Path) -> int:
    """Prompts the person typed in a Claude Code file, by its records: string contents,
    not meta, not the compaction summary, not a slash command's ``<command-…>`` lines."""
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content") if record.get("type") == "user" else None
        if (
            isinstance(content, str)
            and not content.startswith("<")
            and not record.get("isMeta")
            and not record.get("isCompactSummary")
        ):
            count += 1
    return count


def test_a_snapshot_ends_each_turn_and_the_last_is_the_session_now(tmp_path: Path) -> None:
    replies = [f"reply number {i} about the parser" for i in range(5)]
    path = write_claude_session(tmp_path / "s.jsonl", replies)
    snapshots = list(turn_snapshots(path))
    assert len(snapshots) == 5  # four turns ended by the next prompt, and the session now
    assert snapshots[-1] == parse_session(path)
    for turn, snapshot in enumerate(snapshots[:-1], start=1):
        assert [m.role for m in snapshot.messages] == ["user", "assistant"] * turn
        assert snapshot.messages[-1].content == replies[turn - 1]


def test_a_turn_before_a_compaction_is_seen_as_it_was_then() -> None:
    path = corpus_file(COMPACTED_CLAUDE)  # real Claude Code 2.1.197, two compactions
    snapshots = list(turn_snapshots(path))
    assert len(snapshots) == _prompts(path)
    # the /compact typed after turn 9 is no prompt: turn 9 runs until turn 11's prompt
    assert [s.compactions for s in snapshots].index(1) == 8
    before = snapshots[7]
    assert (before.compactions, before.context_tokens, before.tokens_estimated) == (
        0,
        97_000,
        False,
    )
    assert len(before.messages) > len(snapshots[8].messages)  # the summary replaced them
    assert snapshots[-1] == parse_session(path)


def test_a_session_read_whole_is_charted_by_its_prefixes() -> None:
    path = corpus_file("gemini/gemini_legacy-json_2026-03_vibecodingtracker.json")
    whole = parse_session(path)
    snapshots = list(turn_snapshots(path))
    prompts = sum(1 for m in whole.messages if m.role == "user" and not m.is_summary)
    assert len(snapshots) == max(1, prompts)
    assert snapshots[-1] == whole
    for earlier, later in itertools.pairwise(snapshots):
        assert later.messages[: len(earlier.messages)] == earlier.messages


def _story_session(host: str, folder: Path, events: list[Event]) -> Path:
    """The ledger story (tests/ledger_sessions.py) as ``host`` records it."""
    if host == "claude_code":
        return write_claude(folder / "projects" / "-home-dev-shop" / f"{SESSION_ID}.jsonl", events)
    if host == "codex_cli":
        return write_codex(folder, events)
    if host == "gemini_cli":
        return write_gemini(folder / "chats" / "session-2026-11-30T10-00-7e1d9c2a.jsonl", events)
    home = CursorHome(folder / "Cursor" / "User")
    home.add_chat("story-chat", cursor_bubbles(events))
    return Path(f"{home.global_db}#story-chat")


@pytest.mark.parametrize("host", ["claude_code", "codex_cli", "gemini_cli", "cursor"])
def test_a_turn_runs_from_one_typed_prompt_to_the_next_on_every_host(
    tmp_path: Path, host: str
) -> None:
    # Three typed prompts and two compactions; each compaction's summary is no prompt,
    # nor is the first prompt that Codex and Gemini send again after it (replacement
    # history, kept tail). Cursor's database keeps the bubbles its summaries replaced, so
    # its turns before a summary are charted as they were then, like the others'.
    events = [
        dataclasses.replace(e, carried=(PROMPT_1,)) if e.kind == "compact" else e for e in story(2)
    ]
    path = _story_session(host, tmp_path, events)
    snapshots = list(turn_snapshots(path))
    assert len(snapshots) == 3
    assert [s.compactions for s in snapshots] == [1, 2, 2]
    assert [len(s.compaction_ledger) for s in snapshots] == [1, 2, 2]
    assert snapshots[-1] == parse_session(path)
    summary = session_timeline(path, project_for=lambda _: None, store=HistoryStore(tmp_path / "h"))
    assert len(summary.timeline.points) == 3


FIXTURE_PROMPTS = {
    "11111111-aaaa-4aaa-8aaa-000000000001.jsonl": 2,  # Claude Code, project alpha
    "33333333-bbbb-4bbb-8bbb-000000000003.jsonl": 1,  # Claude Code, project beta
    "session-2026-11-30T10-00-5a1b2c3d.jsonl": 2,  # Gemini CLI
    "rollout-2026-11-30T11-00-00-0199aaaa-bbbb-7ccc-8ddd-000000000004.jsonl": 1,  # Codex
    "rollout-2026-11-29T08-00-00-0199bbbb-cccc-7ddd-8eee-000000000005.jsonl": 1,  # Codex
}
"""Typed prompts of each fixture-tree session (by file name), established by reading its
records (not counted: Claude's compaction summary and ``/cost`` meta line, Gemini's
``<session_context>``, Codex's ``<environment_context>``)."""


@pytest.mark.parametrize("name", sorted(FIXTURE_PROMPTS))
def test_a_fixture_session_has_a_turn_per_typed_prompt(name: str) -> None:
    (path,) = (p for p in FIXTURES.rglob(name) if "setup" not in p.parts)
    assert len(list(turn_snapshots(path))) == FIXTURE_PROMPTS[name]


@pytest.mark.parametrize(
    "relative",
    [
        COMPACTED_CLAUDE,
        COMPACTED_CODEX,
        COMPRESSED_GEMINI,
        "generated/claude/claude-ping-1turn.jsonl",
        "generated/codex/codex-ping-1turn.jsonl",
        "generated/gemini/gemini-ping-1turn.jsonl",
    ],
)
def test_a_generated_corpus_session_has_a_turn_per_prompt_its_harness_typed(relative: str) -> None:
    # The harness that ran the real CLIs wrote down each prompt it gave (<name>.turns.json;
    # Gemini's was 24 `gemini -p … --resume` runs). A slash command is no prompt.
    path = corpus_file(relative)
    harness = json.loads(path.with_name(path.name.replace(".jsonl", ".turns.json")).read_text())
    typed = [t for t in harness["turns"] if not t["prompt"].startswith("/")]
    assert len(list(turn_snapshots(path))) == len(typed)


def test_the_last_point_of_the_series_is_the_score_driftguard_score_gives(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history")
    reports = list(
        engine.series(turn_snapshots(CLAUDE_ALPHA), project_for=lambda _: None, store=store)
    )
    now = engine.drift(parse_session(CLAUDE_ALPHA), project=None, store=store, record=False)
    assert (reports[-1].score, dict(reports[-1].factors)) == (
        now.report.score,
        dict(now.report.factors),
    )
    assert store.read(engine.history_key(now.report.session)) == []  # nothing recorded


def test_the_timeline_marks_each_compaction_in_the_turn_it_happened() -> None:
    path = corpus_file(COMPACTED_CODEX)  # real Codex, one compaction
    summary = session_timeline(path, project_for=lambda _: None, store=HistoryStore(Path("/n")))
    timeline = summary.timeline
    assert [m.turn for m in timeline.compactions] == [15]
    assert timeline.points[13].context_tokens > timeline.points[14].context_tokens
    assert summary.last == timeline.points[-1].score
    assert summary.peak == max(p.score for p in timeline.points)
    assert timeline.title == f"Codex CLI · {path.name}"


def test_consecutive_turns_in_the_same_loop_are_one_mark(tmp_path: Path) -> None:
    path = write_loop_session(tmp_path / "loop.jsonl", turns=4, attempts=4)
    timeline = session_timeline(
        path, project_for=lambda _: None, store=HistoryStore(tmp_path / "h")
    ).timeline
    assert [(m.first, m.last) for m in timeline.loops] == [(1, 4)]
    assert "npm test" in timeline.loops[0].label
    assert all(p.loop is not None for p in timeline.points)


def test_report_writes_a_private_page_in_the_reports_folder(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(CLAUDE_ALPHA)]) == 0
    out = capsys.readouterr().out
    written = Path(out.split("Wrote ", 1)[1].split(":", 1)[0])
    assert written.parent == isolated_home / ".driftcli" / "reports"
    assert written.name.startswith("11111111-aaaa-4aaa-8aaa-000000000001-")
    assert stat.S_IMODE(os.stat(written).st_mode) == 0o600
    data = _page_data(written.read_text(encoding="utf-8"))
    assert len(data["turns"]) == 2  # two typed prompts (tests/fixtures/README.md)
    assert len(data["compactions"]) == 1
    assert out.rstrip().endswith(
        f"score {data['turns'][-1]['score']}/100 now, "
        f"peak {max(t['score'] for t in data['turns'])}."
    )


def test_report_to_stdout_and_to_a_file_of_your_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(CLAUDE_ALPHA), "-o", "-"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>")
    target = tmp_path / "page.html"
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(target)]) == 0
    assert _page_data(target.read_text(encoding="utf-8")) == _page_data(page)


def test_report_o_of_a_folder_writes_the_page_in_it_and_never_creates_missing_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split(":")[0].removeprefix("Wrote ")
    assert Path(written).parent == tmp_path
    assert Path(written).is_file()
    typo = tmp_path / "no" / "such" / "page.html"
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(typo)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"driftguard: error: -o {typo}: the folder {typo.parent} does not exist"
    assert not (tmp_path / "no").exists()


def test_report_open_starts_the_browser_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    target = tmp_path / "page.html"
    assert main(["report", "--demo", "-o", str(target), "--open"]) == 0
    assert opened == [target.resolve().as_uri()]


def _project_with_sessions(home: Path, project: Path) -> list[Path]:
    project.mkdir(parents=True)
    folder = home / ".claude" / "projects" / claude_project_dir_name(str(project))
    older = write_claude_session(
        folder / "aaaaaaaa-0000-4000-8000-000000000001.jsonl",
        ["an older reply", "another older reply"],
        cwd=str(project),
        session_id="aaaaaaaa-0000-4000-8000-000000000001",
    )
    newer = write_claude_session(
        folder / "aaaaaaaa-0000-4000-8000-000000000002.jsonl",
        ["a newer reply", "more", "and more"],
        cwd=str(project),
        session_id="aaaaaaaa-0000-4000-8000-000000000002",
    )
    os.utime(older, (1_800_000_000, 1_800_000_000))
    os.utime(newer, (1_800_000_600, 1_800_000_600))
    return [newer, older]


def test_a_projects_sessions_are_listed_newest_first(isolated_home: Path, tmp_path: Path) -> None:
    expected = _project_with_sessions(isolated_home, tmp_path / "app")
    found, warnings = project_sessions(tmp_path / "app")
    assert [s.path for s in found] == expected
    assert warnings == []
    with pytest.raises(SessionNotFoundError, match="no session found"):
        project_sessions(tmp_path / "app", ("codex_cli",))


def test_report_all_writes_a_page_per_session_and_an_index_linking_them(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = _project_with_sessions(isolated_home, tmp_path / "app")
    out_dir = tmp_path / "pages"
    assert main(["report", "--all", "--project", str(tmp_path / "app"), "-o", str(out_dir)]) == 0
    assert capsys.readouterr().out.strip() == (
        f"Wrote {out_dir / 'index.html'}: 2 sessions of {tmp_path / 'app'}."
    )
    index = (out_dir / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="([^"]+)">', index)
    assert len(links) == 2
    assert [link.split("-")[1] for link in links] == [s.stem.split("-")[1] for s in sessions]
    for link in links:
        assert (out_dir / link).is_file()
    rows = re.findall(
        r"<tr><td><a[^>]*>[^<]*</a></td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>", index
    )
    assert [row[2] for row in rows] == ["3", "2"]  # turns of the newer, then the older


def test_report_all_refuses_a_path_and_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--all", str(CLAUDE_ALPHA)]) == 2
    assert "either PATH or --all" in capsys.readouterr().err
    assert main(["report", "--all", "-o", "-"]) == 2
    assert "-o DIR" in capsys.readouterr().err


def test_report_all_refuses_a_file_as_its_folder(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_with_sessions(isolated_home, tmp_path / "app")
    page = tmp_path / "page.html"
    page.write_text("mine", encoding="utf-8")
    assert main(["report", "--all", "--project", str(tmp_path / "app"), "-o", str(page)]) == 2
    assert "with --all, -o names a folder; this is a file" in capsys.readouterr().err
    assert page.read_text(encoding="utf-8") == "mine"


def test_report_o_never_replaces_a_file_driftguard_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("precious\n", encoding="utf-8")
    notes.chmod(0o644)
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(notes)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"driftguard: error: -o {notes}: the file exists and is not a report")
    assert "remove it or" in err
    assert notes.read_text(encoding="utf-8") == "precious\n"
    assert stat.S_IMODE(os.stat(notes).st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]  # no temporary left


def test_report_o_replaces_a_report_it_wrote_earlier_new_or_old(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "page.html"
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(target)]) == 0
    assert '<meta name="generator" content="driftguard">' in target.read_text("utf-8")
    assert main(["report", "--demo", "-o", str(target)]) == 0
    assert "demo" in target.read_text("utf-8")
    # a page of a driftguard from before the generator mark starts as every page did then
    older = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
        "base-uri 'none'; form-action 'none'\"><title>an old page</title>"
    )
    target.write_text(older, encoding="utf-8")
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(target)]) == 0
    assert "an old page" not in target.read_text("utf-8")
    capsys.readouterr()


def test_report_o_through_a_symlink_replaces_the_link_never_what_it_points_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    assert main(["report", "--demo", "-o", str(page)]) == 0
    written = page.read_bytes()
    link = tmp_path / "latest.html"
    link.symlink_to(page)
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(link)]) == 0
    assert not link.is_symlink()
    assert page.read_bytes() == written
    precious = tmp_path / "precious.txt"
    precious.write_text("mine\n", encoding="utf-8")
    other = tmp_path / "other.html"
    other.symlink_to(precious)
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(other)]) == 2
    assert "is not a report" in capsys.readouterr().err
    assert other.is_symlink()
    assert precious.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_report_o_refuses_what_is_not_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"  # stands for a device: never a real one, tests may run as root
    os.mkfifo(fifo)
    assert main(["report", str(CLAUDE_ALPHA), "-o", str(fifo)]) == 2
    assert f"-o {fifo}: the file exists and is not a report" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_report_all_never_replaces_an_index_of_the_users_own(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_with_sessions(isolated_home, tmp_path / "app")
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<p>my site</p>\n", encoding="utf-8")
    argv = ["report", "--all", "--project", str(tmp_path / "app"), "-o", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'index.html'}: the file exists and is not a report" in err
    assert [p.name for p in folder.iterdir()] == ["index.html"]  # no page written first
    assert (folder / "index.html").read_text(encoding="utf-8") == "<p>my site</p>\n"
    (folder / "index.html").unlink()
    assert main(argv) == 0
    assert main(argv) == 0  # its own pages and index are replaced
