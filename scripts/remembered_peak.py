"""Print the largest text a parser remembers since the last compaction, at any line of any
session file under the folders given: the figure that shows the bound on it
(``REMEMBERED_CHARS`` in ``adapters/_common.py``) never binds on a real session.

Usage::

    python scripts/remembered_peak.py FOLDER [FOLDER ...]

Every ``.jsonl`` and ``.jsonl.zst`` file driftguard recognises is fed to its adapter's line
parser one line at a time, and after each line the session's remembered text is measured:
``Σ len(content)`` of ``Session.messages`` (the summary included), in characters. A legacy
Gemini ``.json`` is parsed whole and measured once. Prints the largest per CLI and over all,
with the file; files no adapter reads are passed over. Reads only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from driftguard.adapters import detect_cli, get_adapter
from driftguard.adapters._common import iter_lines, open_session_file
from driftguard.errors import DriftguardError
from driftguard.model import Session


def _chars(session: Session) -> int:
    return sum(len(message.content) for message in session.messages)


def peak(path: Path) -> tuple[str, int] | None:
    """The CLI that wrote ``path`` and the largest remembered text at any of its lines, or
    ``None`` when no adapter reads it."""
    try:
        cli = detect_cli(path)
        adapter = get_adapter(cli)
        parser = adapter.line_parser(path)
        if parser is None or path.suffix == ".json":
            return cli, _chars(adapter.parse(path))
        largest = 0
        with open_session_file(path) as stream:
            for line, terminated in iter_lines(stream):
                parser.feed(line, terminated)
                if line.strip():
                    largest = max(largest, _chars(parser.session()))
    except (DriftguardError, OSError):
        return None
    return cli, largest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    best: dict[str, tuple[int, Path]] = {}
    for folder in args.folders:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or not path.name.endswith((".jsonl", ".jsonl.zst", ".json")):
                continue
            found = peak(path)
            if found is not None and found[1] > best.get(found[0], (-1, path))[0]:
                best[found[0]] = (found[1], path)
    for cli, (chars, path) in sorted(best.items()):
        print(f"{cli}: {chars:,} characters ({path})")
    if best:
        chars, path = max(best.values())
        print(f"largest: {chars:,} characters ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
