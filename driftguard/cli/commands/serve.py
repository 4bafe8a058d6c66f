"""``driftguard serve``: the MCP server over stdio (``driftguard-mcp`` is its alias)."""

from __future__ import annotations

import argparse

from driftguard.cli._common import EXIT_OK

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = "Run the driftguard MCP server over stdio until the host closes stdin."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``serve`` takes no arguments."""


def run(_args: argparse.Namespace) -> int:
    from driftguard.server import main as serve

    serve()
    return EXIT_OK
