"""`driftguard handoff --status` and `handoff --write` tell the same story: one definition
of an untouched draft, an edited handoff and a completed one decides both what the status
says and what a new `--write` may replace; and the status says the next session gets the
handoff only when a host actually runs driftguard's hand-over hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_project_session

from driftguard.cli import main
from driftguard.store.handoff_files import PLACEHOLDERS, handoff_files, placeholders_left

SESSION_ID = "7d1e2f30-4a5b-4c6d-8e7f-90a1b2c3d4e5"


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one Claude Code session, the command run in it."""
    root = tmp_path / "app"
    root.mkdir()
    write_project_session(
        isolated_home,
        root,
        ["The importer reads the CSV header.", "Dates are parsed as ISO 8601 now."],
        session_id=SESSION_ID,
    )
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def status_json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = run(capsys, "handoff", "--status", "--json")
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def install_claude_hooks() -> None:
    from driftguard.setup_scripts.claude_hooks import HOOK_EVENTS, hook_group, settings_file

    settings = settings_file()
    settings.parent.mkdir(parents=True, exist_ok=True)
    hooks = {spec.event: [hook_group("/opt/venv/bin/driftguard", spec)] for spec in HOOK_EVENTS}
    settings.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")


# --- one definition of draft, edited and completed -----------------------------------


def test_an_edited_draft_with_placeholders_left_is_edited_for_status_and_kept_by_write(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "handoff", "--write")[0] == 0
    handoff = handoff_files(project).handoff
    with handoff.open("a", encoding="utf-8") as file:
        file.write("- Fixed X\n")
    edited = handoff.read_text(encoding="utf-8")
    left = placeholders_left(edited)
    assert left > 1

    code, out, _ = run(capsys, "handoff", "--status")
    assert code == 0
    assert out.splitlines()[0].rsplit("; ", 1)[1] == f"edited ({left} placeholders left)."
    assert "handoff --write does not replace it while it waits" in out
    data = status_json(capsys)
    assert (data["progress"], data["placeholders"]) == ("edited", left)

    code, out, err = run(capsys, "handoff", "--write")
    assert (code, out) == (2, "")
    assert f"{handoff} was edited ({left} placeholders left) and still waits" in err
    assert handoff.read_text(encoding="utf-8") == edited  # the user's edit is not lost

    code, out, _ = run(capsys, "handoff", "--write", "--replace")
    assert code == 0
    [kept] = handoff.parent.glob("handoff-*.md")
    assert kept.read_text(encoding="utf-8") == edited
    assert out.splitlines()[0] == (
        f"The handoff.md that was there had been edited ({left} placeholders left): "
        f"kept as {kept}, not lost."
    )


def test_an_untouched_draft_is_a_draft_for_status_and_replaced_by_write(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "handoff", "--write")[0] == 0
    files = handoff_files(project)
    draft = files.handoff.read_text(encoding="utf-8")
    left = placeholders_left(draft)

    code, out, _ = run(capsys, "handoff", "--status")
    assert code == 0
    assert out.splitlines()[0].rsplit("; ", 1)[1] == (
        f"an untouched draft ({left} placeholders left)."
    )
    assert "handoff --write replaces it (keeping it as handoff.prev.md)" in out
    assert status_json(capsys)["progress"] == "draft"

    code, out, _ = run(capsys, "handoff", "--write")
    assert code == 0
    assert files.previous.read_text(encoding="utf-8") == draft
    assert list(files.folder.glob("handoff-*.md")) == []


def test_a_handoff_with_every_placeholder_replaced_is_completed_for_status_and_write(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "handoff", "--write")[0] == 0
    handoff = handoff_files(project).handoff
    text = handoff.read_text(encoding="utf-8")
    for placeholder in PLACEHOLDERS:
        text = text.replace(placeholder, "- done")
    handoff.write_text(text, encoding="utf-8")

    code, out, _ = run(capsys, "handoff", "--status")
    assert code == 0
    assert out.splitlines()[0].rsplit("; ", 1)[1] == "completed."
    data = status_json(capsys)
    assert (data["progress"], data["placeholders"]) == ("completed", 0)

    code, _, err = run(capsys, "handoff", "--write")
    assert code == 2
    assert f"{handoff} was completed and still waits" in err


# --- handed over only where a host runs the hook -------------------------------------


def test_status_without_any_hook_says_no_session_gets_it_and_how_to_install_the_hooks(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "handoff", "--write")[0] == 0
    code, out, _ = run(capsys, "handoff", "--status")
    assert code == 0
    assert "gets it" not in out
    assert "driftguard's hooks are installed in no host" in out
    assert "`driftguard setup --hooks`" in out
    assert "“Read .driftguard/handoff.md and continue from it.”" in out
    data = status_json(capsys)
    assert (data["waiting"], data["handed_over"], data["hooked_hosts"]) == (True, False, [])
    assert data["not_handed_over_because"] == "driftguard's hooks are installed in no host"


def test_status_with_the_claude_code_hook_says_the_next_claude_session_gets_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_claude_hooks()
    assert run(capsys, "handoff", "--write")[0] == 0
    code, out, _ = run(capsys, "handoff", "--status")
    assert code == 0
    assert "The next Claude Code session started in this project gets it" in out
    assert "setup --hooks" in out  # the other hosts' sessions do not, and how they would
    data = status_json(capsys)
    assert (data["handed_over"], data["hooked_hosts"]) == (True, ["claude_code"])
    assert data["not_handed_over_because"] is None


@pytest.mark.parametrize("hooks", [False, True], ids=["no hooks", "claude hooks"])
def test_handoff_json_says_hooked_the_same_with_and_without_write(
    hooks: bool, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if hooks:
        install_claude_hooks()
    code, out, _ = run(capsys, "handoff", "--json")
    assert code == 0
    assert json.loads(out)["hooked"] is hooks
    code, out, _ = run(capsys, "handoff", "--write", "--json")
    assert code == 0
    assert json.loads(out)["hooked"] is hooks
