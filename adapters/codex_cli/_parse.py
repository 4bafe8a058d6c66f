"""Codex CLI rollout files → :class:`~driftguard.model.Session` (docs/design.md §4, §5.1, §5.3).

Where the files live (docs/formats.md §C.1):
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`` (``$CODEX_HOME`` defaults to
``~/.codex``) and ``$CODEX_HOME/archived_sessions/``. Since 0.137 files idle for a week are
rewritten as ``rollout-*.jsonl.zst``; :func:`parse` opens both (zstd is recognised by its magic
number, not by the name).

Generations (docs/formats.md §C.2), all read by one line-by-line parser:

* **G1** (Rust ≤ ~0.2x): a bare ``SessionMeta`` first line ``{"id", "timestamp", "instructions"}``,
  then bare ResponseItems (``{"type": "message", …}``, ``function_call``, …) and
  ``{"record_type": "state"}`` lines. No timestamps on items, no token counts, no model.
* **G2** (≈ 0.3x → 2026): ``{"timestamp", "type", "payload"}`` lines of the kinds
  ``session_meta``, ``response_item``, ``event_msg``, ``turn_context`` and ``compacted``.
* **G3** (2026): G2 plus ``ordinal``, ``world_state``, ``inter_agent_communication_metadata``,
  ``token_usage_record`` and many new ``event_msg`` subtypes (``item_completed`` …).

Records used:

* ``session_meta``: ``payload.id`` of the **first** one is :attr:`Session.session_id` (a forked or
  subagent file writes its own meta first and then its parent's, docs/formats.md §C.6); its ``cwd``.
* ``turn_context``: ``model`` and ``cwd`` (the latest wins).
* ``response_item`` (or a bare G1 item): ``message`` (role ``user``/``assistant``; ``developer``
  is never a message), ``function_call``, ``custom_tool_call``, ``local_shell_call``,
  ``web_search_call`` (tool calls), ``function_call_output`` / ``custom_tool_call_output``
  (tool results). ``reasoning`` is never scored.
* ``event_msg``: ``token_count`` (usage, window), ``task_started`` (window), ``thread_rolled_back``
  (drops the last N user turns, as Codex's own replay does), and the turn markers
  ``task_started`` / ``task_complete`` / ``turn_aborted``. ``user_message``, ``agent_message``,
  ``item_completed`` and ``task_complete.last_agent_message`` repeat response items and are not
  read (docs/design.md §5.1: one source per prompt and per answer).
* ``compacted``: a compaction boundary (docs/design.md §5.1). Everything before the last one
  is dropped; its non-empty ``message`` is kept as the summary (``role="user"``,
  ``is_summary=True``). ``replacement_history`` (the prompts Codex re-sends) is a copy of
  pre-boundary items, a "preserved segment" that docs/design.md §5.1 drops from what is scored;
  the compaction ledger
  (:class:`~driftguard.compaction.ledger.LedgerBuilder`) counts the text of its ``message`` items
  and the targets of its tool calls as kept (the model still sees them: generated/codex's
  0.171.0 rollout carries every prompt typed before the boundary there). The file names no
  trigger and no token count for it. ``event_msg/context_compacted`` marks the same event and
  is not counted again.

Messages (docs/design.md §5.1):

* assistant = a ``message`` item with role ``assistant`` and non-blank ``output_text`` (parts
  joined with ``"\\n"``); the compaction request's own answer (``metadata.compaction_output``) is
  not one. Tool calls written in the same response (the run of model-output items between two
  inputs) hang on its assistant message, in file order; the calls of a response without text
  become one ``role="tool"`` message with ``content=""`` carrying them.
* user = a ``message`` item with role ``user`` that the person typed: harness-injected items
  (``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md instructions…``,
  ``<INSTRUCTIONS>``, ``<skills_instructions>``, ``<skill>``, ``<user_shell_command>``,
  ``<turn_aborted>``, ``<subagent_notification>``, ``<hook_prompt …>`` and the like, or items whose
  G3 provenance is only ``harness``) are not.
* tool = each ``function_call_output`` / ``custom_tool_call_output``; ``content`` is the output
  text, ``is_error`` when an older JSON envelope says ``metadata.exit_code != 0`` or
  ``success: false``, or a plain-text header says ``Exit code: N`` / ``Process exited with code N``
  with N ≠ 0.
* A fork's or subagent's replay of the parent history (after the second ``session_meta``) is
  kept: Codex sends it to the child model, so the child remembers it. Compactions inside it
  apply as anywhere else.

Token semantics (docs/design.md §5.3, docs/formats.md §C.4), all in tokens:

* ``context_tokens`` = ``info.last_token_usage.total_tokens`` (``input + output``; ``input``
  already includes cached tokens) of the latest *real* ``token_count`` after the last compaction.
  Not real: ``info: null``; a re-emit (its ``total_token_usage`` equals the previous event's; a
  lower total is a new baseline, not a re-emit); zero usage; and the synthetic events of Codex's
  ``fill_to_context_window`` (usage with zero input and zero output, or zero output and a total
  equal to the window); a usage block whose ``total_tokens``, ``input_tokens`` or
  ``output_tokens`` holds something that is no token count (negative, boolean, ``NaN``,
  non-numeric, above 2**53; ``null`` counts 0). When ``total_tokens`` is absent,
  ``input_tokens + output_tokens``; when ``last_token_usage`` is absent, the advance of
  ``total_token_usage``. No real usage since the last compaction: ``floor(Σ len(content) / 4)``
  and ``tokens_estimated=True``.
* ``context_window`` = the latest positive integer ``model_context_window`` up to 2**53
  (``token_count`` info or ``task_started``) as written, else 258 400.
* an assistant message's ``token_count`` = the context tokens of the request that produced it:
  the real ``token_count`` written just before its response (0.3x builds write usage first) or,
  failing that, the next one within the same turn (2026 builds write it after the response, even
  after the tool outputs); ``None`` when the turn ends first. Tool messages carry ``None``.

Skipped lines (:attr:`Session.skipped_lines`): invalid JSON (JSON nested deeper than
``_common.MAX_JSON_DEPTH`` levels included), non-object lines (a half-written
last line is one of these), records of a top-level kind never heard of, and known kinds whose
``payload`` is not an object. Blank lines are ignored. Known kinds that carry nothing for us
(``world_state``, ``token_usage_record``, G1 ``record_type`` lines …) and unknown ``event_msg`` or
``response_item`` subtypes are not skipped lines.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from driftguard.adapters._common import (
    PATCH_MARK,
    RememberedBound,
    ToolKinds,
    after_cut,
    decode_json,
    estimate_tokens,
    feed_file,
    make_tool_call,
    parse_timestamp,
    read_token_count,
    shift,
)
from driftguard.adapters._fastjson import load_object
from driftguard.compaction.ledger import LedgerBuilder
from driftguard.model import ParsedMessage, Session, ToolCall

__all__ = ["DEFAULT_CONTEXT_WINDOW", "TOOL_KINDS", "CodexCliParser", "parse"]

DEFAULT_CONTEXT_WINDOW: Final = 258_400
"""Tokens; 272 000 × 0.95, used when the file names no ``model_context_window``
(docs/design.md §5.3)."""

TOOL_KINDS = ToolKinds(
    edit=frozenset({"apply_patch"}),
    shell=frozenset({"shell", "shell_command", "exec_command", "local_shell"}),
    read=frozenset({"read_file", "list_dir", "grep_files", "view_image"}),
)
"""Codex's tools by what they do (``function_call.name``, ``custom_tool_call.name``; a
``local_shell_call`` is ``local_shell``). A shell call whose command is an
``apply_patch`` body is an edit (:meth:`~driftguard.adapters._common.ToolKinds.of`)."""

_ENVELOPE_KINDS: Final = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "inter_agent_communication",
        "inter_agent_communication_metadata",
        "token_usage_record",
    }
)
"""Top-level ``type`` values of G2/G3 lines (docs/formats.md §C.2–C.3); anything else is skipped."""

_ITEM_TYPES: Final = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "ghost_snapshot",
        "compaction",
        "compaction_summary",
        "agent_message",
        "other",
    }
)
"""ResponseItem types a bare G1 line may have (docs/formats.md §C.3)."""

_OUTPUT_ITEM_TYPES: Final = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "image_generation_call",
    }
)
"""Model-generated item types other than assistant messages: they belong to a response."""

_TURN_EVENTS: Final = frozenset(
    {"task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted"}
)

_HARNESS_PREFIXES: Final = (
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions",
    "<instructions>",
    "<skills_instructions>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<plugins>",
    "<subagents>",
    "<subagent_notification>",
    "<context_update>",
    "<hook_prompt",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<personality_spec>",
    "<model_switch>",
)
"""Lower-case openings of text Codex injects as user-role items (its contextual-user markers)."""

_PATCH_TARGET = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$", re.MULTILINE)
_EXIT_HEADER = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$", re.MULTILINE)
_ENV_CWD = re.compile(r"<cwd>([^<]*)</cwd>")


class CodexCliParser:
    """Incremental parser of one Codex rollout file.

    Feed it the file's lines in order (:meth:`feed`), and take a :class:`Session` snapshot
    whenever needed (:meth:`session`); feeding may continue after a snapshot. The work per
    line is one ``json.loads`` plus bookkeeping proportional to what is kept (the huge
    ``compacted.replacement_history`` arrays are never walked).
    """

    def __init__(self, path: str) -> None:
        """Start an empty parse of the file at ``path`` (kept only for :attr:`Session.path`)."""
        self._path = path
        self._session_id: str | None = None
        self._cwd: str | None = None
        self._env_cwd: str | None = None
        self._model: str | None = None
        self._window: int | None = None
        self._compactions = 0
        self._ledger = LedgerBuilder()
        self._skipped = 0
        self._prompts = 0
        self._messages: list[ParsedMessage] = []
        self._chars = 0  # Σ len(content) over self._messages
        self._bound = RememberedBound()
        # Usage bookkeeping (docs/design.md §5.3).
        self._prev_total: Mapping[str, Any] | None = None
        self._latest_usage: int | None = None
        self._first_usage: int | None = None
        # Response tracking: a "run" is the stretch of model-output items between two inputs.
        self._run_open = False
        self._run_usage: int | None = None
        self._run_assistant: int | None = None
        self._run_carrier: int | None = None
        self._pre_usage: int | None = None
        self._awaiting = False
        self._waiting: list[int] = []

    # ------------------------------------------------------------------ input

    def feed(self, line: bytes, terminated: bool = True) -> None:
        """Take one line of the file, without its newline.

        ``terminated=False`` marks a last line the writer has not finished: it is used when
        it already holds a whole JSON object and counted as skipped otherwise. Never raises
        on content.
        """
        if not line or line.isspace():
            return
        record = load_object(line)
        if record is None:
            self._skipped += 1
            return
        kind = record.get("type")
        payload = record.get("payload")
        if isinstance(kind, str) and "payload" in record:
            if kind not in _ENVELOPE_KINDS or not isinstance(payload, dict):
                self._skipped += 1
                return
            self._on_envelope(kind, payload, record.get("timestamp"))
        elif "record_type" in record:
            return  # G1 state line: known metadata.
        elif kind is None and isinstance(record.get("id"), str):
            self._on_session_meta(record)  # G1 bare SessionMeta.
        elif isinstance(kind, str) and kind in _ITEM_TYPES:
            self._on_item(record, None)  # G1 bare ResponseItem.
        else:
            self._skipped += 1

    def _on_envelope(self, kind: str, payload: dict[str, Any], raw_ts: object) -> None:
        if kind == "response_item":
            self._on_item(payload, parse_timestamp(raw_ts))
        elif kind == "event_msg":
            self._on_event(payload)
        elif kind == "turn_context":
            self._on_turn_context(payload)
        elif kind == "compacted":
            self._on_compacted(payload, parse_timestamp(raw_ts))
        elif kind == "session_meta":
            self._on_session_meta(payload)

    # ------------------------------------------------------------------ metadata

    def _on_session_meta(self, meta: Mapping[str, Any]) -> None:
        if self._session_id is not None:
            return  # a fork's copy of its parent's meta (docs/formats.md §C.6)
        ident = meta.get("id") or meta.get("session_id")
        if isinstance(ident, str) and ident:
            self._session_id = ident
        cwd = meta.get("cwd")
        if isinstance(cwd, str) and cwd:
            self._cwd = cwd

    def _on_turn_context(self, payload: Mapping[str, Any]) -> None:
        # One per turn (2026) or per sampling request (0.3x): either way no response before
        # it still waits for usage.
        self._end_turn()
        model = payload.get("model")
        if isinstance(model, str) and model:
            self._model = model
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            self._cwd = cwd

    def _note_window(self, value: object) -> None:
        if isinstance(value, int) and read_token_count(value):
            self._window = value

    # ------------------------------------------------------------------ events

    def _on_event(self, payload: Mapping[str, Any]) -> None:
        sub = payload.get("type")
        if sub == "token_count":
            self._on_token_count(payload.get("info"))
        elif isinstance(sub, str) and sub in _TURN_EVENTS:
            if sub == "task_started":
                self._note_window(payload.get("model_context_window"))
            self._end_turn()
        elif sub == "thread_rolled_back":
            self._roll_back(payload.get("num_turns"))

    def _on_token_count(self, info: object) -> None:
        if not isinstance(info, dict):
            return  # info: null carries only rate limits
        window = info.get("model_context_window")
        self._note_window(window)
        model = info.get("model") or info.get("model_name")
        if isinstance(model, str) and model:
            self._model = model
        raw_total, raw_last = info.get("total_token_usage"), info.get("last_token_usage")
        total = raw_total if isinstance(raw_total, dict) else None
        last = raw_last if isinstance(raw_last, dict) else None
        previous = self._prev_total
        if total is not None:
            self._prev_total = total
            if total == previous:
                return  # a re-emit (docs/design.md §5.3)
            if _is_synthetic(total, window):
                return
        if last is not None:
            if _is_synthetic(last, window):
                return
            usage = _usage_total(last)
        elif total is not None:
            # Only the cumulative total: this request is its advance (docs/formats.md §C.4).
            now = _usage_total(total)
            before = _usage_total(previous) if previous is not None else 0
            usage = now - before if 0 < before < now else now
        else:
            return
        if usage <= 0:
            return  # zero usage is never "latest"
        self._latest_usage = usage
        if self._first_usage is None:
            self._first_usage = usage
        self._attribute(usage)

    def _attribute(self, usage: int) -> None:
        """Give ``usage`` to the response waiting for it, or keep it for the next one."""
        if self._awaiting:
            for index in self._waiting:
                self._messages[index] = dataclasses.replace(
                    self._messages[index], token_count=usage
                )
            self._waiting.clear()
            self._awaiting = False
            if self._run_open:
                self._run_usage = usage
        else:
            self._pre_usage = usage

    # ------------------------------------------------------------------ items

    def _on_item(self, item: Mapping[str, Any], ts: float | None) -> None:
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            if role == "assistant":
                self._on_assistant(item, ts)
            elif role == "user":
                self._on_user(item, ts)
            else:
                self._close_run()  # developer / system input
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._close_run()
            text, is_error = _output_text(item.get("output"))
            self._append(ParsedMessage(role="tool", content=text, timestamp=ts, is_error=is_error))
        elif isinstance(kind, str) and kind in _OUTPUT_ITEM_TYPES:
            self._open_run()
            call = _tool_call(item)
            if call is not None:
                self._add_tool_call(call, ts)

    def _on_user(self, item: Mapping[str, Any], ts: float | None) -> None:
        texts = _texts(item.get("content"), ("input_text", "text"))
        if _is_harness(texts, item):
            self._close_run()
            if self._env_cwd is None:
                for text in texts:
                    found = _ENV_CWD.search(text)
                    if found and found.group(1).strip():
                        self._env_cwd = found.group(1).strip()
                        break
            return
        content = item.get("content")
        if not texts and not (isinstance(content, list) and content):
            self._close_run()
            return
        self._end_turn()
        prompt = ParsedMessage(role="user", content="\n".join(texts), timestamp=ts)
        self._prompts += 1
        self._ledger.named(prompt.content)
        self._append(prompt)

    def _on_assistant(self, item: Mapping[str, Any], ts: float | None) -> None:
        self._open_run()
        metadata = item.get("metadata")
        if isinstance(metadata, dict) and metadata.get("compaction_output") is True:
            return  # the compaction request's answer; the `compacted` line follows
        text = "\n".join(_texts(item.get("content"), ("output_text", "text")))
        if not text.strip():
            return  # a text-less response is never an assistant message
        calls: tuple[ToolCall, ...] = ()
        carrier = self._run_carrier
        if carrier is not None and carrier == len(self._messages) - 1:
            calls = self._messages.pop().tool_calls
        self._run_carrier = None
        message = ParsedMessage(
            role="assistant",
            content=text,
            timestamp=ts,
            tool_calls=calls,
            model=self._model,
            token_count=self._run_usage,
        )
        self._messages.append(message)
        index = len(self._messages) - 1
        self._run_assistant = index
        if self._run_usage is None:
            self._waiting.append(index)
        self._chars += len(text)
        self._keep_bound()

    def _add_tool_call(self, call: ToolCall, ts: float | None) -> None:
        self._ledger.targeted(call.target_path)
        target = self._run_assistant if self._run_assistant is not None else self._run_carrier
        if target is not None:
            held = self._messages[target]
            self._messages[target] = dataclasses.replace(held, tool_calls=(*held.tool_calls, call))
            return
        self._messages.append(
            ParsedMessage(role="tool", content="", timestamp=ts, tool_calls=(call,))
        )
        self._run_carrier = len(self._messages) - 1

    # ------------------------------------------------------------------ structure

    def _open_run(self) -> None:
        if self._run_open:
            return
        self._run_open = True
        self._run_usage = self._pre_usage
        self._pre_usage = None
        self._run_assistant = None
        self._run_carrier = None
        if self._run_usage is None:
            self._awaiting = True

    def _close_run(self) -> None:
        self._run_open = False
        self._run_usage = None
        self._run_assistant = None
        self._run_carrier = None
        self._pre_usage = None

    def _end_turn(self) -> None:
        self._close_run()
        self._awaiting = False
        self._waiting.clear()

    def _on_compacted(self, payload: Mapping[str, Any], ts: float | None) -> None:
        self._compactions += 1
        self._end_turn()
        summary = payload.get("message")
        kept, kept_paths = _replacement_history(payload.get("replacement_history"))
        if isinstance(summary, str):
            kept.append(summary)
        head = self._bound.head  # the ledger read it when the bound let go what followed it
        self._ledger.compacted(
            (m for m in self._messages if m is not head),
            timestamp=ts,
            cwd=self._cwd if self._cwd is not None else self._env_cwd,
            kept=kept,
            kept_paths=kept_paths,
        )
        self._messages.clear()
        self._chars = 0
        self._bound.reset()
        self._latest_usage = None
        if isinstance(summary, str) and summary.strip():
            self._append(ParsedMessage(role="user", content=summary, timestamp=ts, is_summary=True))

    def _roll_back(self, num_turns: object) -> None:
        """Drop the last ``num_turns`` user turns, as Codex's history replay does."""
        if not isinstance(num_turns, int) or isinstance(num_turns, bool) or num_turns <= 0:
            return
        self._end_turn()
        starts = [i for i, m in enumerate(self._messages) if m.role == "user" and not m.is_summary]
        if num_turns <= len(starts):
            del self._messages[starts[-num_turns] :]
        else:
            self._messages[:] = [m for m in self._messages if m.is_summary]
        self._chars = sum(len(m.content) for m in self._messages)

    def _append(self, message: ParsedMessage) -> None:
        """Remember one more message that no later line changes the text of."""
        self._messages.append(message)
        self._chars += len(message.content)
        self._keep_bound()

    def _keep_bound(self) -> None:
        """Let the oldest messages go when their text passed the bound
        (:class:`~driftguard.adapters._common.RememberedBound`; the summary stays): the
        ledger reads them, and the indexes of the response being read move with the
        messages after them."""
        if self._chars <= self._bound.limit:
            return
        messages = self._messages
        start = 1 if messages and messages[0].is_summary else 0
        cut = self._bound.cut(messages, start, self._chars)
        if cut is None:
            return
        self._ledger.let_go(cut.messages, cwd=self._cwd if self._cwd is not None else self._env_cwd)
        self._messages = after_cut(messages, cut)
        self._chars -= cut.chars
        moved = shift(cut)

        def moved_index(index: int | None) -> int | None:
            return None if index is None or index < cut.end else index - moved

        self._run_assistant = moved_index(self._run_assistant)
        self._run_carrier = moved_index(self._run_carrier)
        self._waiting = [index - moved for index in self._waiting if index >= cut.end]

    # ------------------------------------------------------------------ output

    @property
    def prompts(self) -> int:
        """Typed prompts read so far (see ``LineParser.prompts``)."""
        return self._prompts

    def session(self) -> Session:
        """A snapshot of what has been fed so far (docs/design.md §4); the parser is not changed."""
        messages = tuple(self._messages)
        estimated = self._latest_usage is None
        tokens = estimate_tokens(messages) if self._latest_usage is None else self._latest_usage
        return Session(
            cli="codex_cli",
            path=self._path,
            session_id=self._session_id,
            cwd=self._cwd if self._cwd is not None else self._env_cwd,
            messages=messages,
            context_tokens=tokens,
            context_window=self._window if self._window is not None else DEFAULT_CONTEXT_WINDOW,
            tokens_estimated=estimated,
            compactions=self._compactions,
            skipped_lines=self._skipped,
            model=self._model,
            first_request_tokens=self._first_usage,
            compaction_ledger=self._ledger.records(),
            messages_let_go=self._bound.let_go,
        )


