#!/usr/bin/env python3
"""Rebuild the additional labelled validation sets as Claude Code session JSONL plus a labels CSV.

Standard library only (``git`` on PATH is needed only to read a bare repository).

Usage::

    python3 convert_more.py --out OUT [--tar OUT/more-sessions.tar.gz] \
        --tau-bench  PATH    # sierra-research/tau-bench: a checkout of 59a200c6…, or its bare git dir
        --tau2-bench PATH    # sierra-research/tau2-bench: a checkout of 59d0fb96…, or its bare git dir
        [--sets R1,R2,T1,T2,T3] [--dev-half] [--allow-missing]

    python3 convert_more.py --check-d2 /work/shared/validation --tau-bench PATH

Writes ``OUT/<set>/<run id>.jsonl`` (one Claude Code session per run), ``OUT/more-labels.csv``
(the columns of ``dev-labels.csv``) and, with ``--tar``, a gzip -9 tarball of the session folders
(paths ``<set>/<run id>.jsonl``, mtime 0, owner root, mode 0644).

Sets (see PROVENANCE.md for counts, licences and what each label can and cannot show)
  R1  tau-bench retail, GPT-4o, 115 tasks x 4 trials            historical_trajectories/gpt-4o-retail.json
  R2  tau-bench retail, Claude 3.5 Sonnet (new), 115 x 8 trials  historical_trajectories/sonnet-35-new-retail.json
  T1  tau2-bench retail (test split, 40 tasks), GPT-4.1 and its tau2 SFT, 1 trial each
  T2  tau2-bench telecom (test split, 40 tasks), same two models, the user simulator acts on its phone
  T3  tau2-bench telecom without a user ("no-user", solo agent), same 40 tasks and two models
  Label everywhere: failed = 1 when the run's reward is below 1 (tau-bench's and tau2's reward is 0 or 1).

Every source file is pinned by repository, commit, path, its git blob id (the id git records in the
commit's tree; checked whenever the file is read) and its sha256.  A file whose bytes do not match
is refused.  R1 and R2 are converted exactly as ``convert.py`` converts D2 (same message mapping,
goal = the first two user turns, window 128,000, run id ``<task>-<trial>``); ``--check-d2``
proves it by rebuilding D2's DEV half from ``gpt-4o-airline.json`` with this file's code and
comparing it byte for byte with the shared ``dev-sessions.tar.gz`` and ``dev-labels.csv``.

tau2 mapping (T1-T3), the same idea as D2's:
- the agent's own turns are assistant lines: the reply text, one ``tool_use`` per tool call with
  tau2's function name and arguments, and ``usage.input_tokens`` = the prompt tokens tau2 recorded
  for that call (real counts, as D1);
- results of the agent's tool calls are ``tool_result`` user lines; ``is_error`` is tau2's own
  ``error`` flag of that result (the only departure from convert.py, whose sources record none);
- the simulated user's text turns are plain user lines.  In telecom the user also calls tools on
  its own (simulated) phone; those calls and their results are never shown to the agent and are
  left out;
- tau2's fixed opening line "Hi! How can I help you today?" (written by the orchestrator, not the
  model) is left out, so a session starts with the user's first turn, as D2's do;
- T3 has no user: the agent gets a ticket inside its system prompt.  The ticket is written as the
  first (plain) user line, the way D1/D3 keep the instance prompt and drop the system prompt.
- Goal: T1/T2 the first two user turns (as D2); T3 the ticket.  Window 1,000,000 (GPT-4.1's
  window is 1,047,576 tokens), so sessions are written with the model name the Claude Code
  adapter maps to a 1,000,000-token window, as D1.

Blinding: ``reward``, ``reward_info``, ``info``, ``termination_reason``, costs, the task's user
scenario and evaluation criteria are never written into a session.

Split: by default every run is converted (these sets have no set-aside half; the project keeps
other sources aside).  ``--dev-half`` applies convert.py's D2/D3 rule to each set instead
(tasks sorted by sha256 of the task id; the first floor(n/2) are kept), with R1 and R2, and T2
and T3, split on the same task ids.
"""
from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import pathlib
import re
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

