"""Guards against the docs and CI drifting from the code."""

from __future__ import annotations

import argparse
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


def _usage() -> str:
    return (REPO_ROOT / "docs" / "usage.md").read_text(encoding="utf-8")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(subparsers, argparse._SubParsersAction)
    return dict(subparsers.choices)


def test_every_cli_command_has_help() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    summaries = {action.dest: action.help for action in subparsers._get_subactions()}
    for name, sub in _subcommands().items():
        assert summaries.get(name), f"{name} has no summary in `driftguard --help`"
        assert sub.description, f"{name} has no description in `driftguard {name} --help`"
        for action in sub._actions:
            if action.option_strings and action.dest != "help":
                assert action.help, f"{name} {action.option_strings[0]} has no help"


def test_every_cli_command_and_flag_is_in_docs_usage() -> None:
    usage = _usage()
    for name, sub in _subcommands().items():
        # a section of its own: `driftguard status` is not `driftguard statusline`
        assert re.search(rf"^## driftguard {re.escape(name)}$", usage, re.M), name
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in usage, f"{name} {flag} is not documented in docs/usage.md"


def test_the_readme_links_every_page_of_the_docs() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((REPO_ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, page.name


def test_removing_driftguard_names_every_folder_it_keeps_state_in() -> None:
    from driftguard import paths

    hosts = (REPO_ROOT / "docs" / "hosts.md").read_text(encoding="utf-8")
    removing = hosts.split("## Removing driftguard", 1)[1].split("\n## ", 1)[0]
    for folder in (
        paths.history_dir,
        paths.sessions_dir,
        paths.cache_dir,
        paths.pointers_dir,
        paths.reports_dir,
    ):
        assert f"`{folder().name}/`" in removing, folder.__name__


def test_the_docs_do_not_promise_an_install_from_pypi_that_finds_nothing() -> None:
    # driftguard-mcp is not published yet: no bare `pip install driftguard-mcp`
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "`pip install driftguard-mcp` finds nothing today" in readme
    pages = [readme] + [
        page.read_text(encoding="utf-8") for page in (REPO_ROOT / "docs").glob("*.md")
    ]
    assert sum(page.count("pip install driftguard-mcp") for page in pages) == 1
