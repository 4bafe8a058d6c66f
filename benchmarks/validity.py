"""Validity benchmark: does the drift score tell failed agent runs from successful ones?

Usage::

    python benchmarks/validity.py [--validation DIR] [--more DIR] [--preset NAME]
                                  [--resamples 2000] [--sets D1,D2,D3,T1,T2,T3] [--json FILE]

Scores every labelled run of ``../shared/validation/`` (``dev-sessions.tar.gz`` unpacked
into a temporary folder, ``dev-labels.csv``; see that folder's README for what each label
means and what it cannot show: sets D1–D3) and of ``benchmarks/data/``
(``more-sessions.tar.gz``, ``more-labels.csv``; ``benchmarks/data/PROVENANCE.md``: sets
T1–T3, τ²-bench) with the product's own engine — :func:`driftguard.adapters.
parse_session`, then :func:`driftguard.engine.drift.drift` exactly as ``driftguard score`` runs
it, in a temporary home so no user config or history applies — passing each set's
context window as ``driftguard score --context-window`` would. It prints per set:

- AUC (Mann–Whitney: P(score of a failed run > score of a successful run), ties counted
  half) of the unrounded composite without a goal (``driftguard score``) and with the
  ``goal`` column (``get_drift(goal=…)``, the goal cut to 20,000 characters), of every
  factor, and of the length baselines (total characters, assistant turns, tokens in
  context), each with a 95 % percentile bootstrap interval over 2,000 resamples of tasks
  (``random.Random(12345)``; D1 has one run per task, so that resamples runs);
- within-task AUC where a task has several runs: only (failed, successful) pairs from the
  same task count, and its bootstrap resamples tasks;
- false alarms (successful runs with a score ≥ 61, Drifting or above) and hits (failed
  runs ≥ 61), the same at 30 (Warming) and for the handoff suggestion, and the state
  counts.

It is a benchmark, not a unit test: it skips with a reason (exit 0) where the validation
folder is absent. ``benchmarks/VALIDITY.md`` says how its output chose the default scoring;
``docs/evidence.md`` quotes it, and the README's "What the score tells you" sums it up.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import statistics
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VALIDATION = ROOT.parent / "shared" / "validation"
DEFAULT_MORE = ROOT / "benchmarks" / "data"
"""The labelled runs kept in the project (T1–T3): ``benchmarks/data/PROVENANCE.md``."""
V2_SETS = ("D1", "D2", "D3")
"""The sets rules v1 and v2 of ``benchmarks/VALIDITY.md`` were run on."""
SETS = (*V2_SETS, "T1", "T2", "T3")
GOAL_CHARS = 20_000
"""Goals are cut to this many characters, as the validation README's baselines were."""
SEED = 12345
RESAMPLES = 2_000
DRIFTING = 61
WARMING = 30
FACTOR_NAMES = (
    "context_saturation",
    "repetition",
    "length_collapse",
    "goal_distance",
    "uncertainty",
    "confidence_drift",
)

csv.field_size_limit(10**8)


@dataclass(frozen=True, slots=True)
class Run:
    """One labelled run: its transcript and the columns of ``dev-labels.csv``."""

    set: str
    run_id: str
    task_id: str
    failed: bool
    context_window: int
    goal: str
    n_assistant: int
    total_chars: int
    path: Path
    model: str = ""


@dataclass(slots=True)
class Scored:
    """One run's figures: the signals whose AUC is reported, and its integer score."""

    run: Run
    score: int
    state: str
    score_goal: int
    state_goal: str
    handoff: bool = False
    handoff_goal: bool = False
    signals: dict[str, float] = field(default_factory=dict)


def read_runs(validation: Path, into: Path, more: Path | None = DEFAULT_MORE) -> list[Run]:
    """Unpack the DEV transcripts (``validation``) and the project's own labelled runs
    (``more``, where it holds them; ``None``: DEV only) into ``into`` and read their labels.

    Raises:
        FileNotFoundError: the DEV tarball or labels file is missing.
    """
    runs = _read_pair(validation / "dev-sessions.tar.gz", validation / "dev-labels.csv", into)
    if more is not None and (more / "more-labels.csv").is_file():
        runs += _read_pair(more / "more-sessions.tar.gz", more / "more-labels.csv", into)
    return runs


