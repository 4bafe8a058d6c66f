"""The handoff loop on disk: `handoff --write` / `save_handoff` save it in
`.driftguard/`, the next SessionStart takes it once."""

from __future__ import annotations

import json
import os
import random
import stat
import string
from pathlib import Path

import pytest
from conftest import write_claude_session
from mcp import Client

from driftguard.adapters import parse_session
from driftguard.adapters.claude_code import project_dir_name as claude_project_dir_name
from driftguard.cli import main
from driftguard.engine.drift import score_session
from driftguard.engine.handoff import (
    SECTIONS,
    HandoffTarget,
    build_handoff,
    checkpoint_facts,
    handoff_target,
)
from driftguard.errors import RefusedPathError
from driftguard.presets import load_preset
from driftguard.server import create_server
from driftguard.store.handoff_files import (
    CONTEXT_CHARS,
    PLACEHOLDERS,
    handoff_context,
    handoff_files,
    handoff_progress,
    handoff_status,
    save_handoff,
    take_handoff,
)

SESSION_ID = "7d1e2f30-4a5b-4c6d-8e7f-90a1b2c3d4e5"
OTHER_SESSION = "8e2f3041-5b6c-4d7e-9f80-a1b2c3d4e5f6"
GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
"""A made-up token in GitHub's format, which the secret gate redacts."""


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    project = tmp_path / "api"
    project.mkdir()
    return write_claude_session(
        tmp_path / "t" / f"{SESSION_ID}.jsonl",
        [
            "The rate limiter now counts requests per API key in a sliding window.",
            "I moved the limits into settings so each plan can have its own.",
            "The 429 response carries a Retry-After header computed from the window.",
        ],
        cwd=str(project),
        session_id=SESSION_ID,
    )


def _save(session_file: Path, project: Path, now: float | None = None) -> None:
    session = parse_session(session_file)
    report = score_session(session, weights=load_preset("coding").weights)
    target = str(handoff_files(project).handoff)
    made = build_handoff(session, report, saved_to=target)
    save_handoff(project, made.draft, checkpoint_facts(made, report), now=now)


def test_saving_writes_the_draft_checkpoint_pending_marker_and_a_gitignore(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project, now=1_800_000_000.0)
    files = handoff_files(project)
    assert files.gitignore.read_text(encoding="utf-8").splitlines()[-1] == "*"
    draft = files.handoff.read_text(encoding="utf-8")
    assert draft.startswith(SECTIONS[0])
    assert [line for line in draft.splitlines() if line.startswith("## ")] == list(SECTIONS)
    checkpoint = json.loads(files.checkpoint.read_text(encoding="utf-8"))
    assert checkpoint["session_id"] == SESSION_ID
    assert checkpoint["cli"] == "claude_code"
    assert checkpoint["created"] == 1_800_000_000.0
    assert checkpoint["created_at"] == "2027-01-15T08:00:00Z"
    assert isinstance(checkpoint["score"], int)
    assert set(checkpoint["factors"]) >= {"context_saturation", "repetition"}
    assert checkpoint["files_touched"] == []
    assert json.loads(files.pending.read_text(encoding="utf-8"))["id"] == checkpoint["id"]