TAU_REPO = "sierra-research/tau-bench"
TAU_COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b"
TAU2_REPO = "sierra-research/tau2-bench"
TAU2_COMMIT = "59d0fb96f4292815e1f6463fb2f139ffef47dc7f"   # branch feature/gym, "pushing results", 2025-08-01
TAU2_RESULTS = "src/experiments/model_training/results/"

LARGE_MODEL = "claude-opus-4-7"               # the Claude Code adapter maps this name to a 1,000,000-token window
PLAIN_MODEL = "claude-sonnet-4-5-20250929"    # default 200 k window; score with the context_window column
COLUMNS = ["set", "run_id", "task_id", "failed", "label_kind", "context_window", "goal", "model",
           "n_assistant", "total_chars"]
TAU2_GREETING = "Hi! How can I help you today?"
SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")

Msg = dict[str, Any]
"""A normalised message: role (user/assistant/tool), text, action, prompt_tokens, and optionally
calls (list of {id, name, args as JSON text}) and is_error."""


@dataclass(frozen=True, slots=True)
class Source:
    """One pinned source file."""

    set: str
    repo: str
    commit: str
    path: str
    blob: str            # git blob id of the file in that commit's tree (sha1 of "blob <size>\\0" + bytes)
    sha256: str | None   # sha256 of the bytes; None where it could not be computed here (see PROVENANCE.md)
    model: str           # the agent model, as written in the labels' model column
    short: str           # run-id prefix (tau2 sets, which hold two models)


@dataclass(slots=True)
class Run:
    """One labelled run, normalised."""

    set: str
    rid: str
    task: str
    failed: int
    kind: str
    goal: str
    model: str
    window: int
    msgs: list[Msg]


SFT = "ft:gpt-4.1-2025-04-14:sierra:tau2-full-sft:BzrYdMNm"
SOURCES: tuple[Source, ...] = (
    Source("R1", TAU_REPO, TAU_COMMIT, "historical_trajectories/gpt-4o-retail.json",
           "27f588d9157513c3ad11de3db9e824021152d580",
           "df01707894836168ff0ec9616b0bf08f66c7e5afcf313e5fe4f7a2f5c2ec938b", "gpt-4o", ""),
    Source("R2", TAU_REPO, TAU_COMMIT, "historical_trajectories/sonnet-35-new-retail.json",
           "f2296500688950bac6c54578752ef134961aee06",
           "0df526398e9d2720c32d340815cffb04fe8c4f8a61b1f4f84bf3bb558f760131", "claude-3-5-sonnet-20241022", ""),
    Source("T1", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + "gpt-4.1_retail_defautl_gpt-4.1_1trials.json",
           "94ad2a06173deb347d193fb6cf6024f59f06eaa1",
           "ae6720f50b64e0e28a3fda014fed084066bebf62011fd1d1c0efd2e4d2ab0b76", "gpt-4.1", "gpt-4.1"),
    Source("T1", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + SFT + "_retail_default_gpt-4.1_1trials.json",
           "022b3ed1797b77d8c55da2c2e8f5e7193fdebe8d",
           "48b4bbebab0c9ce2a2e8d2195fe76b2386f5a075130d6637fae8079876db9870", SFT, "gpt-4.1-sft"),
    Source("T2", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + "gpt-4.1_telecom_default_gpt-4.1_1trials.json",
           "e27af7ee0d5be4500d6b7e1fc9190bec32ece299",
           "72fa1a9c3488e6338c41a1fee98fe6aa48827ce195e14df354385dd6ac6285fa", "gpt-4.1", "gpt-4.1"),
    Source("T2", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + SFT + "_telecom_default_gpt-4.1_1trials.json",
           "71a5c4787e1d29656ffa97fcc4e9f3836f4979b1",
           "fa6844eb0ed665cd106dfe14e5885e7b0e0fc13fa633494e80ed3be65f5b4ad5", SFT, "gpt-4.1-sft"),
    Source("T3", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + "gpt-4.1_telecom_no-user_gpt-4.1_1trials.json",
           "e93263f9b580fc4c91b36fa9742459a60c0f139a",
           "a72859d0bf7fffc46a55a92098aa720a02e3eabf423e82160634fc1b37bbc57c", "gpt-4.1", "gpt-4.1"),
    Source("T3", TAU2_REPO, TAU2_COMMIT, TAU2_RESULTS + SFT + "_telecom_no-user_gpt-4.1_1trials.json",
           "6448b3c02e14c9a49041eb853d288d1b56b0df46",
           "95c19b91eab101e12bd432cf1763049dadb45966516d14291bd1395581662d71", SFT, "gpt-4.1-sft"),
)
D2_SOURCE = Source("D2", TAU_REPO, TAU_COMMIT, "historical_trajectories/gpt-4o-airline.json",
                   "a5f0d91569e740b949b37a181993b3f1822a86f4",
                   "e9e6c0297660c537f83d4fd9c476ce7a9a86ecd2784874b7bfc13be598e37bfa", "gpt-4o", "")
