"""``driftguard report``: one self-contained HTML page of a session's drift.

Pure rendering: :func:`render_session_page` turns a :class:`Timeline` (the engine's
scores after every turn, computed elsewhere) into a page, :func:`render_index_page` a
project's list of sessions. The page works offline and asks for nothing: no CDN, no font,
no image, no request at all (a ``Content-Security-Policy`` of ``default-src 'none'`` makes
sure of it); charts are inline SVG drawn here, and the one inline script only shows and
hides factor lines. It reads in light and dark mode (``prefers-color-scheme``) and on a
narrow window (the SVG scales to the width).

Every text that comes from a session is escaped; the handoff draft is shown as the secret
gate left it.

Every page names driftguard as its generator in its first bytes, so that
``report`` knows a page it wrote from a file of the user's (:func:`is_report_page`): it
replaces only its own.
"""

from __future__ import annotations

import html
import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from driftguard.format import when_utc
from driftguard.labels import FACTOR_LABELS
from driftguard.model import FACTOR_NAMES

__all__ = [
    "CompactionMark",
    "IndexRow",
    "LoopMark",
    "Timeline",
    "TurnPoint",
    "is_report_page",
    "render_index_page",
    "render_session_page",
]

_WIDTH = 960
_HEIGHT = 300
_PAD_LEFT = 64
_PAD_RIGHT = 16
_PAD_TOP = 14
_PAD_BOTTOM = 30
_BANDS = (
    (0, 29, "fresh"),
    (30, 60, "warming"),
    (61, 80, "drifting"),
    (81, 100, "polluted"),
)
"""The state bands of docs/design.md §5.4, in score points."""


@dataclass(frozen=True, slots=True)
class TurnPoint:
    """The session as it stood after one turn.

    Attributes:
        turn: the turn's number, 1-based (a turn ends with the model's last reply to a
            prompt).
        timestamp: when it ended, seconds since the epoch, or ``None``.
        score: the drift score then, 0–100.
        state: its state.
        factors: each factor's points then (``None`` when absent).
        context_tokens: tokens in the context then.
        usable_window: where the host compacts, in tokens.
        loop: the action loop going on then, in words, or ``None``.
    """

    turn: int
    timestamp: float | None
    score: int
    state: str
    factors: Mapping[str, float | None]
    context_tokens: int
    usable_window: int
    loop: str | None = None


@dataclass(frozen=True, slots=True)
class CompactionMark:
    """A compaction, drawn between the end of the turn before it and the end of its turn.

    Attributes:
        turn: the turn in which the host compacted.
        dropped: what the summary did not keep, one phrase each (``the constraint “…”``,
            ``the edited file src/db.py``; the compaction ledger, secret-gated), may be
            empty.
        detail: when and how it happened, in words (``2026-11-30 10:05 UTC, automatic at
            167,016 tokens``), or ``""``.
        unknown: why what it dropped cannot be told (the file no longer holds it), else
            ``None``.
        said: what it dropped in words, as the other reports say it
            (:meth:`driftguard.render.ledger.EntryView.dropped_text`: ``dropped: …; …``,
            ``dropped no edited file, constraint or error``, ``what it dropped is unknown:
            …``), or ``""`` when the ledger does not tell.
    """

    turn: int
    dropped: tuple[str, ...] = ()
    detail: str = ""
    unknown: str | None = None
    said: str = ""


def _compaction_words(mark: CompactionMark) -> str:
    """`` (detail): dropped: …`` after the word naming the compaction (``""`` when there
    is nothing to say)."""
    words = f" ({mark.detail})" if mark.detail else ""
    return f"{words}: {mark.said}" if mark.said else words


@dataclass(frozen=True, slots=True)
class LoopMark:
    """An action loop, over the consecutive turns that ended in it.

    Attributes:
        first: the first of those turns; last: the last (``first`` for one turn).
        label: the loop in a few words (``npm test ×3``), as the secret gate left it.
    """

    first: int
    last: int
    label: str