def _read_pair(tarball: Path, labels: Path, into: Path) -> list[Run]:
    with tarfile.open(tarball) as tar:
        tar.extractall(into, filter="data")
    runs = []
    with labels.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            runs.append(
                Run(
                    set=row["set"],
                    run_id=row["run_id"],
                    task_id=row["task_id"],
                    failed=row["failed"] == "1",
                    context_window=int(row["context_window"]),
                    goal=row["goal"],
                    n_assistant=int(row["n_assistant"]),
                    total_chars=int(row["total_chars"]),
                    path=into / row["set"] / f"{row['run_id']}.jsonl",
                    model=row.get("model", ""),
                )
            )
    return runs


HOST_VARIABLES = ("CLAUDE_", "GEMINI_", "CODEX_", "DISABLE_")
"""Prefixes of the environment variables that move a host's compaction point or its home:
cleared while scoring, so the figures never depend on the shell they were run from."""


@contextmanager
def isolated_home() -> Iterator[Path]:
    """A temporary ``HOME`` and ``DRIFTGUARD_HOME``, and none of the hosts' variables: no
    user config, history, goal or compaction override applies."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="driftguard-validity-") as tmp:
        home = Path(tmp)
        for name in [n for n in os.environ if n.startswith(HOST_VARIABLES)]:
            del os.environ[name]
        os.environ["HOME"] = str(home)
        os.environ["DRIFTGUARD_HOME"] = str(home / ".driftcli")
        try:
            yield home
        finally:
            os.environ.clear()
            os.environ.update(saved)


def score_runs(runs: Sequence[Run], *, preset: str | None, home: Path) -> list[Scored]:
    """Score every run with the engine, without and with its goal (nothing recorded)."""
    from driftguard.adapters import parse_session
    from driftguard.engine.drift import drift
    from driftguard.store.history import HistoryStore

    store = HistoryStore(home / "history")
    out = []
    for run in runs:
        session = parse_session(run.path, "claude_code")
        plain = drift(
            session,
            project=None,
            store=store,
            preset=preset,
            context_window=run.context_window,
            record=False,
        ).report
        with_goal = drift(
            session,
            project=None,
            store=store,
            preset=preset,
            goal=run.goal[:GOAL_CHARS],
            context_window=run.context_window,
            record=False,
        ).report
        signals: dict[str, float] = {
            "composite (no goal, as `driftguard score`)": plain.composite,
            "composite with goal = task text": with_goal.composite,
        }
        for name in FACTOR_NAMES:
            value = (with_goal if name == "goal_distance" else plain).factors.get(name)
            label = "factor: goal_distance (goal = task text)" if name == "goal_distance" else None
            signals[label or f"factor: {name}"] = float(value or 0.0)
        signals["baseline: total chars"] = float(run.total_chars)
        signals["baseline: assistant turns"] = float(run.n_assistant)
        signals["baseline: tokens in context"] = float(session.context_tokens)
        out.append(
            Scored(
                run=run,
                score=plain.score,
                state=plain.state,
                score_goal=with_goal.score,
                state_goal=with_goal.state,
                handoff=plain.handoff_suggested,
                handoff_goal=with_goal.handoff_suggested,
                signals=signals,
            )
        )
    return out


# --- statistics ------------------------------------------------------------------------


def auc(failed: Sequence[float], succeeded: Sequence[float]) -> float:
    """P(failed > succeeded) + ½ P(equal) over all pairs (Mann–Whitney U / n₁n₀).

    Returns NaN when either group is empty.
    """
    if not len(failed) or not len(succeeded):
        return float("nan")
    pos = np.asarray(failed, dtype=float)
    neg = np.sort(np.asarray(succeeded, dtype=float))
    below = np.searchsorted(neg, pos, side="left")
    not_above = np.searchsorted(neg, pos, side="right")
    wins = below.sum() + 0.5 * (not_above - below).sum()
    return float(wins / (len(pos) * len(neg)))


def _pair_counts(values: Sequence[float], labels: Sequence[bool]) -> tuple[float, int]:
    """(wins + ½ ties, pairs) of the failed-vs-successful pairs within one task."""
    pos = [v for v, failed in zip(values, labels, strict=True) if failed]
    neg = [v for v, failed in zip(values, labels, strict=True) if not failed]
    if not pos or not neg:
        return 0.0, 0
    return auc(pos, neg) * len(pos) * len(neg), len(pos) * len(neg)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic with its 95 % bootstrap interval (NaN where undefined)."""

    value: float
    low: float
    high: float
    pairs: int = 0

    def text(self) -> str:
        if self.value != self.value:  # NaN
            return "–"
        core = f"{self.value:.3f} [{self.low:.2f}, {self.high:.2f}]"
        return f"{core} ({self.pairs})" if self.pairs else core