def parse(path: Path) -> Session:
    """Parse one Codex rollout file (``.jsonl`` or ``.jsonl.zst``), streaming it line by line.

    Raises:
        SessionFormatError: the file cannot be opened, read or decompressed.
    """
    parser = CodexCliParser(str(path))
    feed_file(parser, path)
    return parser.session()


# ---------------------------------------------------------------------- helpers


def _texts(content: object, kinds: Iterable[str]) -> list[str]:
    """The ``text`` of each content part whose ``type`` is one of ``kinds`` (a bare string
    content counts as one part)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    wanted = frozenset(kinds)
    return [
        part["text"]
        for part in content
        if isinstance(part, dict)
        and isinstance(part.get("type"), str)
        and part["type"] in wanted
        and isinstance(part.get("text"), str)
    ]


def _replacement_history(history: object) -> tuple[list[str], list[str]]:
    """The texts of the ``message`` items of a ``compacted.replacement_history`` and the
    targets of its tool calls: what Codex carries over verbatim into the compacted
    context."""
    texts: list[str] = []
    paths: list[str] = []
    if not isinstance(history, list):
        return texts, paths
    for item in history:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            texts.extend(_texts(item.get("content"), ("input_text", "output_text", "text")))
            continue
        call = _tool_call(item)
        if call is not None and call.target_path:
            paths.append(call.target_path)
    return texts, paths


def _is_harness(texts: list[str], item: Mapping[str, Any]) -> bool:
    """A user-role item Codex injected rather than the person typed (docs/design.md §5.1)."""
    for text in texts:
        opening = text[:256].lstrip()[:40].lower()
        if opening.startswith(_HARNESS_PREFIXES):
            return True
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    if isinstance(passthrough, dict):
        entries = passthrough.get("content_item_metadata")
        if isinstance(entries, list) and entries:
            kinds = {
                entry["provenance"].get("type")
                for entry in entries
                if isinstance(entry, dict)
                and isinstance(entry.get("provenance"), dict)
                and isinstance(entry["provenance"].get("type"), str)
            }
            return "harness" in kinds and "user" not in kinds
    return False


def _usage_total(usage: Mapping[str, Any]) -> int:
    """Tokens of one usage block: ``total_tokens``, else ``input_tokens + output_tokens``
    (a missing or ``null`` field counts 0). 0 — no usage — when any of the three holds a
    value that is not a token count (:func:`read_token_count`: negative, boolean, ``NaN``,
    non-numeric, absurdly large), so a negative input never lowers or becomes a context."""
    counts: list[int] = []
    for key in ("total_tokens", "input_tokens", "output_tokens"):
        value = usage.get(key)
        count = 0 if value is None else read_token_count(value)
        if count is None:
            return 0
        counts.append(count)
    total, inputs, outputs = counts
    return total if total > 0 else inputs + outputs


def _is_synthetic(usage: Mapping[str, Any], window: object) -> bool:
    """A usage block written by Codex's ``fill_to_context_window`` (docs/formats.md §C.4)."""
    total = _int(usage.get("total_tokens"))
    if total <= 0:
        return False
    inputs, outputs = usage.get("input_tokens"), usage.get("output_tokens")
    if inputs == 0 and outputs == 0:
        return True
    return outputs == 0 and isinstance(window, int) and window > 0 and total == window


