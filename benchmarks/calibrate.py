"""Apply the rule of ``benchmarks/VALIDITY.md`` to the labelled runs and print its choice.

Usage: ``python benchmarks/calibrate.py [--validation DIR] [--resamples 2000]``

Mechanical, in the order VALIDITY.md fixed before any candidate was scored:

1. **Screen**: AUC (with task-bootstrap intervals) of every raw measure on each set; which
   factors carry signal; goal distance g1 or g2.
2. **Grid**: for ``q ∈ {90, 95, 97.5, 99}`` the calibrated constants (the q-th percentile
   of each measure over the successful runs, the largest of the three sets); for the
   composite, form A with ``p ∈ {1, 2, 4, 8, ∞}`` and form B with ``p ∈ {1, 2, 4}`` (rule
   v2); each candidate's AUCs, false alarms and hits; the feasible ones; the chosen one.
   The action-loop check runs at every ``q``.
3. **Handoff** (rule v2): the score suggests it from 61, the Drifting line; ``T`` for
   saturation or repetition alone is the smallest of 61, 66, …, 96 at which the handoff
   fires on ≤ 10 % of successful runs of every set, or none.

It prints every figure it used and, last, the :class:`Calibration` and the ``coding``
weights to ship (``driftguard/scoring/calibrated.py``, ``presets/coding.toml``). The
engine's own functions compute every measure (:func:`driftguard.scoring.calibrated.measure`),
so nothing here is a second scorer. Skips with a reason where the runs are absent.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import validity  # noqa: E402  (the benchmark next to this file)

QS = (90.0, 95.0, 97.5, 99.0)
FORMS = (("A", (1.0, 2.0, 4.0, 8.0, math.inf)), ("B", (1.0, 2.0, 4.0)))
"""The composite forms of rule v2 with their exponents."""
WARN_AT = 61
"""The score from which the handoff is suggested (rule v2, change 3)."""
NOISE = {"D1": 0.05, "D2": 0.10, "D3": 0.10}
"""Differences the validation README calls noise, per set."""
MAX_FALSE_ALARMS = 0.10
MIN_HITS = 0.15
TIE = 0.01
SEED_WEIGHTS = {
    "research": {
        "context_saturation": 0.25,
        "repetition": 0.25,
        "length_collapse": 0.10,
        "goal_distance": 0.35,
        "uncertainty": 0.03,
        "confidence_drift": 0.02,
    },
    "brainstorm": {
        "context_saturation": 0.45,
        "repetition": 0.20,
        "length_collapse": 0.22,
        "goal_distance": 0.10,
        "uncertainty": 0.02,
        "confidence_drift": 0.01,
    },
}
"""docs/design.md §5.4's weights of the presets whose emphasis is kept (VALIDITY.md §3)."""


@dataclass(slots=True)
class Item:
    """One run with everything the rule reads."""

    run: validity.Run
    measures: object  # driftguard.scoring.calibrated.Measures without a goal
    measures_goal: object  # ... with the goal
    context_tokens: int
    usable: int


def load(validation: Path, home: Path) -> list[Item]:
    from driftguard.adapters import parse_session
    from driftguard.engine.window import usable_window
    from driftguard.scoring.calibrated import measure

    items = []
    # rules v1 and v2 were run on D1–D3 only: the project's later sets stay out of them
    for run in validity.read_runs(validation, home / "runs", more=None):
        session = parse_session(run.path, "claude_code")
        usable = usable_window("claude_code", run.context_window, window_from_file=False)
        items.append(
            Item(
                run=run,
                measures=measure(session, None, definitions=("g1", "g2")),
                measures_goal=measure(
                    session, run.goal[: validity.GOAL_CHARS], definitions=("g1", "g2")
                ),
                context_tokens=session.context_tokens,
                usable=usable.tokens,
            )
        )
    return items


def _sets(items: Sequence[Item]) -> dict[str, list[Item]]:
    return {name: [i for i in items if i.run.set == name] for name in validity.V2_SETS}


@dataclass(frozen=True, slots=True)
class Figures:
    """AUC estimates of one signal on one set."""

    pooled: validity.Estimate
    within: validity.Estimate | None


