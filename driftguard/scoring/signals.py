"""Signals nearer to the outcome than the text factors (``benchmarks/VALIDITY.md``
rule v3 §7.2): what the agent *does* with tests, files and the
person's refusals, read from the steps :mod:`.loops` builds.

===============  ============================================================================
signal           what it counts (over the last steps since the person's latest prompt, at
                 most :data:`~driftguard.scoring.loops.ACTION_WINDOW` of them)
===============  ============================================================================
since_test       steps since the last one that ran tests (all of them when none did)
failing_tests    test runs in a row, up to the latest, whose result failed
undone           shell commands that undo edits to files (``git checkout -- f``,
                 ``git restore``, ``git reset --hard``, ``git stash``, ``cp f.bak f``)
reread           the most times one file was read
refusals         the person's refusals of tool calls in a row at the end of the session
                 (:attr:`~driftguard.model.ParsedMessage.refused`, set by the adapters)
===============  ============================================================================

Each is a count (steps or events), never points: ``benchmarks/validity.py`` tests whether
any of them tells failed runs from successful ones out of fold before the score reads it;
docs/evidence.md says which, if any, passed. Pure functions; no I/O.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from driftguard.model import ParsedMessage, ToolCall
from driftguard.scoring.loops import Step

__all__ = [
    "Signals",
    "failing_tests",
    "is_test_command",
    "read_target",
    "refusals",
    "reread",
    "signals_of",
    "since_test",
    "test_failed",
    "undoes_edits",
    "undone",
]

_TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(/])(?:"
    r"pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ctest|rspec|phpunit|runtests(?:\.py)?"
    r"|(?:npm|yarn|pnpm)\s+(?:run\s+)?test"
    r"|go\s+test|cargo\s+test|dotnet\s+test"
    r"|(?:mvn|gradle|gradlew|\./gradlew|\./mvnw|mvnw)\b[^;&|\n]*\btest"
    r"|make\s+(?:test|check)"
    r")(?=$|[\s;&|)])"
)
"""A test runner named as a word of a shell command (rule v3 §7.2's list)."""

_FAILED_OUTPUT = re.compile(
    r"\b(?:FAILED|FAILURES?|BUILD FAILURE|Tests? failed|AssertionError)\b"
    r"|\b[1-9]\d* (?:failed|failures?|errors?)\b"
    r"|\bTests run: \d+, Failures: [1-9]"
)
"""What a test run's output shows when it failed: pytest's ``FAILED``/``N failed``,
unittest's ``FAILED (failures=N)``, Maven's ``BUILD FAILURE`` and ``Failures: N``, jest's
``Tests: N failed``, go's and cargo's ``FAILED``/``test result: FAILED``."""

_READ_COMMANDS = frozenset({"cat", "head", "tail", "less", "more", "nl", "bat", "open"})
"""Shell commands that show a file (``open`` is SWE-agent's file viewer)."""


def is_test_command(command: str | None) -> bool:
    """Whether a shell command runs tests (a test runner's name as a word of it)."""
    return bool(command) and _TEST_COMMAND.search(command or "") is not None


def _is_test_step(step: Step) -> bool:
    return any(is_test_command(call.command) for call in step.calls)


def test_failed(step: Step) -> bool:
    """Whether a test-running step failed: its result was marked an error or named a
    non-zero exit code (:attr:`Step.failed`), or its output shows failures."""
    return step.failed or _FAILED_OUTPUT.search(step.result) is not None


def since_test(window: Sequence[Step]) -> int:
    """Steps after the last one that ran tests; ``len(window)`` when none did."""
    for back, step in enumerate(reversed(window)):
        if _is_test_step(step):
            return back
    return len(window)


def failing_tests(window: Sequence[Step]) -> int:
    """Test runs in a row, up to the latest test run, that failed (0 when the latest
    passed or none ran)."""
    count = 0
    for step in reversed(window):
        if not _is_test_step(step):
            continue
        if not test_failed(step):
            break
        count += 1
    return count


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False)
    except ValueError:  # an unbalanced quote: the command as the shell would not run it
        return command.split()


def undoes_edits(command: str | None) -> bool:
    """Whether a shell command throws away edits to files: ``git checkout -- f`` or
    ``git checkout f.py`` (a path, not a branch: it has a dot or a slash), ``git restore``,
    ``git reset --hard``, ``git stash`` (not ``list``/``show``), or copying or moving a
    ``.bak``/``.orig`` file back."""
    if not command:
        return False
    for part in re.split(r"&&|\|\||;|\n", command):
        words = _words(part.strip())
        if len(words) >= 2 and words[0] == "git":
            verb, rest = words[1], words[2:]
            if verb == "restore" or (verb == "reset" and "--hard" in rest):
                return True
            if verb == "stash" and not (rest and rest[0] in ("list", "show")):
                return True
            if verb == "checkout" and (
                "--" in rest or any("." in w or "/" in w for w in rest if not w.startswith("-"))
            ):
                return True
        if len(words) >= 3 and words[0] in ("cp", "mv") and words[-2].endswith((".bak", ".orig")):
            return True
    return False


def undone(window: Sequence[Step]) -> int:
    """Shell commands in the window that throw away edits (:func:`undoes_edits`)."""
    return sum(1 for step in window for call in step.calls if undoes_edits(call.command))


def read_target(call: ToolCall) -> str | None:
    """The file a call reads: a read-kind call's path, or the file a shell ``cat``,
    ``head``, ``tail``, ``less``, ``nl``, ``sed -n`` or ``open`` shows (the last argument
    that is not an option or a number); else ``None``."""
    if call.kind == "read" and call.target_path:
        return call.target_path
    if not call.command:
        return None
    words = _words(call.command.strip().split("|")[0].split("&&")[0])
    if not words:
        return None
    if words[0] == "sed" and "-n" in words[1:]:
        pass
    elif words[0] not in _READ_COMMANDS:
        return None
    args = [w for w in words[1:] if not w.startswith("-") and not w.lstrip("+-").isdigit()]
    if words[0] == "sed":
        args = args[1:]  # the script ("10,20p") comes before the file
    return args[-1] if args else None


def reread(window: Sequence[Step]) -> int:
    """The most times one file was read in the window (0 when none was)."""
    counts = Counter(
        target for step in window for call in step.calls if (target := read_target(call))
    )
    return max(counts.values(), default=0)


def refusals(messages: Sequence[ParsedMessage]) -> int:
    """The person's refusals of tool calls in a row at the end of the session: the refused
    tool results (:attr:`~driftguard.model.ParsedMessage.refused`) since the last one that
    was not refused, counted back from the latest tool result; a prompt the person typed in
    between does not break the streak (they refuse, then say what they want instead)."""
    count = 0
    for message in reversed(messages):
        if message.role != "tool" or message.tool_calls:
            continue
        if not message.refused:
            break
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class Signals:
    """The counts of one session (see the module doc); all 0 for a session without steps."""

    since_test: int = 0
    failing_tests: int = 0
    undone: int = 0
    reread: int = 0
    refusals: int = 0


def signals_of(window: Sequence[Step], messages: Sequence[ParsedMessage]) -> Signals:
    """Every signal of a session from its recent steps (``Features.steps``) and its
    remembered messages (for the refusals)."""
    return Signals(
        since_test=since_test(window),
        failing_tests=failing_tests(window),
        undone=undone(window),
        reread=reread(window),
        refusals=refusals(messages),
    )
