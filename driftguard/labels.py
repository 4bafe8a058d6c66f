"""One presentation vocabulary: what every renderer calls a factor and how it colours a
state — the text report and the recommendation, the HTML page, ``watch``, the status line
and tmux all read these tables, so a label or a colour is changed in one place (the way
click's ``termui`` keeps one colour table for everything it draws).

Ground: standard library only; the recommendation (scoring) and every renderer import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "ANSI_RESET",
    "FACTOR_LABELS",
    "FACTOR_SHORT",
    "HOST_IN_TEXT",
    "HOST_LABELS",
    "STATE_ANSI",
    "STATE_TMUX",
]

FACTOR_LABELS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "context_saturation": "context saturation",
        "repetition": "repetition",
        "length_collapse": "length collapse",
        "goal_distance": "goal distance",
        "uncertainty": "uncertainty",
        "confidence_drift": "confidence drift",
    }
)
"""Human labels of the JSON factor names, as the reports print them."""
FACTOR_SHORT: Final[Mapping[str, str]] = MappingProxyType(
    {
        "repetition": "rep",
        "length_collapse": "len",
        "goal_distance": "goal",
        "uncertainty": "unc",
        "confidence_drift": "hedge",
    }
)
"""Short labels of the factors other than context saturation (which a status line shows
as ``ctx`` with its own percentage), for one-line displays."""
STATE_ANSI: Final[Mapping[str, str]] = MappingProxyType(
    {
        "fresh": "\x1b[32m",
        "warming": "\x1b[33m",
        "drifting": "\x1b[91m",
        "polluted": "\x1b[1;31m",
    }
)
"""The ANSI colour of each state on a terminal: green, yellow, bright red, bold red."""
ANSI_RESET: Final = "\x1b[0m"
STATE_TMUX: Final[Mapping[str, str]] = MappingProxyType(
    {
        "fresh": "green",
        "warming": "yellow",
        "drifting": "colour208",
        "polluted": "red",
    }
)
"""The same colours in tmux's ``#[fg=…]`` names (``colour208`` is tmux's orange)."""
HOST_LABELS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "claude_code": "Claude Code",
        "gemini_cli": "Gemini CLI",
        "codex_cli": "Codex CLI",
        "cursor": "Cursor",
    }
)
"""Each host's product name, as setup's report and the adapters' messages name it."""
HOST_IN_TEXT: Final[Mapping[str, str]] = MappingProxyType({**HOST_LABELS, "codex_cli": "Codex"})
"""How a sentence names the host ("Codex compacts it"): the name its users say."""
