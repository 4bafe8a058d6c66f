"""Every host closes the loop, with the pinned real CLIs and the hooks `driftguard setup
--hooks` installs in a private HOME: a completed handoff saved by one session reaches the
first model request of the next session and no later session; a failing command run again
and again puts the loop notice in the next prompt's request once; after a compaction the
next request holds the rule the summary dropped, not the one it kept.

The model is :mod:`fake_model` on 127.0.0.1. What the model was told is read from the fake's
request log: the text of each request the CLI sent (hook context included).
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from e2e_hosts import Run, base_env, driftguard_command, host_env, run_cli
from fake_model import Api, FakeModel, ModelRequest, Reply, call_tool, parse_request, say

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
pytest_plugins = ["e2e_fixtures"]

HANDOFF_MARKER = "The CSV importer now reads ISO dates; next, the refund export."
"""What the completed handoff says (a sentence no request holds by accident)."""
LOOP_NOTICE = "driftguard: the last tool calls repeat"
DROPPED_RULE = "Never touch the migrations folder."
KEPT_RULE = "Always run the linter before committing."
REMINDER = "driftguard: the compaction just now"
RULES_PROMPT = f"Add a --dry-run flag to the import command. {DROPPED_RULE} {KEPT_RULE}"


@dataclass
class Host(ABC):
    """One real CLI, driven the way a user's session runs it."""

    name: str
    binary: Path
    api: Api
    home: Path
    project: Path
    fake: FakeModel
    env: dict[str, str] = field(default_factory=dict)
    extra: list[str | Path] = field(default_factory=list)

    @abstractmethod
    def run(self, prompt: str, session: str | None = None) -> str:
        """One prompt (resuming ``session``); the session's id."""


@dataclass
class Claude(Host):
    def run(self, prompt: str, session: str | None = None) -> str:
        args: list[str | Path] = [self.binary, "-p", prompt, "--output-format", "json"]
        args += ["--allowedTools", "Bash"]
        args += ["--resume", session] if session else []
        done = run_cli(args, cwd=self.project, env=self.env)
        assert done.returncode == 0, done.describe()
        result = done.json()
        assert result["is_error"] is False, done.describe()
        return str(result["session_id"])


@dataclass
class Codex(Host):
    def run(self, prompt: str, session: str | None = None) -> str:
        # Codex runs a hook only once the user trusted it in /hooks; the flag stands in for
        # that one-time approval (the hooks run as setup wrote them)
        args: list[str | Path] = [self.binary, "exec", "--json", "--skip-git-repo-check"]
        args += ["--dangerously-bypass-hook-trust"]
        args += ["resume", session, prompt] if session else [prompt]
        done = run_cli(args, cwd=self.project, env=self.env)
        assert done.returncode == 0, done.describe()
        if session:
            return session
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        return str(next(e["thread_id"] for e in events if e.get("type") == "thread.started"))


@dataclass
class Gemini(Host):
    def run(self, prompt: str, session: str | None = None) -> str:
        args: list[str | Path] = [self.binary, "-p", prompt, "-o", "json", *self.extra]
        args += ["--resume", session] if session else []
        done = run_cli(args, cwd=self.project, env=self.env)
        assert done.returncode == 0, done.describe()
        return session or str(done.json()["session_id"])


def setup_hooks(host: Host) -> Run:
    """``driftguard setup --hooks --host <host>`` as a user runs it, in the private HOME."""
    env = {**base_env(), "HOME": str(host.home), "DRIFTGUARD_HOME": host.env["DRIFTGUARD_HOME"]}
    cli = {"claude": "claude_code", "codex": "codex_cli", "gemini": "gemini_cli"}[host.name]
    done = run_cli(
        [driftguard_command(), "setup", "--hooks", "--host", cli], cwd=host.home, env=env
    )
    assert done.returncode == 0, done.describe()
    assert f"{cli} hooks: added" in done.stdout, done.describe()
    return done


def make_host(
    name: str, real_cli: Callable[[str], Path], fake: FakeModel, home: Path, project: Path
) -> Host:
    binary = real_cli(name)
    env = host_env(home, fake.url)
    if name == "claude":
        (home / ".claude").mkdir(exist_ok=True)
        host: Host = Claude(name, binary, "anthropic", home, project, fake, env)
    elif name == "codex":
        folder = home / ".codex"
        folder.mkdir(exist_ok=True)
        (folder / "config.toml").write_text(
            'model = "gpt-5-codex"\n'
            'model_provider = "fake"\n'
            "check_for_update_on_startup = false\n"
            "model_context_window = 200000\n"
            "model_auto_compact_token_limit = 170000\n\n"
            "[analytics]\nenabled = false\n\n"
            "[model_providers.fake]\n"
            'name = "Fake model"\n'
            f'base_url = "{fake.url}/v1"\n'
            'env_key = "FAKE_API_KEY"\n'
            'wire_api = "responses"\n',
            encoding="utf-8",
        )
        host = Codex(name, binary, "openai", home, project, fake, env)
    else:
        folder = home / ".gemini"
        folder.mkdir(exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
        }
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        trusted = {str(project): "TRUST_FOLDER"}
        (folder / "trustedFolders.json").write_text(json.dumps(trusted), encoding="utf-8")
        policy = home / "shell-policy.toml"
        policy.write_text(
            '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 200\n',
            encoding="utf-8",
        )
        host = Gemini(name, binary, "gemini", home, project, fake, env, ["--policy", policy])
    setup_hooks(host)
    return host


def main_requests(host: Host, since: int = 0) -> list[str]:
    """The text of each request of the conversation (not a side call without tools) from
    the ``since``-th logged request on, as the CLI sent it (JSON)."""
    found = []
    for entry in host.fake.requests[since:]:
        if entry.api != host.api or not isinstance(entry.body, dict):
            continue
        request = parse_request(host.api, entry.path, entry.body)
        if request.tool_names and not request.compacting:
            found.append(json.dumps(entry.body, ensure_ascii=False))
    return found


