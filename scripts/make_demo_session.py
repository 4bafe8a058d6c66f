"""Write the demo session that ``driftguard score --demo`` scores.

Output: ``driftguard/demo/demo-session.jsonl`` (package data of ``driftguard``), or the path
given with ``--output``. Run from anywhere: ``python scripts/make_demo_session.py``.

The session is SYNTHETIC and written in our own words: a developer and an assistant add rate
limiting to a small Flask notes API over 34 prompts, and the assistant visibly degrades in the
second half (stock sentences repeated verbatim, shorter replies, more hedging, two
self-corrections) while the context fills to about 80 % of a 200 000-token window. No
compaction happens.

The on-disk shape is the current Claude Code one (version 2.1.114; docs/formats.md §A.3–A.7):

- one JSON object per line, compact separators, raw UTF-8, a newline after each line;
- conversation entries (``user``, ``assistant``, ``attachment``, ``system``) carry the envelope
  ``parentUuid``/``isSidechain``/``uuid``/``timestamp``/``userType``/``entrypoint``/``cwd``/
  ``sessionId``/``version``/``gitBranch``, and each one's ``parentUuid`` is the entry written
  just before it (``null`` on the first);
- one API response is written as one ``assistant`` line per content block (thinking, text,
  each tool_use) sharing ``message.id`` and ``requestId``; early lines have
  ``stop_reason: null`` and a running ``output_tokens``, the last line the final usage;
  tool results follow the ``tool_use`` line they answer, even between two lines of one
  response, as user entries with ``toolUseResult`` and ``sourceToolAssistantUUID``;
- bare metadata lines: ``permission-mode``, ``file-history-snapshot`` (before each prompt),
  ``queue-operation`` (a prompt typed while the assistant was busy), ``last-prompt``; and
  ``system/turn_duration`` after each turn.

Token counts are synthetic too: each request reads the whole previous context from the
cache (``cache_read_input_tokens``) and writes what is new (``cache_creation_input_tokens``,
all 1-hour cache): a character estimate of the new content plus a deterministic per-request
overhead standing in for the harness's reminders, sized so that the last request's context
is exactly ``FINAL_CONTEXT`` tokens.

Everything is derived from a fixed seed and fixed start time, so the output is the same byte
for byte on every run (``tests/test_demo_session.py`` checks that).
"""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import math
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SEED = 20260420
START = datetime(2026, 4, 20, 8, 47, 13, 512000, tzinfo=UTC)
CWD = "/home/dev/demo-app"
VERSION = "2.1.114"
BRANCH = "feature/rate-limit"
MODEL = "claude-sonnet-4-5-20250929"
FIRST_CACHE_READ = 12_655
"""Tokens of system prompt and tool definitions already cached when the session starts."""
FINAL_CONTEXT = 161_337
"""Context size (input + cache creation + cache read) of the last request, in tokens."""
CHARS_PER_TOKEN = 3.3
DEFAULT_OUTPUT = (
    Path(__file__).resolve().parent.parent / "driftguard" / "demo" / "demo-session.jsonl"
)

Json = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# The story: prompts, replies and tool calls
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One tool call and its result as Claude Code records them (docs/formats.md §A.7)."""

    name: str
    input: Json
    result: str
    """The ``tool_result`` block's content, as the model sees it."""
    use_result: Any
    """The line's ``toolUseResult`` (tool-specific shape; a plain string for errors)."""
    is_error: bool | None = None
    """``is_error`` on the ``tool_result`` block; ``None`` leaves the key out."""
    seconds: float = 0.05
    """How long the tool ran."""


@dataclass(frozen=True)
class Reply:
    """One API response: optional thinking, optional text, then tool calls."""

    text: str = ""
    thinking: str = ""
    tools: tuple[Tool, ...] = ()


@dataclass(frozen=True)
class Turn:
    """One typed prompt and the responses it led to."""

    prompt: str
    replies: tuple[Reply, ...]
    pause: float = 90.0
    """Seconds the developer took before sending the prompt."""
    queued: bool = False
    """Typed while the previous turn was still running (``queue-operation`` lines)."""


def numbered(content: str) -> str:
    """The Read tool's view of a file: ``<line number>\\t<line>`` for every line."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(content.split("\n"), start=1))


def structured_patch(before: str, after: str) -> list[Json]:
    """Unified-diff hunks with three lines of context, in Claude Code's ``structuredPatch`` form."""
    old, new = before.split("\n"), after.split("\n")
    hunks: list[Json] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in old[a1:a2]]
                continue
            lines += ["-" + line for line in old[a1:a2]]
            lines += ["+" + line for line in new[b1:b2]]
        hunks.append(
            {
                "oldStart": i1 + 1,
                "oldLines": i2 - i1,
                "newStart": j1 + 1,
                "newLines": j2 - j1,
                "lines": lines,
            }
        )
    return hunks


class Workspace:
    """The project's files while the story runs; every tool call reads or changes them."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = dict(files)

    def path(self, relative: str) -> str:
        return f"{CWD}/{relative}"

    def read(self, relative: str) -> Tool:
        content = self.files[relative]
        lines = content.split("\n")
        return Tool(
            name="Read",
            input={"file_path": self.path(relative)},
            result=numbered(content),
            use_result={
                "type": "text",
                "file": {
                    "filePath": self.path(relative),
                    "content": content,
                    "numLines": len(lines),
                    "startLine": 1,
                    "totalLines": len(lines),
                },
            },
            seconds=0.01,
        )

    def write(self, relative: str, content: str) -> Tool:
        if relative in self.files:
            raise ValueError(f"story bug: {relative} already exists")
        self.files[relative] = content
        return Tool(
            name="Write",
            input={"file_path": self.path(relative), "content": content},
            result=f"File created successfully at: {self.path(relative)}",
            use_result={
                "type": "create",
                "filePath": self.path(relative),
                "content": content,
                "structuredPatch": [],
            },
            seconds=0.02,
        )

    def edit(self, relative: str, old: str, new: str) -> Tool:
        before = self.files[relative]
        if before.count(old) != 1:
            raise ValueError(f"story bug: old_string occurs {before.count(old)}x in {relative}")
        after = before.replace(old, new)
        self.files[relative] = after
        return Tool(
            name="Edit",
            input={
                "replace_all": False,
                "file_path": self.path(relative),
                "old_string": old,
                "new_string": new,
            },
            result=f"The file {self.path(relative)} has been updated successfully.",
            use_result={
                "filePath": self.path(relative),
                "oldString": old,
                "newString": new,
                "originalFile": before,
                "structuredPatch": structured_patch(before, after),
                "userModified": False,
                "replaceAll": False,
            },
            seconds=0.02,
        )


def bash(
    command: str, description: str, output: str, exit_code: int = 0, seconds: float = 1.2
) -> Tool:
    """A Bash call; a non-zero exit is an error result (docs/formats.md §A.7)."""
    if exit_code:
        text = f"Exit code {exit_code}\n{output}"
        return Tool(
            name="Bash",
            input={"command": command, "description": description},
            result=text,
            use_result=f"Error: {text}",
            is_error=True,
            seconds=seconds,
        )
    return Tool(
        name="Bash",
        input={"command": command, "description": description},
        result=output,
        use_result={
            "stdout": output,
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        is_error=False,
        seconds=seconds,
    )


def pytest_run(
    files: list[tuple[str, str]],
    failures: str = "",
    short_summary: str = "",
    seconds: float = 0.5,
    whole_suite: bool = True,
) -> tuple[str, int]:
    """Console output of a pytest run over ``files`` (path, one character per test).

    ``testpaths`` is printed only when pytest ran without path arguments (the whole suite).
    Returns the output and the exit code.
    """
    total = sum(len(marks) for _, marks in files)
    failed = sum(marks.count("F") for _, marks in files)
    passed = total - failed
    lines = [
        " test session starts ".center(80, "="),
        "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0",
        f"rootdir: {CWD}",
        "configfile: pyproject.toml",
        *(["testpaths: tests"] if whole_suite else []),
        f"collected {total} items",
        "",
    ]
    done = 0
    for path, marks in files:
        done += len(marks)
        progress = f"[{round(100 * done / total):3d}%]"
        lines.append(f"{path} {marks}".ljust(80 - len(progress)) + progress)
    lines.append("")
    if failures:
        lines.append(" FAILURES ".center(80, "="))
        lines += failures.split("\n")
        lines.append(" short test summary info ".center(80, "="))
        lines.append(short_summary)
    outcome = f"{failed} failed, {passed} passed" if failed else f"{passed} passed"
    lines.append(f" {outcome} in {seconds:.2f}s ".center(80, "="))
    return "\n".join(lines), 1 if failed else 0


def run_tests(
    files: list[tuple[str, str]], command: str = "python -m pytest", **kwargs: Any
) -> Tool:
    """A Bash call running pytest; ``kwargs`` go to :func:`pytest_run`."""
    output, code = pytest_run(files, whole_suite=command == "python -m pytest", **kwargs)
    description = "Run the test suite" if command == "python -m pytest" else "Run the limiter tests"
    return bash(command, description, output, code, seconds=2.4)


INIT_PY = '''"""Notes API: the application factory."""

from flask import Flask

from app.config import Config
from app.routes import bp


def create_app(config: type[Config] = Config) -> Flask:
    app = Flask(__name__)
    app.config.from_object(config)
    app.register_blueprint(bp)
    return app
'''

ROUTES_PY = '''"""HTTP routes of the notes API."""

from flask import Blueprint, abort, jsonify, request

from app.store import NoteStore

bp = Blueprint("notes", __name__)
store = NoteStore()


@bp.get("/health")
def health():
    return {"status": "ok"}


@bp.get("/notes")
def list_notes():
    owner = request.headers.get("X-Api-Key", "")
    return jsonify([note.to_dict() for note in store.for_owner(owner)])


@bp.post("/notes")
def create_note():
    owner = request.headers.get("X-Api-Key", "")
    payload = request.get_json(silent=True) or {}
    if not payload.get("body"):
        abort(400, description="body is required")
    note = store.add(owner, payload["body"])
    return jsonify(note.to_dict()), 201


@bp.delete("/notes/<int:note_id>")
def delete_note(note_id: int):
    owner = request.headers.get("X-Api-Key", "")
    if not store.remove(owner, note_id):
        abort(404)
    return "", 204
'''

CONFIG_PY = '''"""Settings of the notes API, loaded by create_app()."""

import os


class Config:
    JSON_SORT_KEYS = False
    MAX_NOTE_LENGTH = 10_000
    STORE_BACKEND = os.environ.get("NOTES_STORE", "memory")


class TestConfig(Config):
    TESTING = True
'''

CONFTEST_PY = """import pytest