SPLIT_GROUPS = {"R1": "R", "R2": "R", "T1": "T1", "T2": "T23", "T3": "T23"}
"""Sets whose tasks are the same split together under --dev-half."""


class MissingSource(Exception):
    """A pinned file is not in the given checkout or git directory."""


# --------------------------------------------------------------------------- reading pinned files
def git_blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_source(root: pathlib.Path, src: Source) -> bytes:
    """The bytes of ``src`` from a checkout (``root/<path>``) or a bare git directory (``root``
    holding ``HEAD`` and ``objects/``), checked against the pinned blob id and sha256.

    Raises:
        MissingSource: the file (or, in a git directory, that commit's copy of it) is absent.
        ValueError: the bytes are not the pinned ones.
    """
    file = root / src.path
    if file.is_file():
        data = file.read_bytes()
    elif (root / "HEAD").is_file() and (root / "objects").is_dir():
        spec = f"{src.commit}:{src.path}"
        found = subprocess.run(["git", "--git-dir", str(root), "rev-parse", "--verify", "--quiet", spec],
                               capture_output=True, text=True)
        if found.returncode != 0:
            raise MissingSource(f"{src.repo}@{src.commit[:8]}:{src.path} is not in {root}")
        if found.stdout.strip() != src.blob:
            raise ValueError(f"{spec}: the tree names blob {found.stdout.strip()}, pinned {src.blob}")
        got = subprocess.run(["git", "--git-dir", str(root), "cat-file", "blob", src.blob], capture_output=True)
        if got.returncode != 0:
            raise MissingSource(f"{src.path}: blob {src.blob} is named by the tree but absent from {root} "
                                f"({got.stderr.decode(errors='replace').strip()})")
        data = got.stdout
    else:
        raise MissingSource(f"{src.path} is not under {root}")
    if git_blob_id(data) != src.blob:
        raise ValueError(f"{src.path}: git blob id {git_blob_id(data)}, pinned {src.blob} (wrong commit checked out?)")
    digest = hashlib.sha256(data).hexdigest()
    if src.sha256 is not None and digest != src.sha256:
        raise ValueError(f"{src.path}: sha256 {digest}, pinned {src.sha256}")
    return data


# --------------------------------------------------------------------------- loaders
def _txt(content: Any) -> str:
    return content if isinstance(content, str) else ("" if content is None else json.dumps(content))


def _safe(task: str) -> str:
    """A task id usable in a file name: itself if short and plain, else 'h' + 12 hex of its sha256."""
    return task if SAFE_ID.fullmatch(task) else "h" + hashlib.sha256(task.encode("utf-8")).hexdigest()[:12]


def load_tau(data: bytes, set_name: str, model: str,
             keep_task: Callable[[str], bool] | None = None) -> Iterator[Run]:
    """tau-bench (v1) results: the mapping of convert.py's D2, unchanged.

    ``keep_task(task_id)`` (optional) picks the tasks to convert before a run is touched."""
    for e in json.loads(data):
        task = str(e["task_id"])
        if keep_task is not None and not keep_task(task):
            continue
        msgs: list[Msg] = []
        for m in e["traj"]:
            role = m["role"]
            if role == "system":
                continue
            if role == "assistant":
                calls = m.get("tool_calls") or []
                msgs.append(dict(role="assistant", text=_txt(m.get("content")), prompt_tokens=None,
                                 action=" | ".join(c["function"]["name"] + " " + c["function"]["arguments"] for c in calls),
                                 calls=[dict(id=c.get("id") or f"call{i}", name=c["function"]["name"],
                                             args=c["function"]["arguments"]) for i, c in enumerate(calls)]))
            elif role == "tool":
                msgs.append(dict(role="tool", text=_txt(m.get("content")), action="", prompt_tokens=None))
            else:
                msgs.append(dict(role="user", text=_txt(m.get("content")), action="", prompt_tokens=None))
        users = [m["text"] for m in msgs if m["role"] == "user"]
        yield Run(set=set_name, rid=f'{e["task_id"]}-{e["trial"]}', task=task, failed=int(e["reward"] < 1),
                  kind="reward", goal="\n".join(users[:2]), model=model, window=128_000, msgs=msgs)


