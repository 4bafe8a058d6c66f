"""Rule v3 of ``benchmarks/VALIDITY.md`` (§7): out-of-fold estimates of the whole procedure
that chooses the default scoring, the test of the signals nearer the outcome, and calibration
on each deployment's own runs.

Usage: ``python benchmarks/oof.py [--validation DIR] [--more DIR] [--resamples 2000]``
(``benchmarks/validity.py`` runs it too, after its in-sample figures).

What it does, in the order §7 fixed:

1. **Folds** (§7.1): D1 by repository group, one a fold; every other set by task, tasks
   sorted by sha256 and dealt to 5 folds (T2 and T3, which share their tasks, together).
2. **The fit** of a training part: the screen (§1, 500 task-bootstrap resamples), the
   scales at q ∈ {90, 95, 97.5, 99} (§2), the form chosen leaving the scored set's source
   out, then q with that form. Each run is scored by the fit of the other folds.
3. **Figures**: per set, out-of-fold AUC, within-task AUC, false alarms and hits at 61, with
   95 % task-bootstrap intervals (``numpy.random.default_rng(12345)``), beside the in-sample
   figures of the same procedure fitted on every run (what ships).
4. **Signals** (§7.2): the procedure rerun with each candidate; kept or not by the paired
   bootstrap of the difference.
5. **Personal calibration** (§7.3): N, then cold against calibrated per deployment.

Every measure is the engine's own (:func:`driftguard.scoring.calibrated.measure`,
:mod:`driftguard.scoring.signals`, :mod:`driftguard.scoring.personal`).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import validity  # noqa: E402  (the benchmark next to this file)

K = 5
QS = (90.0, 95.0, 97.5, 99.0)
FORMS = (("A", (1.0, 2.0, 4.0, 8.0, math.inf)), ("B", (1.0, 2.0, 4.0)))
DRIFT_AT = 61
MAX_FA = 0.10
MIN_HITS = 0.20
TIE = 0.01
SCREEN_RESAMPLES = 500
NOISE = {"D1": 0.05}
"""Differences the validation README calls noise (0.10 on the smaller sets)."""
D1_GROUPS = (("django",), ("matplotlib",), ("astropy",), ("pydata",), ("psf", "mwaskom", "pallets"))
"""D1's repository groups, one a fold (rule v3 §7.1), in fold order."""
SOURCE = {"D1": "D1", "D2": "D2", "D3": "D3", "T1": "T1", "T2": "T2+T3", "T3": "T2+T3"}
"""The sources a form is chosen without (T2 and T3 share their tasks)."""
SIGNAL_HOME = {
    "since_test": "uncertainty",
    "failing_tests": "uncertainty",
    "undone": "uncertainty",
    "reread": "repetition",
    "refusals": "uncertainty",
}
"""Which factor each §7.2 candidate joins, as one more part of its maximum."""
N_CHOICES = (10, 20, 30)
DRAWS = 20
LINE = 90.0


@dataclass(slots=True)
class Item:
    """One run with everything the rule reads."""

    run: validity.Run
    measures: Any  # driftguard.scoring.calibrated.Measures (no goal)
    context_tokens: int
    usable: int
    signals: Any  # driftguard.scoring.signals.Signals
    samples: list[Any]  # driftguard.scoring.personal.Sample
    fold: int = 0
    deployment: str = ""

    @property
    def set(self) -> str:
        return self.run.set

    @property
    def failed(self) -> bool:
        return self.run.failed


def _repo(run_id: str) -> str:
    return run_id.split("__", 1)[0]


def _short_model(model: str) -> str:
    return "gpt-4.1-sft" if model.startswith("ft:") else model


def load(validation: Path, more: Path | None, home: Path) -> list[Item]:
    """Parse and measure every run (without a goal), with its fold and deployment."""
    from driftguard.adapters import parse_session
    from driftguard.engine.window import usable_window
    from driftguard.scoring.calibrated import measure
    from driftguard.scoring.features import Features
    from driftguard.scoring.personal import samples_of
    from driftguard.scoring.signals import signals_of

    items = []
    for run in validity.read_runs(validation, home / "runs", more):
        session = parse_session(run.path, "claude_code")
        usable = usable_window("claude_code", run.context_window, window_from_file=False).tokens
        features = Features.of(session.messages)
        items.append(
            Item(
                run=run,
                measures=measure(session, None, definitions=(), features=features),
                context_tokens=session.context_tokens,
                usable=usable,
                signals=signals_of(features.steps, session.messages),
                samples=samples_of(session, usable),
            )
        )
    _assign(items)
    return items