def _percentiles(samples: list[float]) -> tuple[float, float]:
    clean = sorted(s for s in samples if s == s)
    if not clean:
        return float("nan"), float("nan")
    low, high = np.percentile(clean, [2.5, 97.5])
    return float(low), float(high)


def pooled_auc(
    values: Sequence[float], labels: Sequence[bool], tasks: Sequence[str], resamples: int
) -> Estimate:
    """AUC over all runs, with a bootstrap that resamples tasks (all runs of a task go)."""
    by_task: dict[str, list[int]] = defaultdict(list)
    for index, task in enumerate(tasks):
        by_task[task].append(index)
    names = sorted(by_task)
    v = np.asarray(values, dtype=float)
    y = np.asarray(labels, dtype=bool)
    point = auc(v[y], v[~y])
    rng = random.Random(SEED)
    samples = []
    for _ in range(resamples):
        picked = [i for name in rng.choices(names, k=len(names)) for i in by_task[name]]
        vv, yy = v[picked], y[picked]
        samples.append(auc(vv[yy], vv[~yy]))
    return Estimate(point, *_percentiles(samples))


def within_task_auc(
    values: Sequence[float], labels: Sequence[bool], tasks: Sequence[str], resamples: int
) -> Estimate:
    """AUC over (failed, successful) pairs of the same task; bootstrap over such tasks."""
    groups: dict[str, tuple[list[float], list[bool]]] = defaultdict(lambda: ([], []))
    for value, label, task in zip(values, labels, tasks, strict=True):
        groups[task][0].append(value)
        groups[task][1].append(label)
    counts = {task: _pair_counts(vs, ls) for task, (vs, ls) in groups.items()}
    paired = sorted(task for task, (_, n) in counts.items() if n)
    if not paired:
        return Estimate(float("nan"), float("nan"), float("nan"))
    total_pairs = sum(counts[t][1] for t in paired)
    point = sum(counts[t][0] for t in paired) / total_pairs
    rng = random.Random(SEED)
    samples = []
    for _ in range(resamples):
        picked = rng.choices(paired, k=len(paired))
        samples.append(sum(counts[t][0] for t in picked) / sum(counts[t][1] for t in picked))
    return Estimate(point, *_percentiles(samples), pairs=total_pairs)


# --- the report ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetResult:
    """Everything printed for one set (also the ``--json`` output)."""

    name: str
    runs: int
    failed: int
    tasks: int
    pooled: Mapping[str, Estimate]
    within: Mapping[str, Estimate]
    medians: Mapping[str, tuple[float, float]]
    thresholds: Mapping[int, tuple[int, int, int, int]]
    thresholds_goal: Mapping[int, tuple[int, int, int, int]]
    handoffs: tuple[int, int, int, int]
    handoffs_goal: tuple[int, int, int, int]
    states: Mapping[str, tuple[int, int]]
    score_median: float
    score_max: int