def _tau2_reward(info: Any) -> float:
    """tau2 stores reward_info as a dict (or, in some files, its Python repr)."""
    if isinstance(info, str):
        info = ast.literal_eval(info)
    return float(info["reward"])


def load_tau2(data: bytes, src: Source) -> Iterator[Run]:
    """tau2-bench results (``{"info", "tasks", "simulations"}``), as the agent saw them."""
    doc = json.loads(data)
    tasks = {t["id"]: t for t in doc["tasks"]}
    solo = doc["info"]["agent_info"]["implementation"] == "llm_agent_solo"
    assert doc["info"]["agent_info"]["llm"] == src.model, (doc["info"]["agent_info"]["llm"], src.model)
    for sim in doc["simulations"]:
        task_id = str(sim["task_id"])
        msgs: list[Msg] = []
        if solo:    # the agent's ticket (from its system prompt) is the session's prompt
            msgs.append(dict(role="user", text=tasks[task_id]["ticket"], action="", prompt_tokens=None))
        for i, m in enumerate(sim["messages"]):
            role, calls = m["role"], m.get("tool_calls") or []
            if role == "assistant":
                if i == 0 and not calls and m.get("content") == TAU2_GREETING:
                    continue
                usage = m.get("usage") or {}
                msgs.append(dict(role="assistant", text=_txt(m.get("content")), action="",
                                 prompt_tokens=usage.get("prompt_tokens") or None,
                                 calls=[dict(id=c.get("id") or f"call{j}", name=c["name"],
                                             args=json.dumps(c["arguments"])) for j, c in enumerate(calls)]))
            elif role == "tool":
                if m.get("requestor", "assistant") != "assistant":
                    continue            # the simulated user's own phone tools: not seen by the agent
                msgs.append(dict(role="tool", text=_txt(m.get("content")), action="", prompt_tokens=None,
                                 is_error=bool(m.get("error"))))
            elif role == "user":
                if m.get("content"):    # a user turn that only calls the user's own tools is not seen
                    msgs.append(dict(role="user", text=_txt(m["content"]), action="", prompt_tokens=None))
            else:
                raise ValueError(f"{src.path}: unknown role {role!r}")
        users = [m["text"] for m in msgs if m["role"] == "user"]
        goal = tasks[task_id]["ticket"] if solo else "\n".join(users[:2])
        yield Run(set=src.set, rid=f"{src.short}__{_safe(task_id)}-{sim['trial']}", task=task_id,
                  failed=int(_tau2_reward(sim["reward_info"]) < 1), kind="reward", goal=goal,
                  model=src.model, window=1_000_000, msgs=msgs)