def _assign(items: Sequence[Item]) -> None:
    """Folds and deployments (rule v3 §7.1, §7.3)."""
    group_of = {repo: i for i, group in enumerate(D1_GROUPS) for repo in group}
    keys: dict[str, list[str]] = defaultdict(list)
    for item in items:
        if item.set != "D1":
            pool = "T2+T3" if item.set in ("T2", "T3") else item.set
            if item.run.task_id not in keys[pool]:
                keys[pool].append(item.run.task_id)
    fold_of: dict[tuple[str, str], int] = {}
    for pool, tasks in keys.items():
        ordered = sorted(tasks, key=lambda t: hashlib.sha256(t.encode("utf-8")).hexdigest())
        for index, task in enumerate(ordered):
            fold_of[(pool, task)] = index % K
    for item in items:
        if item.set == "D1":
            repo = _repo(item.run.run_id)
            item.fold = group_of[repo]
            item.deployment = "D1 " + "+".join(D1_GROUPS[group_of[repo]])
        else:
            pool = "T2+T3" if item.set in ("T2", "T3") else item.set
            item.fold = fold_of[(pool, item.run.task_id)]
            item.deployment = f"{item.set} {_short_model(item.run.model)}"


# --- statistics ----------------------------------------------------------------------


def _wins(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """The failed × successful matrix: 1 where the failed run scores higher, ½ on a tie."""
    return (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])


@dataclass(frozen=True, slots=True)
class Boot:
    """The resampling plan of one set: task multiplicities, drawn once and shared by every
    signal scored on the set (so differences are paired)."""

    tasks: np.ndarray  # task index of each run
    counts: np.ndarray  # resamples × tasks
    paired_counts: np.ndarray  # resamples × paired tasks
    paired: np.ndarray  # the task indices with a failed and a successful run


def boot_plan(items: Sequence[Item], resamples: int, seed: int = validity.SEED) -> Boot:
    names = sorted({i.run.task_id for i in items})
    index = {n: k for k, n in enumerate(names)}
    tasks = np.array([index[i.run.task_id] for i in items])
    labels = np.array([i.failed for i in items])
    paired = np.array(
        [k for k in range(len(names)) if labels[tasks == k].any() and (~labels[tasks == k]).any()],
        dtype=int,
    )
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(names), [1 / len(names)] * len(names), size=resamples)
    if len(paired):
        paired_counts = rng.multinomial(len(paired), [1 / len(paired)] * len(paired), resamples)
    else:
        paired_counts = np.zeros((resamples, 0))
    return Boot(tasks, counts, paired_counts, paired)


@dataclass(frozen=True, slots=True)
class AUCs:
    """Pooled and within-task AUC, point and bootstrap samples (NaN where undefined)."""

    pooled: float
    pooled_samples: np.ndarray
    within: float
    within_samples: np.ndarray
    pairs: int

    def interval(self, within: bool = False) -> tuple[float, float]:
        samples = self.within_samples if within else self.pooled_samples
        clean = samples[~np.isnan(samples)]
        if not len(clean):
            return float("nan"), float("nan")
        low, high = np.percentile(clean, [2.5, 97.5])
        return float(low), float(high)


def aucs(values: Sequence[float], labels: Sequence[bool], plan: Boot | None) -> AUCs:
    """Pooled AUC (tasks resampled, all runs of a picked task go) and within-task AUC
    (pairs of one task; paired tasks resampled), as ``validity.pooled_auc`` and
    ``validity.within_task_auc`` define them."""
    v = np.asarray(values, dtype=float)
    y = np.asarray(labels, dtype=bool)
    if not y.any() or y.all():
        nan = np.full(1, np.nan)
        return AUCs(float("nan"), nan, float("nan"), nan, 0)
    wins = _wins(v[y], v[~y])
    pooled = float(wins.mean())
    within = float("nan")
    pairs = 0
    pooled_samples = within_samples = np.full(1, np.nan)
    if plan is not None:
        mult = plan.counts[:, plan.tasks]  # resamples × runs
        m1, m0 = mult[:, y], mult[:, ~y]
        numerator = ((m1 @ wins) * m0).sum(1)
        denominator = m1.sum(1) * m0.sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled_samples = numerator / denominator
        if len(plan.paired):
            t1, t0 = plan.tasks[y], plan.tasks[~y]
            same = t1[:, None] == t0[None, :]
            task_wins = np.array([(wins * same)[t1 == t][:, t0 == t].sum() for t in plan.paired])
            task_pairs = np.array([(t1 == t).sum() * (t0 == t).sum() for t in plan.paired])
            pairs = int(task_pairs.sum())
            within = float(task_wins.sum() / pairs)
            with np.errstate(invalid="ignore", divide="ignore"):
                within_samples = (plan.paired_counts @ task_wins) / (
                    plan.paired_counts @ task_pairs
                )
    return AUCs(pooled, pooled_samples, within, within_samples, pairs)


