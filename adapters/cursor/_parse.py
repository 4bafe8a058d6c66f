"""One Cursor composer chat, as stored, → :class:`~driftguard.model.Session` (pure; no I/O).

The input is the decoded ``composerData:<composerId>`` object and the raw values of its
``bubbleId:<composerId>:<bubbleId>`` rows; ``README.md`` beside this module lists every
field read and where each is documented. In short (docs/design.md §4, §5.1, §5.3):

- **Order.** ``fullConversationHeadersOnly`` (``[{bubbleId, type, serverBubbleId?}]``) lists
  the bubbles in order; each is read from its own row, or from the inline ``conversation`` /
  ``conversationMap`` of older builds when it has no row. Without headers the inline
  ``conversation`` array is the chat. A bubble whose ``(type, serverBubbleId)`` was already
  read is the same message stored twice and is passed over.
- **Messages.** Bubble ``type`` 1 with non-blank ``text`` → a user message; ``type`` 2 with
  non-blank ``text`` → an assistant message (``thinking`` is never text). A ``type`` 2 bubble's
  ``toolFormerData`` is one tool call (``name``; arguments from ``rawArgs``, else ``params``;
  JSON strings are decoded) hung on its assistant message, or, on a bubble without text, on a
  ``role="tool"`` message with empty content (as every adapter writes a response of tool
  calls only); its ``result`` follows as a separate ``role="tool"`` message (the tool result
  fed back to the model), ``is_error`` when ``status`` is ``"error"``.
- **Compaction.** Cursor's summary (``aiserver.v1.ConversationSummary``: ``summary``,
  ``truncationLastBubbleIdInclusive``, ``clientShouldStartSendingFromInclusiveBubbleId``) is
  recorded on the bubble that carries it (``conversationSummary``, a JSON string) and as the
  composer's ``latestConversationSummary.summary``. Each distinct summary is one compaction.
  The model remembers the summary, then the bubbles from
  ``clientShouldStartSendingFromInclusiveBubbleId`` on (failing that: after
  ``truncationLastBubbleIdInclusive``; failing that, for a bubble's own summary: after that
  bubble). A summary whose boundary names no bubble of the chat is counted but cuts nothing.
  The compaction ledger (:class:`~driftguard.compaction.ledger.LedgerBuilder`) takes the summaries
  in the order of their boundaries: each one drops the bubbles between the previous boundary
  and its own, and keeps its text and the bubbles after it up to the next boundary; a
  summary that names no bubble of the chat gets an entry saying what it dropped is unknown
  (placed at its carrier bubble, or last for the composer's own). Its time is its carrier
  bubble's ``createdAt``; no trigger or token count is recorded.
- **Tokens.** ``context_tokens``: Cursor's own context meter of the chat
  (``promptTokenBreakdown.totalUsedTokens``, else ``contextTokensUsed``); else the
  latest remembered bubble's non-zero ``tokenCount.inputTokens`` (an assistant bubble) or
  ``contextWindowStatusAtCreation.tokensUsed`` (a user bubble, as the prompt was created);
  else ``floor(Σ len(content) / 4)`` with ``tokens_estimated``. ``context_window``: the latest
  bubble's ``contextWindowStatusAtCreation.tokenLimit``, else the composer's
  ``contextTokenLimit``, else :data:`DEFAULT_CONTEXT_WINDOW`.
- **Model.** An assistant message's model is its bubble's ``modelInfo.modelName``, else
  that of the latest user bubble (Cursor records the selection on the prompt, Codess), else
  the composer's ``modelConfig.modelName``; ``Session.model`` is the latest one. Names are
  kept as written (``"default"`` is Cursor's Auto).
- **Turns** (:func:`build_turns`): the chat of the bubbles before each typed prompt's,
  with the summaries they carry; the composer's own fields count for the chat now only.
- **Skipped** (``skipped_lines``): a header that is not an object with a ``bubbleId``, a
  bubble row that is not a JSON object (or nested deeper than
  ``_common.MAX_JSON_DEPTH``), a header whose bubble is neither stored nor inline (Cursor
  writes the header first: a half-written record), and a bubble of an unknown ``type``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from driftguard.adapters._common import (
    ToolKinds,
    decode_json,
    estimate_tokens,
    make_tool_call,
    parse_timestamp,
    read_token_count,
)
from driftguard.adapters.cursor._paths import file_uri_to_path
from driftguard.compaction.ledger import LedgerBuilder
from driftguard.model import CompactionRecord, ParsedMessage, Session, ToolCall, ToolKind

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "EDIT_TOOLS",
    "READ_TOOLS",
    "SHELL_TOOLS",
    "TOOL_KINDS",
    "build_session",
    "build_turns",
    "decode_object",
    "tool_kind",
]

DEFAULT_CONTEXT_WINDOW: Final = 200_000
"""Context window (tokens) when the chat records none: the window of Cursor's default
(non-Max) mode for the models it offers. Third-party write-ups of Max mode (morphllm.com
"Cursor Max Mode", dredyson.com's Max-mode guides) describe 200k as that default, and every
``tokenLimit`` in the public fixtures read for this adapter is 200 000; Cursor's own docs give
no single figure. Max mode can raise a model's window (to 1M for some): that is why the
window recorded in the chat wins whenever there is one."""

USER: Final = 1
ASSISTANT: Final = 2
"""Bubble ``type`` values: 1 = the person's message, 2 = the model's (every write-up)."""

EDIT_TOOLS: Final = frozenset(
    {
        "edit_file",
        "edit_file_v2",
        "search_replace",
        "edit_file_v2_search_replace",
        "apply_patch",
        "edit_file_v2_apply_patch",
        "write",
        "MultiEdit",
    }
)
"""``toolFormerData.name`` values that create or edit a file (git-ai's Cursor preset,
``src/commands/checkpoint_agent/agent_presets.rs``, names them in its match arms)."""

SHELL_TOOLS: Final = frozenset({"run_terminal_cmd", "run_terminal_command_v2"})
"""Tool names that run a shell command (git-ai's preset; Codess names ``run_terminal_cmd``
beside its numeric ``tool`` 15)."""

READ_TOOLS: Final = frozenset(
    {
        "read_file",
        "read_file_v2",
        "list_dir",
        "grep",
        "grep_search",
        "ripgrep",
        "ripgrep_raw_search",
        "codebase_search",
        "semantic_search_full",
        "file_search",
        "glob_file_search",
    }
)
"""Tool names that only read the workspace (git-ai's preset; ``read_file_v2`` and
``ripgrep_raw_search`` from a public Cursor fixture in the meter project)."""

_PATH_KEYS: Final = ("relativeWorkspacePath", "targetFile", "target_directory")
"""Argument keys naming a file that :func:`~driftguard.adapters._common.make_tool_call`
does not know (``relativeWorkspacePath`` in ``params`` of the ``*_v2`` tools, git-ai)."""


TOOL_KINDS: Final = ToolKinds(edit=EDIT_TOOLS, shell=SHELL_TOOLS, read=READ_TOOLS)
"""Cursor's tools by what they do; MCP tools and anything not listed are ``"other"``."""


def tool_kind(name: str, command: str | None = None) -> ToolKind:
    """What a Cursor tool call does, by its ``toolFormerData.name``: ``"edit"``,
    ``"shell"``, ``"read"`` or ``"other"`` (MCP tools and anything not listed)."""
    return TOOL_KINDS.of(name, command)


def decode_object(value: object) -> dict[str, Any] | None:
    """A JSON object from a stored value (``str``/``bytes`` JSON text, or an already decoded
    ``dict``); ``None`` for anything else, invalid JSON and JSON nested too deeply."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str | bytes):
        try:
            decoded = decode_json(value)
        except ValueError:
            return None
        return decoded if isinstance(decoded, dict) else None
    return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _nested(value: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _positive(value: object) -> int | None:
    count = read_token_count(value)
    return count if count else None


def _model_name(value: object) -> str | None:
    name = _nested(value, "modelName")
    return name if isinstance(name, str) and name else None


# ---------------------------------------------------------------------- tool calls


def _arguments(data: Mapping[str, Any]) -> object:
    """The call's arguments: ``rawArgs`` (what the model wrote), else ``params``, decoded
    from JSON text; an MCP envelope ``{"tools": [{"parameters": …}]}`` with one tool is
    unwrapped to that tool's parameters (dataclaw's Cursor parser)."""
    for key in ("rawArgs", "params"):
        raw = data.get(key)
        if raw is None or raw == "" or raw == {}:
            continue
        value: object = raw
        for _ in range(2):  # params are sometimes JSON text holding JSON text
            if not isinstance(value, str):
                break
            try:
                value = decode_json(value)
            except ValueError:
                break
        tools = value.get("tools") if isinstance(value, dict) else None
        if isinstance(tools, list) and len(tools) == 1 and isinstance(tools[0], dict):
            inner = decode_object(tools[0].get("parameters"))
            if inner is not None:
                value = inner
        return value
    return {}


def _tool_call(data: Mapping[str, Any]) -> ToolCall | None:
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return None
    args = _arguments(data)
    call = make_tool_call(name, args, TOOL_KINDS)
    if call.target_path is None and isinstance(args, dict):
        for key in _PATH_KEYS:
            target = args.get(key)
            if isinstance(target, str) and target:
                return replace(call, target_path=target)
    return call


def _result_text(value: object) -> str:
    """A tool result as text: a string as is, structured JSON as compact JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_error(data: Mapping[str, Any]) -> bool:
    status = data.get("status")
    if isinstance(status, dict):  # {"status": "error"} in some builds (dataclaw)
        status = status.get("status")
    return status == "error"