def _int(value: object) -> int:
    """An integer usage field's token count, 0 when it is none: floats, booleans, negative
    and absurdly large values count as absent (:func:`read_token_count`)."""
    return (read_token_count(value) or 0) if isinstance(value, int) else 0


def _tool_call(item: Mapping[str, Any]) -> ToolCall | None:
    """The :class:`ToolCall` of a tool-call item, or ``None`` for other model output."""
    kind = item.get("type")
    if kind == "function_call":
        name = _name(item, "function_call")
        namespace = item.get("namespace")
        if isinstance(namespace, str) and namespace and not name.startswith(namespace):
            name = f"{namespace}__{name}"
        call = make_tool_call(name, item.get("arguments"), TOOL_KINDS)
    elif kind == "custom_tool_call":
        raw = item.get("input")
        call = make_tool_call(_name(item, "custom_tool_call"), raw, TOOL_KINDS)
        if call.target_path is None and isinstance(raw, str):
            call = _with_patch_target(call, raw)
    elif kind == "local_shell_call":
        call = make_tool_call("local_shell", item.get("action"), TOOL_KINDS)
    elif kind == "web_search_call":
        call = make_tool_call("web_search", item.get("action"), TOOL_KINDS)
    else:
        return None
    if call.target_path is None and call.command is not None:
        call = _with_patch_target(call, call.command)
    if call.target_path is None and kind == "function_call":
        args = item.get("arguments")
        if isinstance(args, str) and PATCH_MARK in args:
            decoded = _json_object(args)
            patch = decoded.get("input") if decoded is not None else None
            call = _with_patch_target(call, patch if isinstance(patch, str) else args)
    return call