def rate_interval(hit: Sequence[bool], plan: Boot) -> tuple[float, float]:
    """95 % task-bootstrap interval of the share of ``hit`` among the runs given."""
    h = np.asarray(hit, dtype=float)
    mult = plan.counts[:, plan.tasks]
    with np.errstate(invalid="ignore", divide="ignore"):
        samples = (mult * h).sum(1) / mult.sum(1)
    clean = samples[~np.isnan(samples)]
    low, high = np.percentile(clean, [2.5, 97.5])
    return float(low), float(high)


# --- the fit -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fit:
    """One fitted scoring: weights, whether loops count, constants, extra signal scales."""

    weights: Mapping[str, float]
    loops: bool
    calibration: Any  # driftguard.scoring.calibrated.Calibration
    extra: Mapping[str, float] = field(default_factory=dict)


def _by_set(items: Sequence[Item]) -> dict[str, list[Item]]:
    out: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        out[item.set].append(item)
    return dict(out)


RAW: dict[str, Callable[[Item], float]] = {
    "repetition": lambda i: i.measures.overlap,
    "action loops": lambda i: i.measures.loop.points if i.measures.loop else 0.0,
    "length_collapse": lambda i: -i.measures.slope,
    "uncertainty": lambda i: float(i.measures.corrections),
    "confidence_drift": lambda i: i.measures.hedge_rise,
}


def _signal(name: str) -> Callable[[Item], float]:
    return lambda i: float(getattr(i.signals, name))


def screen(items: Sequence[Item], extra: Sequence[str], resamples: int) -> dict[str, bool]:
    """§1's test on ``items``: which raw measures carry signal (with the candidates)."""
    raw = {**RAW, **{name: _signal(name) for name in extra}}
    found: dict[str, bool] = {}
    for name, value in raw.items():
        some = inverted = False
        for subset in _by_set(items).values():
            plan = boot_plan(subset, resamples)
            a = aucs([value(i) for i in subset], [i.failed for i in subset], plan)
            low, high = a.interval()
            wlow = a.interval(within=True)[0] if a.pairs else float("nan")
            some = some or low > 0.5 or wlow > 0.5
            inverted = inverted or high < 0.5
        found[name] = some and not inverted
    return found


def scales(items: Sequence[Item], q: float, extra: Sequence[str]) -> tuple[Any, dict[str, float]]:
    """§2: every constant the q-th percentile over successful runs, per set, the largest."""
    from driftguard.scoring.calibrated import G0, Calibration

    def top(value: Callable[[Item], float]) -> float:
        best = -math.inf
        for subset in _by_set(items).values():
            values = [value(i) for i in subset if not i.failed]
            if values:
                best = max(best, float(np.percentile(values, q)))
        return best

    g61 = top(lambda i: float(i.measures.conversation_tokens))
    g61 = max(2 * G0, math.ceil(g61 / 1000) * 1000)
    overlap = top(lambda i: i.measures.overlap)
    slope = top(lambda i: -i.measures.slope)
    corrections = top(lambda i: float(i.measures.corrections))
    hedge = top(lambda i: i.measures.hedge_rise)
    cal = Calibration(
        g61=float(g61),
        overlap61=overlap if overlap > 0 else 61 / 180,
        slope61=slope if slope > 0 else 61 / 0.4,
        corrections61=corrections if corrections > 0 else None,
        hedge61=hedge if hedge > 0 else 61 / 20,
        drift61=None,
        form="A",
        power=1.0,
        handoff_points=None,
    )
    more = {name: top(_signal(name)) for name in extra}
    return cal, {name: at for name, at in more.items() if at > 0}


def points(item: Item, fit: Fit, calibration: Any = None) -> dict[str, float | None]:
    """The factors' points of a run under ``fit`` (``calibration`` replaces its constants)."""
    from driftguard.scoring.calibrated import factor_points, linear_points

    cal = calibration if calibration is not None else fit.calibration
    measures = item.measures if fit.loops else replace(item.measures, loop=None)
    values = factor_points(
        measures, context_tokens=item.context_tokens, usable_window=item.usable, calibration=cal
    )
    for name, at61 in fit.extra.items():
        home = SIGNAL_HOME[name]
        part = linear_points(float(getattr(item.signals, name)), at61)
        values[home] = max(values[home] or 0.0, part)
    return values


def composite(item: Item, fit: Fit) -> float:
    from driftguard.scoring.means import combine

    cal = fit.calibration
    return combine(fit.weights, points(item, fit), cal.form, cal.power)


def score_of(value: float) -> int:
    return min(100, max(0, math.floor(value + 0.5)))


@dataclass(frozen=True, slots=True)
class SetFigures:
    auc: float
    within: float
    fa: float
    hits: float


