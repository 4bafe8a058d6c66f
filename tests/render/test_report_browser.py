"""``driftguard report`` pages in a real headless Chromium: they load with no
console error and no request beyond the page itself, and the rendered DOM holds the charts
and the compaction and loop markers in the expected counts. A screenshot of each is saved
under ``.pytest-artifacts/`` for people to look at.

Uses Debian's Chromium (``/usr/bin/chromium``; ``.ci/run`` installs it) through Playwright,
which downloads no browser of its own here; skips with the reason where either is missing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, corpus_file, write_loop_session

from driftguard.cli import main
from driftguard.render.html import (
    CompactionMark,
    IndexRow,
    LoopMark,
    Timeline,
    TurnPoint,
    render_index_page,
    render_session_page,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ARTIFACTS = REPO_ROOT / ".pytest-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""The flags this machine's closed network needs (no background connections)."""


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("Chromium is not installed (Debian package chromium; .ci/run installs it)")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    executable = _chromium()
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser: Any, path: Path, *, width: int = 1200, dark: bool = False) -> Any:
    """``path`` opened in a fresh page; the page records console errors and requests."""
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme="dark" if dark else "light"
    )
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.requests = []  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page


def timeline(turns: int = 30) -> Timeline:
    points = []
    for turn in range(1, turns + 1):
        score = min(100, 10 + turn * 3)
        points.append(
            TurnPoint(
                turn=turn,
                timestamp=1_800_000_000.0 + 60 * turn,
                score=score,
                state="fresh" if score < 30 else "warming" if score < 61 else "drifting",
                factors={
                    "context_saturation": min(100.0, turn * 3.3),
                    "repetition": 20.0 + (turn % 7) * 5,
                    "length_collapse": 0.0,
                    "goal_distance": None,
                    "uncertainty": 0.0,
                    "confidence_drift": float(turn % 5),
                },
                context_tokens=20_000 + turn * 4_000,
                usable_window=167_000,
                loop="npm test ×3" if turn in (12, 13, 25) else None,
            )
        )
    return Timeline(
        title="claude_code · 11111111.jsonl",
        path="/home/dev/.claude/projects/-home-dev-app/11111111.jsonl",
        points=tuple(points),
        compactions=(
            CompactionMark(10, ("the constraint “never touch migrations/”",)),
            CompactionMark(20),
        ),
        loops=(LoopMark(12, 13, "npm test ×3"), LoopMark(25, 25, "npm test ×3")),
        snapshots=((1_800_000_100.0, 40), (1_800_000_900.0, 55)),
        recommendation="Start fresh soon: <b>not bold</b> & co.",
        handoff_draft="## What we accomplished\n- token [REDACTED]",
    )


def test_a_session_page_loads_offline_without_errors_and_shows_every_marker(
    browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "report.html"
    path.write_text(render_session_page(timeline()), encoding="utf-8")
    page = open_page(browser, path)
    assert page.errors == []
    assert page.requests == [path.as_uri()]  # the page itself, nothing else
    assert page.locator("svg.score-chart").count() == 1
    assert page.locator("svg.context-chart").count() == 1
    assert page.locator("svg.score-chart .compaction-marker").count() == 2
    assert page.locator("svg.score-chart .loop-marker").count() == 2  # turns 12–13 are one
    assert page.locator("polyline.factor-line").count() == 5  # goal distance absent
    assert page.locator("b").count() == 0  # text from the session is escaped
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-session.png"), full_page=True)
    page.context.close()


def test_a_factor_line_hides_when_its_box_is_unticked(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(render_session_page(timeline()), encoding="utf-8")
    page = open_page(browser, path)
    page.locator('input[data-series="repetition"]').uncheck()
    assert page.locator('polyline[data-line="repetition"]').is_hidden()
    assert page.locator('polyline[data-line="score"]').is_visible()
    page.context.close()


def test_the_page_reads_in_dark_mode_and_on_a_narrow_window(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(render_session_page(timeline()), encoding="utf-8")
    page = open_page(browser, path, width=380, dark=True)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 28)"
    chart_width = page.evaluate(
        "document.querySelector('svg.score-chart').getBoundingClientRect().width"
    )
    assert chart_width <= 380
    assert page.evaluate("document.documentElement.scrollWidth") <= 380
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-session-narrow-dark.png"), full_page=True)
    page.context.close()


def test_the_index_page_links_each_session(browser: Any, tmp_path: Path) -> None:
    rows = [
        IndexRow("claude_code · a.jsonl", "a.html", 72, 65, 40, 1_800_000_000.0),
        IndexRow("codex_cli · b.jsonl", "b.html", None, None, 2, None),
    ]
    path = tmp_path / "index.html"
    path.write_text(render_index_page("/home/dev/app", rows), encoding="utf-8")
    page = open_page(browser, path)
    assert page.errors == []
    assert page.locator("table.sessions a").count() == 2
    assert page.locator("table.sessions a").first.get_attribute("href") == "a.html"
    page.context.close()


def test_the_page_driftguard_report_writes_for_a_real_compacted_session_shows_both_compactions(
    browser: Any, tmp_path: Path
) -> None:
    session = corpus_file("generated/claude/claude-long-26turns-compact.jsonl")
    path = tmp_path / "real.html"
    assert main(["report", str(session), "-o", str(path)]) == 0
    page = open_page(browser, path)
    assert page.errors == []
    assert page.requests == [path.as_uri()]
    assert page.locator("svg.score-chart .compaction-marker").count() == 2
    assert page.locator("svg.context-chart .compaction-marker-ctx").count() == 2
    assert page.locator("ul.compactions li").count() == 2
    assert page.locator("svg.score-chart polyline.score-line").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-real-compactions.png"), full_page=True)
    page.context.close()


def test_a_loop_over_several_turns_is_one_marker_on_the_page_driftguard_report_writes(
    browser: Any, tmp_path: Path
) -> None:
    session = write_loop_session(tmp_path / "loop.jsonl", turns=5, attempts=4)
    path = tmp_path / "loop.html"
    assert main(["report", str(session), "-o", str(path)]) == 0
    page = open_page(browser, path)
    assert page.errors == []
    assert page.locator("svg.score-chart .loop-marker").count() == 1
    assert page.locator("ul.loops li").inner_text().startswith("turns 1–5: loop: npm test")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-loop.png"), full_page=True)
    page.context.close()


def test_the_index_driftguard_report_all_writes_links_pages_that_open(
    browser: Any, isolated_home: Path, tmp_path: Path
) -> None:
    from driftguard.adapters.claude_code import project_dir_name

    project = tmp_path / "app"
    project.mkdir()
    folder = isolated_home / ".claude" / "projects" / project_dir_name(str(project))
    for n in (1, 2):
        write_loop_session(
            folder / f"aaaaaaaa-0000-4000-8000-00000000000{n}.jsonl", turns=n + 1, attempts=3
        )
    out = tmp_path / "pages"
    assert main(["report", "--all", "--project", str(project), "-o", str(out)]) == 0
    page = open_page(browser, out / "index.html")
    assert page.errors == []
    assert page.locator("table.sessions a").count() == 2
    page.locator("table.sessions a").first.click()
    page.wait_for_load_state("load")
    assert page.locator("svg.score-chart").count() == 1
    assert page.errors == []
    page.context.close()