def test_saving_again_replaces_an_untouched_draft_keeping_it_and_an_existing_gitignore(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    files = handoff_files(project)
    files.folder.mkdir()
    files.gitignore.write_text("handoff.prev.md\n", encoding="utf-8")
    _save(session_file, project)
    first = files.handoff.read_bytes()
    _save(session_file, project)  # nobody touched the draft: simply replaced
    assert files.previous.read_bytes() == first
    assert files.gitignore.read_text(encoding="utf-8") == "handoff.prev.md\n"
    assert sorted(path.name for path in files.folder.glob("handoff-*.md")) == []


COMPLETED = "## What we accomplished\n- the model's own words\n"


def _cli_write(
    capsys: pytest.CaptureFixture[str], project: Path, session_file: Path, *more: str
) -> tuple[int, str, str]:
    code = main(["handoff", "--write", "--project", str(project), *more, str(session_file)])
    out, err = capsys.readouterr()
    return code, out, err


def test_handoff_write_twice_refuses_to_replace_a_completed_handoff_still_waiting(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "api"
    assert _cli_write(capsys, project, session_file)[0] == 0
    files = handoff_files(project)
    files.handoff.write_text(COMPLETED, encoding="utf-8")  # the model completed it
    code, out, err = _cli_write(capsys, project, session_file)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert f"driftguard: error: {files.handoff} was completed and still waits for the " in err
    assert "not replaced" in err
    assert files.handoff.read_text(encoding="utf-8") == COMPLETED
    code, out, _ = _cli_write(capsys, project, session_file, "--replace")
    assert code == 0
    [kept] = files.folder.glob("handoff-*.md")
    assert kept.read_text(encoding="utf-8") == COMPLETED
    assert out.splitlines()[0] == (
        f"The handoff.md that was there had been completed: kept as {kept}, not lost."
    )
    assert files.handoff.read_text(encoding="utf-8").startswith(SECTIONS[0])
    assert not files.previous.exists()  # handoff.prev.md only ever holds an untouched draft


def test_a_completed_handoff_already_taken_is_kept_when_a_new_draft_is_written(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "api"
    _cli_write(capsys, project, session_file)
    files = handoff_files(project)
    files.handoff.write_text(COMPLETED, encoding="utf-8")
    assert take_handoff(project, OTHER_SESSION) is not None  # the next session took it
    code, out, _ = _cli_write(capsys, project, session_file)
    assert code == 0
    [kept] = files.folder.glob("handoff-*.md")
    assert kept.read_text(encoding="utf-8") == COMPLETED
    assert f"kept as {kept}, not lost" in out.splitlines()[0]
    # a third write: the first kept file stays, the new draft is untouched so none is added
    _cli_write(capsys, project, session_file)
    assert list(files.folder.glob("handoff-*.md")) == [kept]


def test_completed_handoffs_kept_in_the_same_second_never_overwrite_each_other(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    files = handoff_files(project)
    for words in ("first", "second"):
        _save(session_file, project, now=1_800_000_000.0)
        files.handoff.write_text(f"- {words} handoff\n", encoding="utf-8")
        files.pending.unlink()  # taken by a session
    _save(session_file, project, now=1_800_000_000.0)
    kept = sorted(files.folder.glob("handoff-*.md"))
    assert [path.name for path in kept] == [
        "handoff-2027-01-15T08-00-00Z-2.md",
        "handoff-2027-01-15T08-00-00Z.md",
    ]
    assert {path.read_text(encoding="utf-8") for path in kept} == {
        "- first handoff\n",
        "- second handoff\n",
    }


def test_the_next_session_is_told_an_unfinished_draft_is_a_draft(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)  # nobody completed it
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert "saved a handoff draft in .driftguard/handoff.md but did not complete it" in context
    assert "placeholders in <angle brackets>" in context
    assert "left this handoff" not in context


def test_the_next_session_is_given_a_completed_handoff_as_done(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff_files(project).handoff.write_text(COMPLETED, encoding="utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert "left this handoff for the next session" in context
    assert "did not complete it" not in context


def test_the_next_session_is_told_an_edited_handoff_with_placeholders_left_is_done_in_part(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff = handoff_files(project).handoff
    handoff.write_text(handoff.read_text(encoding="utf-8") + "- Fixed X\n", encoding="utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    assert taken.progress.state == "edited"
    context = handoff_context(taken, project)
    assert "saved a handoff in .driftguard/handoff.md that was completed only in part" in context
    assert "placeholders in <angle brackets>" in context
    assert "did not complete it" not in context  # someone did write in it
    assert "- Fixed X" in context


# --- one definition: an untouched draft, an edited handoff, a completed one --------------

DRAFT = f"## What we accomplished\n{PLACEHOLDERS[2]}\n## Next steps\n{PLACEHOLDERS[7]}\n"


def _checkpoint_of(text: str) -> dict[str, str]:
    import hashlib

    return {"draft_sha256": hashlib.sha256(text.encode()).hexdigest()}


def test_the_draft_as_driftguard_wrote_it_is_an_untouched_draft() -> None:
    progress = handoff_progress(DRAFT.encode(), _checkpoint_of(DRAFT))
    assert (progress.state, progress.placeholders, progress.edited) == ("draft", 2, False)
    assert progress.describe() == "an untouched draft (2 placeholders left)"


def test_any_edit_makes_a_handoff_edited_while_a_placeholder_is_left() -> None:
    text = DRAFT.replace(PLACEHOLDERS[2], "- Fixed X")
    progress = handoff_progress(text.encode(), _checkpoint_of(DRAFT))
    assert (progress.state, progress.placeholders, progress.edited) == ("edited", 1, True)
    assert progress.describe() == "edited (1 placeholder left)"


def test_an_edited_handoff_without_placeholders_is_completed() -> None:
    text = "## What we accomplished\n- Fixed X\n## Next steps\n- ship it\n"
    progress = handoff_progress(text.encode(), _checkpoint_of(DRAFT))
    assert (progress.state, progress.placeholders, progress.edited) == ("completed", 0, True)
    assert progress.describe() == "completed"


def test_a_draft_nobody_edited_is_a_draft_even_without_placeholders() -> None:
    text = "## What we accomplished\n- facts only\n"
    progress = handoff_progress(text.encode(), _checkpoint_of(text))
    assert (progress.state, progress.edited) == ("draft", False)
    assert progress.describe() == "an untouched draft"


def test_a_handoff_whose_checkpoint_has_no_digest_counts_as_edited() -> None:
    # driftguard 0.1 wrote no digest: what it holds may be someone's work, so it is kept
    assert handoff_progress(DRAFT.encode(), {}).state == "edited"
    assert handoff_progress(b"- done\n", None).state == "completed"


def test_status_and_save_agree_on_an_edited_handoff_with_placeholders_left(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff = handoff_files(project).handoff
    handoff.write_text(handoff.read_text(encoding="utf-8") + "- Fixed X\n", encoding="utf-8")
    status = handoff_status(project)
    assert status.progress is not None
    assert status.progress.state == "edited"
    assert status.placeholders == status.progress.placeholders > 0
    with pytest.raises(RefusedPathError, match=r"was edited \(\d+ placeholders left\)"):
        _save(session_file, project)


def test_a_handoff_is_taken_once_and_not_by_the_session_that_saved_it(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    assert take_handoff(project, SESSION_ID) is None  # the same session, resumed
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    assert taken.checkpoint["session_id"] == SESSION_ID
    assert take_handoff(project, OTHER_SESSION) is None
    assert take_handoff(project, "9f304152-0000-4000-8000-000000000000") is None


def test_nothing_is_taken_when_nothing_waits_or_the_files_do_not_match(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    assert take_handoff(project, OTHER_SESSION) is None  # no .driftguard at all
    _save(session_file, project)
    files = handoff_files(project)
    files.pending.write_text(json.dumps({"id": "someone-else"}), encoding="utf-8")
    assert take_handoff(project, OTHER_SESSION) is None
    assert files.pending.exists()  # not claimed: it blocks nothing and waits


def test_the_handoff_passes_the_secret_gate_again_before_reaching_the_context(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff_path = handoff_files(project).handoff
    handoff_path.write_text(f"## Current state\n- deploy token {GITHUB_TOKEN}\n", "utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert GITHUB_TOKEN not in context
    assert "[REDACTED:github-token:" in context
    assert "saved in .driftguard/handoff.md" in context


def test_a_long_handoff_is_cut_to_stay_in_the_context(session_file: Path, tmp_path: Path) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    handoff_files(project).handoff.write_text("- step\n" * 3000, encoding="utf-8")
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    context = handoff_context(taken, project)
    assert len(context) < CONTEXT_CHARS + 500
    assert context.endswith("[… cut; the whole handoff is in .driftguard/handoff.md]\n")


def test_cli_handoff_write_says_where_it_saved_and_asks_to_complete_it_in_place(
    session_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "api"
    monkeypatch.chdir(project)  # the command runs in the session's own project
    assert main(["handoff", "--write", str(session_file)]) == 0
    out = capsys.readouterr().out
    saved = project / ".driftguard" / "handoff.md"
    assert out.splitlines()[0].startswith(f"Saved the handoff draft to {saved} ")
    assert f"driftguard saved the draft below as `{saved}`" in out
    assert "Complete it in place" in out
    assert out.splitlines()[1].startswith(
        "driftguard's hooks, which hand it to the next Claude Code session, are not "
        "installed (`driftguard setup --hooks` installs them): begin the next session in "
        f"{project} with “Read .driftguard/handoff.md and continue from it.”"
    )


def test_cli_handoff_write_says_the_next_claude_session_begins_with_it_once_the_hook_is_installed(
    session_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from driftguard.setup_scripts.claude_hooks import HOOK_EVENTS, hook_group, settings_file

    settings = settings_file()
    settings.parent.mkdir(parents=True, exist_ok=True)
    hooks = {spec.event: [hook_group("/opt/venv/bin/driftguard", spec)] for spec in HOOK_EVENTS}
    settings.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    project = tmp_path / "api"
    monkeypatch.chdir(project)
    assert main(["handoff", "--write", str(session_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith(
        f"The next Claude Code session started in {project} begins with it"
    )
    assert "Read .driftguard/handoff.md" not in out


def test_cli_handoff_write_json_names_the_files(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "api"  # --project names the session's own project
    assert main(["handoff", "--write", "--json", "--project", str(project), str(session_file)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["saved"]["handoff"] == str(project / ".driftguard" / "handoff.md")
    assert data["saved"]["record"]["session_id"] == SESSION_ID
    assert data["saved"]["previous"] is None  # nothing was there before
    assert data["draft"] == (project / ".driftguard" / "handoff.md").read_text(encoding="utf-8")


def test_cli_handoff_write_of_another_projects_session_says_which_project_would_save_it(
    session_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    elsewhere = tmp_path / "web"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["handoff", "--write", str(session_file)]) == 0
    out, err = capsys.readouterr()
    project = tmp_path / "api"
    assert err == (
        f"driftguard: warning: the handoff was not saved: this session ran in {project}, "
        f"outside the project ({elsewhere}), and a handoff is saved only in the project its "
        f"session ran in; it is given here instead (--project {project} saves it there)\n"
    )
    assert "Write a file named `handoff.md`" in out
    assert not (elsewhere / ".driftguard").exists()
    assert main(["handoff", "--write", "--project", str(project), str(session_file)]) == 0
    assert (project / ".driftguard" / "handoff.md").is_file()


def test_cli_handoff_without_write_saves_nothing(
    session_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["handoff", str(session_file)]) == 0
    assert "Write a file named `handoff.md`" in capsys.readouterr().out
    assert not (tmp_path / "api" / ".driftguard").exists()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def served_project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project the server is started in (the working directory), with one Claude Code
    session of two replies in its own session folder."""
    project = tmp_path / "api"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = isolated_home / ".claude" / "projects" / claude_project_dir_name(str(project))
    write_claude_session(
        folder / f"{SESSION_ID}.jsonl",
        ["A reply about the limiter.", "Another reply about its settings."],
        cwd=str(project),
        session_id=SESSION_ID,
    )
    return project


@pytest.mark.anyio
async def test_get_handoff_with_write_saves_the_handoff_in_the_project(
    served_project: Path,
) -> None:
    project = served_project
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        plain = await client.call_tool("get_handoff", {})
        assert plain.structured_content is not None
        assert plain.structured_content["saved_to"] is None
        assert not (project / ".driftguard").exists()
        result = await client.call_tool("save_handoff", {})
    assert result.is_error is False
    data = result.structured_content
    assert data is not None
    saved = project / ".driftguard" / "handoff.md"
    assert data["saved_to"] == str(saved)
    assert data["checkpoint"] == str(project / ".driftguard" / "handoff.json")
    assert f"driftguard saved the draft below as `{saved}`" in data["prompt"]
    assert saved.read_text(encoding="utf-8").startswith(SECTIONS[0])
    assert os.path.exists(project / ".driftguard" / "handoff.pending")


@pytest.mark.anyio
async def test_save_handoff_over_a_completed_waiting_handoff_fails_unless_told_to_replace(
    served_project: Path,
) -> None:
    project = served_project
    files = handoff_files(project)
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        await client.call_tool("save_handoff", {})
        files.handoff.write_text(COMPLETED, encoding="utf-8")
        refused = await client.call_tool("save_handoff", {})
        assert refused.is_error is True
        assert "was completed and still waits" in refused.content[0].text  # type: ignore[union-attr]
        assert files.handoff.read_text(encoding="utf-8") == COMPLETED
        replaced = await client.call_tool("save_handoff", {"replace": True})
    data = replaced.structured_content
    assert data is not None
    [kept] = files.folder.glob("handoff-*.md")
    assert data["kept"] == str(kept)
    assert kept.read_text(encoding="utf-8") == COMPLETED
    assert any("had been completed: kept as" in note for note in data["notes"])


@pytest.mark.anyio
async def test_save_handoff_keeps_a_waiting_draft_someone_edited_and_says_it_was_edited(
    served_project: Path,
) -> None:
    project = served_project
    files = handoff_files(project)
    async with Client(create_server()) as client:  # type: ignore[arg-type]
        await client.call_tool("save_handoff", {})
        edited = files.handoff.read_text(encoding="utf-8") + "- Fixed X\n"
        files.handoff.write_text(edited, encoding="utf-8")  # placeholders are left
        refused = await client.call_tool("save_handoff", {})
        assert refused.is_error is True
        text = refused.content[0].text  # type: ignore[union-attr]
        assert "was edited (" in text
        assert "placeholders left) and still waits" in text
        replaced = await client.call_tool("save_handoff", {"replace": True})
    data = replaced.structured_content
    assert data is not None
    [kept] = files.folder.glob("handoff-*.md")
    assert kept.read_text(encoding="utf-8") == edited
    assert any("had been edited (" in note for note in data["notes"])


def test_a_claimed_handoff_is_still_given_when_its_consumed_record_cannot_be_written(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    files = handoff_files(project)
    files.consumed.mkdir()  # os.replace cannot put a file there
    taken = take_handoff(project, OTHER_SESSION)
    assert taken is not None
    assert not files.pending.exists()
    assert take_handoff(project, OTHER_SESSION) is None


# --- the files are private to the user ------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_the_handoff_files_are_readable_by_the_user_only(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    _save(session_file, project)
    _save(session_file, project)  # the second save also writes handoff.prev.md
    files = handoff_files(project)
    assert _mode(files.folder) == 0o700
    for path in (files.handoff, files.checkpoint, files.pending, files.previous):
        assert _mode(path) == 0o600, path.name


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_saving_over_world_readable_files_leaves_them_private_and_the_users_folder_alone(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    files = handoff_files(project)
    files.folder.mkdir()
    os.chmod(files.folder, 0o755)  # a folder the user made: its mode is theirs
    for path in (files.handoff, files.checkpoint):
        path.write_text("older\n", encoding="utf-8")
        os.chmod(path, 0o644)
    _save(session_file, project)  # "older" is no draft of driftguard's: it is kept
    assert _mode(files.folder) == 0o755
    [kept] = files.folder.glob("handoff-*.md")
    for path in (files.handoff, files.checkpoint, kept):
        assert _mode(path) == 0o600, path.name


# --- end to end: no secret planted in a transcript reaches the handoff ------------------

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def fake(alphabet: str, length: int, seed: int) -> str:
    """A deterministic random string standing in for a secret's body (no real key)."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


PEM_BODY = [fake(B64, 64, 100 + i) for i in range(3)]
PEM_KEY = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *PEM_BODY, "-----END RSA PRIVATE KEY-----"])
AWS_ID = "AKIA" + fake(string.ascii_uppercase + string.digits, 16, 101)
AWS_SECRET = fake(B64, 40, 102)
AWS_SECRET_2 = fake(B64, 42, 103)
GH = "ghp_" + fake(ALNUM, 36, 104)
ANTHROPIC = "sk-ant-api03-" + fake(ALNUM + "_-", 93, 105) + "AA"
OPENAI = "sk-proj-" + fake(ALNUM, 30, 106) + "T3BlbkFJ" + fake(ALNUM, 30, 107)
SLACK = "xoxb-" + fake(string.digits, 12, 108) + "-" + fake(ALNUM, 24, 109)
GOOGLE = "AIza" + fake(ALNUM + "_-", 35, 110)
JWT = "eyJ" + fake(ALNUM, 20, 111) + ".eyJ" + fake(ALNUM, 40, 112) + "." + fake(ALNUM, 43, 113)
BEARER = fake(ALNUM, 40, 114)
URL_PW = fake(ALNUM, 14, 115)
ENTROPY = fake(B64, 36, 116)
SHORT_PW = "Pw" + fake(ALNUM, 8, 117) + "!"
STRIPE = "sk_live_" + fake(ALNUM, 24, 118)

# kind: (the text planted, the raw secrets in it, what the gate must report: a rule id,
# or the reason the excerpt is withheld whole)
PLANTED: dict[str, tuple[str, tuple[str, ...], str]] = {
    "private-key": (f"here is the deploy key:\n{PEM_KEY}\nuse it", tuple(PEM_BODY), "private-key"),
    "aws-access-key": (f"read the bucket with {AWS_ID} today", (AWS_ID,), "aws-access-key"),
    "aws-secret-key": (
        f"Deploy with AWS_SECRET_ACCESS_KEY {AWS_SECRET_2}",
        (AWS_SECRET_2,),
        "aws-secret-key",
    ),
    "aws-secret-key-configure": (
        f"aws configure set aws_secret_access_key {AWS_SECRET}",
        (AWS_SECRET,),
        "aws-secret-key",
    ),
    "github-token": (f"git push with {GH}", (GH,), "github-token"),
    "anthropic-key": (f"ANTHROPIC_API_KEY={ANTHROPIC} claude", (ANTHROPIC,), "anthropic-key"),
    "openai-key": (f"OPENAI_API_KEY={OPENAI} python seed.py", (OPENAI,), "openai-key"),
    "slack-token": (f"post with {SLACK} to #ops", (SLACK,), "slack-token"),
    "google-api-key": (f"maps key {GOOGLE} in config", (GOOGLE,), "google-api-key"),
    "jwt": (f"session cookie {JWT} expired", (JWT,), "jwt"),
    "bearer-token": (
        f"curl -H 'Authorization: Bearer {BEARER}' https://api.internal",
        (BEARER,),
        "bearer-token",
    ),
    "url-credentials": (
        f"psql postgres://app:{URL_PW}@db.internal/app",
        (URL_PW,),
        "url-credentials",
    ),
    "entropy-assignment": (f"export GITHUB_TOKEN  {ENTROPY}", (ENTROPY,), "entropy-assignment"),
    "entropy-flag": (f"deploy --api-key {ENTROPY} --yes", (ENTROPY,), "entropy-assignment"),
    "password-flag": ("deploy --password=hunter2hunter2 --yes", ("hunter2hunter2",), "password"),
    "password-env": ("PGPASSWORD=hunter2 psql -h db -U app", ("hunter2",), "password"),
    "password-yaml": (f"the admin password: {SHORT_PW}", (SHORT_PW,), "password"),
    "mysql": (f"mysql -u root -p{SHORT_PW} app", (SHORT_PW,), "cli-password"),
    "curl": (f"curl -u admin:{SHORT_PW} https://api.internal/v1", (SHORT_PW,), "cli-password"),
    "dotenv": (
        f"DATABASE_URL=postgres://app:{URL_PW}@db/app\nSTRIPE_KEY={STRIPE}\nSLACK={SLACK}\nDEBUG=1",
        (URL_PW, STRIPE, SLACK),
        "a .env dump",
    ),
    # "error: [default]" (an error result) or ".../notes/[default]" (a path) is no longer
    # the file's section line, so there the gate redacts the two keys instead
    "aws-credentials": (
        f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}",
        (AWS_ID, AWS_SECRET),
        "an AWS credentials file",
    ),
}
ALSO_ACCEPTED = {
    ("aws-credentials", "error"): "aws-secret-key",
    ("aws-credentials", "path"): "aws-secret-key",
}
PLACES = ("prompt", "command", "error", "path")


def write_rich_claude_session(path: Path, *, cwd: str, place: str, planted: str) -> Path:
    """A synthetic Claude Code session whose ``planted`` text sits in one ``place``: the
    first prompt, a ``Bash`` tool_use ``input.command``, a ``tool_result`` marked
    ``is_error``, or a ``Write`` tool_use ``input.file_path``."""
    envelope = {
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": SESSION_ID,
        "version": "2.1.114",
    }
    records: list[dict[str, object]] = []

    def add(kind: str, message: dict[str, object]) -> None:
        index = len(records)
        records.append(
            {
                **envelope,
                "type": kind,
                "uuid": f"00000000-0000-4000-8000-{index:012d}",
                "parentUuid": f"00000000-0000-4000-8000-{index - 1:012d}" if index else None,
                "timestamp": f"2026-11-30T10:{index:02d}:00.000Z",
                "message": message,
            }
        )

    def assistant(content: list[dict[str, object]]) -> None:
        add(
            "assistant",
            {
                "id": f"msg_{len(records):04d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": content,
                "usage": {
                    "input_tokens": 10,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 1000 * (len(records) + 1),
                    "output_tokens": 50,
                },
            },
        )

    prompt = planted if place == "prompt" else "Ship the release and tidy the deploy script."
    add("user", {"role": "user", "content": prompt})
    if place == "path":
        tool: dict[str, object] = {"file_path": f"{cwd}/notes/{planted}.md", "content": "x"}
        name = "Write"
    else:
        command = planted if place == "command" else "make deploy"
        tool, name = {"command": command, "description": "deploy"}, "Bash"
    assistant(
        [
            {"type": "text", "text": "Running it now."},
            {"type": "tool_use", "id": "toolu_01", "name": name, "input": tool},
        ]
    )
    failed = place == "error"
    output = f"error: {planted}" if failed else "ok"
    block = {"type": "tool_result", "tool_use_id": "toolu_01", "content": output}
    add("user", {"role": "user", "content": [{**block, "is_error": failed}]})
    assistant([{"type": "text", "text": "The deploy step finished."}])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", list(PLANTED))
def test_no_planted_secret_reaches_the_prompt_handoff_md_or_handoff_json(
    kind: str,
    place: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    planted, secrets, expected = PLANTED[kind]
    project = tmp_path / "app"
    project.mkdir()
    transcript = write_rich_claude_session(
        tmp_path / "t" / f"{SESSION_ID}.jsonl", cwd=str(project), place=place, planted=planted
    )
    session = parse_session(transcript)
    report = score_session(session, weights=load_preset("coding").weights)
    handoff = build_handoff(session, report)
    # the planted text was seen and gated (not merely cut off): a redaction or a drop
    found = {r.rule for r in handoff.redactions} | set(handoff.withheld_reasons)
    assert expected in found or ALSO_ACCEPTED.get((kind, place)) in found

    monkeypatch.chdir(project)
    assert main(["handoff", "--write", str(transcript)]) == 0
    printed = capsys.readouterr().out
    files = handoff_files(project)
    shown = {
        "prompt": handoff.prompt,
        "printed": printed,
        "handoff.md": files.handoff.read_text(encoding="utf-8"),
        "handoff.json": files.checkpoint.read_text(encoding="utf-8"),
    }
    for where, text in shown.items():
        for secret in secrets:
            assert secret not in text, f"{kind} in the {place} leaks into {where}"


# --- write only where the user works ---------------------------------


def test_cli_handoff_write_of_a_session_naming_a_victim_folder_saves_nothing_and_says_so(
    session_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    victim = tmp_path / "api"  # the folder the session file names
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    for extra in ([], ["--json"]):
        assert main(["handoff", "--write", *extra, str(session_file)]) == 0
        out, err = capsys.readouterr()
        assert "warning: the handoff was not saved" in err
        assert "Saved the handoff draft" not in out
        assert '"saved"' not in out
        assert "## What we accomplished" in out  # the handoff, as text
    assert list(victim.iterdir()) == []
    assert list(workdir.iterdir()) == []


def test_cli_handoff_write_through_a_symlinked_driftguard_folder_is_refused(
    session_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "api"
    target = tmp_path / "somewhere-else"
    target.mkdir()
    (project / ".driftguard").symlink_to(target, target_is_directory=True)
    monkeypatch.chdir(project)
    assert main(["handoff", "--write", str(session_file)]) == 2
    err = capsys.readouterr().err
    assert f"{project / '.driftguard'} is a symlink" in err
    assert list(target.iterdir()) == []


def test_a_symlinked_handoff_file_in_a_real_folder_is_refused_and_its_target_untouched(
    session_file: Path, tmp_path: Path
) -> None:
    project = tmp_path / "api"
    secret = tmp_path / "id_rsa"
    secret.write_text("not for the next session\n", encoding="utf-8")
    files = handoff_files(project)
    files.folder.mkdir()
    files.handoff.symlink_to(secret)
    with pytest.raises(RefusedPathError, match=r"handoff\.md is a symlink"):
        _save(session_file, project)
    assert secret.read_text(encoding="utf-8") == "not for the next session\n"
    assert not files.previous.exists()
    with pytest.raises(RefusedPathError, match="is a symlink"):
        take_handoff(project, OTHER_SESSION)


def _gemini_session_without_cwd(path: Path) -> Path:
    records = [
        {"sessionId": "5e5e0000-aaaa-4bbb-8ccc-000000000001", "projectHash": "ab" * 32},
        {"id": "u1", "type": "user", "content": "Add a retry to the uploader."},
        {"id": "g1", "type": "gemini", "content": "Added, with a backoff."},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_session_without_a_working_directory_is_saved_only_in_the_project_that_owns_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "uploader"
    project.mkdir()
    slug = isolated_home / ".gemini" / "tmp" / "uploader"
    slug.mkdir(parents=True)
    (slug / ".project_root").write_text(str(project), encoding="utf-8")
    owned = parse_session(_gemini_session_without_cwd(slug / "chats" / "session-a-5e5e0000.jsonl"))
    stray = parse_session(_gemini_session_without_cwd(tmp_path / "x" / "session-b-5e5e0000.jsonl"))
    assert owned.cwd is None
    assert handoff_target(owned, [project], found_for_project=False).project == project
    refused = handoff_target(stray, [project], found_for_project=False)
    assert refused.project is None
    assert refused.reason is not None
    assert "records no working directory" in refused.reason
    assert handoff_target(stray, [project], found_for_project=True).project == project


def test_the_deepest_project_holding_the_sessions_folder_is_chosen(
    session_file: Path, tmp_path: Path
) -> None:
    session = parse_session(session_file)  # recorded in <tmp>/api
    target = handoff_target(session, [tmp_path, tmp_path / "api"], found_for_project=False)
    assert target == HandoffTarget(tmp_path / "api")


def test_cli_handoff_write_again_says_where_the_untouched_draft_went(
    session_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "api"
    monkeypatch.chdir(project)
    assert main(["handoff", "--write", str(session_file)]) == 0
    assert "untouched draft" not in capsys.readouterr().out
    assert main(["handoff", "--write", str(session_file)]) == 0
    previous = project / ".driftguard" / "handoff.prev.md"
    assert f"The untouched draft that was there is kept as {previous}." in capsys.readouterr().out
    assert previous.is_file()
