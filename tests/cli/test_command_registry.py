"""The command line's registry: every command is listed with its summary, each one's
module adds its own arguments, and running a command imports only that command's module."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from driftguard.cli import COMMANDS, build_parser


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_module_has_a_description_its_arguments_and_a_runner(name: str) -> None:
    module = importlib.import_module(COMMANDS[name].module)
    assert module.DESCRIPTION.strip()
    assert callable(module.add_arguments)
    assert callable(module.run)


def test_the_help_lists_every_command_with_its_summary() -> None:
    text = build_parser("").format_help()
    for name, command in COMMANDS.items():
        assert name in text
        assert command.summary.split(" (")[0][:40] in " ".join(text.split())


def test_running_the_status_line_imports_no_other_commands_module() -> None:
    code = (
        "import sys\n"
        "from driftguard.cli import main\n"
        "main(['statusline'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('driftguard.cli.commands.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, input="", check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "['driftguard.cli.commands.statusline']"
