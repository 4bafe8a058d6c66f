"""Regenerate the example outputs in README.md and docs/*.md from the program itself.

Usage::

    python scripts/readme_examples.py          # rewrite the stale files in place
    python scripts/readme_examples.py --check  # exit 1 and show the diff if one is stale

An example is a fenced block right after a marker line naming the command::

    <!-- output: driftguard score --demo -->
    ```text
    …what the command prints…
    ```

Each command runs in-process (``driftguard.cli.main``) in an empty temporary home, so no
user config or history applies; the demo's installed path is shown as
``…/site-packages/driftguard/demo/demo-session.jsonl``. ``tests/test_readme_examples.py``
fails when an example in any of :func:`documents` no longer matches.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MARKER = re.compile(
    r"^<!-- output: (?P<command>.+?) -->\n```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.M | re.S
)
DEMO_SHOWN = "…/site-packages/driftguard/demo/demo-session.jsonl"


@contextlib.contextmanager
def _empty_home() -> Iterator[None]:
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="driftguard-readme-") as home:
        os.environ["HOME"] = home
        os.environ["DRIFTGUARD_HOME"] = str(Path(home) / ".driftcli")
        for name in list(os.environ):
            if name.startswith(("CLAUDE_", "GEMINI_", "CODEX_", "DISABLE_", "ANTHROPIC_")):
                del os.environ[name]
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def run(command: str) -> str:
    """What ``command`` (``driftguard …``) prints on stdout, with the demo path shown."""
    from importlib import resources

    from driftguard.cli import main

    argv = shlex.split(command)
    if argv[0] != "driftguard":
        raise ValueError(f"not a driftguard command: {command}")
    out = io.StringIO()
    with _empty_home(), contextlib.redirect_stdout(out):
        main(argv[1:])
    demo = str(resources.files("driftguard.demo").joinpath("demo-session.jsonl"))
    return out.getvalue().replace(demo, DEMO_SHOWN)


def documents() -> list[Path]:
    """The files whose examples are kept current: README.md, then docs/*.md by name."""
    return [README, *sorted(DOCS.glob("*.md"))]


def regenerate(text: str) -> str:
    """``text`` (a Markdown file) with every marked example replaced by the program's
    output."""

    def replace(match: re.Match[str]) -> str:
        body = run(match["command"])
        if not body.endswith("\n"):
            body += "\n"
        return f"<!-- output: {match['command']} -->\n```{match['lang']}\n{body}```"

    return MARKER.sub(replace, text)


def main(argv: list[str]) -> int:
    stale = 0
    for path in documents():
        current = path.read_text(encoding="utf-8")
        if not MARKER.search(current):
            continue
        fresh = regenerate(current)
        if fresh == current:
            continue
        stale += 1
        name = str(path.relative_to(ROOT))
        if "--check" in argv:
            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    name,
                    f"{name} (regenerated)",
                )
            )
        else:
            path.write_text(fresh, encoding="utf-8")
            print(f"{name}: examples regenerated")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