# ---------------------------------------------------------------------- summaries


@dataclass(frozen=True, slots=True)
class _Summary:
    """One Cursor conversation summary: its text and the bubble ids that bound it."""

    text: str
    truncated_through: str | None
    resume_from: str | None
    carrier: int | None  # index of the bubble that carries it, when it is a bubble's

    @property
    def key(self) -> str:
        return self.truncated_through or self.resume_from or self.text


def _summary(value: object, carrier: int | None) -> _Summary | None:
    data = decode_object(value)
    if data is None:
        return None
    text = _text(data.get("summary")).strip()
    through = data.get("truncationLastBubbleIdInclusive")
    resume = data.get("clientShouldStartSendingFromInclusiveBubbleId")
    summary = _Summary(
        text=text,
        truncated_through=through if isinstance(through, str) and through else None,
        resume_from=resume if isinstance(resume, str) and resume else None,
        carrier=carrier,
    )
    return summary if summary.key else None


def _composer_summary(composer: Mapping[str, Any]) -> _Summary | None:
    latest = composer.get("latestConversationSummary")
    if not isinstance(latest, dict):
        return None
    inner = decode_object(latest.get("summary"))  # {summary: ConversationSummary, lastBubbleId}
    return _summary(latest if inner is None else inner, None)  # else the flattened form