def logged(host: Host) -> int:
    return len(host.fake.requests)


HOSTS = ["claude", "codex", "gemini"]


@pytest.fixture(params=HOSTS)
def host(
    request: pytest.FixtureRequest,
    real_cli: Callable[[str], Path],
    fake_model: FakeModel,
    isolated_home: Path,
    host_project: Path,
) -> Host:
    return make_host(request.param, real_cli, fake_model, isolated_home, host_project)


def test_a_completed_handoff_reaches_the_first_request_of_the_next_session_only(
    host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftguard.cli import main

    host.fake.set_plan([say("The importer reads the CSV header first."), say("Done.")])
    first = host.run("How does the importer read a file?")
    host.run("Go on.", first)
    assert main(["handoff", "--write", "--project", str(host.project)]) == 0
    capsys.readouterr()
    handoff = host.project / ".driftguard" / "handoff.md"
    handoff.write_text(f"## What we accomplished\n- {HANDOFF_MARKER}\n", encoding="utf-8")

    before = logged(host)
    host.run("Let us continue.")  # a new session in the project
    requests = main_requests(host, before)
    assert requests, "the next session sent no request"
    assert HANDOFF_MARKER in requests[0]

    before = logged(host)
    host.run("Another new session.")
    assert all(HANDOFF_MARKER not in text for text in main_requests(host, before))


def _failing(host: Host, times: int) -> Callable[[ModelRequest], Reply | None]:
    """A model that runs ``npm test`` (failing: the project has no package.json) ``times``
    times in its second turn, then says so; Gemini CLI's own detector stops it at 4."""
    tool, args = {
        "claude": ("Bash", {"command": "npm test", "description": "Run the tests"}),
        "codex": ("exec_command", {"cmd": "npm test"}),
        "gemini": ("run_shell_command", {"command": "npm test"}),
    }[host.name]

    def plan(request: ModelRequest) -> Reply | None:
        if request.user_turn != 2:
            return say(f"Answer to prompt {request.user_turn}.")
        if len(request.turn_calls) < times:
            return call_tool(tool, args, repeat=True)
        return say("The tests still fail.")

    return plan


def test_a_failing_command_loop_puts_the_notice_in_the_next_prompts_request_once(
    host: Host,
) -> None:
    host.fake.set_plan(_failing(host, 5))
    session = host.run("What does the project do?")
    host.run("Run the tests until they pass.", session)
    before = logged(host)
    host.run("What now?", session)
    after_loop = main_requests(host, before)
    assert after_loop
    assert after_loop[0].count(LOOP_NOTICE) == 1
    before = logged(host)
    host.run("And now?", session)
    later = main_requests(host, before)
    assert later
    assert later[0].count(LOOP_NOTICE) <= 1  # the history may hold it; never a second copy


def _reminder_in(text: str) -> str:
    """The reinjected block in a request's text (JSON-escaped newlines included)."""
    found = re.search(re.escape(REMINDER) + r".*?read a file again before you edit it", text)
    assert found is not None, "no reminder of what the compaction dropped in the request"
    return found.group(0)


def test_after_a_compaction_the_next_request_holds_the_dropped_rule_not_the_kept_one(
    host: Host,
) -> None:
    host.fake.summary_note = f"The user asked: {KEPT_RULE}"
    if host.name == "claude":
        host.fake.set_plan([say("I will add the flag."), say("Added."), say("Tested.")])
        session = host.run(RULES_PROMPT)
        for prompt in ("Add it now.", "Test it."):  # /compact wants more than one turn
            host.run(prompt, session)
        host.run("/compact", session)
    elif host.name == "codex":
        # Codex carries the latest 20,000 tokens of the user's own messages over a
        # compaction (codex-rs compact.rs, COMPACT_USER_MESSAGE_MAX_TOKENS): three long
        # logs pasted after the rules push them out. The fourth turn reports 180,000
        # tokens, past the 170,000 limit: Codex compacts before the next turn and runs
        # SessionStart with source compact
        replies = [say("I will add the flag.", input_tokens=20_000)]
        replies += [say("Read the log.", input_tokens=40_000 * n) for n in (1, 2)]
        replies += [say("Read the last log.", input_tokens=180_000), say("Next step.")]
        host.fake.set_plan(replies)
        session = host.run(RULES_PROMPT)
        log = "".join(f"step {n}: ok\n" for n in range(3_000))  # about 30,000 characters
        for n in range(3):
            host.run(f"Here is build log {n}:\n{log}", session)
    else:
        settings = host.home / ".gemini" / "settings.json"
        value = json.loads(settings.read_text(encoding="utf-8"))
        value["model"] = {"compressionThreshold": 0.16}
        settings.write_text(json.dumps(value), encoding="utf-8")
        (host.project / "a.txt").write_text("x", encoding="utf-8")
        plan: list[Reply] = [say("I will add the flag.", input_tokens=20_000)]
        plan += [say(f"Step {i} done.", input_tokens=20_000) for i in range(2, 5)]
        plan += [call_tool("list_directory", {"dir_path": "."}, input_tokens=185_000)]
        host.fake.set_plan(plan)
        session = host.run(RULES_PROMPT)
        for turn in range(2, 6):
            host.run(f"Go on with step {turn}.", session)
    before = logged(host)
    host.run("Carry on.", session)
    reminded = [text for text in main_requests(host, before) if REMINDER in text]
    assert reminded, "no request after the compaction held what it dropped"
    block = _reminder_in(reminded[0])
    assert DROPPED_RULE in block
    assert KEPT_RULE not in block