from app import create_app
from app.config import TestConfig


@pytest.fixture
def app():
    return create_app(TestConfig)


@pytest.fixture
def client(app):
    return app.test_client()
"""

TEST_NOTES_PY = """KEY = {"X-Api-Key": "k1"}


def test_health(client):
    assert client.get("/health").get_json() == {"status": "ok"}


def test_list_starts_empty(client):
    assert client.get("/notes", headers=KEY).get_json() == []


def test_create_and_list(client):
    assert client.post("/notes", json={"body": "milk"}, headers=KEY).status_code == 201
    assert [n["body"] for n in client.get("/notes", headers=KEY).get_json()] == ["milk"]


def test_body_is_required(client):
    assert client.post("/notes", json={}, headers=KEY).status_code == 400


def test_delete_unknown_note(client):
    assert client.delete("/notes/99", headers=KEY).status_code == 404


def test_create_many_notes(client):
    for number in range(25):
        response = client.post("/notes", json={"body": f"note {number}"}, headers=KEY)
        assert response.status_code == 201
    assert len(client.get("/notes", headers=KEY).get_json()) == 25
"""

README_MD = """# notes API

A small JSON API for personal notes, built with Flask.

## Running locally

    python -m venv .venv && . .venv/bin/activate
    pip install -e '.[dev]'
    flask --app app run --debug

## Tests

    pytest
"""

RATELIMIT_PY = '''"""Per-client rate limiting for the notes API (token buckets, in memory)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import request


@dataclass
class Bucket:
    """Tokens left for one client, refilled continuously up to ``capacity``."""

    capacity: float
    rate: float
    tokens: float
    updated_at: float

    def take(self, now: float) -> bool:
        elapsed = max(0.0, now - self.updated_at)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.updated_at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class RateLimiter:
    """One bucket per client key: ``per_minute`` sustained, ``burst`` at once."""

    def __init__(
        self,
        per_minute: int = 60,
        burst: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, Bucket] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = Bucket(self.burst, self.per_minute / 60.0, float(self.burst), now)
            self._buckets[key] = bucket
        return bucket.take(now)


limiter = RateLimiter()


def client_key() -> str:
    """The identity a request is limited under."""
    return request.headers.get("X-Api-Key", "")
'''

TEST_RATELIMIT_PY = '''"""Unit tests of the in-memory token bucket limiter."""

from app.ratelimit import RateLimiter


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def allowed(limiter: RateLimiter, key: str) -> bool:
    return limiter.allow(key)


def make_limiter(clock: FakeClock) -> RateLimiter:
    return RateLimiter(per_minute=60, burst=10, clock=clock)


def test_fresh_bucket_allows_a_full_burst() -> None:
    limiter = make_limiter(FakeClock())
    assert all(allowed(limiter, "a") for _ in range(10))


def test_request_after_the_burst_is_rejected() -> None:
    limiter = make_limiter(FakeClock())
    for _ in range(10):
        allowed(limiter, "a")
    assert not allowed(limiter, "a")


def test_one_token_returns_after_one_second() -> None:
    clock = FakeClock()
    limiter = make_limiter(clock)
    for _ in range(10):
        allowed(limiter, "a")
    clock.advance(1.0)
    assert allowed(limiter, "a")
    assert not allowed(limiter, "a")


def test_refill_never_exceeds_capacity() -> None:
    clock = FakeClock()
    limiter = make_limiter(clock)
    allowed(limiter, "a")
    clock.advance(3600)
    assert sum(allowed(limiter, "a") for _ in range(20)) == 10


def test_keys_are_counted_separately() -> None:
    limiter = make_limiter(FakeClock())
    for _ in range(10):
        allowed(limiter, "a")
    assert allowed(limiter, "b")
'''

RATELIMIT_REDIS_PY = '''"""Token buckets kept in Redis, shared by every worker process."""

from __future__ import annotations

import time

import redis

from app.ratelimit import Decision


class RedisRateLimiter:
    """Same interface as ``RateLimiter``; one Redis hash per client key."""

    def __init__(self, url: str, per_minute: int = 60, burst: int = 10) -> None:
        self.per_minute = per_minute
        self.burst = burst
        self.rate = per_minute / 60.0
        self._redis = redis.Redis.from_url(url)

    def allow(self, key: str) -> Decision:
        now = time.time()
        name = f"ratelimit:{key}"
        stored = self._redis.hgetall(name)
        tokens = float(stored.get(b"tokens", self.burst))
        updated_at = float(stored.get(b"updated_at", now))
        tokens = min(self.burst, tokens + max(0.0, now - updated_at) * self.rate)
        allowed = tokens >= 1.0
        if allowed:
            tokens -= 1.0
        self._redis.hset(name, mapping={"tokens": tokens, "updated_at": now})
        if allowed:
            return Decision(True, int(tokens), 0)
        return Decision(False, 0, int((1.0 - tokens) / self.rate))