# ---------------------------------------------------------------------- bubbles


@dataclass(frozen=True, slots=True)
class _Item:
    """One bubble, reduced to what the session needs."""

    ids: frozenset[str]
    messages: tuple[ParsedMessage, ...]
    input_tokens: int | None = None
    status_tokens: int | None = None
    status_limit: int | None = None
    summary: _Summary | None = None
    timestamp: float | None = None


def _bubble_item(
    bubble: Mapping[str, Any], header: Mapping[str, Any], index: int, model: str | None
) -> _Item:
    ids = frozenset(
        value
        for value in (
            bubble.get("bubbleId"),
            header.get("bubbleId"),
            bubble.get("serverBubbleId"),
            header.get("serverBubbleId"),
        )
        if isinstance(value, str) and value
    )
    kind = bubble.get("type", header.get("type"))
    timestamp = parse_timestamp(bubble.get("createdAt"))
    status = bubble.get("contextWindowStatusAtCreation")
    common: dict[str, Any] = {
        "ids": ids,
        "status_tokens": _positive(_nested(status, "tokensUsed")),
        "status_limit": _positive(_nested(status, "tokenLimit")),
        "summary": _summary(bubble.get("conversationSummary"), index),
        "timestamp": timestamp,
    }
    text = _text(bubble.get("text")) or _text(bubble.get("rawText"))
    if kind == USER:
        messages: tuple[ParsedMessage, ...] = ()
        if text.strip():
            messages = (ParsedMessage(role="user", content=text, timestamp=timestamp),)
        return _Item(messages=messages, **common)
    input_tokens = _positive(_nested(bubble.get("tokenCount"), "inputTokens"))
    data = bubble.get("toolFormerData")
    call = _tool_call(data) if isinstance(data, dict) else None
    out: list[ParsedMessage] = []
    if text.strip():
        out.append(
            ParsedMessage(
                role="assistant",
                content=text,
                token_count=input_tokens,
                timestamp=timestamp,
                tool_calls=(call,) if call is not None else (),
                model=_model_name(bubble.get("modelInfo")) or model,
            )
        )
    if call is not None and isinstance(data, dict):
        result = _result_text(data.get("result"))
        error = _is_error(data)
        if not out:
            out.append(
                ParsedMessage(
                    role="tool",
                    content="",
                    token_count=input_tokens,
                    timestamp=timestamp,
                    tool_calls=(call,),
                )
            )
        if result or error:
            out.append(
                ParsedMessage(role="tool", content=result, timestamp=timestamp, is_error=error)
            )
    return _Item(messages=tuple(out), input_tokens=input_tokens, **common)


