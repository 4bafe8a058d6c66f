"""Write the Gemini CLI 0.61.0 session of tests/fixtures/gemini/real-0.61/ by running the
real CLI against the fake model (tests/e2e/fake_model.py) on 127.0.0.1.

Usage (the pinned CLI installed by ``.ci/run`` under ``.ci/node``, or
``DRIFTGUARD_E2E_NODE_PREFIX`` naming its npm prefix; ``npm`` on ``PATH``)::

    python scripts/make_gemini_fixture.py tests/fixtures/gemini/real-0.61

Five prompts, each a ``gemini -p … -o json`` run (the second on with ``--resume``), in a
private temporary HOME whose project folder is ``$HOME/proj``: a passing ``ls -la``, a
``write_file``, a plain answer, a failing ``ls /nonexistent``, then ``npm test`` in the
folder without a ``package.json``, which the fake calls again and again until Gemini
CLI's own loop detector stops it (19-seams §2.7: four run, the fifth is refused, one
recovery turn, then the run stops). The session file Gemini CLI wrote is copied into the
given folder as ``.gemini/tmp/proj/chats/<its name>``, with the temporary HOME rewritten
to ``/home/user``; nothing else is changed (``projectHash`` stays the sha256 of the
temporary project path). The CLI's exit codes and warnings are printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from fake_model import FakeModel, Reply, call_tool, say  # noqa: E402

PINNED = "0.61.0"
ANONYMOUS_HOME = "/home/user"
CLI_TIMEOUT = 180.0
"""Seconds one CLI run may take."""

PROMPTS = (
    "What is in this folder?",
    "Write a README.md that says this is a tiny Node project.",
    "Sum up what you have done so far.",
    "Is the data folder /nonexistent there?",
    "Run the tests.",
)


def plan(project: Path) -> list[Reply]:
    """One scripted reply per prompt (the fake quotes each tool result back as text)."""
    return [
        call_tool("run_shell_command", {"command": "ls -la", "description": "List the folder."}),
        call_tool(
            "write_file",
            {
                "file_path": str(project / "README.md"),
                "content": "# demo\n\nA tiny Node project.\n",
            },
        ),
        say("I listed the folder (it was empty) and wrote README.md; nothing is tested yet."),
        call_tool(
            "run_shell_command",
            {"command": "ls /nonexistent", "description": "Look for the data folder."},
        ),
        call_tool(
            "run_shell_command",
            {"command": "npm test", "description": "Run the test suite."},
            repeat=True,
        ),
    ]


def gemini_binary() -> Path:
    """The pinned ``gemini``; exits with a message when it is missing or another version."""
    prefix = os.environ.get("DRIFTGUARD_E2E_NODE_PREFIX", "").strip() or str(ROOT / ".ci" / "node")
    binary = Path(prefix) / "node_modules" / ".bin" / "gemini"
    if not binary.exists():
        sys.exit(f"no gemini at {binary}: run .ci/run, or npm install --prefix .ci/node")
    with tempfile.TemporaryDirectory() as home:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            env={"PATH": os.environ["PATH"], "HOME": home},
            timeout=60,
            check=False,
        )
    if done.stdout.strip() != PINNED:
        sys.exit(f"gemini {done.stdout.strip()} at {binary}; the fixture is of {PINNED}")
    return binary


def configure(home: Path, project: Path) -> Path:
    """API-key auth, no usage statistics, the project trusted; the policy file that lets
    the shell and write_file run headless."""
    folder = home / ".gemini"
    folder.mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
    }
    (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    trusted = {str(project): "TRUST_FOLDER"}
    (folder / "trustedFolders.json").write_text(json.dumps(trusted), encoding="utf-8")
    policy = home / "policy.toml"
    rules = [
        f'[[rule]]\ntoolName = "{tool}"\ndecision = "allow"\npriority = 200\n'
        for tool in ("run_shell_command", "write_file")
    ]
    policy.write_text("\n".join(rules), encoding="utf-8")
    return policy


def run(argv: list[str], project: Path, env: dict[str, str]) -> dict[str, object]:
    """One CLI run in its own process group; its JSON output."""
    done = subprocess.run(
        argv,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        check=False,
    )
    print(f"rc {done.returncode}: {argv[2]!r}", file=sys.stderr)
    try:
        result = json.loads(done.stdout)
    except ValueError:
        sys.exit(f"no JSON from gemini:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    if result.get("warnings"):
        print(f"  warnings: {result['warnings']}", file=sys.stderr)
    return dict(result)


def main(target: Path) -> None:
    gemini = gemini_binary()
    with tempfile.TemporaryDirectory(prefix="gemini-fixture-") as scratch:
        home = Path(scratch).resolve() / "home"
        project = home / "proj"
        project.mkdir(parents=True)
        policy = configure(home, project)
        with FakeModel(plan(project)) as fake:
            env = {
                "PATH": os.environ["PATH"],
                "HOME": str(home),
                "LANG": "C.UTF-8",
                "TZ": "UTC",
                "GEMINI_API_KEY": "dummy",
                "GOOGLE_GEMINI_BASE_URL": fake.url,
                "NO_COLOR": "1",
                "NPM_CONFIG_UPDATE_NOTIFIER": "false",
            }
            session_id: str | None = None
            for prompt in PROMPTS:
                argv = [str(gemini), "-p", prompt, "-o", "json", "--policy", str(policy)]
                if session_id is not None:
                    argv += ["--resume", session_id]
                result = run(argv, project, env)
                session_id = session_id or str(result["session_id"])
        assert session_id is not None
        chats = sorted((home / ".gemini" / "tmp").glob(f"*/chats/session-*-{session_id[:8]}.jsonl"))
        written = max(chats, key=lambda path: path.stat().st_size)  # a resume writes a stub too
        text = written.read_text(encoding="utf-8").replace(str(home), ANONYMOUS_HOME)
        out = target / ".gemini" / "tmp" / written.parent.parent.name / "chats" / written.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