def evaluate(scored: Sequence[Scored], name: str, resamples: int) -> SetResult:
    """The figures of one set from its scored runs."""
    labels = [s.run.failed for s in scored]
    tasks = [s.run.task_id for s in scored]
    several = len(set(tasks)) < len(tasks)
    pooled: dict[str, Estimate] = {}
    within: dict[str, Estimate] = {}
    medians: dict[str, tuple[float, float]] = {}
    for signal in scored[0].signals:
        values = [s.signals[signal] for s in scored]
        pooled[signal] = pooled_auc(values, labels, tasks, resamples)
        if several:
            within[signal] = within_task_auc(values, labels, tasks, resamples)
        medians[signal] = (
            statistics.median(v for v, f in zip(values, labels, strict=True) if f),
            statistics.median(v for v, f in zip(values, labels, strict=True) if not f),
        )

    def rates(pick: Callable[[Scored], int]) -> dict[int, tuple[int, int, int, int]]:
        ok = [pick(s) for s in scored if not s.run.failed]
        bad = [pick(s) for s in scored if s.run.failed]
        return {
            cut: (sum(v >= cut for v in ok), len(ok), sum(v >= cut for v in bad), len(bad))
            for cut in (DRIFTING, WARMING)
        }

    def handoffs(pick: Callable[[Scored], bool]) -> tuple[int, int, int, int]:
        ok = [pick(s) for s in scored if not s.run.failed]
        bad = [pick(s) for s in scored if s.run.failed]
        return sum(ok), len(ok), sum(bad), len(bad)

    states: dict[str, tuple[int, int]] = {}
    for state in ("fresh", "warming", "drifting", "polluted"):
        states[state] = (
            sum(1 for s in scored if s.state == state and not s.run.failed),
            sum(1 for s in scored if s.state == state and s.run.failed),
        )
    scores = [s.score for s in scored]
    return SetResult(
        name=name,
        runs=len(scored),
        failed=sum(labels),
        tasks=len(set(tasks)),
        pooled=pooled,
        within=within,
        medians=medians,
        thresholds=rates(lambda s: s.score),
        thresholds_goal=rates(lambda s: s.score_goal),
        handoffs=handoffs(lambda s: s.handoff),
        handoffs_goal=handoffs(lambda s: s.handoff_goal),
        states=states,
        score_median=statistics.median(scores),
        score_max=max(scores),
    )


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else "–"


def _num(value: float) -> str:
    return f"{value:.4g}"


def render(result: SetResult) -> str:
    """One set's figures as Markdown (what ``docs/evidence.md`` quotes)."""
    lines = [
        f"#### {result.name}: {result.runs} runs, {result.failed} failed, {result.tasks} tasks",
        "",
    ]
    if result.within:
        lines += [
            "| signal | AUC [95% CI] | within-task AUC [95% CI] (pairs) "
            "| median failed / successful |",
            "|---|---|---|---|",
        ]
    else:
        lines += ["| signal | AUC [95% CI] | median failed / successful |", "|---|---|---|"]
    for signal, estimate in result.pooled.items():
        failed, ok = result.medians[signal]
        cells = [signal, estimate.text()]
        if result.within:
            cells.append(result.within[signal].text())
        cells.append(f"{_num(failed)} / {_num(ok)}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "| threshold | false alarms (successful runs at or above) | hits (failed runs at or above) "
        "| with goal: false alarms / hits |",
        "|---|---|---|---|",
    ]
    for cut in (DRIFTING, WARMING):
        fa, ok, hit, bad = result.thresholds[cut]
        gfa, _, ghit, _ = result.thresholds_goal[cut]
        lines.append(
            f"| score ≥ {cut} | {_pct(fa, ok)} | {_pct(hit, bad)} "
            f"| {100 * gfa / ok if ok else 0:.1f}% / {100 * ghit / bad if bad else 0:.1f}% |"
        )
    fa, ok, hit, bad = result.handoffs
    gfa, _, ghit, _ = result.handoffs_goal
    lines.append(
        f"| handoff suggested | {_pct(fa, ok)} | {_pct(hit, bad)} "
        f"| {100 * gfa / ok if ok else 0:.1f}% / {100 * ghit / bad if bad else 0:.1f}% |"
    )
    lines += [
        "",
        "States (successful / failed): "
        + ", ".join(f"{state} {ok} / {bad}" for state, (ok, bad) in result.states.items())
        + f". Score median {result.score_median:g}, max {result.score_max}.",
        "",
    ]
    return "\n".join(lines)


