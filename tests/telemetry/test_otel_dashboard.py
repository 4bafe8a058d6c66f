"""The Grafana dashboard shipped in docs/grafana/ is dashboard JSON Grafana's own models
read without losing or changing anything (grafana-foundation-sdk, the models Grafana
generates from its dashboard schema, with every panel's options and the Prometheus query
decoded by type), and it queries only the metrics driftguard sends."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from conftest import REPO_ROOT

from driftguard.telemetry.payload import METRICS

DASHBOARD = REPO_ROOT / "docs" / "grafana" / "driftguard-dashboard.json"
PROMQL_WORDS = {
    "avg", "max", "min", "sum", "count", "quantile", "topk", "by", "without", "increase",
    "rate", "last_over_time", "max_over_time", "label_values", "on", "ignoring", "and",
    "or", "unless",
}  # fmt: skip


def prometheus_name(name: str, kind: str) -> str:
    """The name a Prometheus-compatible store gives an OTLP metric: dots become
    underscores, a monotonic counter gains ``_total`` (units in braces add nothing)."""
    flat = name.replace(".", "_")
    return f"{flat}_total" if kind == "counter" else flat


def lost_or_changed(before: Any, after: Any, path: str = "") -> list[str]:
    """What of ``before`` is missing or different in ``after`` (additions are defaults)."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [path]
        return [
            found
            for key, value in before.items()
            for found in (
                [f"{path}/{key} (dropped)"]
                if key not in after
                else lost_or_changed(value, after[key], f"{path}/{key}")
            )
        ]
    if isinstance(before, list):
        if not isinstance(after, list) or len(before) != len(after):
            return [path]
        return [
            f
            for i, (x, y) in enumerate(zip(before, after, strict=True))
            for f in lost_or_changed(x, y, f"{path}[{i}]")
        ]
    return [] if before == after else [f"{path} ({before!r} -> {after!r})"]


def through_grafana_models(data: dict[str, Any]) -> list[str]:
    pytest.importorskip("grafana_foundation_sdk", reason="the test extra installs it")
    from grafana_foundation_sdk.cog import plugins
    from grafana_foundation_sdk.cog.encoder import JSONEncoder
    from grafana_foundation_sdk.models.dashboard import Dashboard

    plugins.register_default_plugins()
    decoded = Dashboard.from_json(copy.deepcopy(data))
    again = json.loads(json.dumps(decoded, cls=JSONEncoder))
    return lost_or_changed(data, again)


def load() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def test_grafanas_dashboard_models_read_it_whole() -> None:
    assert through_grafana_models(load()) == []


def test_the_check_catches_a_misspelt_field() -> None:
    broken = load()
    broken["panels"][0]["fieldConfg"] = broken["panels"][0].pop("fieldConfig")
    broken["panels"][3]["options"]["orientaton"] = "horizontal"
    lost = through_grafana_models(broken)
    assert "/panels[0]/fieldConfg (dropped)" in lost
    assert "/panels[3]/options/orientaton (dropped)" in lost


def test_it_queries_every_metric_driftguard_sends_and_nothing_else() -> None:
    sent = {prometheus_name(name, spec.kind) for name, spec in METRICS.items()}
    named: set[str] = set()
    dashboard = load()
    queries = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    queries += [v["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"]
    for query in queries:
        bare = re.sub(r'"[^"]*"', "", query)  # label values
        bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", bare)  # matchers, ranges
        bare = re.sub(r"\b(by|without)\s*\([^)]*\)", "", bare)  # grouping labels
        bare = re.sub(r",\s*[a-z_]+\)", ")", bare)  # label_values' label
        words = set(re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare)) - PROMQL_WORDS
        assert words <= sent, query
        named |= words
    assert named == sent


def test_every_panel_has_a_unique_id_a_place_and_a_prometheus_query() -> None:
    panels = load()["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    for panel in panels:
        assert set(panel["gridPos"]) == {"h", "w", "x", "y"}
        assert all(isinstance(v, int) for v in panel["gridPos"].values())
        assert panel["targets"]
        assert all(t["datasource"]["type"] == "prometheus" for t in panel["targets"])