def _ordered_bubbles(
    composer: Mapping[str, Any], rows: Mapping[str, str | bytes]
) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], int]:
    """``(bubble, header)`` pairs in chat order, and how many were skipped."""
    skipped = 0
    inline: dict[str, dict[str, Any]] = {}
    conversation = composer.get("conversation")
    conversation = conversation if isinstance(conversation, list) else []
    for bubble in conversation:
        if isinstance(bubble, dict) and isinstance(bubble.get("bubbleId"), str):
            inline.setdefault(bubble["bubbleId"], bubble)
    mapping = composer.get("conversationMap")
    if isinstance(mapping, dict):
        for bubble_id, bubble in mapping.items():
            if isinstance(bubble, dict):
                inline.setdefault(bubble_id, bubble)
    headers = composer.get("fullConversationHeadersOnly")
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if isinstance(headers, list) and headers:
        for header in headers:
            bubble_id = header.get("bubbleId") if isinstance(header, dict) else None
            if not isinstance(header, dict) or not isinstance(bubble_id, str) or not bubble_id:
                skipped += 1
                continue
            raw = rows.get(bubble_id)
            if raw is not None:
                decoded = decode_object(raw)
                if decoded is None:
                    skipped += 1
                    continue
                pairs.append((decoded, header))
            elif bubble_id in inline:
                pairs.append((inline[bubble_id], header))
            else:
                skipped += 1  # the header is written before its bubble: half-written
        return pairs, skipped
    for bubble in conversation:
        if isinstance(bubble, dict):
            pairs.append((bubble, {}))
        else:
            skipped += 1
    return pairs, skipped


def _locate(items: list[_Item], bubble_id: str | None) -> int | None:
    if bubble_id is None:
        return None
    for index, item in enumerate(items):
        if bubble_id in item.ids:
            return index
    return None


def _remembered_from(items: list[_Item], summary: _Summary) -> int | None:
    """Index of the first bubble the model still sees after ``summary`` (``None``: the
    summary's boundary names no bubble of this chat)."""
    start = _locate(items, summary.resume_from)
    if start is not None:
        return start
    through = _locate(items, summary.truncated_through)
    if through is not None:
        return through + 1
    if summary.carrier is not None:
        return summary.carrier + 1
    return None