COMPOSITE = "composite (no goal, as `driftguard score`)"
"""The signal that is the score (unrounded), as every table names it."""


def summary(results: Sequence[SetResult]) -> str:
    """The one-table summary of every set."""
    composite = COMPOSITE
    lines = [
        "| set (runs / failed) | composite AUC | within-task | total chars AUC | within-task "
        "| score ≥ 61 FA / hits | score ≥ 30 FA / hits |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        within = r.within.get(composite)
        chars_within = r.within.get("baseline: total chars")
        cells = [
            f"{r.name} ({r.runs} / {r.failed})",
            r.pooled[composite].text(),
            within.text() if within else "–",
            r.pooled["baseline: total chars"].text(),
            chars_within.text() if chars_within else "–",
        ]
        for cut in (DRIFTING, WARMING):
            fa, ok, hit, bad = r.thresholds[cut]
            cells.append(f"{100 * fa / ok:.1f}% / {100 * hit / bad:.1f}%")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _jsonable(result: SetResult) -> dict[str, Any]:
    def est(e: Estimate) -> dict[str, float | int]:
        return {"value": e.value, "low": e.low, "high": e.high, "pairs": e.pairs}

    return {
        "set": result.name,
        "runs": result.runs,
        "failed": result.failed,
        "tasks": result.tasks,
        "auc": {k: est(v) for k, v in result.pooled.items()},
        "within_task_auc": {k: est(v) for k, v in result.within.items()},
        "thresholds": {str(k): list(v) for k, v in result.thresholds.items()},
        "thresholds_with_goal": {str(k): list(v) for k, v in result.thresholds_goal.items()},
        "handoff_suggested": list(result.handoffs),
        "handoff_suggested_with_goal": list(result.handoffs_goal),
        "states": {k: list(v) for k, v in result.states.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validation", type=Path, default=DEFAULT_VALIDATION)
    parser.add_argument(
        "--more", type=Path, default=DEFAULT_MORE, help="the project's labelled runs (T1–T3)"
    )
    parser.add_argument("--preset", default=None, help="score with this preset (default: config)")
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--no-oof",
        action="store_true",
        help="skip rule v3's out-of-fold estimates and calibration (benchmarks/oof.py)",
    )
    args = parser.parse_args(argv)
    if not (args.validation / "dev-labels.csv").is_file():
        print(f"skipped: no labelled runs at {args.validation} (dev-labels.csv missing)")
        return 0
    wanted = [name for name in args.sets.split(",") if name]
    started = time.perf_counter()
    with isolated_home() as home:
        runs = [r for r in read_runs(args.validation, home / "runs", args.more) if r.set in wanted]
        scored = score_runs(runs, preset=args.preset, home=home)
    scored_at = time.perf_counter()
    from driftguard.config import load_config

    with isolated_home():
        preset = load_config(None, preset=args.preset).preset
    print(f"driftguard validity benchmark — preset {preset!r}, {len(runs)} runs")
    print(f"(scored in {scored_at - started:.1f} s)\n")
    results = []
    for name in wanted:
        subset = [s for s in scored if s.run.set == name]
        if subset:
            results.append(evaluate(subset, name, args.resamples))
    print(summary(results))
    print()
    for result in results:
        print(render(result))
    print(f"(in-sample total {time.perf_counter() - started:.1f} s)\n")
    if not args.no_oof and args.preset != "seed" and set(wanted) == set(SETS):
        import oof  # the rule v3 benchmark next to this file

        shipped = {f"{s.run.run_id}@{s.run.set}": (s.signals[COMPOSITE], s.score) for s in scored}
        with isolated_home() as home:
            items = oof.load(args.validation, args.more, home)
        oof.run(items, resamples=args.resamples, shipped=shipped)
    if args.json:
        args.json.write_text(
            json.dumps({"preset": preset, "sets": [_jsonable(r) for r in results]}, indent=1)
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
