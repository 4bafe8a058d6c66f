"""Generate a large Claude Code session for benchmarks (about 45 MB by default).

Usage: ``python benchmarks/gen_claude_session.py OUTPUT [--megabytes 45] [--seed 1729]``,
or from Python::

    writer = generate(path)          # writes turns until the file reaches the target size
    writer.write_turn()              # appends one more turn (what a live session does)

The session is SYNTHETIC, written in our own words: a developer and an assistant keep working
on a mid-sized Python service (a job scheduler) for thousands of turns. Nothing is copied from
real transcripts. The output is deterministic for a given seed and size, byte for byte.

The on-disk shape is the current Claude Code one, produced with the helpers of the demo
generator ``scripts/make_demo_session.py`` (imported, not duplicated; docs/formats.md §A.3–A.7):

- compact JSONL, raw UTF-8, one newline-terminated line per record;
- conversation entries carry the full envelope (``parentUuid`` chain, ``sessionId``, ``cwd`` …);
- each API response is split over one ``assistant`` line per content block (thinking, text,
  each ``tool_use``) sharing ``message.id`` and ``requestId``; early lines carry a running
  ``output_tokens``, the last one the final usage;
- each ``tool_use`` is followed by its ``tool_result`` user line with a ``toolUseResult``;
  tool outputs are large (file reads of several KB, whose text is stored twice — in the
  ``tool_result`` and in ``toolUseResult.file.content`` — as Claude Code does; test and build
  logs; search hits);
- metadata lines around each turn: ``file-history-snapshot`` before the prompt,
  ``system/turn_duration``, ``last-prompt`` and ``permission-mode`` after it.

No compaction happens by default, so everything in the file is remembered: the worst case for
scoring (and for memory), though no host lets a session grow that far: the context passes
Claude Code's 167,000-token compaction point at about 7.8 MB. ``--compact-at TOKENS`` compacts
as Claude Code's automatic compaction does: when a turn begins with the context at ``TOKENS``
or more (167000: a 200k window's point, README "Where the host compacts"), a
``compact_boundary`` (``trigger: "auto"``, ``preTokens``) and its summary are written, and the
context starts again from the first request's size, so a long session is mostly what lies
before its last compaction. ``--compact-every N`` writes one every N turns instead.
Usage numbers grow with the file (about 19 tokens of context per KB written since the last
compaction): without compaction they pass a 1M-token window at about 52 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

_SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
if str(_SCRIPTS) not in sys.path:
    sys.path.insert(0, str(_SCRIPTS))

import make_demo_session as demo  # noqa: E402  (a script folder, not a package)

__all__ = ["CLAUDE_CODE_COMPACTS_AT", "DEFAULT_SEED", "TARGET_BYTES", "SessionWriter", "generate"]

TARGET_BYTES = 45_000_000
"""Default size of the generated file, in bytes."""
DEFAULT_SEED = 1729
FIRST_CONTEXT = 18_000
"""Context tokens of the first request (system prompt, tools, the first prompt)."""
TOKENS_PER_BYTE = 0.019
"""Context growth per byte written: 45 MB ends near 870 000 tokens."""
CLAUDE_CODE_COMPACTS_AT = 167_000
"""Where Claude Code compacts a 200k-token window on its own (200,000 − 20,000 − 13,000;
README "Where the host compacts"), in tokens: the ``--compact-at`` of a realistic session."""

_SUBJECTS = (
    "the scheduler",
    "the retry policy",
    "the job queue",
    "the worker pool",
    "the lease table",
    "the cron parser",
    "the metrics exporter",
    "the migration script",
    "the HTTP handler",
    "the config loader",
    "the backoff helper",
    "the test fixture",
    "the dead-letter queue",
    "the shutdown path",
    "the health check",
    "the rate limiter",
)
_VERBS = (
    "reads",
    "updates",
    "locks",
    "retries",
    "schedules",
    "validates",
    "serialises",
    "drops",
    "caches",
    "logs",
    "wraps",
    "returns",
)
_OBJECTS = (
    "every pending job",
    "the lease before it expires",
    "the row under a transaction",
    "the parsed expression",
    "a copy of the payload",
    "the worker's heartbeat",
    "the next run time",
    "the error with its context",
    "one batch at a time",
    "the timeout from the settings",
)
_REASONS = (
    "so a crash never loses work",
    "because two workers could otherwise pick the same job",
    "which keeps the hot path free of allocations",
    "so the tests no longer depend on wall-clock time",
    "since the database already guarantees ordering",
    "which is why the flaky test failed on CI",
    "so the behaviour matches the documentation",
    "because the old code swallowed the exception",
)
_HEDGES = ("I think", "probably", "it seems", "perhaps", "this might be why", "likely")
_OPENERS = (
    "I'll look at {s} first.",
    "Let me check how {s} behaves here.",
    "Next I'll read {s} and its tests.",
    "Running the tests again to confirm the fix.",
    "Searching for every caller before changing {s}.",
)
_PROMPTS = (
    "Can you look at why {s} {v} {o}? Something is off in production.",
    "Please refactor {s} so it {v} {o}, and keep the public API stable.",
    "The nightly run failed again around {s}. Find the cause and fix it.",
    "Add tests for the case where {s} {v} {o}.",
    "Write a short note in the README about how {s} {v} {o}.",
    "Now make {s} configurable, with a sensible default.",
    "Review the last change to {s} and tell me if anything is risky.",
)
_MODULES = (
    "scheduler/core.py",
    "scheduler/queue.py",
    "scheduler/workers.py",
    "scheduler/leases.py",
    "scheduler/cron.py",
    "scheduler/retry.py",
    "scheduler/metrics.py",
    "scheduler/config.py",
    "scheduler/http.py",
    "scheduler/storage.py",
    "tests/test_core.py",
    "tests/test_queue.py",
    "tests/test_workers.py",
    "tests/test_retry.py",
    "tests/test_cron.py",
)


def _sentence(rng: random.Random, hedge: float) -> str:
    subject, verb, obj, reason = (
        rng.choice(_SUBJECTS),
        rng.choice(_VERBS),
        rng.choice(_OBJECTS),
        rng.choice(_REASONS),
    )
    text = f"{subject.capitalize()} now {verb} {obj}, {reason}."
    if rng.random() < hedge:
        text = f"{rng.choice(_HEDGES).capitalize()} {subject} {verb} {obj} too early."
    return text


def _paragraphs(rng: random.Random, sentences: int, hedge: float) -> str:
    out: list[str] = []
    while sentences > 0:
        size = min(sentences, rng.randint(2, 5))
        out.append(" ".join(_sentence(rng, hedge) for _ in range(size)))
        sentences -= size
    return "\n\n".join(out)


def _source(rng: random.Random, module: str, lines: int) -> str:
    """A synthetic Python module of about ``lines`` lines."""
    name = module.rsplit("/", 1)[-1].removesuffix(".py")
    body = [f'"""{name}: part of the synthetic scheduler service."""', "", "import time", ""]
    number = 0
    while len(body) < lines:
        number += 1
        arg = rng.choice(("job", "lease", "batch", "row", "entry"))
        body += [
            "",
            f"def {name}_step_{number}({arg}, timeout: float = {rng.randint(1, 90)}.0):",
            f'    """Handle one {arg}; give up after ``timeout`` seconds."""',
            "    started = time.monotonic()",
            f"    while {arg}.pending and time.monotonic() - started < timeout:",
            f"        {arg}.advance({rng.randint(1, 9)})",
            f"    return {arg}.state",
        ]
    return "\n".join(body[:lines]) + "\n"


def _test_log(rng: random.Random, failing: bool) -> tuple[str, int]:
    files = [
        (module, "".join(rng.choice("......F" if failing else ".") for _ in range(40)))
        for module in _MODULES
        if module.startswith("tests/")
    ]
    if failing and not any("F" in marks for _, marks in files):
        files[0] = (files[0][0], "F" + files[0][1][1:])
    failures = ""
    summary = ""
    if failing:
        failures = "\n".join(
            f"    assert job.state == 'done'\nE   AssertionError: job {n} stayed 'leased'"
            for n in range(rng.randint(2, 8))
        )
        summary = "FAILED tests/test_workers.py::test_lease_expiry - AssertionError"
    return demo.pytest_run(files, failures=failures, short_summary=summary, seconds=3.2)


@dataclass
class _Plan:
    """Usage numbers of the next request, derived from the bytes written so far."""

    context: int
    previous: int


class SessionWriter:
    """Appends synthetic turns to one Claude Code session file.

    Args:
        path: the file to write (created or truncated).
        seed: makes the output reproducible byte for byte.
        compact_every: write a ``compact_boundary`` and its summary every this many turns
            (``None``: never).
        compact_at: compact as Claude Code does on its own: before a turn whose first
            request would hold this many tokens or more (``None``: never).
    """

    def __init__(
        self,
        path: Path,
        seed: int = DEFAULT_SEED,
        compact_every: int | None = None,
        compact_at: int | None = None,
    ):
        self.path = path
        self.rng = random.Random(seed)
        session_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.transcript = demo.Transcript(rng=random.Random(seed + 1), session_id=session_id)
        self.compact_every = compact_every
        self.compact_at = compact_at
        self.compactions = 0
        self.turns = 0
        self.bytes = 0
        self._usage = _Plan(context=FIRST_CONTEXT, previous=0)
        self._compacted_at = 0
        """Bytes written before the last compaction (context grows from there)."""
        self._sources = {
            module: _source(random.Random(f"{seed}:{module}"), module, self.rng.randint(30, 120))
            for module in _MODULES
        }
        path.write_bytes(b"")
        self.transcript.meta(
            {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": session_id}
        )
        self._flush()

    @property
    def compacted_at(self) -> int:
        """Bytes written before the last compaction's boundary (0 before any)."""
        return self._compacted_at

    # -- writing -------------------------------------------------------------------------

    def _flush(self) -> int:
        data = demo.render(self.transcript.lines).encode("utf-8")
        self.transcript.lines.clear()
        with self.path.open("ab") as fh:
            fh.write(data)
        self.bytes += len(data)
        return len(data)

    def _next_context(self) -> int:
        """Context tokens of the next request: what was written since the last compaction."""
        grown = int((self.bytes - self._compacted_at) * TOKENS_PER_BYTE)
        return max(self._usage.context, FIRST_CONTEXT + grown)

    def _request(self, output_tokens: int) -> demo.Request:
        context = self._next_context()
        cached = min(self._usage.previous, context - 3) if self._usage.previous else 0
        self._usage = _Plan(context=context + 1, previous=context)
        return demo.Request(
            input_tokens=3,
            cache_creation=context - 3 - cached,
            cache_read=cached,
            output_tokens=output_tokens,
        )

    def _tool(self) -> demo.Tool:
        rng = self.rng
        module = rng.choice(_MODULES)
        kind = rng.random()
        if kind < 0.45:
            return demo.Workspace({module: self._sources[module]}).read(module)
        if kind < 0.7:
            output, code = _test_log(rng, failing=rng.random() < 0.3)
            return demo.bash("python -m pytest -q", "Run the test suite", output, code)
        if kind < 0.85:
            source = self._sources[module]
            lines = source.split("\n")
            start = rng.randrange(0, max(1, len(lines) - 8))
            old = "\n".join(lines[start : start + 3])
            if not old.strip() or source.count(old) != 1:
                return demo.Workspace({module: source}).read(module)
            new = old.replace("timeout", "deadline", 1) + "\n    # checked by the watchdog"
            tool = demo.Workspace({module: source}).edit(module, old, new)
            self._sources[module] = source.replace(old, new)
            return tool
        word = rng.choice(("lease", "retry", "timeout", "advance", "state"))
        hits = [
            f"{demo.CWD}/{m}:{n}:    {word} = {rng.randint(0, 999)}"
            for m in _MODULES
            for n in sorted(rng.sample(range(1, 400), rng.randint(1, 12)))
        ]
        return demo.bash(
            f"grep -rn {word} scheduler tests", f"Find uses of {word}", "\n".join(hits)
        )

    def _reply(self, last: bool, hedge: float) -> demo.Reply:
        rng = self.rng
        if last:
            text = _paragraphs(rng, rng.randint(3, 18), hedge)
            if rng.random() < 0.3:
                code = _source(rng, rng.choice(_MODULES), rng.randint(6, 20))
                text += f"\n\n```python\n{code}```\n\n" + _sentence(rng, hedge)
            return demo.Reply(text=text)
        tools = tuple(self._tool() for _ in range(rng.choice((1, 1, 1, 2))))
        thinking = _paragraphs(rng, rng.randint(1, 4), 0.0) if rng.random() < 0.6 else ""
        text = rng.choice(_OPENERS).format(s=rng.choice(_SUBJECTS)) if rng.random() < 0.8 else ""
        return demo.Reply(text=text, thinking=thinking, tools=tools)

    def _compact(self) -> None:
        t = self.transcript
        fields = {
            "content": "Conversation compacted",
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": self._usage.context},
        }
        demo.write_system(t, "compact_boundary", fields, t.tick(1.0, 2.0))
        summary = (
            "This session is being continued from a previous conversation that ran out of "
            "context. Summary:\n\n" + _paragraphs(self.rng, 12, 0.0)
        )
        demo.write_user(
            t,
            t.new_uuid(),
            {"role": "user", "content": summary},
            {"isCompactSummary": True, "isVisibleInTranscriptOnly": True},
            t.tick(0.01, 0.1),
        )
        self._usage = _Plan(context=FIRST_CONTEXT, previous=0)
        self._compacted_at = self.bytes
        self.compactions += 1

    def write_turn(self) -> int:
        """Append one turn (prompt, 1–4 responses, tool results, metadata); bytes written."""
        rng, t = self.rng, self.transcript
        self.turns += 1
        if (self.compact_every and self.turns % self.compact_every == 0) or (
            self.compact_at is not None and self._next_context() >= self.compact_at
        ):
            self._compact()
        hedge = 0.05 + 0.1 * rng.random()
        prompt = rng.choice(_PROMPTS).format(
            s=rng.choice(_SUBJECTS), v=rng.choice(_VERBS), o=rng.choice(_OBJECTS)
        )
        prompt_uuid, prompt_id = t.new_uuid(), t.new_uuid()
        prompt_time = t.tick(20.0, 240.0)
        t.meta(
            {
                "type": "file-history-snapshot",
                "messageId": prompt_uuid,
                "snapshot": {
                    "messageId": prompt_uuid,
                    "trackedFileBackups": {},
                    "timestamp": prompt_time,
                },
                "isSnapshotUpdate": False,
            }
        )
        demo.write_user(
            t,
            prompt_id,
            {"role": "user", "content": prompt},
            {"permissionMode": "acceptEdits"},
            prompt_time,
            entry_uuid=prompt_uuid,
        )
        turn_start = t.now
        replies = rng.randint(1, 4)
        for position in range(replies):
            reply = self._reply(last=position == replies - 1, hedge=hedge)
            output = demo.reply_output_tokens(reply)
            demo.write_reply(t, reply, self._request(output), prompt_id, first=position == 0)
        duration = round((t.now - turn_start).total_seconds() * 1000)
        demo.write_system(
            t,
            "turn_duration",
            {"durationMs": duration, "messageCount": t.entries},
            t.tick(0.01, 0.2),
        )
        t.meta({"type": "last-prompt", "lastPrompt": prompt, "sessionId": t.session_id})
        t.meta(
            {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": t.session_id}
        )
        return self._flush()


def generate(
    path: Path,
    target_bytes: int = TARGET_BYTES,
    seed: int = DEFAULT_SEED,
    compact_every: int | None = None,
    compact_at: int | None = None,
) -> SessionWriter:
    """Write a session of at least ``target_bytes`` bytes to ``path`` (whole turns only);
    ``compact_every`` and ``compact_at`` as :class:`SessionWriter` takes them.

    Returns the writer, so a caller can append more turns with :meth:`SessionWriter.write_turn`.
    """
    writer = SessionWriter(path, seed=seed, compact_every=compact_every, compact_at=compact_at)
    while writer.bytes < target_bytes:
        writer.write_turn()
    return writer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("output", type=Path, help="the .jsonl file to write")
    parser.add_argument("--megabytes", type=float, default=TARGET_BYTES / 1e6, help="size (MB)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--compact-every", type=int, default=None, metavar="TURNS")
    parser.add_argument(
        "--compact-at",
        type=int,
        default=None,
        metavar="TOKENS",
        help=f"compact when a turn begins at this context size ({CLAUDE_CODE_COMPACTS_AT}: "
        "Claude Code's point for a 200k window)",
    )
    args = parser.parse_args(argv)
    output: Path = args.output
    output.parent.mkdir(parents=True, exist_ok=True)
    writer = generate(
        output, int(args.megabytes * 1e6), args.seed, args.compact_every, args.compact_at
    )
    summary = {
        "path": str(output),
        "bytes": writer.bytes,
        "turns": writer.turns,
        "compactions": writer.compactions,
        "last_compaction_at": writer.compacted_at,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
