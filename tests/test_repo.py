"""Guards against the docs and CI drifting from the code."""

from __future__ import annotations

import re

from conftest import REPO_ROOT

from driftguard.cli import build_parser


def _readme_commands() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", setup)


def test_readme_set_up_gives_the_run_command_and_the_test_command() -> None:
    run_demo, run_tests = _readme_commands()
    assert "driftguard score --demo" in run_demo
    assert "pytest" in run_tests


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, run_tests = _readme_commands()
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert run_tests in ci.splitlines()


def test_every_cli_command_and_flag_is_in_the_readme() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():
        # a word of its own: `driftguard status` is not found inside `driftguard statusline`
        assert re.search(rf"driftguard {re.escape(name)}\b", readme), name
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in readme, f"{name} {flag} is not documented"


def test_removing_driftguard_names_every_folder_it_keeps_state_in() -> None:
    from driftguard import paths

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    removing = readme.split("## Removing driftguard", 1)[1].split("\n## ", 1)[0]
    for folder in (paths.history_dir, paths.sessions_dir, paths.cache_dir, paths.pointers_dir):
        assert f"`{folder().name}/`" in removing, folder.__name__


def test_the_readme_does_not_promise_an_install_from_pypi_that_finds_nothing() -> None:
    # driftguard-mcp is not published yet (issue #11): no bare `pip install driftguard-mcp`
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "`pip install driftguard-mcp` finds nothing today" in readme
    assert readme.count("pip install driftguard-mcp") == 1