def figures(items: Sequence[Item], values: Sequence[float]) -> dict[str, SetFigures]:
    """Point figures per set of ``values`` (composites, aligned with ``items``)."""
    out = {}
    grouped: dict[str, list[tuple[Item, float]]] = defaultdict(list)
    for item, value in zip(items, values, strict=True):
        grouped[item.set].append((item, value))
    for name, pairs in grouped.items():
        labels = [i.failed for i, _ in pairs]
        vs = [v for _, v in pairs]
        a = aucs(vs, labels, None)
        within = _within_point([i.run.task_id for i, _ in pairs], labels, vs)
        ok = [score_of(v) >= DRIFT_AT for i, v in pairs if not i.failed]
        bad = [score_of(v) >= DRIFT_AT for i, v in pairs if i.failed]
        out[name] = SetFigures(
            a.pooled,
            within,
            sum(ok) / len(ok) if ok else 0.0,
            sum(bad) / len(bad) if bad else 0.0,
        )
    return out


def _within_point(tasks: Sequence[str], labels: Sequence[bool], values: Sequence[float]) -> float:
    groups: dict[str, list[tuple[bool, float]]] = defaultdict(list)
    for task, label, value in zip(tasks, labels, values, strict=True):
        groups[task].append((label, value))
    wins = pairs = 0.0
    for rows in groups.values():
        pos = np.array([v for f, v in rows if f])
        neg = np.array([v for f, v in rows if not f])
        if len(pos) and len(neg):
            wins += float(_wins(pos, neg).sum())
            pairs += len(pos) * len(neg)
    return wins / pairs if pairs else float("nan")


def musts(figs: Mapping[str, SetFigures]) -> list[bool]:
    """The calibration's musts (rule v3 §7.1) on the sets present."""
    out = []
    if "D1" in figs:
        out += [figs["D1"].auc >= 0.70, figs["D1"].hits >= MIN_HITS]
    if "D3" in figs:
        out += [figs["D3"].within >= 0.70, figs["D3"].hits >= MIN_HITS]
    out += [f.fa <= MAX_FA for f in figs.values()]
    return out


def choose(
    candidates: Sequence[tuple[tuple[float, str, float], Mapping[str, SetFigures]]],
) -> tuple[float, str, float]:
    """§7.1's choice among ``((q, form, p), figures)``."""

    def met(figs: Mapping[str, SetFigures]) -> int:
        return sum(musts(figs))

    def merit(figs: Mapping[str, SetFigures]) -> float:
        hit = [figs[s].hits for s in ("D1", "D3") if s in figs]
        if hit:
            return float(np.mean(hit))
        return -max(f.fa for f in figs.values())

    most = max(met(f) for _, f in candidates)
    pool = [(k, f) for k, f in candidates if met(f) == most]
    best = max(merit(f) for _, f in pool)
    tied = [k for k, f in pool if merit(f) >= best - TIE]
    return sorted(tied, key=lambda k: (k[1], k[2], -k[0]))[0]


@dataclass(slots=True)
class Prepared:
    """A training part's screen and the scales at every q."""

    weights: dict[str, float]
    loops: bool
    cals: dict[float, tuple[Any, dict[str, float]]]


def prepare(items: Sequence[Item], extra: Sequence[str], resamples: int) -> Prepared:
    """Steps 1–2 of the fit on ``items``."""
    from driftguard.model import FACTOR_NAMES
    from driftguard.scoring.calibrated import linear_points

    carries = screen(items, extra, resamples)
    on = {
        "context_saturation": True,
        "repetition": carries["repetition"] or carries["action loops"],
        "length_collapse": carries["length_collapse"],
        "goal_distance": False,
        "uncertainty": carries["uncertainty"],
        "confidence_drift": carries["confidence_drift"],
    }
    for name in extra:
        on[SIGNAL_HOME[name]] = on[SIGNAL_HOME[name]] or carries[name]
    active = [n for n in FACTOR_NAMES if on[n]]
    weights = {n: (1 / len(active) if on[n] else 0.0) for n in FACTOR_NAMES}
    weights["goal_distance"] = 0.0
    cals = {q: scales(items, q, extra) for q in QS}
    # §1: action loops stay unless they lower repetition's AUC on a set by more than noise
    hurt = False
    for cal, _ in cals.values():
        for name, subset in _by_set(items).items():
            labels = [i.failed for i in subset]
            tasks = [i.run.task_id for i in subset]
            text = [linear_points(i.measures.overlap, cal.overlap61) for i in subset]
            loops = [max(t, RAW["action loops"](i)) for t, i in zip(text, subset, strict=True)]
            drop = aucs(text, labels, None).pooled - aucs(loops, labels, None).pooled
            drop_within = _within_point(tasks, labels, text) - _within_point(tasks, labels, loops)
            if max(drop, 0 if math.isnan(drop_within) else drop_within) > NOISE.get(name, 0.10):
                hurt = True
    return Prepared(weights, not hurt, cals)


