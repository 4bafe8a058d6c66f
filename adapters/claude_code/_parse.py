"""Claude Code session files → :class:`~driftguard.model.Session` (docs/formats.md §A).

Where the files live (docs/formats.md §A.1): ``~/.claude/projects/<project>/<session-id>.jsonl``
(the root moves with ``CLAUDE_CONFIG_DIR``; ``~/.config/claude/projects`` in the 1.0.28–1.0.30
XDG episode). Subagent transcripts are ``<project>/agent-<id>.jsonl`` (2.0.x) or
``<project>/<session-id>/subagents/agent-<id>.jsonl`` (≥ 2.1.2). This module only reads the
one file it is given; finding files is :mod:`._find`'s job.

Format: JSONL, one object per line, append-only. Record types read (docs/formats.md §A.4):

- ``user``: a typed prompt, tool results (``tool_result`` blocks), harness-injected text
  (``isMeta``, slash-command wrappers, interrupt markers, system reminders) or the compaction
  summary (``isCompactSummary``). ``message.content`` is a string or an array of blocks
  (bare strings allowed); a ``tool_result``'s own ``content`` is a string or an array.
- ``assistant``: one line per content block of one API response; the lines of one
  response share ``message.id`` (and ``requestId``) and each repeats ``message.usage``,
  whose ``output_tokens`` is final only on the last line (§A.6).
- ``system`` with subtype ``compact_boundary`` (a compaction, §A.9). Other subtypes,
  ``microcompact_boundary`` included, are metadata.
- Every other type of the §A.4 catalog (``summary`` session titles, ``attachment``,
  ``progress``, ``file-history-snapshot``, ``queue-operation``, ``*-title``, ``last-prompt``,
  the 2026 additions …) is known metadata: read for ``sessionId``/``cwd`` only.

Envelope fields may be missing on any line and any field may be ``null``; nothing here
requires them.

Token semantics (docs/design.md §5.3, docs/formats.md §A.6): the context size of one request is
``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` of the *last* line
of its response, where ``cache_creation_input_tokens`` is raised to the sum of the
``usage.cache_creation`` breakdown when that is larger (before 2.1.152 the field could be 0
while the breakdown was not). A field that is missing, ``null`` or no token count
(negative, boolean, ``NaN``/``Infinity``, non-numeric, above 2**53) counts as 0, so a
negative ``input_tokens`` never lowers the size. Lines of one response are never summed.
``output_tokens`` is not used. ``Session.context_tokens`` is the context size of the latest
main-chain response after the last compaction whose size is not zero; with no such response
it is the estimate ``floor(Σ len(content) / 4)`` over the remembered messages and
``tokens_estimated`` is set.
The context window is not in the file (§A.11): ``Session.context_window`` is 1 000 000 when
any scored request exceeded 200 000 tokens or the model is 1M-native
(:func:`._window.is_native_1m`), else 200 000 (docs/design.md §5.3) — what the file and the model
name give on Anthropic's own API. ``Session.peak_context_tokens`` is the largest such
request (``None`` without usage). The window a score uses is chosen later, with the
environment (:func:`._window.model_window`).

What the model remembers (docs/design.md §5.1): lines are first de-duplicated by ``uuid`` (a
compaction mid-turn writes some lines twice). A ``compact_boundary`` drops everything before
it, including the preserved segment it points back to; its summary (the next user line with
``isCompactSummary``, or failing that one starting "This session is being continued from a
previous conversation") becomes one ``is_summary`` message, placed first. Such a summary line
without a boundary before it (older builds) is kept as the summary too, without dropping
anything. ``Session.compactions`` counts the boundaries of the scored conversation over
the whole file (a sidechain's own boundary inside a main file belongs to a subagent and is
not counted). ``microcompact_boundary`` clears
old tool results in place without a summary: it is not a compaction, is not counted, and
changes nothing here (the next response's usage already shows the smaller context; the tool
results we keep only matter for the character estimate).

User messages are the prompts a person typed. Not user messages: ``isMeta`` lines,
slash-command wrappers (``<command-name>``, ``<command-message>``, ``<command-args>``,
``<local-command-stdout|stderr|caveat>``), ``!`` bash-mode echoes (``<bash-input>``,
``<bash-stdout>``, ``<bash-stderr>``), ``[Request interrupted by user…]`` and text made only
of ``<system-reminder>`` / ``<ide_opened_file>`` / ``<ide_selection>`` blocks (which are also
cut out of the prompts they accompany). ``tool_result`` blocks become one ``tool`` message
per line (their text joined with ``"\n"``, ``is_error`` when any result is an error). A
response with text is one ``assistant`` message; one with tool calls only is a ``tool``
message with empty content carrying the calls; one with neither (thinking only) adds no
message but its usage still counts.

Never scored: sidechain lines inside a main session file (subagent and ``/btw`` traffic),
lines whose model is ``<synthetic>`` (text and usage), API-error replies
(``isApiErrorMessage``), ``progress`` lines (``agent_progress`` embeds subagent usage), and
``toolUseResult.usage`` summaries (never read).

Subagent files: a file whose name starts with ``agent-`` is a subagent transcript; all of
its conversation lines are scored as its own conversation whatever their ``isSidechain``.
A file of another name in which *every* conversation line is a sidechain line (no main-chain
``user``/``assistant``/``compact_boundary`` line at all) is scored the same way; the first
main-chain line makes it a main file and its sidechain lines are ignored from then on.

Skipped and counted in ``Session.skipped_lines``: invalid JSON (JSON nested deeper than
``_common.MAX_JSON_DEPTH`` levels included), JSON that is not an object,
a half-written last line (unterminated and not valid JSON), and records whose ``type`` is
missing or not in the §A.4 catalog. Unknown ``system`` subtypes and ``attachment`` types
are metadata, not skipped. Blank lines are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec

from driftguard.adapters._common import (
    MAX_TOKEN_COUNT,
    RememberedBound,
    ToolKinds,
    after_cut,
    compact_id,
    feed_file,
    make_tool_call,
    parse_timestamp,
    read_token_count,
    shift,
)
from driftguard.adapters._fastjson import load_typed
from driftguard.adapters.claude_code._window import DEFAULT_WINDOW, LARGE_WINDOW, is_native_1m
from driftguard.compaction.ledger import LedgerBuilder
from driftguard.model import CompactionTrigger, ParsedMessage, Session, ToolCall

__all__ = ["RECORD_TYPES", "TOOL_KINDS", "ClaudeCodeParser", "parse"]

RECORD_TYPES: frozenset[str] = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "progress",
        "attachment",
        "custom-title",
        "ai-title",
        "agent-name",
        "agent-setting",
        "last-prompt",
        "permission-mode",
        "mode",
        "pr-link",
        "worktree-state",
        "relocated",
        "frame-link",
        "bridge-session",
        "atis-latch",
        "fork-context-ref",
        "saved_hook_context",
        "started",
        "result",
    }
)
"""Every line ``type`` of the docs/formats.md §A.4 catalog (up to Claude Code ≈ 2.1.239).