'''

REPEAT_DONE = "The limiter change is in place and the rest of the request flow is unchanged."
REPEAT_HEDGE = (
    "I think this should probably be enough for now, but it might be worth another look later."
)
REPEAT_ASK = "Let me know if you want me to adjust anything else."

RL = "app/ratelimit.py"
RR = "app/ratelimit_redis.py"
ROUTES = "app/routes.py"
TESTS = "tests/test_ratelimit.py"
T_NOTES = "tests/test_notes.py"
T_STORE = "tests/test_store.py"


def story() -> list[Turn]:
    """The 34 turns of the demo session, in order."""
    ws = Workspace(
        {
            "app/__init__.py": INIT_PY,
            ROUTES: ROUTES_PY,
            "app/config.py": CONFIG_PY,
            "tests/conftest.py": CONFTEST_PY,
            T_NOTES: TEST_NOTES_PY,
            "README.md": README_MD,
        }
    )
    turns: list[Turn] = []

    def add(prompt: str, *replies: Reply, pause: float = 90.0, queued: bool = False) -> None:
        turns.append(Turn(prompt, replies, pause, queued))

    # 1 ---------------------------------------------------------------------------------------
    add(
        "I want to add rate limiting to the notes API before we open it up to the mobile "
        "client. Before touching anything, can you walk me through how the app is wired "
        "together?",
        Reply(
            thinking="The developer wants an overview before any change. The factory and the "
            "routes module should tell me where requests enter and how callers are identified.",
            text="I'll start with the application factory and the routes module.",
            tools=(ws.read("app/__init__.py"), ws.read(ROUTES)),
        ),
        Reply(
            text="Here is how the notes API fits together:\n\n"
            "- `app/__init__.py` holds `create_app()`, which builds the Flask app, loads "
            "settings from `app.config.Config` and registers a single blueprint.\n"
            "- `app/routes.py` defines that blueprint with four endpoints: `GET /health`, "
            "`GET /notes`, `POST /notes` and `DELETE /notes/<id>`.\n"
            "- Every notes endpoint identifies the caller by the `X-Api-Key` header and passes "
            "it to `NoteStore` as the owner. There is no other authentication layer.\n"
            "- `NoteStore` comes from `app/store.py` and keeps notes in memory, keyed by "
            "owner.\n\n"
            "For rate limiting this is a convenient shape. All traffic goes through one "
            "blueprint, and the API key is already the natural identity of a client. A "
            "`before_request` hook on the blueprint would cover every endpoint in one place, "
            "and the health check can be exempted explicitly.\n\n"
            "Tell me the limits you have in mind and I will sketch a design.",
        ),
        pause=40.0,
    )

    # 2 ---------------------------------------------------------------------------------------
    add(
        "Per API key, token bucket, in memory for now. Roughly 60 requests a minute with "
        "bursts of up to 10. Sketch it before writing any code.",
        Reply(
            thinking="Sixty a minute is one token per second; a capacity of ten gives the "
            "burst. Refill lazily on each request so there is no background job, and inject "
            "the clock so the tests do not sleep.",
            text="A token bucket per client fits those numbers well. The plan:\n\n"
            "**Bucket.** Each client gets a bucket holding at most 10 tokens (the burst). "
            "Tokens refill continuously at one per second, which averages out to 60 a minute. "
            "A request spends one token; with no token left, the request is rejected.\n\n"
            "**Refill on demand.** Nothing runs in the background. When a request arrives, "
            "the bucket adds `elapsed × rate` tokens since its last update, capped at the "
            "capacity, and then tries to spend one. The cost per request is constant.\n\n"
            "**Storage.** A dict from client key to bucket inside a `RateLimiter` object. The "
            "limiter takes a clock function, so tests can move time forward without "
            "sleeping.\n\n"
            "**Wiring.** A `before_request` hook on the notes blueprint calls "
            "`limiter.allow(key)` and answers `429 Too Many Requests` with a JSON error when "
            "it fails.\n\n"
            "```python\nclass RateLimiter:\n    def allow(self, key: str) -> bool: ...\n```\n\n"
            "Two limits of this first version are worth stating now: buckets live in one "
            "process, so each gunicorn worker counts on its own, and the dict grows with "
            "every new key. Both are fine for a first step and easy to address later.",
        ),
        pause=150.0,
    )

    # 3 ---------------------------------------------------------------------------------------
    add(
        "Sounds right. Go ahead and write app/ratelimit.py.",
        Reply(
            thinking="Keep the module small: the bucket, the limiter, a default instance and "
            "the key function.",
            text="Writing the limiter module now.",
            tools=(ws.write(RL, RATELIMIT_PY),),
        ),
        Reply(
            text="`app/ratelimit.py` is in place. It contains:\n\n"
            "- `Bucket`, a small dataclass whose `take(now)` refills and spends one token;\n"
            "- `RateLimiter`, which owns the buckets, creates one per key on first use and "
            "takes an injectable `clock`;\n"
            "- `limiter`, a module-level instance with the defaults of 60 a minute and a "
            "burst of 10;\n"
            "- `client_key()`, which reads `X-Api-Key` from the request.\n\n"
            "Nothing is wired into the app yet. The next step is the hook on the blueprint.",
        ),
        pause=45.0,
    )

    # 4 ---------------------------------------------------------------------------------------
    add(
        "Hook it into the blueprint so every notes endpoint goes through it.",
        Reply(
            text="Adding the hook to the blueprint.",
            tools=(
                ws.edit(
                    ROUTES,
                    'from app.store import NoteStore\n\nbp = Blueprint("notes", __name__)\n'
                    "store = NoteStore()\n",
                    "from app.ratelimit import client_key, limiter\n"
                    'from app.store import NoteStore\n\nbp = Blueprint("notes", __name__)\n'
                    "store = NoteStore()\n\n\n@bp.before_request\ndef enforce_rate_limit():\n"
                    "    if not limiter.allow(client_key()):\n"
                    '        return jsonify(error="rate limit exceeded"), 429\n'
                    "    return None\n",
                ),
            ),
        ),
        Reply(
            text="Done. `routes.py` now registers `enforce_rate_limit` with "
            "`bp.before_request`. Flask runs it before every view of the blueprint, and when "
            "it returns a response the view is skipped, so a rejected call never reaches "
            '`NoteStore`. The hook answers with status 429 and `{"error": "rate limit '
            'exceeded"}`.\n\n'
            "For now the health check goes through the limiter as well. I left it that way on "
            "purpose until we decide how exemptions should work.",
        ),
        pause=60.0,
    )

    # 5 ---------------------------------------------------------------------------------------
    add(
        "Add unit tests for the bucket and the limiter, then run them.",
        Reply(
            text="I'll write the tests against a fake clock so they run instantly.",
            tools=(ws.write(TESTS, TEST_RATELIMIT_PY),),
        ),
        Reply(
            tools=(
                run_tests(
                    [(TESTS, ".....")],
                    command=f"python -m pytest {TESTS}",
                    seconds=0.08,
                ),
            )
        ),
        Reply(
            text="All five new tests pass in well under a second. They cover:\n\n"
            "1. a fresh bucket allowing exactly ten requests in a row;\n"
            "2. the eleventh request being rejected;\n"
            "3. one token coming back after one second of fake time;\n"
            "4. the refill never exceeding the capacity, even after an hour of idling;\n"
            "5. two keys being counted independently.\n\n"
            "The fake clock is a small callable class with an `advance(seconds)` method, "
            "passed to `RateLimiter` through the `clock` argument.",
        ),
        pause=75.0,
    )

    # 6 ---------------------------------------------------------------------------------------
    add(
        "What does a client actually see when it gets limited? The mobile folks will ask.",
        Reply(
            text="Right now a limited client gets a bare `429` with "
            '`{"error": "rate limit exceeded"}` and nothing else. That tells it to slow down '
            "but not for how long, so a naive client retries at once and burns more "
            "requests.\n\n"
            "The usual answer is a few response headers:\n\n"
            "- `Retry-After`: seconds until one token is available again. HTTP defines it "
            "for 429 responses, and most client libraries honour it.\n"
            "- `X-RateLimit-Limit`: the sustained limit, here 60 a minute.\n"
            "- `X-RateLimit-Remaining`: whole tokens left in the bucket after this "
            "request.\n\n"
            "I would send `Retry-After` only on 429 responses and the two `X-RateLimit-*` "
            "headers on every response of the blueprint, so the app can pace itself before it "
            "hits the wall. The bucket already knows everything needed; it just has to "
            "report it.",
        ),
        pause=200.0,
    )

    # 7 ---------------------------------------------------------------------------------------
    add(
        "Yes, add those headers. Remaining on every response, Retry-After only on 429.",
        Reply(
            thinking="take() has to report the remaining tokens and the wait, so it returns a "
            "small frozen dataclass instead of a bool. The after_request hook reads the "
            "decision back from flask.g.",
            text="Extending the bucket and the hooks.",
            tools=(
                ws.edit(
                    RL,
                    "@dataclass\nclass Bucket:",
                    "@dataclass(frozen=True)\nclass Decision:\n"
                    '    """Outcome of one request: allowed or not, what is left, how long '
                    'to wait."""\n\n'
                    "    allowed: bool\n    remaining: int\n    retry_after: int\n\n\n"
                    "@dataclass\nclass Bucket:",
                ),
                ws.edit(
                    RL,
                    "    def take(self, now: float) -> bool:\n"
                    "        elapsed = max(0.0, now - self.updated_at)\n"
                    "        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)\n"
                    "        self.updated_at = now\n"
                    "        if self.tokens >= 1.0:\n"
                    "            self.tokens -= 1.0\n"
                    "            return True\n"
                    "        return False\n",
                    "    def take(self, now: float) -> Decision:\n"
                    "        elapsed = max(0.0, now - self.updated_at)\n"
                    "        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)\n"
                    "        self.updated_at = now\n"
                    "        if self.tokens >= 1.0:\n"
                    "            self.tokens -= 1.0\n"
                    "            return Decision(True, int(self.tokens), 0)\n"
                    "        return Decision(False, 0, int((1.0 - self.tokens) / self.rate))\n",
                ),
                ws.edit(
                    RL,
                    "    def allow(self, key: str) -> bool:",
                    "    def allow(self, key: str) -> Decision:",
                ),
                ws.edit(
                    ROUTES,
                    "from flask import Blueprint, abort, jsonify, request",
                    "from flask import Blueprint, abort, g, jsonify, request",
                ),
                ws.edit(
                    ROUTES,
                    "def enforce_rate_limit():\n"
                    "    if not limiter.allow(client_key()):\n"
                    '        return jsonify(error="rate limit exceeded"), 429\n'
                    "    return None\n",
                    "def enforce_rate_limit():\n"
                    "    decision = limiter.allow(client_key())\n"
                    "    g.rate_limit = decision\n"
                    "    if not decision.allowed:\n"
                    '        response = jsonify(error="rate limit exceeded")\n'
                    '        response.headers["Retry-After"] = str(decision.retry_after)\n'
                    "        return response, 429\n"
                    "    return None\n\n\n"
                    "@bp.after_request\n"
                    "def add_rate_limit_headers(response):\n"
                    '    decision = g.get("rate_limit")\n'
                    "    if decision is not None:\n"
                    '        response.headers["X-RateLimit-Limit"] = str(limiter.per_minute)\n'
                    '        response.headers["X-RateLimit-Remaining"] = str(decision.remaining)\n'
                    "    return response\n",
                ),
                ws.edit(
                    TESTS,
                    "    return limiter.allow(key)\n",
                    "    return limiter.allow(key).allowed\n",
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(TESTS, ".....")],
                    command=f"python -m pytest {TESTS}",
                    seconds=0.09,
                ),
            )
        ),
        Reply(
            text="Headers are in:\n\n"
            "- `RateLimiter.allow()` now returns a `Decision` with `allowed`, `remaining` and "
            "`retry_after`.\n"
            "- The `before_request` hook keeps the decision on `flask.g` and answers 429 with "
            "`Retry-After` when the request is refused. The value is rounded up to whole "
            "seconds.\n"
            "- A new `after_request` hook copies `X-RateLimit-Limit` and "
            "`X-RateLimit-Remaining` onto every response of the blueprint.\n\n"
            "The test helper `allowed()` now reads `decision.allowed`, so the existing tests "
            "did not change otherwise. All five still pass.",
        ),
        pause=70.0,
    )

    # 8 ---------------------------------------------------------------------------------------
    add(
        "Make the limits configurable through config.py instead of hard-coding 60 and 10.",
        Reply(
            text="Let me look at the config module first.",
            tools=(ws.read("app/config.py"),),
        ),
        Reply(
            thinking="Build the limiter in an init_app() step from app.config and keep it in "
            "app.extensions, so each test app gets its own limiter.",
            tools=(
                ws.edit(
                    "app/config.py",
                    '    STORE_BACKEND = os.environ.get("NOTES_STORE", "memory")\n',
                    '    STORE_BACKEND = os.environ.get("NOTES_STORE", "memory")\n'
                    '    RATE_LIMIT_PER_MINUTE = int(os.environ.get("RATE_LIMIT_PER_MINUTE", '
                    '"60"))\n'
                    '    RATE_LIMIT_BURST = int(os.environ.get("RATE_LIMIT_BURST", "10"))\n',
                ),
                ws.edit(
                    RL,
                    "from flask import request\n",
                    "from flask import Flask, current_app, request\n",
                ),
                ws.edit(
                    RL,
                    "limiter = RateLimiter()\n",
                    "def init_app(app: Flask) -> None:\n"
                    '    """Create the app\'s limiter from its RATE_LIMIT_* settings."""\n'
                    '    app.extensions["ratelimit"] = RateLimiter(\n'
                    '        per_minute=app.config["RATE_LIMIT_PER_MINUTE"],\n'
                    '        burst=app.config["RATE_LIMIT_BURST"],\n'
                    "    )\n\n\n"
                    "def get_limiter() -> RateLimiter:\n"
                    '    """The limiter of the current app (formerly the module-level '
                    '``limiter``)."""\n'
                    '    return current_app.extensions["ratelimit"]\n',
                ),
                ws.edit(
                    "app/__init__.py",
                    "from app.config import Config\nfrom app.routes import bp\n",
                    "from app.config import Config\nfrom app.ratelimit import init_app\n"
                    "from app.routes import bp\n",
                ),
                ws.edit(
                    "app/__init__.py",
                    "    app.config.from_object(config)\n",
                    "    app.config.from_object(config)\n    init_app(app)\n",
                ),
                ws.edit(
                    ROUTES,
                    "from app.ratelimit import client_key, limiter\n",
                    "from app.ratelimit import client_key, get_limiter\n",
                ),
                ws.edit(
                    ROUTES,
                    "    decision = limiter.allow(client_key())\n",
                    "    decision = get_limiter().allow(client_key())\n",
                ),
                ws.edit(
                    ROUTES,
                    '        response.headers["X-RateLimit-Limit"] = str(limiter.per_minute)\n',
                    '        response.headers["X-RateLimit-Limit"] = '
                    "str(get_limiter().per_minute)\n",
                ),
            ),
        ),
        Reply(
            text="The limits now come from the app config:\n\n"
            "- `Config.RATE_LIMIT_PER_MINUTE` and `Config.RATE_LIMIT_BURST` default to 60 and "
            "10, and both can be overridden from the environment.\n"
            "- `ratelimit.init_app(app)` builds the limiter from those two keys and stores it "
            'in `app.extensions["ratelimit"]`; `create_app()` calls it right after loading '
            "the config.\n"
            "- The hooks fetch the limiter with `get_limiter()`, which reads it back from "
            "`current_app`.\n\n"
            "The module-level `limiter` instance is gone, which also means each test app gets "
            "a fresh limiter instead of sharing state across tests.",
        ),
        pause=110.0,
    )

    # 9 ---------------------------------------------------------------------------------------
    add(
        "Requests without an API key all land in the same bucket right now, which is wrong. "
        "Fall back to the client IP for those.",
        Reply(
            text='Good catch: anonymous requests currently share the key `""`, so one noisy '
            "client blocks every other anonymous one.",
            tools=(
                ws.edit(
                    RL,
                    '    """The identity a request is limited under."""\n'
                    '    return request.headers.get("X-Api-Key", "")\n',
                    '    """The identity a request is limited under."""\n'
                    '    api_key = request.headers.get("X-Api-Key")\n'
                    "    if api_key:\n"
                    '        return f"key:{api_key}"\n'
                    '    return f"ip:{request.remote_addr}"\n',
                ),
            ),
        ),
        Reply(
            text="`client_key()` now returns `key:<api key>` when the header is present and "
            "`ip:<address>` otherwise, using `request.remote_addr`. The prefixes keep an API "
            "key that happens to look like an address from colliding with a real address. "
            "Anonymous clients are now limited one address at a time instead of sharing a "
            "single global bucket.",
        ),
        pause=130.0,
    )

    # 10 --------------------------------------------------------------------------------------
    add(
        "Careful, in production we sit behind nginx, so remote_addr is always the proxy.",
        Reply(
            thinking="Behind a proxy the address has to come from X-Forwarded-For. Make the "
            "number of proxies a setting, zero by default so local runs are unaffected.",
            text="Then the address has to come from `X-Forwarded-For` when the app runs "
            "behind proxies.",
            tools=(
                ws.edit(
                    "app/config.py",
                    '    RATE_LIMIT_BURST = int(os.environ.get("RATE_LIMIT_BURST", "10"))\n',
                    '    RATE_LIMIT_BURST = int(os.environ.get("RATE_LIMIT_BURST", "10"))\n'
                    "    RATE_LIMIT_TRUSTED_PROXIES = int(\n"
                    '        os.environ.get("RATE_LIMIT_TRUSTED_PROXIES", "0")\n'
                    "    )\n",
                ),
                ws.edit(
                    RL,
                    '    return f"ip:{request.remote_addr}"\n',
                    '    proxies = current_app.config.get("RATE_LIMIT_TRUSTED_PROXIES", 0)\n'
                    '    forwarded = request.headers.get("X-Forwarded-For", "")\n'
                    "    if proxies and forwarded:\n"
                    "        return f\"ip:{forwarded.split(',')[0].strip()}\"\n"
                    '    return f"ip:{request.remote_addr}"\n',
                ),
            ),
        ),
        Reply(
            text="Updated. A new setting, `RATE_LIMIT_TRUSTED_PROXIES` (default 0), says how "
            "many proxies sit in front of the app. With 0, `client_key()` uses "
            "`remote_addr` as before. With 1 or more, it reads `X-Forwarded-For` and uses "
            "the first address in the list, which is the original client; each proxy "
            "appends the address it received the request from.\n\n"
            "Set `RATE_LIMIT_TRUSTED_PROXIES=1` in the production environment.",
        ),
        pause=95.0,
    )

    # 11 --------------------------------------------------------------------------------------
    add(
        "Run the whole test suite, not just the limiter tests.",
        Reply(
            text="Running the full suite.",
            tools=(
                run_tests(
                    [(T_NOTES, ".....F"), (TESTS, "....."), (T_STORE, "....")],
                    failures="_" * 31
                    + " test_create_many_notes "
                    + "_" * 26
                    + "\n\nclient = <FlaskClient <Flask 'app'>>\n\n"
                    "    def test_create_many_notes(client):\n"
                    "        for number in range(25):\n"
                    '            response = client.post("/notes", json={"body": f"note '
                    '{number}"}, headers=KEY)\n'
                    ">           assert response.status_code == 201\n"
                    "E           assert 429 == 201\n"
                    "E            +  where 429 = <WrapperTestResponse streamed [429 TOO MANY "
                    "REQUESTS]>.status_code\n\n"
                    "tests/test_notes.py:28: AssertionError",
                    short_summary="FAILED tests/test_notes.py::test_create_many_notes - "
                    "assert 429 == 201",
                    seconds=0.62,
                ),
            ),
        ),
        Reply(
            text="One failure, in `tests/test_notes.py::test_create_many_notes`. That test "
            "posts 25 notes in a loop with the same API key, and since the limiter is now "
            "active in tests, request number 11 gets a 429 instead of a 201. The limiter is "
            "doing its job; the test simply predates it.\n\n"
            "Everything else passes: 14 of 15.",
        ),
        pause=50.0,
    )

    # 12 --------------------------------------------------------------------------------------
    add(
        "Fix it without switching the limiter off for every test. I want the limiter tests to "
        "keep exercising the real thing.",
        Reply(
            tools=(ws.read("tests/conftest.py"), ws.read(T_NOTES)),
        ),
        Reply(
            thinking="A separate fixture with a generous burst, requested only by the test "
            "that needs it, keeps the normal limits everywhere else.",
            tools=(
                ws.edit(
                    "tests/conftest.py",
                    "@pytest.fixture\ndef client(app):\n    return app.test_client()\n",
                    "@pytest.fixture\ndef client(app):\n    return app.test_client()\n\n\n"
                    "@pytest.fixture\ndef relaxed_client():\n"
                    '    """A client whose limiter allows large bursts, for bulk tests."""\n\n'
                    "    class RelaxedConfig(TestConfig):\n"
                    "        RATE_LIMIT_BURST = 1000\n\n"
                    "    return create_app(RelaxedConfig).test_client()\n",
                ),
                ws.edit(
                    T_NOTES,
                    "def test_create_many_notes(client):\n",
                    "def test_create_many_notes(relaxed_client):\n    client = relaxed_client\n",
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "....."), (T_STORE, "....")],
                    seconds=0.58,
                ),
            )
        ),
        Reply(
            text="Fixed. `tests/conftest.py` has a new fixture, `relaxed_client`, which builds "
            "the app with a burst of 1000 and applies only to the tests that ask for it. "
            "`test_create_many_notes` now uses it; every other test, the limiter tests "
            "included, runs against the normal limits of 60 a minute and a burst of 10.\n\n"
            "Full suite: 15 passed.",
        ),
        pause=80.0,
    )

    # 13 --------------------------------------------------------------------------------------
    add(
        "Is the limiter thread-safe? We run gunicorn with 4 threads per worker.",
        Reply(
            thinking="take() reads and writes tokens in several steps, and allow() does a "
            "check-then-insert on the dict. Both race under threads.",
            text="No. `Bucket.take()` reads `tokens`, computes the refill and writes the "
            "result back in several steps. Two threads serving the same key can both read "
            "the same value, both spend a token and both write back, so one request is "
            "never counted. The dict is a smaller risk because a single `get` or assignment "
            "is atomic under the GIL, but the check-then-insert in `allow()` can still "
            "create two buckets for the same key, and one of them is lost.\n\n"
            "The fix is a `threading.Lock` held for the whole of `allow()`. The critical "
            "section is a handful of arithmetic operations, so contention is negligible at "
            "our request rates. Adding it now.",
            tools=(
                ws.edit(
                    RL,
                    "import time\n",
                    "import threading\nimport time\n",
                ),
                ws.edit(
                    RL,
                    "        self._buckets: dict[str, Bucket] = {}\n\n"
                    "    def allow(self, key: str) -> Decision:\n"
                    "        now = self.clock()\n"
                    "        bucket = self._buckets.get(key)\n"
                    "        if bucket is None:\n"
                    "            bucket = Bucket(self.burst, self.per_minute / 60.0, "
                    "float(self.burst), now)\n"
                    "            self._buckets[key] = bucket\n"
                    "        return bucket.take(now)\n",
                    "        self._buckets: dict[str, Bucket] = {}\n"
                    "        self._lock = threading.Lock()\n\n"
                    "    def allow(self, key: str) -> Decision:\n"
                    "        with self._lock:\n"
                    "            now = self.clock()\n"
                    "            bucket = self._buckets.get(key)\n"
                    "            if bucket is None:\n"
                    "                rate = self.per_minute / 60.0\n"
                    "                bucket = Bucket(self.burst, rate, float(self.burst), now)\n"
                    "                self._buckets[key] = bucket\n"
                    "            return bucket.take(now)\n",
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "....."), (T_STORE, "....")],
                    seconds=0.57,
                ),
            )
        ),
        Reply(
            text="`RateLimiter` now creates a `threading.Lock` in `__init__` and holds it "
            "for the lookup, the bucket creation and `take()`. Since `take()` is only "
            "called from `allow()`, the bucket itself needs no lock of its own. The suite "
            "still passes, 15 of 15.",
        ),
        pause=140.0,
    )

    # 14 --------------------------------------------------------------------------------------
    add(
        "Add a test that hammers one key from several threads and checks the count is exact.",
        Reply(
            tools=(
                ws.edit(
                    TESTS,
                    "    for _ in range(10):\n"
                    '        allowed(limiter, "a")\n'
                    '    assert allowed(limiter, "b")\n',
                    "    for _ in range(10):\n"
                    '        allowed(limiter, "a")\n'
                    '    assert allowed(limiter, "b")\n\n\n'
                    "def test_concurrent_requests_never_overspend() -> None:\n"
                    "    limiter = make_limiter(FakeClock())\n"
                    "    results: list[bool] = []\n\n"
                    "    def hammer() -> None:\n"
                    '        results.extend(allowed(limiter, "a") for _ in range(50))\n\n'
                    "    threads = [threading.Thread(target=hammer) for _ in range(8)]\n"
                    "    for thread in threads:\n"
                    "        thread.start()\n"
                    "    for thread in threads:\n"
                    "        thread.join()\n"
                    "    assert sum(results) == 10\n",
                ),
                ws.edit(
                    TESTS,
                    "from app.ratelimit import RateLimiter\n",
                    "import threading\n\nfrom app.ratelimit import RateLimiter\n",
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "......"), (T_STORE, "....")],
                    seconds=0.66,
                ),
            )
        ),
        Reply(
            text="Added `test_concurrent_requests_never_overspend`. Eight threads each call "
            "`allow()` 50 times for the same key while the fake clock stands still, so "
            "exactly 10 calls must succeed out of 400. The assertion counts successes "
            "across all threads, so a lost update shows up as 11 or more. Full suite: 16 "
            "passed.",
        ),
        pause=65.0,
    )

    # 15 --------------------------------------------------------------------------------------
    add(
        "The health check must never be limited, the load balancer polls it every two seconds.",
        Reply(
            tools=(
                ws.edit(
                    ROUTES,
                    "store = NoteStore()\n\n\n@bp.before_request\ndef enforce_rate_limit():\n",
                    'store = NoteStore()\nEXEMPT_ENDPOINTS = frozenset({"notes.health"})\n\n\n'
                    "@bp.before_request\ndef enforce_rate_limit():\n"
                    "    if request.endpoint in EXEMPT_ENDPOINTS:\n"
                    "        return None\n",
                ),
            ),
        ),
        Reply(
            text="Done. `enforce_rate_limit` now returns early for the `notes.health` "
            "endpoint, before a bucket is even looked up, so the load balancer's polling "
            "neither spends tokens nor creates a bucket for its address. The exemptions "
            "live in a module constant, `EXEMPT_ENDPOINTS`, in case more endpoints need the "
            "same treatment.",
        ),
        pause=100.0,
    )

    # 16 --------------------------------------------------------------------------------------
    add(
        "Buckets are never removed, right? With IP keys that dict grows forever.",
        Reply(
            thinking="A bucket that has refilled completely carries no state. Sweep those "
            "every N calls under the same lock.",
            text="Right: every new address adds a bucket that stays for the life of the "
            "process. A full bucket carries no information, though, because a client that "
            "has been idle long enough to refill completely behaves exactly like a new one. "
            "So any bucket idle for `capacity / rate` seconds can be dropped safely.",
            tools=(
                ws.edit(
                    RL,
                    "        self._lock = threading.Lock()\n",
                    "        self._lock = threading.Lock()\n        self._calls = 0\n",
                ),
                ws.edit(
                    RL,
                    "        with self._lock:\n            now = self.clock()\n",
                    "        with self._lock:\n"
                    "            now = self.clock()\n"
                    "            self._calls += 1\n"
                    "            if self._calls % 1000 == 0:\n"
                    "                self._evict_idle(now)\n",
                ),
                ws.edit(
                    RL,
                    "            return bucket.take(now)\n",
                    "            return bucket.take(now)\n\n"
                    "    def _evict_idle(self, now: float) -> None:\n"
                    '        """Drop buckets idle long enough to be full again (lock held)."""\n'
                    "        idle_after = self.burst / (self.per_minute / 60.0)\n"
                    "        stale = [\n"
                    "            key\n"
                    "            for key, bucket in self._buckets.items()\n"
                    "            if now - bucket.updated_at >= idle_after\n"
                    "        ]\n"
                    "        for key in stale:\n"
                    "            del self._buckets[key]\n",
                ),
            ),
        ),
        Reply(
            text="`RateLimiter` now sweeps idle buckets. Every 1000 calls to `allow()` it "
            "removes the buckets that have been idle long enough to be full again, which is "
            "10 seconds with the defaults. The sweep runs under the same lock and walks the "
            "dict once, so its cost is spread across a thousand requests.",
        ),
        pause=120.0,
    )

    # 17 --------------------------------------------------------------------------------------
    add(
        "Test the eviction with the fake clock.",
        Reply(
            tools=(
                ws.edit(
                    TESTS,
                    "    assert sum(results) == 10\n",
                    "    assert sum(results) == 10\n\n\n"
                    "def test_idle_buckets_are_evicted() -> None:\n"
                    "    clock = FakeClock()\n"
                    "    limiter = make_limiter(clock)\n"
                    '    for key in ("a", "b", "c"):\n'
                    "        allowed(limiter, key)\n"
                    "    clock.advance(11)\n"
                    "    limiter._evict_idle(clock())\n"
                    "    assert limiter._buckets == {}\n\n\n"
                    "def test_recent_buckets_survive_eviction() -> None:\n"
                    "    clock = FakeClock()\n"
                    "    limiter = make_limiter(clock)\n"
                    '    allowed(limiter, "a")\n'
                    "    clock.advance(5)\n"
                    "    limiter._evict_idle(clock())\n"
                    '    assert set(limiter._buckets) == {"a"}\n',
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "........"), (T_STORE, "....")],
                    seconds=0.64,
                ),
            )
        ),
        Reply(
            text="Added `test_idle_buckets_are_evicted`: it creates buckets for three keys, "
            "advances the fake clock by 11 seconds, runs a sweep and checks that the dict "
            "is empty. A second test checks that a bucket used 5 seconds ago survives the "
            "sweep. Full suite: 18 passed.",
        ),
        pause=55.0,
    )

    # 18 --------------------------------------------------------------------------------------
    add(
        "Next problem: gunicorn runs 4 workers, so each one has its own buckets and the real "
        "limit is 4x what we configured.",
        Reply(
            thinking="Per-process state multiplies the limit by the worker count. A shared "
            "store fixes it; Redis is the usual choice.",
            text="Yes, that is a real gap. With four workers, a client whose requests are "
            "spread across them can make roughly 240 requests a minute instead of 60, and "
            "the burst becomes 40.\n\n"
            "I think the most practical option is a shared store, and Redis is probably the "
            "natural choice since the deployment might already run one for other things. "
            "The bucket state would live in Redis and every worker would read and update the "
            "same record. Dividing the limits by the number of workers is another option, "
            "but it seems fragile: it depends on the load balancer spreading one client's "
            "requests evenly, which it probably does not do.\n\n"
            "I think a Redis backend behind the same `allow()` interface is the way to go. "
            + REPEAT_HEDGE,
        ),
        pause=240.0,
    )

    # 19 --------------------------------------------------------------------------------------
    add(
        "OK. Add a Redis backend behind the same interface, and keep the in-memory one for "
        "tests and local runs.",
        Reply(
            text="I'll add a Redis-backed limiter with the same `allow()` method.",
            tools=(
                ws.write(RR, RATELIMIT_REDIS_PY),
                ws.edit(
                    RL,
                    "from flask import Flask, current_app, request\n",
                    "from flask import Flask, current_app, request\n\n"
                    "from app.ratelimit_redis import RedisRateLimiter\n",
                ),
                ws.edit(
                    RL,
                    "def init_app(app: Flask) -> None:\n"
                    '    """Create the app\'s limiter from its RATE_LIMIT_* settings."""\n'
                    '    app.extensions["ratelimit"] = RateLimiter(\n',
                    "def init_app(app: Flask) -> None:\n"
                    '    """Create the app\'s limiter from its RATE_LIMIT_* settings."""\n'
                    '    if app.config.get("RATE_LIMIT_BACKEND", "memory") == "redis":\n'
                    '        app.extensions["ratelimit"] = RedisRateLimiter(\n'
                    '            app.config["REDIS_URL"],\n'
                    '            per_minute=app.config["RATE_LIMIT_PER_MINUTE"],\n'
                    '            burst=app.config["RATE_LIMIT_BURST"],\n'
                    "        )\n"
                    "        return\n"
                    '    app.extensions["ratelimit"] = RateLimiter(\n',
                ),
            ),
        ),
        Reply(
            text="`app/ratelimit_redis.py` adds `RedisRateLimiter`, which keeps each bucket "
            "as a Redis hash with `tokens` and `updated_at` fields and returns the same "
            "`Decision` as the in-memory limiter. `init_app()` picks the backend from "
            '`RATE_LIMIT_BACKEND`: `"memory"` (the default) or `"redis"`. Tests and local '
            "runs keep the in-memory limiter.\n\n" + REPEAT_HEDGE + " " + REPEAT_ASK,
        ),
        pause=75.0,
    )

    # 20 --------------------------------------------------------------------------------------
    import_error = (
        "ImportError while loading conftest '/home/dev/demo-app/tests/conftest.py'.\n"
        "tests/conftest.py:3: in <module>\n"
        "    from app import create_app\n"
        "app/__init__.py:6: in <module>\n"
        "    from app.ratelimit import init_app\n"
        "app/ratelimit.py:11: in <module>\n"
        "    from app.ratelimit_redis import RedisRateLimiter\n"
        "app/ratelimit_redis.py:7: in <module>\n"
        "    import redis\n"
        "E   ModuleNotFoundError: No module named 'redis'"
    )
    add(
        "Run the tests.",
        Reply(
            text="Running the full suite.",
            tools=(bash("python -m pytest", "Run the test suite", import_error, 4, 1.1),),
        ),
        Reply(
            text="My mistake: `ratelimit.py` imports the Redis module at the top, and `redis` "
            "is not installed in the test environment, so no test module can even be "
            "imported. Let me fix that by importing the Redis backend only when it is "
            "selected.",
            tools=(
                ws.edit(
                    RL,
                    "from flask import Flask, current_app, request\n\n"
                    "from app.ratelimit_redis import RedisRateLimiter\n",
                    "from flask import Flask, current_app, request\n",
                ),
                ws.edit(
                    RL,
                    '    if app.config.get("RATE_LIMIT_BACKEND", "memory") == "redis":\n',
                    '    if app.config.get("RATE_LIMIT_BACKEND", "memory") == "redis":\n'
                    "        from app.ratelimit_redis import RedisRateLimiter\n\n",
                ),
            ),
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "........"), (T_STORE, "....")],
                    seconds=0.63,
                ),
            )
        ),
        Reply(
            text="Fixed: the Redis backend is now imported only when `RATE_LIMIT_BACKEND` is "
            '`"redis"`. Full suite: 18 passed. ' + REPEAT_DONE + " " + REPEAT_ASK,
        ),
        pause=35.0,
    )

    # 21 --------------------------------------------------------------------------------------
    add(
        "Does the Redis version have the same race we fixed with the lock?",
        Reply(
            text="Probably, yes. I think the read and the write in `RedisRateLimiter.allow()` "
            "are separate commands, so two workers might read the same token count and both "
            "spend it. The lock from before does not help here, since it only covers "
            "threads inside one process. A transaction or a server-side script would "
            "probably close the gap. " + REPEAT_DONE + " " + REPEAT_HEDGE,
        ),
        pause=180.0,
    )

    # 22 --------------------------------------------------------------------------------------
    add(
        "Use a Lua script so the check and the decrement happen atomically on the Redis side.",
        Reply(
            tools=(
                ws.edit(
                    RR,
                    "    def allow(self, key: str) -> Decision:\n"
                    "        now = time.time()\n"
                    '        name = f"ratelimit:{key}"\n'
                    "        stored = self._redis.hgetall(name)\n"
                    '        tokens = float(stored.get(b"tokens", self.burst))\n'
                    '        updated_at = float(stored.get(b"updated_at", now))\n'
                    "        tokens = min(self.burst, tokens + max(0.0, now - updated_at) * "
                    "self.rate)\n"
                    "        allowed = tokens >= 1.0\n"
                    "        if allowed:\n"
                    "            tokens -= 1.0\n"
                    '        self._redis.hset(name, mapping={"tokens": tokens, "updated_at": '
                    "now})\n",
                    "    def allow(self, key: str) -> Decision:\n"
                    "        now = time.time()\n"
                    "        allowed, tokens = self._take(\n"
                    '            keys=[f"ratelimit:{key}"],\n'
                    "            args=[now, self.rate, self.burst, int(self.burst / self.rate) "
                    "+ 1],\n"
                    "        )\n"
                    "        tokens = float(tokens)\n",
                ),
                ws.edit(
                    RR,
                    "        self._redis = redis.Redis.from_url(url)\n",
                    "        self._redis = redis.Redis.from_url(url)\n"
                    "        self._take = self._redis.register_script(TAKE_SCRIPT)\n",
                ),
                ws.edit(
                    RR,
                    "from app.ratelimit import Decision\n",
                    "from app.ratelimit import Decision\n\n"
                    "# Refill, check and spend in one step; Redis runs a script atomically.\n"
                    'TAKE_SCRIPT = """\n'
                    "local now, rate, burst, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), "
                    "tonumber(ARGV[3]), tonumber(ARGV[4])\n"
                    "local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated_at')\n"
                    "local tokens = tonumber(state[1]) or burst\n"
                    "local updated = tonumber(state[2]) or now\n"
                    "tokens = math.min(burst, tokens + math.max(0, now - updated) * rate)\n"
                    "local allowed = 0\n"
                    "if tokens >= 1 then\n"
                    "  tokens = tokens - 1\n"
                    "  allowed = 1\n"
                    "end\n"
                    "redis.call('HSET', KEYS[1], 'tokens', tokens, 'updated_at', now)\n"
                    "redis.call('EXPIRE', KEYS[1], ttl)\n"
                    "return {allowed, tostring(tokens)}\n"
                    '"""\n',
                ),
            ),
        ),
        Reply(
            text="Done. `RedisRateLimiter` now runs the refill, the check and the decrement "
            "in one Lua script registered with `register_script`, so Redis executes them as "
            "a single atomic step and two workers can no longer spend the same token. The "
            "script reads `tokens` and `updated_at` with `HMGET`, refills by the elapsed "
            "time, spends a token when one is available and writes both fields back with "
            "`HSET`. It also puts a TTL slightly longer than the refill time on the key, so "
            "idle buckets expire on their own and Redis does the eviction for us. The "
            "remaining tokens come back as a string because Redis turns Lua numbers into "
            "integers. " + REPEAT_DONE + " " + REPEAT_HEDGE + " " + REPEAT_ASK,
        ),
        pause=85.0,
    )

    # 23 --------------------------------------------------------------------------------------
    add(
        "Add REDIS_URL to the config and document the new settings in the README.",
        Reply(tools=(ws.read("README.md"),)),
        Reply(
            tools=(
                ws.edit(
                    "app/config.py",
                    "    RATE_LIMIT_TRUSTED_PROXIES = int(\n"
                    '        os.environ.get("RATE_LIMIT_TRUSTED_PROXIES", "0")\n'
                    "    )\n",
                    "    RATE_LIMIT_TRUSTED_PROXIES = int(\n"
                    '        os.environ.get("RATE_LIMIT_TRUSTED_PROXIES", "0")\n'
                    "    )\n"
                    '    RATE_LIMIT_BACKEND = os.environ.get("RATE_LIMIT_BACKEND", "memory")\n'
                    '    REDIS_URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")\n',
                ),
                ws.edit(
                    "README.md",
                    "## Tests\n",
                    "## Rate limiting\n\n"
                    "Every notes endpoint is rate limited per API key (or per client address "
                    "for anonymous calls). Settings, all read from the environment:\n\n"
                    "| variable | default | meaning |\n"
                    "|---|---|---|\n"
                    "| `RATE_LIMIT_PER_MINUTE` | 60 | sustained requests per minute |\n"
                    "| `RATE_LIMIT_BURST` | 10 | requests allowed at once |\n"
                    "| `RATE_LIMIT_TRUSTED_PROXIES` | 0 | proxies in front of the app |\n"
                    "| `RATE_LIMIT_BACKEND` | memory | `memory` or `redis` |\n"
                    "| `REDIS_URL` | redis://localhost:6379/0 | used by the redis backend |\n\n"
                    "## Tests\n",
                ),
            )
        ),
        Reply(
            text="Added `REDIS_URL` (default `redis://localhost:6379/0`) and "
            "`RATE_LIMIT_BACKEND` (default `memory`) to `Config`, both read from the "
            'environment like the other settings. The README has a new "Rate limiting" '
            'section above "Tests" with a table of all five variables, their defaults and '
            "what they do, plus a sentence on how clients are identified. I left the local "
            "setup instructions alone, since the in-memory backend stays the default there. "
            + REPEAT_DONE
            + " "
            + REPEAT_ASK,
        ),
        pause=70.0,
    )

    # 24 --------------------------------------------------------------------------------------
    add(
        "When I test by hand, Retry-After says 0 on some 429 responses. That can't be right.",
        Reply(tools=(ws.read(RL),)),
        Reply(
            text="I was wrong earlier when I said the value was rounded up: `take()` "
            "computes the wait with `int()`, which truncates toward zero. A client that is "
            "0.4 seconds away from its next token is told to wait 0 seconds, retries at "
            "once, is refused again and burns its retries. The Redis backend copied the same "
            "expression. The wait should be rounded up with `math.ceil` and never be below "
            "one second.",
            tools=(
                ws.edit(
                    RL,
                    "        return Decision(False, 0, int((1.0 - self.tokens) / self.rate))\n",
                    "        wait = math.ceil((1.0 - self.tokens) / self.rate)\n"
                    "        return Decision(False, 0, max(1, wait))\n",
                ),
                ws.edit(RL, "import threading\n", "import math\nimport threading\n"),
                ws.edit(
                    RR,
                    "        return Decision(False, 0, int((1.0 - tokens) / self.rate))\n",
                    "        return Decision(False, 0, max(1, math.ceil((1.0 - tokens) / "
                    "self.rate)))\n",
                ),
                ws.edit(RR, "import time\n", "import math\nimport time\n"),
            ),
        ),
        Reply(
            text="Fixed in both backends: `Retry-After` is now rounded up and never below one "
            "second, so a refused client always waits for a real token. "
            + REPEAT_DONE
            + " "
            + REPEAT_HEDGE,
        ),
        pause=420.0,
    )

    # 25 --------------------------------------------------------------------------------------
    add(
        "Run the suite again.",
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "........"), (T_STORE, "....")],
                    seconds=0.61,
                ),
            )
        ),
        Reply(
            text="All 18 tests pass, including the limiter tests for the burst, the refill "
            "and the eviction. " + REPEAT_DONE + " " + REPEAT_ASK,
        ),
        queued=True,
    )

    # 26 --------------------------------------------------------------------------------------
    add(
        "A colleague reviewed the proxy handling and says we trust the wrong entry in "
        "X-Forwarded-For. Can you double-check?",
        Reply(
            text="Your colleague is right. The first entry of `X-Forwarded-For` is whatever "
            "the client sent, so anyone can pick a fresh bucket for every request just by "
            "setting the header. The entry to trust is the one our own proxy added, counted "
            "from the right.",
            tools=(
                ws.edit(
                    RL,
                    "    if proxies and forwarded:\n"
                    "        return f\"ip:{forwarded.split(',')[0].strip()}\"\n",
                    '    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]\n'
                    "    if proxies and len(hops) >= proxies:\n"
                    '        return f"ip:{hops[-proxies]}"\n',
                ),
            ),
        ),
        Reply(
            text="`client_key()` now takes the address `RATE_LIMIT_TRUSTED_PROXIES` places "
            "from the right of `X-Forwarded-For` and falls back to `remote_addr` when the "
            "header is shorter. " + REPEAT_DONE + " " + REPEAT_HEDGE,
        ),
        pause=300.0,
    )

    # 27 --------------------------------------------------------------------------------------
    add(
        "Add a test for the spoofing case.",
        Reply(
            tools=(
                ws.edit(
                    TESTS,
                    '    assert set(limiter._buckets) == {"a"}\n',
                    '    assert set(limiter._buckets) == {"a"}\n\n\n'
                    "def test_spoofed_forwarded_for_is_ignored() -> None:\n"
                    "    class Behind(TestConfig):\n"
                    "        RATE_LIMIT_TRUSTED_PROXIES = 1\n\n"
                    "    app = create_app(Behind)\n"
                    '    forged = {"X-Forwarded-For": "203.0.113.9, 198.51.100.4"}\n'
                    '    with app.test_request_context("/notes", headers=forged):\n'
                    '        assert client_key() == "ip:198.51.100.4"\n',
                ),
                ws.edit(
                    TESTS,
                    "from app.ratelimit import RateLimiter\n",
                    "from app import create_app\nfrom app.config import TestConfig\n"
                    "from app.ratelimit import RateLimiter, client_key\n",
                ),
            )
        ),
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "........."), (T_STORE, "....")],
                    seconds=0.66,
                ),
            )
        ),
        Reply(
            text="Added `test_spoofed_forwarded_for_is_ignored`: it sends a forged first hop "
            "and checks that the key comes from the hop nginx added. 19 tests pass. " + REPEAT_DONE,
        ),
        pause=60.0,
    )

    # 28 --------------------------------------------------------------------------------------
    add(
        "Log a warning when a client gets limited, with the key and the path.",
        Reply(
            tools=(
                ws.edit(
                    ROUTES,
                    "    if not decision.allowed:\n",
                    "    if not decision.allowed:\n"
                    "        current_app.logger.warning(\n"
                    '            "rate limited %s on %s", client_key(), request.path\n'
                    "        )\n",
                ),
                ws.edit(
                    ROUTES,
                    "from flask import Blueprint, abort, g, jsonify, request",
                    "from flask import Blueprint, abort, current_app, g, jsonify, request",
                ),
            )
        ),
        Reply(text="Added the warning; it logs the client key and the path. " + REPEAT_DONE),
        pause=110.0,
    )

    # 29 --------------------------------------------------------------------------------------
    add(
        "Won't that flood the logs if someone hammers us?",
        Reply(
            text="It might, yes. I think a client that keeps retrying would probably log one "
            "line per rejected request. Maybe sampling would help. " + REPEAT_HEDGE,
        ),
        pause=90.0,
    )

    # 30 --------------------------------------------------------------------------------------
    add(
        "Sample it then. One log line per key per minute at most.",
        Reply(
            tools=(
                ws.edit(
                    ROUTES,
                    "        current_app.logger.warning(\n"
                    '            "rate limited %s on %s", client_key(), request.path\n'
                    "        )\n",
                    "        key = client_key()\n"
                    "        if time.monotonic() - _last_logged.get(key, -60.0) >= 60.0:\n"
                    "            _last_logged[key] = time.monotonic()\n"
                    "            current_app.logger.warning(\n"
                    '                "rate limited %s on %s", key, request.path\n'
                    "            )\n",
                ),
                ws.edit(
                    ROUTES,
                    'EXEMPT_ENDPOINTS = frozenset({"notes.health"})\n',
                    'EXEMPT_ENDPOINTS = frozenset({"notes.health"})\n'
                    "_last_logged: dict[str, float] = {}\n",
                ),
                ws.edit(
                    ROUTES,
                    '"""HTTP routes of the notes API."""\n\n',
                    '"""HTTP routes of the notes API."""\n\nimport time\n\n',
                ),
            )
        ),
        Reply(
            text="Done: at most one warning per key per minute, tracked in a small dict in "
            "`routes.py`. " + REPEAT_DONE
        ),
        pause=75.0,
    )

    # 31 --------------------------------------------------------------------------------------
    add(
        "Give me a short summary of everything that changed in routes.py today.",
        Reply(
            text="In `routes.py`: the limit hook, the headers, the health exemption and the "
            "sampled warning. " + REPEAT_DONE
        ),
        pause=130.0,
    )

    # 32 --------------------------------------------------------------------------------------
    add(
        "Did we ever update the docstring of get_limiter? It still mentions the module-level "
        "instance.",
        Reply(
            tools=(
                ws.edit(
                    RL,
                    '    """The limiter of the current app (formerly the module-level '
                    '``limiter``)."""\n',
                    '    """The limiter that init_app() attached to the current app."""\n',
                ),
            )
        ),
        Reply(text="I think not, so I updated it. " + REPEAT_DONE),
        pause=95.0,
    )

    # 33 --------------------------------------------------------------------------------------
    add(
        "Run everything one last time.",
        Reply(
            tools=(
                run_tests(
                    [(T_NOTES, "......"), (TESTS, "........."), (T_STORE, "....")],
                    seconds=0.65,
                ),
            )
        ),
        Reply(text="19 passed. " + REPEAT_DONE),
        pause=40.0,
    )

    # 34 --------------------------------------------------------------------------------------
    add(
        "Write a commit message for all of this.",
        Reply(text="Add rate limiting to the notes API\n\n" + REPEAT_DONE),
        pause=50.0,
    )
    return turns


# ---------------------------------------------------------------------------------------------
# Writing the transcript
# ---------------------------------------------------------------------------------------------


def tokens_of(text: str) -> int:
    """A character-based token estimate for synthetic usage numbers."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def reply_output_tokens(reply: Reply) -> int:
    """Final ``output_tokens`` of one response: thinking, text and tool inputs."""
    inputs = sum(len(json.dumps(tool.input)) for tool in reply.tools)
    return (
        tokens_of(reply.thinking) + tokens_of(reply.text) + math.ceil(inputs / CHARS_PER_TOKEN) + 4
    )


@dataclass
class Request:
    """The usage numbers of one API request."""

    input_tokens: int
    cache_creation: int
    cache_read: int
    output_tokens: int


def plan_usage(turns: list[Turn], rng: random.Random) -> list[Request]:
    """Usage of every request, in order, with the last context exactly ``FINAL_CONTEXT``."""
    replies = [(index, reply) for index, turn in enumerate(turns) for reply in turn.replies]
    # New content each request sends beyond the previous request's context, in tokens.
    new_content: list[int] = []
    previous: Reply | None = None
    previous_turn = -1
    for index, reply in replies:
        grown = 0
        if previous is not None:
            grown += reply_output_tokens(previous)
            grown += sum(tokens_of(tool.result) for tool in previous.tools)
        if index != previous_turn:
            grown += tokens_of(turns[index].prompt) + 12
        new_content.append(grown)
        previous, previous_turn = reply, index
    first_context = FIRST_CACHE_READ + 3 + 4_188 + new_content[0]
    overhead_total = FINAL_CONTEXT - first_context - sum(new_content[1:])
    if overhead_total < 0:
        raise ValueError("story bug: FINAL_CONTEXT is too small for the story")
    weights = [rng.uniform(0.5, 1.5) for _ in replies[1:]]
    scale = overhead_total / sum(weights)
    overhead = [math.floor(weight * scale) for weight in weights]
    overhead[-1] += overhead_total - sum(overhead)

    requests: list[Request] = []
    context = 0
    previous_turn = -1
    for position, (index, reply) in enumerate(replies):
        uncached = 6 if index != previous_turn else 1
        previous_turn = index
        if position == 0:
            created = first_context - FIRST_CACHE_READ - 3
            request = Request(3, created, FIRST_CACHE_READ, reply_output_tokens(reply))
        else:
            grown = new_content[position] + overhead[position - 1]
            request = Request(uncached, grown - uncached, context, reply_output_tokens(reply))
        context = request.input_tokens + request.cache_creation + request.cache_read
        requests.append(request)
    if context != FINAL_CONTEXT:
        raise ValueError(f"story bug: final context {context} != {FINAL_CONTEXT}")
    return requests


def short_usage(request: Request, output_tokens: int) -> Json:
    """``usage`` of an early line of a response (running ``output_tokens``)."""
    return {
        "input_tokens": request.input_tokens,
        "cache_creation_input_tokens": request.cache_creation,
        "cache_read_input_tokens": request.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": 0,
            "ephemeral_1h_input_tokens": request.cache_creation,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
        "inference_geo": "not_available",
    }


def final_usage(request: Request) -> Json:
    """``usage`` of the last line of a response (final ``output_tokens``)."""
    return {
        "input_tokens": request.input_tokens,
        "cache_creation_input_tokens": request.cache_creation,
        "cache_read_input_tokens": request.cache_read,
        "output_tokens": request.output_tokens,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": request.cache_creation,
            "ephemeral_5m_input_tokens": 0,
        },
        "inference_geo": "",
        "iterations": [
            {
                "input_tokens": request.input_tokens,
                "output_tokens": request.output_tokens,
                "cache_read_input_tokens": request.cache_read,
                "cache_creation_input_tokens": request.cache_creation,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": request.cache_creation,
                },
                "type": "message",
            }
        ],
        "speed": "standard",
    }


BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def iso(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and ``Z``, as Claude Code writes timestamps."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Transcript:
    """Appends the session's lines in file order, keeping the clock and the uuid chain."""

    rng: random.Random
    session_id: str
    now: datetime = START
    lines: list[Json] = field(default_factory=list)
    last_uuid: str | None = None
    entries: int = 0
    """Conversation entries written so far (user, assistant, attachment, system)."""

    def new_uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def token(self, prefix: str, length: int) -> str:
        return prefix + "".join(self.rng.choice(BASE58) for _ in range(length))

    def tick(self, low: float, high: float) -> str:
        """Advance the clock by a random amount (seconds) and return the ISO timestamp."""
        millis = max(1, round(self.rng.uniform(low, high) * 1000))
        self.now += timedelta(milliseconds=millis)
        return self.stamp()

    def stamp(self) -> str:
        return iso(self.now)

    def tail(self) -> Json:
        return {
            "userType": "external",
            "entrypoint": "cli",
            "cwd": CWD,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": BRANCH,
        }

    def meta(self, line: Json) -> None:
        self.lines.append(line)


def write_user(
    t: Transcript,
    prompt_id: str,
    message: Json,
    extra: Json,
    timestamp: str,
    entry_uuid: str | None = None,
) -> str:
    """A ``user`` entry: a typed prompt or a tool result (``extra`` follows the timestamp)."""
    entry_uuid = entry_uuid or t.new_uuid()
    line: Json = {
        "parentUuid": t.last_uuid,
        "isSidechain": False,
        "promptId": prompt_id,
        "type": "user",
        "message": message,
        "uuid": entry_uuid,
        "timestamp": timestamp,
        **extra,
        **t.tail(),
    }
    t.lines.append(line)
    t.last_uuid = entry_uuid
    t.entries += 1
    return entry_uuid


def write_attachment(t: Transcript, attachment: Json, timestamp: str) -> None:
    entry_uuid = t.new_uuid()
    t.lines.append(
        {
            "parentUuid": t.last_uuid,
            "isSidechain": False,
            "attachment": attachment,
            "type": "attachment",
            "uuid": entry_uuid,
            "timestamp": timestamp,
            **t.tail(),
        }
    )
    t.last_uuid = entry_uuid
    t.entries += 1


def write_assistant(t: Transcript, message: Json, request_id: str, timestamp: str) -> str:
    entry_uuid = t.new_uuid()
    t.lines.append(
        {
            "parentUuid": t.last_uuid,
            "isSidechain": False,
            "message": message,
            "requestId": request_id,
            "type": "assistant",
            "uuid": entry_uuid,
            "timestamp": timestamp,
            **t.tail(),
        }
    )
    t.last_uuid = entry_uuid
    t.entries += 1
    return entry_uuid


def write_system(t: Transcript, subtype: str, fields: Json, timestamp: str) -> None:
    entry_uuid = t.new_uuid()
    t.lines.append(
        {
            "parentUuid": t.last_uuid,
            "isSidechain": False,
            "type": "system",
            "subtype": subtype,
            **fields,
            "timestamp": timestamp,
            "uuid": entry_uuid,
            "isMeta": False,
            **t.tail(),
        }
    )
    t.last_uuid = entry_uuid
    t.entries += 1


def signature(rng: random.Random) -> str:
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(180))).decode("ascii")


def blocks_of(reply: Reply, t: Transcript) -> Iterator[tuple[Json, Tool | None]]:
    """The response's content blocks in order, each with the tool it calls (if any)."""
    if reply.thinking:
        yield {"type": "thinking", "thinking": reply.thinking, "signature": signature(t.rng)}, None
    if reply.text:
        yield {"type": "text", "text": reply.text}, None
    for tool in reply.tools:
        block = {
            "type": "tool_use",
            "id": t.token("toolu_01", 22),
            "name": tool.name,
            "input": tool.input,
            "caller": {"type": "direct"},
        }
        yield block, tool


def write_reply(t: Transcript, reply: Reply, request: Request, prompt_id: str, first: bool) -> None:
    """Write one API response as one line per content block, tool results in between."""
    message_id = t.token("msg_01", 22)
    request_id = t.token("req_011C", 20)
    blocks = list(blocks_of(reply, t))
    stop_reason = "tool_use" if reply.tools else "end_turn"
    written = 0
    for position, (block, tool) in enumerate(blocks):
        last = position == len(blocks) - 1
        if block["type"] == "thinking":
            timestamp = t.tick(2.5, 9.0) if first else t.tick(1.5, 5.0)
            written += tokens_of(block["thinking"])
        elif block["type"] == "text":
            timestamp = t.tick(0.3, 1.6) if position else t.tick(1.8, 6.0)
            written += tokens_of(block["text"])
        else:
            timestamp = t.tick(0.4, 2.8) if position else t.tick(1.6, 5.0)
            written += math.ceil(len(json.dumps(block["input"])) / CHARS_PER_TOKEN)
        usage = (
            final_usage(request)
            if last
            else short_usage(request, min(written, request.output_tokens - 1))
        )
        message = {
            "model": MODEL,
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop_reason if last else None,
            "stop_sequence": None,
            "stop_details": None,
            "usage": usage,
        }
        assistant_uuid = write_assistant(t, message, request_id, timestamp)
        if tool is None:
            continue
        result: Json = {"tool_use_id": block["id"], "type": "tool_result", "content": tool.result}
        if tool.is_error is not None:
            result["is_error"] = tool.is_error
        write_user(
            t,
            prompt_id,
            {"role": "user", "content": [result]},
            {"toolUseResult": tool.use_result, "sourceToolAssistantUUID": assistant_uuid},
            t.tick(tool.seconds, tool.seconds * 1.3 + 0.01),
        )


def backups(edited: dict[str, int], times: dict[str, str]) -> Json:
    """``trackedFileBackups`` of a snapshot: one backup per file edited so far."""
    return {
        f"{CWD}/{relative}": {
            "backupFileName": f"{uuid.uuid5(uuid.NAMESPACE_URL, relative).hex[:16]}@v{version}",
            "version": version,
            "backupTime": times[relative],
        }
        for relative, version in sorted(edited.items())
    }


def build_lines(turns: list[Turn]) -> list[Json]:
    """Every line of the demo session, in file order."""
    rng = random.Random(SEED)
    session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    t = Transcript(rng=random.Random(SEED + 1), session_id=session_id)
    requests = iter(plan_usage(turns, random.Random(SEED + 2)))
    versions: dict[str, int] = {}
    backup_times: dict[str, str] = {}
    t.meta({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": session_id})
    for number, turn in enumerate(turns, start=1):
        prompt_uuid = t.new_uuid()
        prompt_id = t.new_uuid()
        if turn.queued:
            dequeued = t.tick(0.2, 0.6)
            t.meta(
                {
                    "type": "queue-operation",
                    "operation": "dequeue",
                    "timestamp": dequeued,
                    "sessionId": session_id,
                }
            )
            prompt_time = t.tick(0.01, 0.05)
        else:
            prompt_time = t.tick(turn.pause * 0.8, turn.pause * 1.2)
        turn_start = t.now
        t.meta(
            {
                "type": "file-history-snapshot",
                "messageId": prompt_uuid,
                "snapshot": {
                    "messageId": prompt_uuid,
                    "trackedFileBackups": backups(versions, backup_times),
                    "timestamp": iso(t.now + timedelta(milliseconds=104)),
                },
                "isSnapshotUpdate": False,
            }
        )
        write_user(
            t,
            prompt_id,
            {"role": "user", "content": turn.prompt},
            {"permissionMode": "acceptEdits"},
            prompt_time,
            entry_uuid=prompt_uuid,
        )
        if number == 1:
            names = ["NotebookEdit", "TodoWrite", "WebFetch", "WebSearch"]
            delta = {
                "type": "deferred_tools_delta",
                "addedNames": names,
                "addedLines": names,
                "removedNames": [],
            }
            write_attachment(t, delta, t.tick(0.001, 0.002))
        backed_up: set[str] = set()
        for position, reply in enumerate(turn.replies):
            last_reply = position == len(turn.replies) - 1
            if last_reply and number < len(turns) and turns[number].queued:
                t.meta(
                    {
                        "type": "queue-operation",
                        "operation": "enqueue",
                        "timestamp": t.tick(1.0, 3.0),
                        "sessionId": session_id,
                        "content": turns[number].prompt,
                    }
                )
            # A file's backup is taken before its first change in a turn (one version per turn).
            for tool in reply.tools:
                relative = str(tool.input.get("file_path", "")).removeprefix(CWD + "/")
                if tool.name in ("Edit", "Write") and relative not in backed_up:
                    backed_up.add(relative)
                    versions[relative] = versions.get(relative, 0) + 1
                    backup_times[relative] = iso(t.now + timedelta(milliseconds=250))
            write_reply(t, reply, next(requests), prompt_id, first=position == 0)
            if number == 20 and position == 0:
                reminder = {"type": "task_reminder", "content": [], "itemCount": 0}
                write_attachment(t, reminder, t.tick(0.05, 0.1))
        timestamp = t.tick(0.01, 0.2)
        duration = round((t.now - turn_start).total_seconds() * 1000)
        fields = {"durationMs": duration, "messageCount": t.entries}
        write_system(t, "turn_duration", fields, timestamp)
        t.meta({"type": "last-prompt", "lastPrompt": turn.prompt, "sessionId": session_id})
        t.meta(
            {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": session_id}
        )
    return t.lines


def render(lines: list[Json]) -> str:
    """JSONL as Claude Code writes it: compact, raw UTF-8, one line each, newline-terminated."""
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="where to write the JSONL"
    )
    args = parser.parse_args(argv)
    output: Path = args.output
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(build_lines(story())), encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main()
