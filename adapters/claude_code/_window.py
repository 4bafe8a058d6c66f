"""Which context window a Claude Code session runs with: 200,000 or 1,000,000 tokens, read
from Claude Code 2.1.197 (its ``rE``/``WIi`` window choice, quoted in this project's host
notes, 19-seams §3.3) and its runs against a fake model.

The transcript never names the window, and the model names it records never carry the
``[1m]`` suffix Claude Code adds to a 1M model (``message.model`` is the API's model id).
What Claude Code does, first match wins:

1. ``CLAUDE_CODE_DISABLE_1M_CONTEXT`` set to 1, true, yes or on: 200,000 for every model;
2. the configured model carries ``[1m]`` (``--model``, ``/model``, ``ANTHROPIC_MODEL``, the
   settings' ``model``, in that order of precedence): 1,000,000;
3. the ``context-1m-2025-08-07`` beta is on and the model supports it (claude-sonnet-4,
   sonnet-4-5, sonnet-4-6, opus-4-6 and the 1M-native ones; not claude-3-*, opus-4,
   opus-4-1, opus-4-5 or the haikus): 1,000,000. Claude Code sends the beta for a
   ``[1m]`` model, so this adds nothing driftguard can see to rule 2;
4. the model is 1M-native (``native_1m`` in its table: claude-opus-4-7, opus-4-8,
   fable-5, sonnet-5, mythos-5) and the provider is first-party with the real
   ``api.anthropic.com`` base URL (``ANTHROPIC_BASE_URL`` unset or naming that host; not
   ``CLAUDE_CODE_USE_BEDROCK``/``_VERTEX``/``_FOUNDRY``): 1,000,000;
5. otherwise 200,000.

A resumed session restores the model from the transcript's last ``message.model``, so
without a configured ``[1m]`` model it loses the suffix (``claude -p --resume`` runs at
200,000 where the first run had 1,000,000 on the default ``claude-opus-4-8[1m]``, 19-seams
§3.3); on ``api.anthropic.com`` a 1M-native model keeps 1M by rule 4.

What driftguard decides (:func:`model_window`), when neither the user nor Claude Code's
status line named the window:

- a request in the file past 200,000 tokens proves the 1M window (no 200k model could have
  taken it): ``"file"``;
- a model with only one window (no 1M variant, or no model named): 200,000, ``"file"``;
- a model that may run either way: the window Claude Code would choose by rules 1, 2 and 4
  for the environment and settings driftguard sees, ``assumed``. Where driftguard cannot
  tell the rule's outcome — a custom ``ANTHROPIC_BASE_URL``, where the default model may
  still carry ``[1m]`` until the first resume; a third-party provider, whose 1M table
  driftguard does not read — it assumes 200,000: assuming too small a window shows a
  compaction early, and corrects itself once a request passes 200,000 tokens; assuming too
  large a one promises room the host does not have.

Under MCP and the hooks the environment read is the one Claude Code started driftguard
with, so it is Claude Code's own; at a terminal it is the shell's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from driftguard.adapters._compaction import named, truthy
from driftguard.compaction.window import HostSetting, NominalWindow
from driftguard.model import Session

__all__ = [
    "DEFAULT_WINDOW",
    "LARGE_WINDOW",
    "WINDOW_SETTINGS",
    "is_native_1m",
    "model_window",
    "supports_1m",
]

DEFAULT_WINDOW = 200_000
"""Claude's context window without the 1M variant, in tokens (Claude Code's ``uNt``)."""
LARGE_WINDOW = 1_000_000
"""The 1M context window, in tokens (Claude Code's ``WIi`` returns ``1e6``)."""

FIRST_PARTY_HOST = "api.anthropic.com"
"""The host a base URL must name for a 1M-native model's 1M window (Claude Code's
``vrt``/``wrt``: no ``ANTHROPIC_BASE_URL``, or one on this host)."""

WINDOW_SETTINGS = (
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_DISABLE_1M_CONTEXT",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
)
"""The environment variables that choose a model's window (module docstring); the
settings key ``model`` counts too, below ``ANTHROPIC_MODEL``."""

_THIRD_PARTY = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY")
_SUFFIX_1M = re.compile(r"\[1m\]", re.IGNORECASE)  # Claude Code's mh(): /\[1m\]/i
_NATIVE_1M = re.compile(r"claude-(?:opus-4-(?:[7-9]|[1-9]\d)|(?:opus|sonnet|fable|mythos)-5)(?!\d)")
_BETA_1M = re.compile(r"claude-(?:sonnet-4(?:-[56])?|opus-4-6)(?!\d)")
_FAMILIES = ("opus", "sonnet", "haiku", "fable", "mythos")


def _model_id(model: str) -> str:
    """The model id from ``claude-`` on, lower-cased (a Bedrock id such as
    ``us.anthropic.claude-opus-4-8-v1:0`` included); ``""`` for another model."""
    lowered = model.lower()
    start = lowered.find("claude-")
    return lowered[start:] if start >= 0 else ""


def is_native_1m(model: str | None) -> bool:
    """Whether ``model`` is 1M-native: ``claude-opus-4-7`` and later ``claude-opus-4-x``,
    and the ``-5`` models of the opus, sonnet, fable and mythos families (Claude Code
    2.1.197's model table gives them ``native_1m``; 19-seams §3.3). A dated id of an older
    family (``claude-opus-4-20250514``) is not."""
    return bool(model) and _NATIVE_1M.match(_model_id(model or "")) is not None


def supports_1m(model: str | None) -> bool:
    """Whether ``model`` may run with the 1M window at all: a 1M-native model, or one with
    ``supports_1m_beta`` (claude-sonnet-4, sonnet-4-5, sonnet-4-6, opus-4-6)."""
    if not model:
        return False
    found = _model_id(model)
    return _NATIVE_1M.match(found) is not None or _BETA_1M.match(found) is not None


def _configured(settings: Mapping[str, HostSetting]) -> tuple[str, HostSetting] | None:
    """The model Claude Code is configured with where driftguard can see it:
    ``ANTHROPIC_MODEL``, else the settings' ``model`` (``--model`` and ``/model`` are
    beyond reach)."""
    for name in ("ANTHROPIC_MODEL", "model"):
        setting = settings.get(name)
        if setting is not None and isinstance(setting.value, str) and setting.value.strip():
            return name, setting
    return None


def _names(configured: str, model: str) -> bool:
    """Whether a configured model name (without ``[1m]``) may name the transcript's
    ``model``: an alias of its family (``opus``), a prefix of its id, or something
    driftguard cannot map (``default``, an ARN) — not another family or model."""
    wanted = _model_id(configured)
    if wanted:
        found = _model_id(model)
        return found.startswith(wanted) or wanted.startswith(found)
    alias = configured.strip().lower()
    if alias in _FAMILIES:
        return f"claude-{alias}-" in _model_id(model)
    return True


def _base_url_host(setting: HostSetting) -> str | None:
    """The host ``ANTHROPIC_BASE_URL`` names (never the whole URL: it may hold a key), or
    ``None`` when it names none."""
    try:
        return urlsplit(str(setting.value).strip()).hostname
    except ValueError:
        return None


def model_window(session: Session, settings: Mapping[str, HostSetting]) -> NominalWindow:
    """The window of ``session`` when nothing named it (module docstring).

    Args:
        session: the parsed session; its ``model`` (the latest request's) and
            ``peak_context_tokens`` are read.
        settings: what :func:`._compaction.compaction_settings` found (the variables of
            :data:`WINDOW_SETTINGS` and the settings' ``model`` among them); empty: none set.

    Returns:
        200,000 or 1,000,000 tokens, ``assumed`` for a model that may run either way when
        the file does not prove the 1M window, and the rule in words.
    """
    model = session.model
    peak = session.peak_context_tokens or 0
    if peak > DEFAULT_WINDOW:
        return NominalWindow(
            LARGE_WINDOW,
            f"a request of {peak:,} tokens in the file is past {DEFAULT_WINDOW:,}: "
            f"only the {LARGE_WINDOW:,}-token window holds it",
        )
    if model is None or not supports_1m(model):
        return NominalWindow(
            DEFAULT_WINDOW,
            f"{model} has no 1M window in Claude Code 2.1.197"
            if model
            else "the file names no model: Claude Code's default window",
        )
    disable = settings.get("CLAUDE_CODE_DISABLE_1M_CONTEXT")
    if disable is not None and truthy(disable):
        return NominalWindow(
            DEFAULT_WINDOW,
            f"{named('CLAUDE_CODE_DISABLE_1M_CONTEXT', disable)} turns Claude Code's 1M window off",
            assumed=True,
        )
    configured = _configured(settings)
    if configured is not None:
        name, setting = configured
        value = str(setting.value)
        if _SUFFIX_1M.search(value) and _names(_SUFFIX_1M.sub("", value), model):
            return NominalWindow(
                LARGE_WINDOW,
                f"{named(name, setting)} asks Claude Code for {model}'s 1M window",
                assumed=True,
            )
    if not is_native_1m(model):
        return NominalWindow(
            DEFAULT_WINDOW,
            f"Claude Code gives {model} the 1M window only when it is named with [1m], "
            "and neither ANTHROPIC_MODEL nor the settings' model names it so",
            assumed=True,
        )
    provider = next(
        (
            (name, settings[name])
            for name in _THIRD_PARTY
            if name in settings and truthy(settings[name])
        ),
        None,
    )
    if provider is not None:
        return NominalWindow(
            DEFAULT_WINDOW,
            f"{named(*provider)}: whether Claude Code gives {model} the 1M window there "
            "depends on the provider's model table, which driftguard does not read, so "
            "the smaller window is assumed",
            assumed=True,
        )
    base_url = settings.get("ANTHROPIC_BASE_URL")
    host = _base_url_host(base_url) if base_url is not None else FIRST_PARTY_HOST
    if host != FIRST_PARTY_HOST:
        where = f"points at {host}" if host else "names no host"
        return NominalWindow(
            DEFAULT_WINDOW,
            f"ANTHROPIC_BASE_URL {where}, not {FIRST_PARTY_HOST}, so Claude Code gives "
            f"{model} the 1M window only when it is named with [1m]",
            assumed=True,
        )
    return NominalWindow(
        LARGE_WINDOW,
        f"Claude Code gives {model} the 1M window on {FIRST_PARTY_HOST}, and no other "
        "base URL or provider is set",
        assumed=True,
    )