def fit_for(prepared: Prepared, q: float, form: str, p: float) -> Fit:
    cal, extra = prepared.cals[q]
    return Fit(prepared.weights, prepared.loops, replace(cal, form=form, power=p), extra)


def grid(
    items: Sequence[Item], prepared: Prepared, keys: Sequence[tuple[float, str, float]]
) -> list[tuple[tuple[float, str, float], dict[str, SetFigures]]]:
    out = []
    for key in keys:
        fit = fit_for(prepared, *key)
        out.append((key, figures(items, [composite(i, fit) for i in items])))
    return out


ALL_KEYS = [(q, form, p) for q in QS for form, ps in FORMS for p in ps]


@dataclass(slots=True)
class Outcome:
    """Out-of-fold composites and the fit that made each, by run id."""

    composite: dict[str, float]
    fit: dict[str, Fit]
    forms: dict[str, tuple[str, float]]
    chosen_q: dict[tuple[int, str], float]


def out_of_fold(items: Sequence[Item], extra: Sequence[str] = (), resamples: int = 500) -> Outcome:
    """§7.1: every run scored by the procedure fitted without its fold."""
    forms: dict[str, tuple[str, float]] = {}
    for source in sorted(set(SOURCE.values())):
        others = [i for i in items if SOURCE[i.set] != source]
        prepared = prepare(others, extra, resamples)
        _, form, p = choose(grid(others, prepared, ALL_KEYS))
        forms[source] = (form, p)
    out = Outcome({}, {}, forms, {})
    for fold in range(K):
        train = [i for i in items if i.fold != fold]
        prepared = prepare(train, extra, resamples)
        for source, (form, p) in forms.items():
            held = [i for i in items if i.fold == fold and SOURCE[i.set] == source]
            if not held:
                continue
            q, _, _ = choose(grid(train, prepared, [(q, form, p) for q in QS]))
            out.chosen_q[(fold, source)] = q
            fit = fit_for(prepared, q, form, p)
            for item in held:
                out.composite[item.run.run_id + "@" + item.set] = composite(item, fit)
                out.fit[item.run.run_id + "@" + item.set] = fit
    return out


def key(item: Item) -> str:
    return item.run.run_id + "@" + item.set


def final_fit(items: Sequence[Item], resamples: int) -> tuple[Fit, tuple[float, str, float]]:
    """What ships: the procedure on every run (the form by the choice over all sets)."""
    prepared = prepare(items, (), resamples)
    chosen = choose(grid(items, prepared, ALL_KEYS))
    return fit_for(prepared, *chosen), chosen


# --- personal calibration --------------------------------------------------------------


def calibrated_composite(item: Item, fit: Fit, others: Sequence[Item], n_min: int) -> float | None:
    """The run's composite on the personal calibration of ``others`` (labels unused), or
    ``None`` when they are too few (the run then stays cold)."""
    from driftguard.scoring.means import combine
    from driftguard.scoring.personal import Reference, personal_for, remap

    reference = Reference(
        cli="claude_code",
        family=item.deployment,
        sessions=len(others),
        final_depths=tuple(o.measures.conversation_tokens for o in others),
        samples=tuple(s for o in others for s in o.samples),
    )
    personal = personal_for(
        reference,
        item.measures.conversation_tokens,
        base=fit.calibration,
        weights=fit.weights,
        n_min=n_min,
    )
    if personal is None:
        return None
    value = combine(
        fit.weights,
        points(item, fit, personal.calibration),
        personal.calibration.form,
        personal.calibration.power,
    )
    return remap(value, personal.lines)


def _deployments(items: Sequence[Item]) -> dict[str, list[Item]]:
    out: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        out[item.deployment].append(item)
    return dict(sorted(out.items()))


def choose_n(
    items: Sequence[Item], fits: Mapping[str, Fit]
) -> tuple[int, dict[int, dict[str, float]]]:
    """§7.3: the smallest N at which calibrated false alarms stay ≤ 10 % on every
    deployment with more runs than N (mean over 20 draws of N other runs)."""
    rng = np.random.default_rng(validity.SEED)
    table: dict[int, dict[str, float]] = {}
    chosen: int | None = None
    for n in N_CHOICES:
        table[n] = {}
        for name, runs in _deployments(items).items():
            if len(runs) <= n:
                continue
            ok = [r for r in runs if not r.failed]
            if not ok:
                continue
            rates = []
            for _ in range(DRAWS):
                alarms = 0
                for item in ok:
                    others = [r for r in runs if r is not item]
                    picked = [others[k] for k in rng.choice(len(others), n, replace=False)]
                    value = calibrated_composite(item, fits[key(item)], picked, n)
                    alarms += value is not None and score_of(value) >= DRIFT_AT
                rates.append(alarms / len(ok))
            table[n][name] = float(np.mean(rates))
        if chosen is None and all(v <= MAX_FA for v in table[n].values()):
            chosen = n
    return (chosen if chosen is not None else N_CHOICES[-1]), table