@dataclass(frozen=True, slots=True)
class _Chat:
    """A chat's bubbles read in order, before any summary is applied.

    ``models[i]`` is the model selected when ``items[i]`` was written (the latest user
    bubble's selection so far, else the composer's); ``workspace_uri`` the first user
    bubble's first ``workspaceUris`` entry.
    """

    items: tuple[_Item, ...]
    models: tuple[str | None, ...]
    default_model: str | None
    workspace_uri: str | None
    skipped: int


def _read_chat(composer: Mapping[str, Any], rows: Mapping[str, str | bytes], skipped: int) -> _Chat:
    pairs, skipped_pairs = _ordered_bubbles(composer, rows)
    skipped += skipped_pairs
    default = _model_name(composer.get("modelConfig"))
    model = default
    items: list[_Item] = []
    models: list[str | None] = []
    seen: set[tuple[object, str]] = set()
    workspace_uri: str | None = None
    for bubble, header in pairs:
        kind = bubble.get("type", header.get("type"))
        if kind not in (USER, ASSISTANT) or isinstance(kind, bool):
            skipped += 1
            continue
        server_id = bubble.get("serverBubbleId", header.get("serverBubbleId"))
        if isinstance(server_id, str) and server_id:
            if (kind, server_id) in seen:
                continue  # the same message stored under a second bubble id (Codess)
            seen.add((kind, server_id))
        if kind == USER:
            model = _model_name(bubble.get("modelInfo")) or model
            uris = bubble.get("workspaceUris")
            if workspace_uri is None and isinstance(uris, list) and uris:
                workspace_uri = uris[0] if isinstance(uris[0], str) else None
        items.append(_bubble_item(bubble, header, len(items), model))
        models.append(model)
    return _Chat(tuple(items), tuple(models), default, workspace_uri, skipped)


def build_session(
    composer_id: str,
    composer: Mapping[str, Any],
    rows: Mapping[str, str | bytes],
    *,
    path: str,
    cwd: str | None = None,
    skipped: int = 0,
) -> Session:
    """The :class:`Session` of one composer chat (module docstring).

    Args:
        composer_id: the chat's id (``Session.session_id``).
        composer: the decoded ``composerData:<composer_id>`` object.
        rows: the stored values of the chat's bubble rows, keyed by bubble id (missing
            rows left out).
        path: what ``Session.path`` names (the database and the chat, see
            :func:`driftguard.adapters.cursor.session_locator`).
        cwd: the project folder when the caller knows it; otherwise the composer's
            ``workspaceIdentifier.uri.fsPath``, else the first ``workspaceUris`` entry of a
            bubble (a ``file:`` URI), else ``None``.
        skipped: records already skipped by the caller (added to ``skipped_lines``).
    """
    chat = _read_chat(composer, rows, skipped)
    return _session(chat, composer_id, composer, path=path, cwd=cwd, upto=None)


def build_turns(
    composer_id: str,
    composer: Mapping[str, Any],
    rows: Mapping[str, str | bytes],
    *,
    path: str,
    cwd: str | None = None,
    skipped: int = 0,
) -> Iterator[Session]:
    """The chat as it stood at the end of each turn, oldest first, then
    :func:`build_session`'s result (arguments as there).

    A turn runs from a prompt the person typed (a user bubble with text) to the next; its
    end is the chat of the bubbles before the next prompt's. The database keeps every
    bubble, so a turn before a summary is seen as it was then: the summaries its bubbles
    carry so far, the context its latest bubbles report. The composer's own fields (its
    context meter, its latest summary) describe the chat now and count in the last
    snapshot only.
    """
    chat = _read_chat(composer, rows, skipped)
    prompts = [
        index
        for index, item in enumerate(chat.items)
        if any(m.role == "user" for m in item.messages)
    ]
    for upto in prompts[1:]:
        yield _session(chat, composer_id, composer, path=path, cwd=cwd, upto=upto)
    yield _session(chat, composer_id, composer, path=path, cwd=cwd, upto=None)