def figures(items: Sequence[Item], signal: Callable[[Item], float], resamples: int) -> Figures:
    values = [signal(i) for i in items]
    labels = [i.run.failed for i in items]
    tasks = [i.run.task_id for i in items]
    several = len(set(tasks)) < len(tasks)
    return Figures(
        validity.pooled_auc(values, labels, tasks, resamples),
        validity.within_task_auc(values, labels, tasks, resamples) if several else None,
    )


def carries_signal(by_set: Mapping[str, Figures]) -> bool:
    """VALIDITY.md §1: some set's pooled or within-task lower bound above 0.5, and no set's
    pooled upper bound below 0.5."""
    some = any(
        f.pooled.low > 0.5 or (f.within is not None and f.within.low > 0.5) for f in by_set.values()
    )
    inverted = any(f.pooled.high < 0.5 for f in by_set.values())
    return some and not inverted


def show(name: str, by_set: Mapping[str, Figures]) -> None:
    cells = []
    for set_name, f in by_set.items():
        within = f" within {f.within.text()}" if f.within is not None else ""
        cells.append(f"{set_name} {f.pooled.text()}{within}")
    print(f"  {name:<34} " + " · ".join(cells))


def percentile_max(items: Sequence[Item], value: Callable[[Item], float | None], q: float) -> float:
    """The largest, over the sets, q-th percentile of ``value`` over successful runs."""
    best = -math.inf
    for subset in _sets(items).values():
        values = [v for i in subset if not i.run.failed and (v := value(i)) is not None]
        if values:
            best = max(best, float(np.percentile(values, q)))
    return best