@dataclass(frozen=True, slots=True)
class Timeline:
    """Everything one session's page shows.

    Attributes:
        title: the session's name on the page (CLI and file name).
        path: the session file.
        points: one :class:`TurnPoint` per turn, oldest first.
        compactions: where the host compacted.
        loops: the action loops, each over the consecutive turns that ended in it.
        snapshots: the recorded history, ``(seconds since the epoch, score)`` oldest first.
        recommendation: the current recommendation.
        handoff_draft: the secret-gated handoff draft (text), or ``""``.
        generated: when the page was made, seconds since the epoch.
    """

    title: str
    path: str
    points: tuple[TurnPoint, ...]
    compactions: tuple[CompactionMark, ...] = ()
    loops: tuple[LoopMark, ...] = ()
    snapshots: tuple[tuple[float, int], ...] = ()
    recommendation: str = ""
    handoff_draft: str = ""
    generated: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One session of a project, for the index page.

    Attributes:
        title: its name; href: the link to its page; peak and last: scores (``None`` when
        never scored); turns: how many; updated: last change, seconds since the epoch.
    """

    title: str
    href: str
    peak: int | None
    last: int | None
    turns: int
    updated: float | None


_STYLE = """
:root { color-scheme: light dark; --bg:#fbfbfd; --fg:#1d1f24; --muted:#5f6570; --grid:#d9dce3;
  --fresh:#2e9e5b22; --warming:#d9a10a22; --drifting:#e0682233; --polluted:#c7253e33;
  --score:#1d1f24; --usable:#c7253e; --context:#3465a4; --compaction:#8a4bd6; --loop:#e06822;
  --c0:#3465a4; --c1:#c7253e; --c2:#2e9e5b; --c3:#8a4bd6; --c4:#d9a10a; --c5:#11808a; }
@media (prefers-color-scheme: dark) { :root { --bg:#15171c; --fg:#e8eaf0; --muted:#9aa1ad;
  --grid:#343945; --score:#e8eaf0; --context:#7aa6e8; --c0:#7aa6e8; --c2:#6fcf97; } }
body { background:var(--bg); color:var(--fg); font:15px/1.5 system-ui, sans-serif;
  margin:0 auto; max-width:1000px; padding:16px; }
h1 { font-size:1.3em; margin:0 0 4px; word-break:break-all; } h2 { font-size:1.1em; }
.muted { color:var(--muted); } .big { font-size:1.6em; font-weight:600; }
svg { width:100%; height:auto; display:block; } svg text { fill:var(--muted); font-size:11px; }
@media (max-width:600px) { svg text { font-size:20px; } }
.legend label { margin-right:12px; white-space:nowrap; cursor:pointer; }
.swatch { display:inline-block; width:12px; height:3px; vertical-align:middle; margin-right:4px; }
pre { white-space:pre-wrap; word-break:break-word; background:#8881; padding:12px; }
table { border-collapse:collapse; width:100%; } td, th { text-align:left; padding:4px 8px;
  border-bottom:1px solid var(--grid); } a { color:var(--context); }
"""

_SCRIPT = """
document.querySelectorAll('input[data-series]').forEach(function (box) {
  box.addEventListener('change', function () {
    document.querySelectorAll('[data-line="' + box.dataset.series + '"]').forEach(function (el) {
      el.style.display = box.checked ? '' : 'none';
    });
  });
});
"""

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


_PAGE_START = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
"""How every page driftguard writes begins."""
_GENERATOR = '<meta name="generator" content="driftguard">'
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'


def is_report_page(head: bytes) -> bool:
    """Whether a file that begins with ``head`` (its first 512 bytes are enough) is a page
    driftguard wrote: ``_PAGE_START`` and the generator mark, or — a page of a
    driftguard from before the mark — ``_PAGE_START`` and the Content-Security-Policy
    every page has carried right after it since the first."""
    start = _PAGE_START.encode("utf-8")
    if not head.startswith(start):
        return False
    rest = head[len(start) :]
    return rest.startswith((_GENERATOR.encode("utf-8"), _CSP_META.encode("utf-8")))


def _page(title: str, body: str, *, script: bool = False) -> str:
    return (
        _PAGE_START
        + _GENERATOR
        + _CSP_META
        + '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>{body}"
        + (f"<script>{_SCRIPT}</script>" if script else "")
        + "</body></html>\n"
    )


def _x(turn: float, turns: int) -> float:
    span = _WIDTH - _PAD_LEFT - _PAD_RIGHT
    return _PAD_LEFT + (span * (turn - 1) / (turns - 1) if turns > 1 else span / 2)


def _y(value: float, top: float) -> float:
    span = _HEIGHT - _PAD_TOP - _PAD_BOTTOM
    return _PAD_TOP + span * (1 - min(max(value, 0.0), top) / top)


def _polyline(points: Iterable[tuple[float, float]], attrs: str) -> str:
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polyline fill="none" points="{coords}" {attrs}/>' if coords else ""


def _turn_axis(turns: int) -> str:
    step = max(1, math.ceil(turns / 10))
    ticks = [t for t in range(1, turns + 1) if (t - 1) % step == 0]
    if turns not in ticks:
        ticks.append(turns)
    y = _HEIGHT - _PAD_BOTTOM + 16
    return "".join(
        f'<text x="{_x(t, turns):.1f}" y="{y}" text-anchor="middle">{t}</text>' for t in ticks
    )


def _markers(timeline: Timeline, turns: int) -> str:
    out = []
    for mark in timeline.compactions:
        x = _x(max(1, mark.turn) - 0.5 if turns > 1 else 1, turns)
        tip = "compaction" + _compaction_words(mark)
        out.append(
            f'<g class="compaction-marker"><title>{_e(tip)}</title>'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_PAD_TOP}" y2="{_HEIGHT - _PAD_BOTTOM}" '
            'stroke="var(--compaction)" stroke-dasharray="4 3" stroke-width="2"/></g>'
        )
    y = _HEIGHT - _PAD_BOTTOM - 6  # a strip along the turn axis, clear of the lines
    for loop in timeline.loops:
        x1, x2 = _x(loop.first, turns), _x(loop.last, turns)
        span = (
            f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="var(--loop)" stroke-width="4" stroke-linecap="round"/>'
            if loop.last > loop.first
            else ""
        )
        out.append(
            f'<g class="loop-marker"><title>{_e(_loop_words(loop))}</title>{span}'
            f'<circle cx="{x1:.1f}" cy="{y:.1f}" r="5" fill="var(--loop)"/></g>'
        )
    return "".join(out)


def _loop_words(mark: LoopMark) -> str:
    turns = f"turn {mark.first}" if mark.last == mark.first else f"turns {mark.first}–{mark.last}"
    return f"{turns}: loop: {mark.label}"


def _score_chart(timeline: Timeline) -> str:
    points = timeline.points
    turns = len(points)
    bands = "".join(
        f'<rect x="{_PAD_LEFT}" y="{_y(high, 100):.1f}" width="{_WIDTH - _PAD_LEFT - _PAD_RIGHT}"'
        f' height="{_y(low, 100) - _y(high, 100):.1f}" fill="var(--{name})"/>'
        f'<text x="{_WIDTH - _PAD_RIGHT - 4}" y="{_y(high, 100) + 12:.1f}" '
        f'text-anchor="end">{name}</text>'
        for low, high, name in _BANDS
    )
    grid = "".join(
        f'<text x="{_PAD_LEFT - 6}" y="{_y(v, 100) + 4:.1f}" text-anchor="end">{v}</text>'
        for v in (0, 30, 61, 81, 100)
    )
    lines = [
        _polyline(
            ((_x(p.turn, turns), _y(p.score, 100)) for p in points),
            'data-line="score" class="score-line" stroke="var(--score)" stroke-width="2.5"',
        )
    ]
    for index, name in enumerate(FACTOR_NAMES):
        values = [(p.turn, p.factors.get(name)) for p in points]
        if all(v is None for _, v in values):
            continue
        lines.append(
            _polyline(
                ((_x(t, turns), _y(v, 100)) for t, v in values if v is not None),
                f'data-line="{name}" class="factor-line" stroke="var(--c{index})" '
                'stroke-width="1.3" stroke-opacity="0.85"',
            )
        )
    return (
        f'<svg class="chart score-chart" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'aria-label="drift score and factors over {turns} turns">{bands}{grid}'
        f"{''.join(lines)}{_markers(timeline, turns)}{_turn_axis(turns)}</svg>"
    )


def _context_chart(timeline: Timeline) -> str:
    points = timeline.points
    turns = len(points)
    top = max([p.usable_window for p in points] + [p.context_tokens for p in points] + [1]) * 1.05
    usable = _polyline(
        ((_x(p.turn, turns), _y(p.usable_window, top)) for p in points),
        'class="usable-line" stroke="var(--usable)" stroke-width="2" stroke-dasharray="6 4"',
    )
    context = _polyline(
        ((_x(p.turn, turns), _y(p.context_tokens, top)) for p in points),
        'class="context-line" stroke="var(--context)" stroke-width="2.5"',
    )
    ticks = "".join(
        f'<text x="{_PAD_LEFT - 6}" y="{_y(v, top) + 4:.1f}" text-anchor="end">'
        f"{round(v / 1000)}k</text>".replace(">0k<", ">0<")
        for v in (0, top / 2, top / 1.05)
    )
    marks = "".join(
        f'<line class="compaction-marker-ctx" x1="{_x(max(1, m.turn) - 0.5, turns):.1f}" '
        f'x2="{_x(max(1, m.turn) - 0.5, turns):.1f}" y1="{_PAD_TOP}" '
        f'y2="{_HEIGHT - _PAD_BOTTOM}" stroke="var(--compaction)" stroke-dasharray="4 3"/>'
        for m in timeline.compactions
    )
    return (
        f'<svg class="chart context-chart" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'aria-label="tokens in context and where the host compacts">{ticks}{usable}'
        f"{context}{marks}{_turn_axis(turns)}</svg>"
    )


def _legend(timeline: Timeline) -> str:
    present = [
        name
        for name in FACTOR_NAMES
        if any(p.factors.get(name) is not None for p in timeline.points)
    ]
    boxes = [
        '<label><input type="checkbox" data-series="score" checked>'
        '<span class="swatch" style="background:var(--score)"></span>score</label>'
    ]
    for name in present:
        index = FACTOR_NAMES.index(name)
        boxes.append(
            f'<label><input type="checkbox" data-series="{name}" checked>'
            f'<span class="swatch" style="background:var(--c{index})"></span>'
            f"{_e(FACTOR_LABELS[name])}</label>"
        )
    return f'<p class="legend">{"".join(boxes)}</p>'


def _when(ts: float | None) -> str:
    """``ts`` as every time on the page is shown (``2026-11-30 10:02 UTC``), or ``–``."""
    return "–" if ts is None else when_utc(ts)


def render_session_page(timeline: Timeline) -> str:
    """The HTML page of one session: its score and factors over the turns, tokens in
    context against where the host compacts, compactions and loops marked where they
    happened, the recorded history and the handoff draft.

    Returns:
        A complete HTML document (UTF-8 text), self-contained.
    """
    last = timeline.points[-1] if timeline.points else None
    head = (
        f'<h1>{_e(timeline.title)}</h1><p class="muted">{_e(timeline.path)}</p>'
        if last is None
        else (
            f'<h1>{_e(timeline.title)}</h1><p class="muted">{_e(timeline.path)} · '
            f"{len(timeline.points)} turn{'s' * (len(timeline.points) != 1)} · "
            f"{len(timeline.compactions)} compaction{'s' * (len(timeline.compactions) != 1)} · "
            f"made {_e(_when(timeline.generated))}</p>"
            f'<p><span class="big score-now">{last.score}/100</span> '
            f"<strong>{_e(last.state)}</strong></p><p>{_e(timeline.recommendation)}</p>"
        )
    )
    if not timeline.points:
        return _page(timeline.title, head + "<p>No turn to chart yet.</p>")
    details = []
    if timeline.compactions:
        items = "".join(
            f"<li>in turn {m.turn}{_e(_compaction_words(m))}</li>" for m in timeline.compactions
        )
        details.append(f'<h2>Compactions</h2><ul class="compactions">{items}</ul>')
    if timeline.loops:
        items = "".join(f"<li>{_e(_loop_words(mark))}</li>" for mark in timeline.loops)
        details.append(f'<h2>Loops</h2><ul class="loops">{items}</ul>')
    if timeline.snapshots:
        rows = "".join(
            f"<tr><td>{_e(_when(ts))}</td><td>{score}</td></tr>" for ts, score in timeline.snapshots
        )
        details.append(
            '<h2>Recorded scores</h2><table class="snapshots"><tr><th>when</th>'
            f"<th>score</th></tr>{rows}</table>"
        )
    if timeline.handoff_draft:
        details.append(
            "<h2>Handoff draft</h2><details><summary>Show the draft (secrets redacted)"
            f'</summary><pre class="handoff">{_e(timeline.handoff_draft)}</pre></details>'
        )
    body = (
        head
        + "<h2>Score and factors by turn</h2>"
        + _legend(timeline)
        + _score_chart(timeline)
        + '<p class="muted">The bands are the states; violet dashed lines mark compactions, '
        "orange strips along the turns the action loops (hover for what each was).</p>"
        + '<h2>Context</h2><p class="muted">Tokens in context (solid) and where the host '
        "compacts (dashed); compactions are the dotted violet lines.</p>"
        + _context_chart(timeline)
        + "".join(details)
        + f'<script type="application/json" id="data">{_json_data(timeline)}</script>'
    )
    return _page(timeline.title, body, script=True)


def _json_data(timeline: Timeline) -> str:
    """The series as JSON inside the page (for people and tools; ``</`` escaped)."""
    data = {
        "turns": [
            {
                "turn": p.turn,
                "score": p.score,
                "state": p.state,
                "context_tokens": p.context_tokens,
                "usable_window": p.usable_window,
                "factors": dict(p.factors),
                "loop": p.loop,
            }
            for p in timeline.points
        ],
        "compactions": [
            {"turn": m.turn, "dropped": list(m.dropped), "detail": m.detail, "unknown": m.unknown}
            for m in timeline.compactions
        ],
        "loops": [{"first": m.first, "last": m.last, "label": m.label} for m in timeline.loops],
    }
    return json.dumps(data, ensure_ascii=True).replace("</", "<\\/")


def render_index_page(project: str, rows: Sequence[IndexRow]) -> str:
    """A project's sessions with their peak and last score, each linking to its page.

    Returns:
        A complete HTML document (UTF-8 text), self-contained.
    """
    body_rows = "".join(
        f'<tr><td><a href="{_e(row.href)}">{_e(row.title)}</a></td>'
        f"<td>{'–' if row.peak is None else row.peak}</td>"
        f"<td>{'–' if row.last is None else row.last}</td><td>{row.turns}</td>"
        f"<td>{_e(_when(row.updated))}</td></tr>"
        for row in rows
    )
    body = (
        f"<h1>Sessions of {_e(project)}</h1>"
        f'<p class="muted">{len(rows)} session{"s" * (len(rows) != 1)}</p>'
        '<table class="sessions"><tr><th>session</th><th>peak</th><th>last</th>'
        f"<th>turns</th><th>updated</th></tr>{body_rows}</table>"
    )
    return _page(f"driftguard: {project}", body)