# --------------------------------------------------------------------------- Claude Code format
def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_claude(run: Run) -> list[dict[str, Any]]:
    """One Claude Code JSONL record per message, as convert.py writes them.

    Assistant: a ``text`` block with the reply, then one ``tool_use`` block per call (or a Bash
    call for a bare ``action``); ``usage.input_tokens`` only where the source recorded prompt
    tokens.  Tool results answer the oldest pending ``tool_use`` of the latest assistant turn.
    Ids, timestamps (one second apart), cwd and version are synthetic."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    sid = "00000000-0000-4000-8000-" + f"{int(_h(run.set + '/' + run.rid), 16) % 10**12:012d}"
    model = LARGE_MODEL if run.window >= 1_000_000 else PLAIN_MODEL
    pending: list[str] = []
    for i, m in enumerate(run.msgs):
        t = i + 1
        uid = f"00000000-0000-4000-9000-{i:012d}"
        base = {"uuid": uid, "parentUuid": parent, "sessionId": sid, "cwd": "/testbed", "version": "2.1.114",
                "isSidechain": False, "userType": "external",
                "timestamp": f"2026-01-01T{(t // 3600) % 24:02d}:{(t // 60) % 60:02d}:{t % 60:02d}.000Z"}
        if m["role"] == "assistant":
            blocks: list[dict[str, Any]] = []
            if m["text"].strip():
                blocks.append({"type": "text", "text": m["text"]})
            pending = []
            calls = m.get("calls") or ([{"id": f"toolu_{i}", "name": "Bash", "args": json.dumps({"command": m["action"]})}]
                                       if m["action"] else [])
            for j, c in enumerate(calls):
                tid = f"toolu_{i}_{j}"
                try:
                    inp = json.loads(c["args"])
                except ValueError:
                    inp = {"raw": c["args"]}
                blocks.append({"type": "tool_use", "id": tid, "name": c["name"],
                               "input": inp if isinstance(inp, dict) else {"value": inp}})
                pending.append(tid)
            msg: dict[str, Any] = {"id": f"msg_{i}", "type": "message", "role": "assistant", "model": model,
                                   "content": blocks}
            if m.get("prompt_tokens"):
                msg["usage"] = {"input_tokens": int(m["prompt_tokens"]), "cache_creation_input_tokens": 0,
                                "cache_read_input_tokens": 0, "output_tokens": 1}
            lines.append(dict(base, type="assistant", requestId=f"req_{i}", message=msg))
        elif m["role"] == "tool":
            tid = pending.pop(0) if pending else f"toolu_orphan_{i}"
            lines.append(dict(base, type="user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": m["text"],
                 "is_error": bool(m.get("is_error", False))}]}))
        else:
            lines.append(dict(base, type="user", message={"role": "user", "content": m["text"]}))
        parent = uid
    return lines


def jsonl(run: Run) -> bytes:
    return "".join(json.dumps(x) + "\n" for x in to_claude(run)).encode("utf-8")


def label_row(run: Run) -> dict[str, Any]:
    return dict(set=run.set, run_id=run.rid, task_id=run.task, failed=run.failed, label_kind=run.kind,
                context_window=run.window, goal=run.goal, model=run.model,
                n_assistant=sum(1 for m in run.msgs if m["role"] == "assistant"),
                total_chars=sum(len(m["text"]) for m in run.msgs))


def hash_half(tasks: Iterable[str]) -> set[str]:
    """convert.py's DEV rule: the first floor(n/2) distinct task ids in sha256 order."""
    order = sorted(set(tasks), key=lambda t: (_h(t), t))
    return set(order[: len(order) // 2])


# --------------------------------------------------------------------------- building
def build(roots: dict[str, pathlib.Path | None], want: set[str], *, dev_half: bool,
          allow_missing: bool) -> list[Run]:
    """Every run of the wanted sets, in source order."""
    runs: list[Run] = []
    for src in SOURCES:
        if src.set not in want:
            continue
        root = roots[src.repo]
        if root is None:
            raise SystemExit(f"{src.set} needs {src.repo}: pass its checkout or git dir")
        try:
            data = read_source(root, src)
        except MissingSource as err:
            if not allow_missing:
                raise SystemExit(f"{src.set}: {err}") from None
            print(f"{src.set}: skipped, {err}", file=sys.stderr)
            continue
        loaded = load_tau(data, src.set, src.model) if src.repo == TAU_REPO else load_tau2(data, src)
        runs.extend(loaded)
    ids = [(r.set, r.rid) for r in runs]
    assert len(ids) == len(set(ids)), "duplicate run ids"
    if dev_half:
        groups: dict[str, set[str]] = {}
        for r in runs:
            groups.setdefault(SPLIT_GROUPS[r.set], set()).add(r.task)
        dev = {g: hash_half(tasks) for g, tasks in groups.items()}
        runs = [r for r in runs if r.task in dev[SPLIT_GROUPS[r.set]]]
    return runs


def write(runs: list[Run], out: pathlib.Path, tar: pathlib.Path | None) -> None:
    written: list[pathlib.Path] = []
    for r in runs:
        (out / r.set).mkdir(parents=True, exist_ok=True)
        p = out / r.set / f"{r.rid}.jsonl"
        p.write_bytes(jsonl(r))
        written.append(p)
    with open(out / "more-labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        for r in runs:
            w.writerow(label_row(r))
    if tar is not None:
        with tarfile.open(tar, "w:gz", compresslevel=9) as tf:
            for p in sorted(written):
                ti = tf.gettarinfo(str(p), arcname=str(p.relative_to(out)))
                ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname, ti.mode = 0, 0, 0, "", "", 0o644
                with open(p, "rb") as fh:
                    tf.addfile(ti, fh)


def summary(runs: list[Run]) -> str:
    out = []
    for name in sorted({r.set for r in runs}):
        rs = [r for r in runs if r.set == name]
        models = sorted({r.model for r in rs})
        per_model = ", ".join(f"{m} {sum(1 for r in rs if r.model == m)} ({sum(r.failed for r in rs if r.model == m)} failed)"
                              for m in models)
        out.append(f"{name}: {len(rs)} runs, {sum(r.failed for r in rs)} failed, {len({r.task for r in rs})} tasks; {per_model}")
    return "\n".join(out)


def check_d2(shared: pathlib.Path, tau_root: pathlib.Path) -> int:
    """Rebuild D2's DEV half with this file's code and compare it with the shared copy, byte for byte.

    Only the DEV tasks are converted (the others are skipped by task id before their runs are read)."""
    data = read_source(tau_root, D2_SOURCE)
    dev = hash_half(str(e["task_id"]) for e in json.loads(data))
    runs = list(load_tau(data, "D2", "gpt-4o", keep_task=dev.__contains__))
    with tarfile.open(shared / "dev-sessions.tar.gz") as tf:
        theirs: dict[str, bytes] = {}
        for member in tf.getmembers():
            member_file = tf.extractfile(member) if member.name.startswith("D2/") else None
            if member_file is not None:
                theirs[member.name] = member_file.read()
    ours = {f"D2/{r.rid}.jsonl": jsonl(r) for r in runs}
    csv.field_size_limit(10**8)
    with open(shared / "dev-labels.csv", encoding="utf-8", newline="") as fh:
        their_rows = [r for r in csv.DictReader(fh) if r["set"] == "D2"]
    our_rows = [{k: str(v) for k, v in label_row(r).items()} for r in runs]
    same_files = ours == theirs
    same_rows = sorted(our_rows, key=lambda r: r["run_id"]) == sorted(their_rows, key=lambda r: r["run_id"])
    print(f"D2 DEV rebuilt: {len(ours)} sessions, shared copy {len(theirs)}; "
          f"sessions identical: {same_files}; label rows identical: {same_rows}")
    return 0 if same_files and same_rows else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=pathlib.Path)
    ap.add_argument("--tar", type=pathlib.Path, help="also pack the session folders into this .tar.gz")
    ap.add_argument("--tau-bench", type=pathlib.Path, help=f"{TAU_REPO} checkout at {TAU_COMMIT[:8]}, or its git dir")
    ap.add_argument("--tau2-bench", type=pathlib.Path, help=f"{TAU2_REPO} checkout at {TAU2_COMMIT[:8]}, or its git dir")
    ap.add_argument("--sets", default="R1,R2,T1,T2,T3")
    ap.add_argument("--dev-half", action="store_true", help="keep only convert.py's DEV half of each set's tasks")
    ap.add_argument("--allow-missing", action="store_true", help="skip a set whose source file is absent")
    ap.add_argument("--check-d2", type=pathlib.Path, metavar="SHARED_VALIDATION_DIR",
                    help="rebuild D2 DEV from gpt-4o-airline.json and compare with the shared copy")
    a = ap.parse_args(argv)
    if a.check_d2:
        if a.tau_bench is None:
            ap.error("--check-d2 needs --tau-bench")
        return check_d2(a.check_d2, a.tau_bench)
    if a.out is None:
        ap.error("--out is required")
    roots = {TAU_REPO: a.tau_bench, TAU2_REPO: a.tau2_bench}
    runs = build(roots, set(a.sets.split(",")), dev_half=a.dev_half, allow_missing=a.allow_missing)
    a.out.mkdir(parents=True, exist_ok=True)
    write(runs, a.out, a.tar)
    print(summary(runs), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