def _kept(weights: Mapping[str, float], on: Mapping[str, bool]) -> dict[str, float]:
    """``weights`` with 0 for the factors that are off, scaled to sum to 1 (4 decimals; the
    rounding remainder goes to the heaviest), so the shipped presets keep summing to 1."""
    kept = {n: (w if on[n] else 0.0) for n, w in weights.items()}
    total = sum(kept.values())
    out = {n: round(w / total, 4) for n, w in kept.items()}
    heaviest = max(out, key=lambda n: out[n])
    out[heaviest] = round(out[heaviest] + 1 - sum(out.values()), 4)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validation", type=Path, default=validity.DEFAULT_VALIDATION)
    parser.add_argument("--resamples", type=int, default=validity.RESAMPLES)
    args = parser.parse_args(argv)
    if not (args.validation / "dev-labels.csv").is_file():
        print(f"skipped: no labelled runs at {args.validation} (dev-labels.csv missing)")
        return 0

    from driftguard.model import FACTOR_NAMES
    from driftguard.scoring.calibrated import (
        DRIFTING,
        G0,
        Calibration,
        Measures,
        factor_points,
    )
    from driftguard.scoring.means import combine

    with validity.isolated_home() as home:
        items = load(args.validation, home)
    by_set = _sets(items)
    r = args.resamples

    def m(item: Item) -> Measures:
        return item.measures  # type: ignore[return-value]

    def mg(item: Item) -> Measures:
        return item.measures_goal  # type: ignore[return-value]

    # --- 1. screen ------------------------------------------------------------------
    print("1. Screen: AUC of each raw measure (95% task-bootstrap CI)\n")
    raw: dict[str, Callable[[Item], float]] = {
        "context_saturation": lambda i: float(m(i).conversation_tokens),
        "repetition": lambda i: m(i).overlap,
        "length_collapse": lambda i: -m(i).slope,
        "uncertainty": lambda i: float(m(i).corrections),
        "confidence_drift": lambda i: m(i).hedge_rise,
        "goal_distance g1 (seed)": lambda i: mg(i).goal_distance_seed or 0.0,
        "goal_distance g2 (drift)": lambda i: mg(i).goal_drift or 0.0,
        "action loops (points)": lambda i: m(i).loop.points if m(i).loop else 0.0,
    }
    screened: dict[str, dict[str, Figures]] = {}
    for name, signal in raw.items():
        screened[name] = {s: figures(by_set[s], signal, r) for s in validity.V2_SETS}
        show(name, screened[name])
    signal = {name: carries_signal(f) for name, f in screened.items()}
    print()
    for name, ok in signal.items():
        print(f"  {name}: {'carries signal' if ok else 'no signal'}")
    g1, g2 = signal["goal_distance g1 (seed)"], signal["goal_distance g2 (drift)"]

    def mean_pooled(name: str) -> float:
        return float(np.mean([f.pooled.value for f in screened[name].values()]))

    if g2 and not g1:
        goal_def = "g2"
    elif g1 and not g2:
        goal_def = "g1"
    else:
        better = mean_pooled("goal_distance g2 (drift)") >= mean_pooled("goal_distance g1 (seed)")
        goal_def = "g2" if better else "g1"
    goal_signal = signal[f"goal_distance {goal_def} ({'drift' if goal_def == 'g2' else 'seed'})"]
    weights_on = {
        "context_saturation": True,  # defined by the issue, not screened away (VALIDITY.md §1)
        "repetition": signal["repetition"] or signal["action loops (points)"],
        "length_collapse": signal["length_collapse"],
        "goal_distance": goal_signal,
        "uncertainty": signal["uncertainty"],
        "confidence_drift": signal["confidence_drift"],
    }
    active = [n for n in FACTOR_NAMES if weights_on[n]]
    coding = {n: (round(1 / len(active), 4) if weights_on[n] else 0.0) for n in FACTOR_NAMES}
    print(f"\n  goal distance: definition {goal_def}")
    print(f"  coding weights: {coding}\n")

    # --- 2. grid ----------------------------------------------------------------------
    print("2. Grid\n")
    cals: dict[float, Calibration] = {}
    loops_hurt = False
    for q in QS:
        g61 = percentile_max(items, lambda i: float(m(i).conversation_tokens), q)
        g61 = max(2 * G0, math.ceil(g61 / 1000) * 1000)
        overlap = percentile_max(items, lambda i: m(i).overlap, q)
        slope = percentile_max(items, lambda i: -m(i).slope, q)
        corrections = percentile_max(items, lambda i: float(m(i).corrections), q)
        hedge = percentile_max(items, lambda i: m(i).hedge_rise, q)
        drift = percentile_max(items, lambda i: mg(i).goal_drift, q)
        cal = Calibration(
            g61=float(g61),
            overlap61=overlap if overlap > 0 else 61 / 180,
            slope61=slope if slope > 0 else 61 / 0.4,
            corrections61=corrections if corrections > 0 else None,
            hedge61=hedge if hedge > 0 else 61 / 20,
            drift61=(drift if drift > 0 else None) if goal_def == "g2" else None,
            form="A",
            power=1.0,
            handoff_points=DRIFTING,
        )
        cals[q] = cal
        print(f"  q={q:g}: {cal}")
        # the action-loop check at this q: repetition with and without loops
        for set_name in validity.V2_SETS:
            subset = by_set[set_name]

            def rep(i: Item, loops: bool, cal: Calibration = cal) -> float:
                points = factor_points(
                    m(i), context_tokens=i.context_tokens, usable_window=i.usable, calibration=cal
                )["repetition"]
                text = min(100.0, m(i).overlap * DRIFTING / cal.overlap61)
                return float(points or 0.0) if loops else text

            with_loops = figures(subset, lambda i, rep=rep: rep(i, True), r)
            without = figures(subset, lambda i, rep=rep: rep(i, False), r)
            drop = without.pooled.value - with_loops.pooled.value
            drop_within = (
                without.within.value - with_loops.within.value
                if without.within and with_loops.within
                else 0.0
            )
            hurt = max(drop, drop_within) > NOISE[set_name]
            loops_hurt = loops_hurt or hurt
            print(
                f"    {set_name} repetition AUC with loops {with_loops.pooled.value:.3f}"
                + (f" (within {with_loops.within.value:.3f})" if with_loops.within else "")
                + f", text only {without.pooled.value:.3f}"
                + (f" (within {without.within.value:.3f})" if without.within else "")
                + (" ← loops hurt" if hurt else "")
            )
    print(f"\n  action loops {'dropped' if loops_hurt else 'kept'} in repetition\n")

    def points(i: Item, cal: Calibration, goal: bool) -> dict[str, float | None]:
        measures = mg(i) if goal else m(i)
        if loops_hurt:
            measures = replace(measures, loop=None)
        return factor_points(
            measures, context_tokens=i.context_tokens, usable_window=i.usable, calibration=cal
        )

    @dataclass(frozen=True, slots=True)
    class Candidate:
        q: float
        form: str
        p: float
        d1_auc: float
        d3_auc: float
        d3_within: float
        fa: dict[str, float]
        hits: dict[str, float]

        @property
        def musts(self) -> list[bool]:
            return [
                self.d1_auc >= 0.67,
                self.d3_auc >= 0.70,
                self.d3_within >= 0.75,
                *(self.fa[s] <= MAX_FALSE_ALARMS for s in validity.V2_SETS),
                self.hits["D1"] >= MIN_HITS,
                self.hits["D3"] >= MIN_HITS,
            ]

        @property
        def mean_hits(self) -> float:
            return (self.hits["D1"] + self.hits["D3"]) / 2

    def composite(i: Item, cal: Calibration, goal: bool = False) -> float:
        return combine(coding, points(i, cal, goal), cal.form, cal.power)

    candidates = []
    grid = [(q, form, p) for q in QS for form, ps in FORMS for p in ps]
    print("  q     form p    D1 AUC  D3 AUC  D3 within  FA D1/D2/D3         hits D1/D3   musts")
    for q, form, p in grid:
        cal = replace(cals[q], form=form, power=p)
        fa: dict[str, float] = {}
        hits: dict[str, float] = {}
        aucs: dict[str, Figures] = {}
        for set_name, subset in by_set.items():
            scores = {id(i): math.floor(composite(i, cal) + 0.5) for i in subset}
            ok = [i for i in subset if not i.run.failed]
            bad = [i for i in subset if i.run.failed]
            fa[set_name] = sum(scores[id(i)] >= WARN_AT for i in ok) / len(ok)
            hits[set_name] = sum(scores[id(i)] >= WARN_AT for i in bad) / len(bad)
            aucs[set_name] = figures(subset, lambda i, cal=cal: composite(i, cal), 0)
        d3w = aucs["D3"].within
        c = Candidate(
            q,
            form,
            p,
            aucs["D1"].pooled.value,
            aucs["D3"].pooled.value,
            d3w.value if d3w else float("nan"),
            fa,
            hits,
        )
        candidates.append(c)
        print(
            f"  {q:<5g} {form:<4} {p:<4g} {c.d1_auc:.3f}   {c.d3_auc:.3f}   "
            f"{c.d3_within:.3f}      "
            f"{fa['D1']:.1%}/{fa['D2']:.1%}/{fa['D3']:.1%}   "
            f"{hits['D1']:.1%}/{hits['D3']:.1%}   {sum(c.musts)}/{len(c.musts)}"
        )
    feasible = [c for c in candidates if all(c.musts)]
    pool = feasible or [
        c for c in candidates if sum(c.musts) == max(sum(x.musts) for x in candidates)
    ]
    best_hits = max(c.mean_hits for c in pool)
    tied = [c for c in pool if c.mean_hits >= best_hits - TIE]
    chosen = sorted(tied, key=lambda c: (c.form, c.p, -c.q))[0]
    print(
        f"\n  {len(feasible)} feasible; chosen q={chosen.q:g}, form {chosen.form}, p={chosen.p:g} "
        f"(mean hits {chosen.mean_hits:.1%}; {len(tied)} tied within {TIE:.0%})\n"
    )

    # --- 3. handoff threshold ---------------------------------------------------------
    cal = replace(cals[chosen.q], form=chosen.form, power=chosen.p)
    handoff: float | None = None
    for threshold in range(61, 100, 5):
        worst = 0.0
        for subset in by_set.values():
            ok = [i for i in subset if not i.run.failed]
            fired = 0
            for i in ok:
                values = points(i, cal, False)
                score = math.floor(composite(i, cal) + 0.5)
                fired += (
                    (values["context_saturation"] or 0) >= threshold
                    or (values["repetition"] or 0) >= threshold
                    or score >= WARN_AT
                )
            worst = max(worst, fired / len(ok))
        print(f"3. Handoff at saturation or repetition ≥ {threshold}: false alarms ≤ {worst:.1%}")
        if worst <= MAX_FALSE_ALARMS:
            handoff = float(threshold)
            break
    cal = replace(cal, handoff_points=handoff)
    research = _kept(SEED_WEIGHTS["research"], weights_on)
    brainstorm = _kept(SEED_WEIGHTS["brainstorm"], weights_on)
    print("\nTo ship:")
    print(f"  {cal}")
    print(f"  coding weights {coding}")
    print(f"  research weights {research}")
    print(f"  brainstorm weights {brainstorm}")
    print(f"  action loops in repetition: {not loops_hurt}; goal distance: {goal_def}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