A line of any other type is counted in ``Session.skipped_lines``."""

TOOL_KINDS = ToolKinds(
    edit=frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"}),
    shell=frozenset({"Bash"}),
    read=frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"}),
)
"""Claude Code's built-in tools by what they do (``tool_use.name``); MCP tools
(``mcp__<server>__<tool>``) and the rest are ``"other"``."""

_SYNTHETIC_MODEL = "<synthetic>"
_SUMMARY_PREFIX = "This session is being continued from a previous conversation"
_INTERRUPT_PREFIX = "[Request interrupted by user"
_REFUSAL_PREFIXES = ("The user doesn't want to proceed with this tool use", _INTERRUPT_PREFIX)
"""How a tool result the person refused (a rejected permission prompt) or cut short
(Esc during a tool call) begins (docs/formats.md §A): such a result is ``refused``."""
_WRAPPER_PREFIXES = (
    # slash commands (docs/design.md §5.1) and their siblings
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    # "!" bash mode: the command and its output, not a prompt to the model
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)
_HARNESS_BLOCK = re.compile(r"<(system-reminder|ide_opened_file|ide_selection)>.*?</\1>", re.DOTALL)


class _Usage(msgspec.Struct, gc=False):
    """The ``message.usage`` fields read (docs/formats.md §A.6); any JSON value each."""

    input_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None
    cache_creation: Any = None


class _Block(msgspec.Struct, gc=False):
    """The content-block fields read: ``text``, ``tool_use`` and ``tool_result`` blocks."""

    type: Any = None
    text: Any = None
    name: Any = None
    input: Any = None
    content: Any = None
    is_error: Any = None


class _Message(msgspec.Struct, gc=False):
    """The ``message`` fields read. ``content`` holds only blocks and bare strings (other
    items are never read); ``None`` when it is neither an array nor a string."""

    id: Any = None
    model: Any = None
    content: list[_Block | str] | str | None = None
    usage: _Usage | None = None


class _Record(msgspec.Struct, gc=False):
    """The fields of one line that this module reads; a missing field is ``None``, as is
    ``null`` (the parser never tells them apart). ``message`` is ``None`` when it is not a
    JSON object. Every other field of the line is checked by the decoder and skipped
    (``toolUseResult`` alone is about a third of a session's bytes)."""

    type: Any = None
    subtype: Any = None
    sessionId: Any = None
    session_id: Any = None
    cwd: Any = None
    uuid: Any = None
    isSidechain: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    isApiErrorMessage: Any = None
    requestId: Any = None
    timestamp: Any = None
    compactMetadata: Any = None
    message: _Message | None = None


_DECODER: msgspec.json.Decoder[_Record] = msgspec.json.Decoder(_Record)


S = TypeVar("S", _Usage, _Block, _Message, _Record)


def _fields_from(kind: type[S], value: dict[str, Any], **converted: Any) -> S:
    """A ``kind`` holding ``value``'s fields (missing ones ``None``), ``converted`` first."""
    return kind(**{name: value.get(name) for name in kind.__struct_fields__} | converted)


def _message_from(message: dict[str, Any]) -> _Message:
    content = message.get("content")
    if isinstance(content, list):
        content = [
            _fields_from(_Block, item) if isinstance(item, dict) else item
            for item in content
            if isinstance(item, dict | str)
        ]
    elif not isinstance(content, str):
        content = None
    usage = message.get("usage")
    return _fields_from(
        _Message,
        message,
        content=content,
        usage=_fields_from(_Usage, usage) if isinstance(usage, dict) else None,
    )


def _record_from(record: dict[str, Any]) -> _Record:
    """The :class:`_Record` of a line decoded into a dict: what the typed decoder gives for
    a line it reads, for the lines it leaves to the standard library."""
    message = record.get("message")
    return _fields_from(
        _Record, record, message=_message_from(message) if isinstance(message, dict) else None
    )


def _tokens(value: object) -> int:
    """A usage field's token count, 0 when it is none (:func:`read_token_count`: negative,
    boolean, non-finite, non-numeric or absurdly large values count as absent)."""
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:
        return value  # the usual case, decided without a call
    return read_token_count(value) or 0


def _context_size(usage: _Usage) -> int:
    """Prompt-side tokens of one request from a ``message.usage`` object (docs/design.md §5.3).

    ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``, where the cache
    creation term is the larger of the field and the sum of the ``cache_creation`` breakdown
    (``ephemeral_5m_input_tokens`` + ``ephemeral_1h_input_tokens`` + …) when one is present.
    Missing, ``null``, non-numeric, negative, non-finite or absurdly large fields count as 0.
    """
    creation = _tokens(usage.cache_creation_input_tokens)
    breakdown = usage.cache_creation
    if isinstance(breakdown, dict):
        creation = max(creation, sum(_tokens(v) for v in breakdown.values()))
    return _tokens(usage.input_tokens) + creation + _tokens(usage.cache_read_input_tokens)


def _block_texts(content: object) -> list[str]:
    """The text of a ``tool_result.content``: a string, or an array of ``text`` blocks and
    bare strings (images and tool references carry no text)."""
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    texts.append(text)
    return texts


def _lstripped(text: str) -> str:
    """``text.lstrip()``, without copying a text that starts with no whitespace."""
    return text.lstrip() if text[:1].isspace() else text


def _typed_text(text: str) -> str | None:
    """What a person typed in one user text chunk, or ``None`` when the chunk is harness
    noise (docs/design.md §5.1): a slash-command or bash-mode wrapper, an interrupt marker, or only
    ``<system-reminder>``/IDE context blocks (which are removed from kept text too)."""
    stripped = _lstripped(text)
    if not stripped or stripped.startswith(_WRAPPER_PREFIXES):
        return None
    if stripped.startswith(_INTERRUPT_PREFIX):
        return None
    if "</" in text and _HARNESS_BLOCK.search(text):
        text = _HARNESS_BLOCK.sub("", text).strip()
        if not text:
            return None
    return text


@dataclass(slots=True)
class _Response:
    """One API response being rebuilt from its lines (mutable while lines arrive).

    ``index`` is its slot in :attr:`_Conversation.items`; ``dirty`` says the slot must be
    rebuilt before the next snapshot (whoever changes the other fields calls
    :meth:`_Conversation.touch`).
    """

    timestamp: float | None
    index: int
    text: str | None = None
    """The text blocks joined with ``"\\n"`` (``None`` before the first one)."""
    tool_calls: tuple[ToolCall, ...] = ()
    context: int = 0
    model: str | None = None
    dirty: bool = False

    def add_text(self, text: str) -> None:
        """Join one more text block on (``"\\n"`` between blocks)."""
        self.text = text if self.text is None else f"{self.text}\n{text}"

    def to_message(self) -> ParsedMessage | None:
        """The response as a message: ``assistant`` with text, ``tool`` (content ``""``)
        with tool calls only, ``None`` with neither (thinking only)."""
        token_count = self.context or None
        if self.text is not None:
            return ParsedMessage(
                role="assistant",
                content=self.text,
                token_count=token_count,
                timestamp=self.timestamp,
                tool_calls=self.tool_calls,
                model=self.model,
            )
        if self.tool_calls:
            return ParsedMessage(
                role="tool",
                content="",
                token_count=token_count,
                timestamp=self.timestamp,
                tool_calls=self.tool_calls,
            )
        return None


@dataclass(slots=True)
class _Conversation:
    """Accumulated state of one conversation (the main chain, or a subagent's own lines).

    ``items`` holds the remembered messages in file order (the summary apart), one slot per
    message or response; a response's slot holds its last built message, ``None`` while it
    has none. Only the responses changed since the last snapshot are rebuilt, so a snapshot
    costs one C-level copy of the slots, and every snapshot hands out the same
    :class:`ParsedMessage` objects for the messages that did not change (downstream caches
    key on them).
    """

    items: list[ParsedMessage | None] = field(default_factory=list)
    holes: int = 0
    """Slots of ``items`` that hold ``None``: while there are none, a snapshot copies the
    slots as they are (measured: 34 256 messages of the 150 MB benchmark session take
    330 µs through a filter, a tenth of that as a plain copy)."""
    chars: int = 0
    """Σ ``len(content)`` over the messages in ``items`` as they stand after the lines
    read so far (a response's text counts as its lines arrive, before its slot is
    rebuilt), so the bound is checked without rebuilding anything."""
    dirty: list[_Response] = field(default_factory=list)
    responses: dict[str | tuple[str | None, str | None], _Response] = field(default_factory=dict)
    """Keyed responses by :func:`_response_key`."""
    current: _Response | None = None
    summary: ParsedMessage | None = None
    summary_flagged: bool = False
    preserved: frozenset[int | str] = frozenset()
    """The line keys (:func:`~driftguard.adapters._common.compact_id`) of the preserved
    segment the last boundary names: lines already read before it."""
    latest_context: int | None = None
    first_context: int | None = None
    max_context: int = 0
    model: str | None = None
    compactions: int = 0
    prompts: int = 0
    """Typed prompts added, before and after compactions alike."""
    seen: bool = False
    ledger: LedgerBuilder = field(default_factory=LedgerBuilder)
    bound: RememberedBound = field(default_factory=RememberedBound)
    """Keeps ``chars`` (and the summary) within the remembered-text bound
    (:meth:`keep_bound`)."""
    slots: dict[int | str, int] = field(default_factory=dict)
    """The slot in ``items`` of the first message each line (by the
    :func:`~driftguard.adapters._common.compact_id` of its ``uuid``) made since the last
    compaction: what a boundary's preserved segment names (:meth:`compact`)."""

    def compact(self, metadata: object, timestamp: float | None, cwd: str | None) -> None:
        """A ``compact_boundary``: note what it dropped in the ledger, then forget
        everything before it (docs/design.md §5.1).

        The ledger's digest (:class:`~driftguard.compaction.ledger.LedgerBuilder`) reads the
        messages before the boundary less the preserved segment it names (the lines of
        ``preservedMessages.uuids`` and ``preservedSegment``, which Claude Code keeps
        verbatim: their slots span from the first to the last of them); the preserved
        messages count as kept. The trigger and ``preTokens`` come from
        ``compactMetadata``; the summary, on a later line, is given to the ledger then.
        """
        self.compactions += 1
        preserved = _preserved_uuids(metadata)
        self.messages()  # every slot up to date
        items = self.items
        found = [self.slots[u] for u in preserved if u in self.slots]
        start = end = len(items)
        if found:
            start, last = min(found), max(found)
            end = min((slot for slot in self.slots.values() if slot > last), default=len(items))
        kept = [m for m in items[start:end] if m is not None]
        head = self.bound.head  # the ledger read it when the bound let go what followed it
        self.ledger.compacted(
            (m for m in (*items[:start], *items[end:]) if m is not None and m is not head),
            timestamp=timestamp,
            cwd=cwd,
            trigger=_trigger(metadata),
            tokens_before=_pre_tokens(metadata),
            kept=[m.content for m in kept],
            kept_paths=[c.target_path for m in kept for c in m.tool_calls if c.target_path],
        )
        self.slots = {}
        self.items = []
        self.holes = 0
        self.chars = 0
        self.dirty = []
        self.responses = {}
        self.current = None
        self.summary = None
        self.summary_flagged = False
        self.latest_context = None
        self.preserved = preserved
        self.bound.reset()

    def keep_bound(self, cwd: str | None) -> None:
        """Let the oldest messages go when the remembered text (``chars`` and the summary)
        passed the bound (:class:`~driftguard.adapters._common.RememberedBound`): the
        ledger reads them, their slots go, and the slots after them move up (responses
        and line keys with them; a response let go is never joined again)."""
        summary = len(self.summary.content) if self.summary is not None else 0
        if self.chars + summary <= self.bound.limit:
            return
        self.refresh()
        cut = self.bound.cut(self.items, 0, self.chars + summary)
        if cut is None:
            return
        self.ledger.let_go(cut.messages, cwd=cwd)
        moved = shift(cut)
        self.items = after_cut(self.items, cut)
        self.holes = self.items.count(None)
        self.chars -= cut.chars
        self.responses = {k: r for k, r in self.responses.items() if r.index >= cut.end}
        if self.current is not None and self.current.index < cut.end:
            self.current = None
        moving = {id(r): r for r in self.responses.values()}  # each response once
        if self.current is not None:
            moving[id(self.current)] = self.current
        for response in moving.values():
            response.index -= moved
        self.slots = {
            key: slot if slot < cut.start else slot - moved if slot >= cut.end else cut.start
            for key, slot in self.slots.items()
            if slot < cut.start or slot >= cut.end or slot == cut.head
        }

    def add_text(self, response: _Response, text: str) -> None:
        """Join one more text block on ``response`` (counted in ``chars``)."""
        self.chars += len(text) if response.text is None else len(text) + 1
        response.add_text(text)

    def add(self, message: ParsedMessage, key: int | str | None) -> None:
        """Append a message that is final as it is (a prompt, tool results), made by the
        line whose uuid's :func:`~driftguard.adapters._common.compact_id` is ``key``."""
        if key is not None:
            self.slots.setdefault(key, len(self.items))
        self.items.append(message)
        self.chars += len(message.content)

    def touch(self, response: _Response) -> None:
        """Note that ``response`` changed: its slot is rebuilt at the next snapshot."""
        if not response.dirty:
            response.dirty = True
            self.dirty.append(response)

    def response_for(
        self, message_id: str | None, request_id: str | None, timestamp: object
    ) -> _Response:
        """The response a line belongs to, created (in file position) on its first line.

        Lines merge by ``message.id`` (falling back to ``requestId``; a line with neither is
        a response of its own, as if keyed by its ``uuid``). Two lines with the same
        ``message.id`` but different ``requestId`` are two responses (docs/formats.md §E #3–#5).
        Without a ``requestId`` a line only joins the latest response of the current turn
        (no typed prompt in between), since gateways may reuse one ``message.id`` for every
        response (§E #4). ``timestamp`` is the line's raw ``timestamp``, read only for a new
        response.
        """
        key = _response_key(message_id, request_id)
        keyed = message_id is not None or request_id is not None
        if keyed:
            found = self.responses.get(key)
            if found is not None and (request_id is not None or found is self.current):
                self.current = found
                return found
        response = _Response(timestamp=parse_timestamp(timestamp), index=len(self.items))
        self.items.append(None)
        self.holes += 1
        if keyed:
            self.responses[key] = response
        self.current = response
        return response

    def add_summary(self, message: ParsedMessage, flagged: bool) -> None:
        """Keep the first summary after the boundary; a flagged one replaces a text match.
        The ledger reads every one: what a summary names survived the compaction."""
        self.ledger.named(message.content)
        if self.summary is None or (flagged and not self.summary_flagged):
            self.summary = message
            self.summary_flagged = flagged

    def refresh(self) -> None:
        """Rebuild the slots of the responses changed since the last snapshot."""
        if self.dirty:
            items = self.items
            for response in self.dirty:
                message = response.to_message()
                if items[response.index] is not None:
                    self.holes += 1
                if message is not None:
                    self.holes -= 1
                items[response.index] = message
                response.dirty = False
            self.dirty.clear()

    def messages(self) -> tuple[ParsedMessage, ...]:
        """The remembered messages, the summary first (changed responses rebuilt first)."""
        self.refresh()
        if self.holes:
            body = tuple(filter(None, self.items))
        else:  # no slot holds None
            body = cast("tuple[ParsedMessage, ...]", tuple(self.items))
        return body if self.summary is None else (self.summary, *body)

    def estimate(self) -> int:
        """``floor(Σ len(content) / 4)`` over :meth:`messages` (call that first)."""
        summary = len(self.summary.content) if self.summary is not None else 0
        return (self.chars + summary) // 4


def _response_key(
    message_id: str | None, request_id: str | None
) -> str | tuple[str | None, str | None]:
    """The key of a response: the pair of its ids, kept as one string
    ``message_id + NUL + request_id`` when both are there and hold no NUL (the usual case;
    a third of the memory of the pair), else as the pair itself — distinct pairs keep
    distinct keys either way."""
    if message_id is None or request_id is None or "\0" in message_id or "\0" in request_id:
        return (message_id, request_id)
    return f"{message_id}\0{request_id}"


def _trigger(metadata: object) -> CompactionTrigger | None:
    """``compactMetadata.trigger`` when it is ``"auto"`` or ``"manual"``."""
    trigger = metadata.get("trigger") if isinstance(metadata, dict) else None
    if trigger == "auto":
        return "auto"
    if trigger == "manual":
        return "manual"
    return None


def _pre_tokens(metadata: object) -> int | None:
    """``compactMetadata.preTokens``: Claude Code's own count of the context when it
    compacted (2.1.197: ``yS(messages)``, its ``tokenCountWithEstimation`` — the last
    response's ``input + cache_creation + cache_read + output`` tokens plus an estimate of
    the messages after it, the count it compares with the auto-compact threshold), or
    ``None`` when absent, zero or no token count."""
    if not isinstance(metadata, dict):
        return None
    value = metadata.get("preTokens")
    return (read_token_count(value) or None) if value is not None else None


def _preserved_uuids(metadata: object) -> frozenset[int | str]:
    """The uuids of the preserved segment a ``compact_boundary`` points back to, as
    :func:`~driftguard.adapters._common.compact_id` keys."""
    if not isinstance(metadata, dict):
        return frozenset()
    found: set[int | str] = set()
    segment = metadata.get("preservedSegment")
    if isinstance(segment, dict):
        for key in ("headUuid", "tailUuid"):
            value = segment.get(key)
            if isinstance(value, str):
                found.add(compact_id(value))
    preserved = metadata.get("preservedMessages")
    if isinstance(preserved, dict):
        for key in ("uuids", "allUuids"):
            values = preserved.get(key)
            if isinstance(values, list):
                found.update(compact_id(v) for v in values if isinstance(v, str))
    return frozenset(found)


class ClaudeCodeParser:
    """Incremental parser of one Claude Code session file.

    Feed it the file's lines in order (each without its newline); :meth:`session` returns
    a snapshot at any time and feeding may continue afterwards. Per-line work is one typed
    JSON decode of the fields read (:class:`_Record`, :mod:`._fastjson`: what the standard
    library would read, the rest checked and skipped) plus constant work per content block;
    the state kept is the remembered messages (those after the last compaction), the uuids
    seen (for de-duplication) and a few counters. A snapshot rebuilds only the responses
    changed since the previous one.

    Args:
        path: the session file's path as given; kept in ``Session.path``, and a name
            starting with ``agent-`` marks a subagent transcript (see the module docstring).
    """

    __slots__ = (
        "_agent_file",
        "_cwd",
        "_main",
        "_models",
        "_path",
        "_seen_assistant",
        "_seen_boundary",
        "_seen_user",
        "_session_id",
        "_side",
        "_skipped",
    )

    def __init__(self, path: str) -> None:
        self._path = path
        self._agent_file = Path(path).name.startswith("agent-")
        self._main = _Conversation()
        # Sidechain lines seen before any main-chain line: the conversation to score if
        # the file turns out to hold nothing else. Dropped at the first main-chain line.
        self._side: _Conversation | None = None if self._agent_file else _Conversation()
        self._session_id: str | None = None
        self._cwd: str | None = None
        self._skipped = 0
        # uuids already read (as compact_id keys: these sets grow with the file), per
        # record kind: a line written twice repeats its kind, and keeping kinds apart stops
        # placeholder uuids shared across kinds (the redacted corpus catalog) from hiding a
        # boundary behind an unrelated line.
        self._seen_user: set[int | str] = set()
        self._seen_assistant: set[int | str] = set()
        self._seen_boundary: set[int | str] = set()
        self._models: dict[str, str] = {}

    def feed(self, line: bytes, terminated: bool = True) -> None:
        """Read one line of the file, without its newline.

        ``terminated`` says whether the line ended with a newline. A line that does not
        (the last one, perhaps half-written) is used when it holds a complete JSON object
        and otherwise counted as skipped, like any malformed line (docs/formats.md §A.15 #1).
        Blank lines are ignored. Never raises on content.
        """
        if not line or line.isspace():
            return
        record = load_typed(line, _DECODER, _record_from)
        if record is None:
            self._skipped += 1
            return
        kind = record.type
        if not isinstance(kind, str) or kind not in RECORD_TYPES:
            self._skipped += 1
            return
        session_id = record.sessionId
        if not isinstance(session_id, str) or not session_id:
            session_id = record.session_id
        if isinstance(session_id, str) and session_id:
            self._session_id = session_id
        cwd = record.cwd
        if isinstance(cwd, str) and cwd:
            self._cwd = cwd
        if kind == "assistant":
            self._on_assistant(record)
        elif kind == "user":
            self._on_user(record)
        elif kind == "system" and record.subtype == "compact_boundary":
            self._on_boundary(record)

    def _scored(self) -> _Conversation:
        """The conversation a snapshot reports: the main chain, or — while the file has no
        main-chain line at all — a subagent's own conversation."""
        if self._side is not None and self._side.seen:
            return self._side
        return self._main

    @property
    def prompts(self) -> int:
        """Typed prompts of the scored conversation so far (see ``LineParser.prompts``)."""
        return self._scored().prompts

    def session(self) -> Session:
        """The session as read so far (a new object each call; what it reports does not
        change the parser)."""
        conversation = self._scored()
        messages = conversation.messages()
        if conversation.latest_context is not None:
            context_tokens, estimated = conversation.latest_context, False
        else:
            context_tokens, estimated = conversation.estimate(), True
        large = conversation.max_context > DEFAULT_WINDOW or is_native_1m(conversation.model)
        return Session(
            cli="claude_code",
            path=self._path,
            session_id=self._session_id,
            cwd=self._cwd,
            messages=messages,
            context_tokens=context_tokens,
            context_window=LARGE_WINDOW if large else DEFAULT_WINDOW,
            tokens_estimated=estimated,
            compactions=conversation.compactions,
            skipped_lines=self._skipped,
            model=conversation.model,
            first_request_tokens=conversation.first_context,
            compaction_ledger=conversation.ledger.records(),
            messages_let_go=conversation.bound.let_go,
            peak_context_tokens=(
                conversation.max_context if conversation.first_context is not None else None
            ),
        )

    # -- routing ---------------------------------------------------------------------

    def _conversation(self, record: _Record, key: int | str | None) -> _Conversation | None:
        """The conversation a line (``key``: its uuid's ``compact_id``) belongs to, or
        ``None`` when it is never scored."""
        if self._agent_file or record.isSidechain is not True:
            self._side = None
            conversation = self._main
        elif self._side is not None:
            conversation = self._side
        else:
            return None
        conversation.seen = True
        if key is not None and key in conversation.preserved:
            return None
        return conversation

    @staticmethod
    def _key(record: _Record) -> int | str | None:
        """The line's uuid as a ``compact_id`` key, ``None`` when it has none."""
        return compact_id(record.uuid) if isinstance(record.uuid, str) else None

    @staticmethod
    def _first_time(seen: set[int | str], key: int | str | None) -> bool:
        if key is None:
            return True
        if key in seen:
            return False
        seen.add(key)
        return True

    # -- record kinds ----------------------------------------------------------------

    def _on_boundary(self, record: _Record) -> None:
        if not self._first_time(self._seen_boundary, self._key(record)):
            return
        conversation = self._conversation(record, None)
        if conversation is not None:
            conversation.compact(
                record.compactMetadata, parse_timestamp(record.timestamp), self._cwd
            )

    def _on_assistant(self, record: _Record) -> None:
        key = self._key(record)
        if not self._first_time(self._seen_assistant, key):
            return
        message = record.message if record.message is not None else _NO_MESSAGE
        model = message.model if isinstance(message.model, str) and message.model else None
        if model is not None:  # one string per model name, not one per response
            model = self._models.setdefault(model, model)
        if model == _SYNTHETIC_MODEL or record.isApiErrorMessage is True:
            return
        conversation = self._conversation(record, key)
        if conversation is None:
            return
        message_id = message.id if isinstance(message.id, str) else None
        request_id = record.requestId if isinstance(record.requestId, str) else None
        response = conversation.response_for(
            message_id or None, request_id or None, record.timestamp
        )
        conversation.touch(response)  # this line may change it: rebuilt at the next snapshot
        if key is not None:
            conversation.slots.setdefault(key, response.index)
        content = message.content
        if isinstance(content, str):
            if content and not content.isspace():
                conversation.add_text(response, content)
        elif content is not None:
            for block in content:
                if isinstance(block, str):
                    continue
                kind = block.type
                if kind == "text":
                    text = block.text
                    if isinstance(text, str) and text and not text.isspace():
                        conversation.add_text(response, text)
                elif kind == "tool_use":
                    name = block.name
                    call = make_tool_call(
                        name if isinstance(name, str) else "", block.input, TOOL_KINDS
                    )
                    response.tool_calls = (*response.tool_calls, call)
                    conversation.ledger.targeted(call.target_path)
        if model is not None:
            response.model = model
            conversation.model = model
        usage = message.usage
        if usage is not None:
            size = _context_size(usage)
            response.context = size
            if size > 0:
                conversation.latest_context = size
                if size > conversation.max_context:
                    conversation.max_context = size
                if conversation.first_context is None:
                    conversation.first_context = size
        conversation.keep_bound(self._cwd)

    def _on_user(self, record: _Record) -> None:
        key = self._key(record)
        if not self._first_time(self._seen_user, key):
            return
        conversation = self._conversation(record, key)
        if conversation is None:
            return
        self._read_user(conversation, record, key)
        conversation.keep_bound(self._cwd)

    def _read_user(
        self, conversation: _Conversation, record: _Record, key: int | str | None
    ) -> None:
        """What a ``user`` line of ``conversation`` adds: tool results, the summary, a
        prompt."""
        content = record.message.content if record.message is not None else None
        timestamp = parse_timestamp(record.timestamp)
        texts: list[str] = []
        results: list[str] = []
        is_error = False
        has_result = False
        refused = False
        if isinstance(content, str):
            texts.append(content)
        elif content is not None:
            for block in content:
                if isinstance(block, str):
                    texts.append(block)
                elif block.type == "text":
                    text = block.text
                    if isinstance(text, str):
                        texts.append(text)
                elif block.type == "tool_result":
                    has_result = True
                    block_texts = _block_texts(block.content)
                    results.extend(block_texts)
                    is_error = is_error or block.is_error is True
                    refused = refused or any(
                        _lstripped(text).startswith(_REFUSAL_PREFIXES) for text in block_texts
                    )
        if has_result:
            conversation.add(
                ParsedMessage(
                    role="tool",
                    content="\n".join(results),
                    timestamp=timestamp,
                    is_error=is_error,
                    refused=refused,
                ),
                key,
            )
        flagged = record.isCompactSummary is True
        if flagged or (texts and _lstripped(texts[0]).startswith(_SUMMARY_PREFIX)):
            conversation.add_summary(
                ParsedMessage(
                    role="user", content="\n".join(texts), timestamp=timestamp, is_summary=True
                ),
                flagged,
            )
            return
        if record.isMeta is True:
            return
        typed = [kept for kept in map(_typed_text, texts) if kept is not None]
        if typed:
            prompt = ParsedMessage(role="user", content="\n".join(typed), timestamp=timestamp)
            conversation.add(prompt, key)
            conversation.prompts += 1
            conversation.ledger.named(prompt.content)
            conversation.current = None  # a response never spans a typed prompt


_NO_MESSAGE = _Message()
"""What a line without a ``message`` object reads as."""


def parse(path: Path) -> Session:
    """Parse one Claude Code session file (``.jsonl``, plain or zstd) into a :class:`Session`.

    Streams the file line by line through :class:`ClaudeCodeParser`.

    Raises:
        SessionFormatError: the file cannot be opened or read.
    """
    parser = ClaudeCodeParser(str(path))
    feed_file(parser, path)
    return parser.session()