def _name(item: Mapping[str, Any], fallback: str) -> str:
    name = item.get("name")
    return name if isinstance(name, str) and name else fallback


def _with_patch_target(call: ToolCall, text: str) -> ToolCall:
    """``call`` with the first file an ``apply_patch`` body names as its target, if any."""
    if PATCH_MARK not in text:
        return call
    found = _PATCH_TARGET.search(text)
    return dataclasses.replace(call, target_path=found.group(1)) if found else call


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = decode_json(text)
    except ValueError:  # not JSON, or nested too deeply
        return None
    return value if isinstance(value, dict) else None


def _output_text(output: object) -> tuple[str, bool]:
    """Text and error flag of a ``function_call_output.output`` (docs/formats.md §C.3)."""
    if isinstance(output, str):
        if output.startswith("{"):
            envelope = _json_object(output)
            if envelope is not None and ("output" in envelope or "success" in envelope):
                return _output_envelope(envelope, output)
        return output, _exit_header_error(output)
    if isinstance(output, list):
        return "\n".join(_texts(output, ("input_text", "output_text", "text"))), False
    if isinstance(output, dict):
        if "output" in output or "success" in output or "content" in output:
            return _output_envelope(output, "")
        return "\n".join(_texts([output], ("input_text", "output_text", "text"))), False
    return "", False


def _output_envelope(envelope: Mapping[str, Any], raw: str) -> tuple[str, bool]:
    body = envelope.get("output", envelope.get("content"))
    if isinstance(body, str):
        text = body
    elif isinstance(body, list):
        text = "\n".join(_texts(body, ("input_text", "output_text", "text")))
    else:
        text = raw
    is_error = envelope.get("success") is False
    metadata = envelope.get("metadata")
    if isinstance(metadata, dict):
        code = metadata.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            is_error = True
    return text, is_error


def _exit_header_error(text: str) -> bool:
    """A plain-text exec result whose header (before ``Output:``) names a non-zero exit code."""
    end = text.find("\nOutput:")
    head = text[:end] if 0 <= end < 1024 else text[:256]
    found = _EXIT_HEADER.search(head)
    return found is not None and int(found.group(1)) != 0