# --- the report -------------------------------------------------------------------------


def _fmt(
    value: float, low: float | None = None, high: float | None = None, pct: bool = False
) -> str:
    if value != value:
        return "–"
    if pct:
        core = f"{100 * value:.1f} %"
        return core if low is None else f"{core} [{100 * low:.0f}, {100 * high:.0f}]"  # type: ignore[operator]
    core = f"{value:.3f}"
    return core if low is None else f"{core} [{low:.2f}, {high:.2f}]"


def set_table(
    items: Sequence[Item],
    oof: Mapping[str, float],
    insample: Mapping[str, float],
    shipped: Mapping[str, tuple[float, int]] | None,
    resamples: int,
) -> str:
    """In-sample against out-of-fold figures per set."""
    lines = [
        "| set (runs / failed) | shipped v2 in-sample*: AUC · within · FA · hits "
        "| v3 fit on all runs, in-sample: AUC · within · FA · hits "
        "| **v3 out-of-fold**: AUC | within task | false alarms | hits |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, subset in _by_set(items).items():
        labels = [i.failed for i in subset]
        plan = boot_plan(subset, resamples)
        values = [oof[key(i)] for i in subset]
        a = aucs(values, labels, plan)
        ok = [score_of(v) >= DRIFT_AT for i, v in zip(subset, values, strict=True) if not i.failed]
        bad = [score_of(v) >= DRIFT_AT for i, v in zip(subset, values, strict=True) if i.failed]
        fa_plan = boot_plan([i for i in subset if not i.failed], resamples)
        hit_plan = boot_plan([i for i in subset if i.failed], resamples)
        fa_low, fa_high = rate_interval(ok, fa_plan)
        hit_low, hit_high = rate_interval(bad, hit_plan) if bad else (float("nan"), float("nan"))
        ins = figures(subset, [insample[key(i)] for i in subset])[name]
        cells = [f"{name} ({len(subset)} / {sum(labels)})"]
        if shipped is not None:
            sv = [shipped[key(i)][0] for i in subset]
            sf = figures(subset, sv)[name]
            ss = [shipped[key(i)][1] for i in subset]
            sfa = sum(s >= DRIFT_AT for s, i in zip(ss, subset, strict=True) if not i.failed)
            shit = sum(s >= DRIFT_AT for s, i in zip(ss, subset, strict=True) if i.failed)
            n_ok, n_bad = len(ok), len(bad)
            cells.append(
                f"{_fmt(sf.auc)} · {_fmt(sf.within)} · {_fmt(sfa / n_ok, pct=True)} · "
                f"{_fmt(shit / n_bad if n_bad else float('nan'), pct=True)}"
            )
        else:
            cells.append("–")
        cells.append(
            f"{_fmt(ins.auc)} · {_fmt(ins.within)} · {_fmt(ins.fa, pct=True)} · "
            f"{_fmt(ins.hits, pct=True)}"
        )
        low, high = a.interval()
        cells.append(_fmt(a.pooled, low, high))
        wl, wh = a.interval(within=True)
        cells.append(_fmt(a.within, wl, wh) + (f" ({a.pairs})" if a.pairs else ""))
        cells.append(_fmt(sum(ok) / len(ok), fa_low, fa_high, pct=True))
        cells.append(
            _fmt(sum(bad) / len(bad) if bad else float("nan"), hit_low, hit_high, pct=True)
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def oof_musts(items: Sequence[Item], oof: Mapping[str, float]) -> list[str]:
    figs = figures(items, [oof[key(i)] for i in items])
    out = []
    checks = [
        ("D1 AUC ≥ 0.70", figs["D1"].auc >= 0.70, f"{figs['D1'].auc:.3f}"),
        ("D3 within task ≥ 0.70", figs["D3"].within >= 0.70, f"{figs['D3'].within:.3f}"),
        *(
            (f"{s} false alarms ≤ 10 %", f.fa <= MAX_FA, f"{100 * f.fa:.1f} %")
            for s, f in figs.items()
        ),
        ("D1 hits ≥ 20 %", figs["D1"].hits >= MIN_HITS, f"{100 * figs['D1'].hits:.1f} %"),
        ("D3 hits ≥ 20 %", figs["D3"].hits >= MIN_HITS, f"{100 * figs['D3'].hits:.1f} %"),
        ("stretch D1 AUC ≥ 0.72", figs["D1"].auc >= 0.72, f"{figs['D1'].auc:.3f}"),
        ("stretch D2 within ≥ 0.55", figs["D2"].within >= 0.55, f"{figs['D2'].within:.3f}"),
        (
            "stretch hits ≥ 35 % (D1, D3)",
            figs["D1"].hits >= 0.35 and figs["D3"].hits >= 0.35,
            f"{100 * figs['D1'].hits:.1f} / {100 * figs['D3'].hits:.1f} %",
        ),
    ]
    for name, ok, value in checks:
        out.append(f"- {'met' if ok else 'MISSED'}: {name} (out of fold {value})")
    return out


def signal_test(
    items: Sequence[Item], base: Mapping[str, float], resamples: int, screen_resamples: int
) -> tuple[str, list[str]]:
    """§7.2: the procedure rerun with each candidate; the paired differences."""
    lines = [
        "| candidate | fires on: successful / failed runs (per set where any) "
        "| set: Δ AUC [95 %] · Δ within [95 %] … "
        "| musts lost | kept |",
        "|---|---|---|---|---|",
    ]
    kept = []
    base_musts = musts(figures(items, [base[key(i)] for i in items]))
    for name in SIGNAL_HOME:
        fires = (
            ", ".join(
                f"{s} {sum(1 for i in sub if not i.failed and getattr(i.signals, name) > 0)}"
                f"/{sum(1 for i in sub if not i.failed)} · "
                f"{sum(1 for i in sub if i.failed and getattr(i.signals, name) > 0)}"
                f"/{sum(1 for i in sub if i.failed)}"
                for s, sub in _by_set(items).items()
                if any(getattr(i.signals, name) > 0 for i in sub)
            )
            or "none"
        )
        outcome = out_of_fold(items, (name,), screen_resamples)
        with_it = outcome.composite
        cells = []
        up = down = False
        for set_name, subset in _by_set(items).items():
            plan = boot_plan(subset, resamples)
            labels = [i.failed for i in subset]
            a0 = aucs([base[key(i)] for i in subset], labels, plan)
            a1 = aucs([with_it[key(i)] for i in subset], labels, plan)
            d = a1.pooled_samples - a0.pooled_samples
            low, high = np.nanpercentile(d, [2.5, 97.5])
            text = f"{set_name} {a1.pooled - a0.pooled:+.3f} [{low:+.2f}, {high:+.2f}]"
            up = up or low > 0
            down = down or high < 0
            if a0.pairs:
                dw = a1.within_samples - a0.within_samples
                wl, wh = np.nanpercentile(dw, [2.5, 97.5])
                text += f" · {a1.within - a0.within:+.3f} [{wl:+.2f}, {wh:+.2f}]"
                up = up or wl > 0
                down = down or wh < 0
            cells.append(text)
        new_musts = musts(figures(items, [with_it[key(i)] for i in items]))
        lost = sum(1 for a, b in zip(base_musts, new_musts, strict=True) if a and not b)
        keep = up and not down and lost == 0 and name != "refusals"
        if keep:
            kept.append(name)
        lines.append(
            f"| {name} | {fires} | {'; '.join(cells)} | {lost} | {'yes' if keep else 'no'} |"
        )
    return "\n".join(lines), kept


def deployment_table(
    items: Sequence[Item], oof: Mapping[str, float], fits: Mapping[str, Fit], n_min: int
) -> tuple[str, list[str]]:
    """§7.3: cold against calibrated per deployment (leave one run out, labels unused)."""
    lines = [
        "| deployment | runs (failed) | cold: AUC · FA · hits | calibrated: AUC · FA · hits |",
        "|---|---|---|---|",
    ]
    notes = []
    for name, runs in _deployments(items).items():
        cold = [oof[key(r)] for r in runs]
        labels = [r.failed for r in runs]
        calibrated: list[float] = []
        applies = len(runs) - 1 >= n_min
        for item in runs:
            others = [r for r in runs if r is not item]
            value = calibrated_composite(item, fits[key(item)], others, n_min) if applies else None
            calibrated.append(value if value is not None else oof[key(item)])

        def rates(
            values: Sequence[float], labels: Sequence[bool] = labels
        ) -> tuple[float, float, float]:
            ok = [score_of(v) >= DRIFT_AT for v, f in zip(values, labels, strict=True) if not f]
            bad = [score_of(v) >= DRIFT_AT for v, f in zip(values, labels, strict=True) if f]
            return (
                aucs(values, labels, None).pooled,
                sum(ok) / len(ok) if ok else float("nan"),
                sum(bad) / len(bad) if bad else float("nan"),
            )

        c_auc, c_fa, c_hit = rates(cold)
        k_auc, k_fa, k_hit = rates(calibrated)
        cal_cell = (
            f"{_fmt(k_auc)} · {_fmt(k_fa, pct=True)} · {_fmt(k_hit, pct=True)}"
            if applies
            else f"not enough runs ({len(runs) - 1} of {n_min}): stays cold"
        )
        lines.append(
            f"| {name} | {len(runs)} ({sum(labels)}) | "
            f"{_fmt(c_auc)} · {_fmt(c_fa, pct=True)} · {_fmt(c_hit, pct=True)} | {cal_cell} |"
        )
        if applies:
            if k_fa == k_fa and k_fa > MAX_FA:
                notes.append(
                    f"- MISSED: calibrated false alarms ≤ 10 % on {name} ({100 * k_fa:.1f} %)"
                )
            if c_fa == c_fa and c_fa <= MAX_FA and k_hit == k_hit and k_hit < c_hit:
                notes.append(
                    f"- MISSED: calibrated hits ≥ cold hits on {name} "
                    f"({100 * k_hit:.1f} % < {100 * c_hit:.1f} %)"
                )
    return "\n".join(lines), notes


def run(
    items: Sequence[Item],
    *,
    resamples: int,
    shipped: Mapping[str, tuple[float, int]] | None = None,
    signals: bool = True,
    screen_resamples: int = SCREEN_RESAMPLES,
) -> None:
    """Everything rule v3 prints, in its order."""
    started = time.perf_counter()
    print("## Rule v3: out-of-fold estimates (benchmarks/VALIDITY.md §7)\n")
    folds = defaultdict(lambda: [0] * K)
    for item in items:
        folds[item.set][item.fold] += 1
    print("Folds (runs per fold): " + "; ".join(f"{s} {v}" for s, v in sorted(folds.items())))
    outcome = out_of_fold(items, (), screen_resamples)
    print(
        "Form chosen leaving each source out: "
        + ", ".join(f"without {s}: {f} p={p:g}" for s, (f, p) in outcome.forms.items())
    )
    print(
        "q chosen per (fold, source): "
        + ", ".join(f"{f}/{s} {q:g}" for (f, s), q in sorted(outcome.chosen_q.items()))
    )
    fit, chosen = final_fit(items, validity.RESAMPLES if resamples >= 1000 else resamples)
    print(
        f"\nWhat ships (the procedure on every run): q={chosen[0]:g}, form {chosen[1]}, "
        f"p={chosen[2]:g}; loops in repetition: {fit.loops}"
    )
    print(f"  weights {dict(fit.weights)}")
    print(f"  {fit.calibration}\n")
    insample = {key(i): composite(i, fit) for i in items}
    print(set_table(items, outcome.composite, insample, shipped, resamples))
    print(
        "\n*the shipped v2 default as `driftguard score` scores it: in-sample on D1–D3 (its "
        "constants were chosen on them), out of sample on T1–T3 (never used to choose it).\n"
    )
    print("Musts and stretch targets (rule v3 §7.1), out of fold:")
    print("\n".join(oof_musts(items, outcome.composite)))
    print(f"\n(out-of-fold estimates in {time.perf_counter() - started:.0f} s)\n")
    if signals:
        print("## Signals nearer to the outcome (§7.2): the procedure rerun with each\n")
        table, kept = signal_test(items, outcome.composite, resamples, screen_resamples)
        print(table)
        print(f"\nKept: {', '.join(kept) if kept else 'none'}\n")
    print("## Calibration on each deployment's own runs (§7.3)\n")
    n_min, n_table = choose_n(items, outcome.fit)
    for n, rates in n_table.items():
        worst = max(rates.values()) if rates else float("nan")
        print(
            f"N = {n}: calibrated false alarms (mean of {DRAWS} draws) on {len(rates)} "
            f"deployments, worst {100 * worst:.1f} %: "
            + ", ".join(f"{d} {100 * v:.1f} %" for d, v in rates.items())
        )
    print(f"\nN chosen: {n_min}\n")
    table, notes = deployment_table(items, outcome.composite, outcome.fit, n_min)
    print(table)
    print()
    print("\n".join(notes) if notes else "- met: every calibrated must")
    print(f"\n(rule v3 total {time.perf_counter() - started:.0f} s)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validation", type=Path, default=validity.DEFAULT_VALIDATION)
    parser.add_argument("--more", type=Path, default=validity.DEFAULT_MORE)
    parser.add_argument("--resamples", type=int, default=validity.RESAMPLES)
    parser.add_argument("--no-signals", action="store_true")
    args = parser.parse_args(argv)
    if not (args.validation / "dev-labels.csv").is_file():
        print(f"skipped: no labelled runs at {args.validation} (dev-labels.csv missing)")
        return 0
    with validity.isolated_home() as home:
        items = load(args.validation, args.more, home)
    run(items, resamples=args.resamples, signals=not args.no_signals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