def _session(
    chat: _Chat,
    composer_id: str,
    composer: Mapping[str, Any],
    *,
    path: str,
    cwd: str | None,
    upto: int | None,
) -> Session:
    """The session of ``chat``'s bubbles before ``upto`` (all of them and the composer's
    own fields when ``None``; :func:`build_turns`)."""
    now = upto is None
    items = list(chat.items if upto is None else chat.items[:upto])
    summaries: dict[str, _Summary] = {}
    for item in items:
        if item.summary is not None:
            summaries.setdefault(item.summary.key, item.summary)
    latest = _composer_summary(composer) if now else None
    if latest is not None:
        summaries.setdefault(latest.key, latest)
    cut, last = 0, None
    for summary in summaries.values():
        start = _remembered_from(items, summary)
        if start is not None and start >= cut:
            cut, last = start, summary
    summary_message = None
    if last is not None and last.text:
        stamp = items[last.carrier].timestamp if last.carrier is not None else None
        summary_message = ParsedMessage(
            role="user", content=last.text, timestamp=stamp, is_summary=True
        )

    remembered = items[cut:]
    messages = [summary_message] if summary_message is not None else []
    messages.extend(m for item in remembered for m in item.messages)
    context = None
    if now:
        context = _positive(_nested(composer, "promptTokenBreakdown", "totalUsedTokens")) or (
            _positive(composer.get("contextTokensUsed"))
        )
    for item in reversed(remembered):
        context = context or item.input_tokens or item.status_tokens
    window = next((item.status_limit for item in reversed(items) if item.status_limit), None)
    window = window or _positive(composer.get("contextTokenLimit")) or DEFAULT_CONTEXT_WINDOW
    if cwd is None:
        named = _nested(composer, "workspaceIdentifier", "uri", "fsPath")
        cwd = named if isinstance(named, str) and named else None
    if cwd is None and chat.workspace_uri is not None:
        cwd = file_uri_to_path(chat.workspace_uri)
    ledger = _ledger(items, list(summaries.values()), cwd)
    last_model = next(
        (m.model for m in reversed(messages) if m.role == "assistant" and m.model), None
    )
    model = chat.models[len(items) - 1] if items else chat.default_model
    first_request = next((item.input_tokens for item in items if item.input_tokens), None)
    return Session(
        cli="cursor",
        path=path,
        session_id=composer_id,
        cwd=cwd,
        messages=tuple(messages),
        context_tokens=estimate_tokens(messages) if context is None else context,
        context_window=window,
        tokens_estimated=context is None,
        compactions=len(summaries),
        skipped_lines=chat.skipped,
        model=last_model or model,
        first_request_tokens=first_request,
        compaction_ledger=ledger,
    )


def _ledger(
    items: list[_Item], summaries: list[_Summary], cwd: str | None
) -> tuple[CompactionRecord, ...]:
    """The compaction ledger of a chat (module docstring): one record per summary."""
    placed: list[tuple[int, int | None, _Summary]] = []
    for summary in summaries:
        start = _remembered_from(items, summary)
        where = summary.carrier + 1 if summary.carrier is not None else len(items)
        placed.append((start if start is not None else where, start, summary))
    placed.sort(key=lambda entry: entry[0])
    ledger = LedgerBuilder()
    previous = 0
    for index, (_, start, summary) in enumerate(placed):
        stamp = items[summary.carrier].timestamp if summary.carrier is not None else None
        if start is None:
            ledger.compacted(
                (),
                timestamp=stamp,
                cwd=cwd,
                unknown="Cursor's summary names no message of the chat it follows",
            )
            continue
        upto = next((p[1] for p in placed[index + 1 :] if p[1] is not None), len(items))
        ledger.compacted(
            (m for item in items[previous:start] for m in item.messages),
            timestamp=stamp,
            cwd=cwd,
            kept=[summary.text],
        )
        for item in items[start:upto]:
            for message in item.messages:
                if message.role == "user":
                    ledger.named(message.content)
                for call in message.tool_calls:
                    ledger.targeted(call.target_path)
        previous = max(previous, start)
    return ledger.records()
