"""Gemini CLI session files → :class:`~driftguard.model.Session` (docs/design.md §4, §5.1, §5.3;
docs/formats.md §B).

Where the files live (docs/formats.md §B.1–B.2)
    ``~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<sid8>.jsonl`` (≥ v0.39) or
    ``….json`` (legacy, ≤ v0.38); ``<project>`` is a slug from ``~/.gemini/projects.json``
    (≥ v0.29) or the sha256 of the project path (older); subagents write
    ``chats/<parentSessionId>/<sessionId>.jsonl``. ``GEMINI_CLI_HOME`` moves ``~/.gemini``.
    Finding the file is :mod:`._find`'s job: this module parses the one path it is given.

Records read (docs/formats.md §B.3–B.5)
    *Legacy* ``.json``: one object ``{sessionId, projectHash, …, directories?, messages: [...]}``
    read whole (the only file read in one piece). Its messages are replayed through the same
    logic as a JSONL ``$set.messages`` rewrite.

    *JSONL*: each line is one of

    - a metadata record (``sessionId`` and no ``id``; a legacy migration may carry the whole
      legacy object, ``messages`` included, on that one line: its messages rebuild the list);
    - a message record (a string ``id``): the same id is appended again on every update, so
      the last write wins and the first-seen position is kept. When the last revision of a
      ``gemini`` record has no ``tokens``, the last non-null tokens of that id are kept;
    - ``{"$set": {…}}``: metadata patch (``sessionId``, ``directories`` …); a ``messages``
      list clears and rebuilds the whole message list;
    - ``{"$rewindTo": id}``: deletes that message and everything after it; an unknown id
      clears every message.

    Message records become :class:`~driftguard.model.ParsedMessage` values (docs/design.md §5.1):

    - ``gemini`` with text (``content`` a string or a Part array; ``thought`` parts are not
      text, parts joined with ``"\\n"``) → ``role="assistant"`` carrying its tool calls;
      ``gemini`` without text but with tool calls (``toolCalls[]``, or ``functionCall`` parts
      when there is no ``toolCalls`` list) → ``role="tool"``, content ``""``, carrying the
      calls. Their ``toolCalls[].result`` ``functionResponse`` parts → one ``role="tool"``
      message after it (content: each response's ``output``/``error`` text; ``is_error`` when
      a call's ``status`` is ``"error"``, a response has an ``error``, or a
      ``run_shell_command`` result's text names a non-zero ``Exit Code``, a ``Signal`` or
      the CLI's timeout: the CLI records a failed command as ``"success"``, see
      :func:`_shell_failed`).
    - ``user`` holding ``functionResponse`` parts → ``role="tool"``, one message per record
      (never a prompt). Gemini CLI ≥ 0.58 records each tool result twice (in the call's
      ``result`` and as such a ``user`` record) and history rewrites copy it again: a result
      whose call id was already emitted in the remembered conversation is not emitted again.
    - ``user`` typed by the person → ``role="user"`` (text = ``content`` parts, what the
      model saw). Not user messages (nothing is emitted): text parts that start with
      ``<session_context>`` or ``<hook_context>`` (dropped part by part), and records whose
      typed text (``displayContent`` when present, else ``content``) is empty or starts with
      ``/`` or ``?`` — gemini-cli's own ``isIgnoredUserContent`` rule, which also covers the
      expanded ``/init`` prompt (docs/formats.md §B.5) — and the turns the CLI sends on its own
      (:func:`_is_cli_prompt`: ``System: Please continue.``, the loop detector's
      ``System: Potential loop detected. …``, the next-speaker check's ``Please
      continue.``), told by their content even when they carry the ``displayContent`` of
      the prompt they continue.
    - Never scored: ``info``/``error``/``warning`` records and the CLI's own
      ``Got it. Thanks for the additional context!`` after a compression.

Compaction (docs/design.md §5.1; docs/formats.md §B.7)
    Gemini compresses the chat and syncs the new history with a ``$set.messages`` rewrite
    ``[<session_context>, <state_snapshot> user text, "Got it…", kept tail…]`` (verified on
    generated/gemini/gemini-long-24turns-compress.jsonl, CLI 0.61.0). A rewrite that
    introduces a ``<state_snapshot>`` text not seen before is one compaction; later rewrites
    (every ``--resume`` writes one) carrying the same snapshot are not. Everything the
    compaction rewrite lists — the kept tail included, a "preserved segment" in
    docs/design.md §5.1's words — is before the boundary and dropped; the snapshot is kept
    as one ``ParsedMessage(role="user", is_summary=True)``, followed by the messages
    recorded since.

    The compaction ledger (:class:`~driftguard.compaction.ledger.LedgerBuilder`) reads, at such a
    rewrite, the remembered messages the rewrite leaves out (those before it that are
    neither in its list nor the kept tail of an earlier compaction); the snapshot and the
    kept tail count as kept. When nothing was remembered before the rewrite — a legacy
    ``.json``, which Gemini CLI rewrites whole, or a JSONL that opens with such a rewrite
    (a migrated ``.json``) — the file no longer holds what the compaction dropped, and its
    ledger entry says so. The file names no trigger and no token count for it.

Tokens (docs/design.md §5.3; docs/formats.md §B.5)
    ``tokens.input`` is the prompt size and already includes ``tokens.cached``.
    ``context_tokens`` = ``tokens.input`` of the latest remembered ``gemini`` record with a
    non-zero input (tool-call-only records count: they are real requests); without one,
    ``floor(Σ len(content) / 4)`` over the remembered messages and ``tokens_estimated``.
    ``context_window`` = 1 048 576 always (docs/design.md §5.3). An assistant (or tool-call)
    message's ``token_count`` is its record's ``tokens.input`` (``None`` when absent or zero). A
    ``tokens.input`` that is no token count (negative, boolean, ``NaN``/``Infinity`` —
    ``1e400`` decodes to it —, non-numeric, above 2**53) is no usage, as if absent.

Session fields
    ``session_id``: the last ``sessionId`` the file names (metadata lines, ``$set``).
    ``model``: the model of the latest remembered ``gemini`` record that names one, else the
    last model the file names. ``cwd``: Gemini files name no working directory; the first
    entry of the last ``directories`` list the file names (subagent files, ≥ v0.28 ``$set``)
    is used, else ``None``.

Skipped and counted (``Session.skipped_lines``)
    Lines that are not JSON (nested deeper than ``_common.MAX_JSON_DEPTH`` levels included)
    or not an object, a half-written last line, records of no known
    shape (no ``id``/``$set``/``$rewindTo``/``sessionId``), message records of an unknown
    ``type``, and elements of a ``messages`` list that are not message records. Blank lines
    are ignored. In a legacy ``.json``, a message nested deeper than ``MAX_JSON_DEPTH``
    is skipped and counted like such a line (the file is then read member by member,
    :func:`legacy_document_by_member`). A legacy ``.json`` that does not
    parse as a whole (after two quick retries: the CLI rewrites it in place, docs/formats.md
    §B.8), or whose object or ``messages`` list itself cannot be delimited, raises
    :class:`~driftguard.errors.SessionFormatError` naming the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from driftguard.adapters._common import (
    JsonTooDeepError,
    RememberedBound,
    ToolKinds,
    compact_id,
    decode_json,
    estimate_tokens,
    feed_file,
    make_tool_call,
    parse_timestamp,
    read_token_count,
    split_json_container,
    split_json_member,
)
from driftguard.adapters._fastjson import load_object
from driftguard.compaction.ledger import LedgerBuilder
from driftguard.errors import SessionFormatError, from_os_error
from driftguard.model import ParsedMessage, Session, ToolCall

__all__ = [
    "GEMINI_CONTEXT_WINDOW",
    "TOOL_KINDS",
    "GeminiCliParser",
    "decode_legacy",
    "is_legacy_session",
    "is_legacy_session_file",
    "legacy_document_by_member",
    "parse",
]

GEMINI_CONTEXT_WINDOW: Final = 1_048_576
"""Context window of every Gemini model, in tokens (docs/design.md §5.3; docs/formats.md §B.7)."""

TOOL_KINDS = ToolKinds(
    edit=frozenset({"write_file", "replace", "edit"}),
    shell=frozenset({"run_shell_command"}),
    read=frozenset(
        {"read_file", "read_many_files", "list_directory", "glob", "search_file_content"}
    ),
)
"""Gemini CLI's built-in tools by what they do (``toolCalls[].name``); MCP tools and the
rest are ``"other"``."""

COMPRESSION_ACK: Final = "Got it. Thanks for the additional context!"
"""The model turn the CLI itself writes after a compression summary (docs/design.md §5.1)."""

CONTINUE_PROMPT: Final = "System: Please continue."
"""The user turn the CLI itself sends to retry a model stream that ended invalid
(``GeminiClient.sendMessageStream``, ``packages/core/src/core/client.ts``; the real
2026-04 file of the corpus holds one; 0.61.0's bundle no longer sends it)."""
LOOP_PROMPT: Final = "System: Potential loop detected."
"""The start of the user turn the CLI itself sends when its loop detector fires:
``System: Potential loop detected. Details: … Please take a step back …``
(``GeminiClient._recoverFromLoop``, ``client.ts``; ``bundle/chunk-JDPZ4CE3.js`` in
0.61.0). It is recorded as a ``user`` record (19-seams §2.7)."""
NEXT_SPEAKER_PROMPT: Final = "Please continue."
"""The user turn the CLI itself sends when its next-speaker check says the model should
go on (``GeminiClient.processTurn``, ``client.ts``; off unless
``model.skipNextSpeakerCheck`` is ``false``). A person may type it too: see
:func:`_is_cli_prompt`."""

SNAPSHOT_TAG: Final = "<state_snapshot>"

_SHELL_EXIT: Final = re.compile(r"Exit Code: (-?\d{1,12})")
_SHELL_SIGNAL: Final = re.compile(r"Signal: (.+)")
_SHELL_TRAILER: Final = re.compile(r"(?:Background PIDs|Process Group PGID): .*")
_SHELL_TIMEOUT: Final = "Command was automatically cancelled because it exceeded the timeout"
_SHELL_TAIL_CHARS: Final = 4096
"""Characters at the end of a shell result searched for the CLI's sections (a few short
lines, after output that may run to megabytes)."""
_SHELL_WRAPPER_TAIL: Final = re.compile(
    r"</untrusted_context>|</tool_output_masked>|Output too large\. Full output available at: .*"
)
"""What Gemini CLI writes after a shell result's own sections: the closing tag of
``wrapUntrusted`` (0.61), and the tail of a masked output (``ToolOutputMaskingService``
``formatMaskedSnippet``) that keeps a preview of the sections."""
_INJECTED_PREFIXES: Final = ("<session_context>", "<hook_context>")
_IGNORED_PROMPT_PREFIXES: Final = ("/", "?", *_INJECTED_PREFIXES)
_KNOWN_TYPES: Final = frozenset({"user", "gemini", "info", "error", "warning"})

_SNIFF_HEAD_BYTES: Final = 4096
"""Bytes of a ``.json`` that does not decode searched for ``sessionId`` and ``messages``."""

LEGACY_READ_ATTEMPTS: Final = 3
LEGACY_RETRY_DELAY = 0.05
"""Seconds between two reads of a legacy ``.json`` that did not parse (it may be mid-rewrite)."""


@dataclass(frozen=True, slots=True)
class _Result:
    """One tool result: the call id it answers (``None`` when unnamed), its text, its error."""

    key: str | None
    text: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class _Entry:
    """One message record, reduced to what a snapshot needs.

    ``message`` is the user / assistant / tool-call message (``None`` for hidden records),
    ``results`` the tool results emitted after it, ``input_tokens`` the positive
    ``tokens.input`` of a ``gemini`` record, ``snapshot`` the text of a ``<state_snapshot>``.
    """

    message: ParsedMessage | None = None
    results: tuple[_Result, ...] = ()
    timestamp: float | None = None
    input_tokens: int | None = None
    model: str | None = None
    snapshot: str | None = None


_EMPTY: Final = _Entry()


class GeminiCliParser:
    """Replays one Gemini CLI session file line by line into a :class:`Session`.

    Feed every line of a ``.jsonl`` file in order with :meth:`feed`; call :meth:`session`
    at any time for a snapshot and keep feeding afterwards. Per line the work is one JSON
    decode and a dict update; a ``$set.messages`` rewrite costs the size of its list and a
    ``$rewindTo`` the number of remembered messages. :meth:`session` walks the remembered
    messages once.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        self._entries: dict[str, _Entry] = {}
        # Both grow with the file, not with what the model remembers: one entry per record
        # id ever written (as compact_id keys) and one per compaction (sha256 digests of
        # the summaries, whatever their length).
        self._tokens_by_id: dict[int | str, int] = {}
        self._session_id: str | None = None
        self._cwd: str | None = None
        self._skipped = 0
        self._compactions = 0
        self._ledger = LedgerBuilder()
        self._summary: ParsedMessage | None = None
        self._boundary: frozenset[str] = frozenset()
        self._snapshots_seen: set[bytes] = set()
        self._last_model: str | None = None
        self._first_input: int | None = None
        self._prompts = 0
        self._prompt_ids: set[str] = set()
        self._bound = RememberedBound()
        self._chars = 0  # Σ _chars_of over the remembered entries (those not in _boundary)
        # The ids of the records the bound let go (compact_id keys; grows with the file
        # only once the bound binds): a later write of one is not read again.
        self._let_go_ids: set[int | str] = set()

    # ------------------------------------------------------------------ feeding

    def feed(self, line: bytes, terminated: bool = True) -> None:
        """Apply one JSONL line (without its newline) to the replayed conversation.

        Blank lines are ignored. A line that is not a JSON object — a half-written last line
        (``terminated=False``) included — is counted in ``skipped_lines``. An unterminated line
        that does decode to an object is a complete record (no JSON object is a prefix of
        another) and is applied, so ``terminated`` does not change the outcome; an incremental
        reader should hold an unterminated line back until its newline arrives (docs/formats.md
        §G.7) and must never feed a line twice (``$rewindTo`` is not idempotent).
        """
        if not line or line.isspace():
            return
        record = load_object(line)
        if record is None:
            self._skipped += 1
            return
        self._apply(record)

    def _apply(self, record: dict[str, Any]) -> None:
        # Classified in gemini-cli's own order (loadConversationRecord, docs/formats.md §B.4).
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            self._rewind(rewind)
            return
        if isinstance(record.get("id"), str):
            self._put(record)
            self._keep_bound()
            return
        patch = record.get("$set")
        if isinstance(patch, dict):
            self._patch(patch)
            self._keep_bound()
            return
        if isinstance(record.get("sessionId"), str):
            self._patch(record)
            self._keep_bound()
            return
        self._skipped += 1

    def _replay_legacy(self, document: dict[str, Any]) -> None:
        """Replay a legacy single-object file: its metadata, then its ``messages`` as a rewrite."""
        self._patch(document)

    def _patch(self, patch: Mapping[str, Any]) -> None:
        session_id = patch.get("sessionId")
        if isinstance(session_id, str) and session_id:
            self._session_id = session_id
        directories = patch.get("directories")
        if isinstance(directories, list) and directories and isinstance(directories[0], str):
            self._cwd = directories[0]
        messages = patch.get("messages")
        if isinstance(messages, list):
            self._rebuild(messages)

    def _rebuild(self, messages: Iterable[object]) -> None:
        before = self._entries
        self._entries = {}
        snapshot: tuple[str, float | None] | None = None
        # A rewrite lists again what was said: every `--resume` lists the history under
        # its ids, a compression its kept tail under new ids. Its prompts were typed
        # before, and counted then, unless it is the first the file tells of them (a
        # migrated legacy object, a file that opens with a rewrite).
        typed_here = not before
        for item in messages:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                self._skipped += 1
                continue
            entry = self._put(item, typed_here=typed_here)
            if entry.snapshot is not None:
                snapshot = (entry.snapshot, entry.timestamp)
        self._recount()
        if snapshot is None:
            return
        text, timestamp = snapshot
        key = hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).digest()
        if key in self._snapshots_seen:
            return
        self._snapshots_seen.add(key)
        self._compactions += 1
        self._summary = ParsedMessage(
            role="user", content=text, timestamp=timestamp, is_summary=True
        )
        self._note_compaction(before, text, timestamp)
        self._boundary = frozenset(self._entries)
        self._bound.reset()
        self._recount()

    def _recount(self) -> None:
        """Count the remembered entries' text again (after a rewrite or a rewind)."""
        boundary = self._boundary
        self._chars = sum(
            _chars_of(entry)
            for message_id, entry in self._entries.items()
            if message_id not in boundary
        )

    def _keep_bound(self) -> None:
        """Let the oldest remembered records go when their text and the summary passed the
        bound (:class:`~driftguard.adapters._common.RememberedBound`), whole records at a
        time: the ledger reads their messages, and a later write of one is not read (a
        rewind to one rewinds every remembered record, as to an unknown id)."""
        summary = len(self._summary.content) if self._summary is not None else 0
        if self._chars + summary <= self._bound.limit:
            return
        owners: list[str] = []  # the record of each message
        slots: list[ParsedMessage] = []
        emitted: set[str] = set()
        for message_id, entry in self._entries.items():
            if message_id not in self._boundary:
                for message in _messages_of((entry,), emitted):
                    owners.append(message_id)
                    slots.append(message)
        cut = self._bound.cut(slots, 0, self._chars + summary)
        if cut is None:
            return
        self._ledger.let_go(cut.messages, cwd=self._cwd)
        kept = {*owners[: cut.start], owners[cut.end]}
        if cut.head is not None:
            kept.add(owners[cut.head])
        for message_id in list(self._entries):
            if message_id == owners[cut.end]:
                break
            if message_id in self._boundary or message_id in kept:
                continue
            self._chars -= _chars_of(self._entries.pop(message_id))
            self._let_go_ids.add(compact_id(message_id))

    def _note_compaction(
        self, before: Mapping[str, _Entry], snapshot: str, timestamp: float | None
    ) -> None:
        """Give the ledger the compaction whose rewrite replaced ``before`` (module doc)."""
        head = self._bound.head  # the ledger read it when the bound let go what followed it
        remembered = {
            i: e
            for i, e in before.items()
            if i not in self._boundary and (head is None or e.message is not head)
        }
        if not any(e.message is not None or e.results for e in remembered.values()):
            self._ledger.compacted(
                (),
                timestamp=timestamp,
                cwd=self._cwd,
                unknown="Gemini CLI rewrote the session whole with the summary in place of "
                "the messages before it, so the file no longer holds them",
            )
            return
        dropped = [e for i, e in remembered.items() if i not in self._entries]
        kept = list(_messages_of(self._entries.values(), set()))
        self._ledger.compacted(
            _messages_of(dropped, set()),
            timestamp=timestamp,
            cwd=self._cwd,
            kept=[snapshot, *(m.content for m in kept)],
            kept_paths=[c.target_path for m in kept for c in m.tool_calls if c.target_path],
        )

    def _rewind(self, target: str) -> None:
        if target not in self._entries:
            self._entries.clear()
            self._chars = 0
            return
        ids = list(self._entries)
        for message_id in ids[ids.index(target) :]:
            del self._entries[message_id]
        self._recount()

    def _put(self, record: dict[str, Any], *, typed_here: bool = True) -> _Entry:
        """Remember one message record; ``typed_here``: a prompt in it was typed now (not
        listed again by a rewrite) and counts in :attr:`prompts`, once per id."""
        message_id: str = record["id"]
        if self._let_go_ids and compact_id(message_id) in self._let_go_ids:
            return _EMPTY  # a record the bound let go, written again
        kind = record.get("type")
        if kind == "gemini":
            entry = self._gemini_entry(message_id, record)
        elif kind == "user":
            entry = _user_entry(record)
            if typed_here and entry.message is not None and message_id not in self._prompt_ids:
                self._prompt_ids.add(message_id)
                self._prompts += 1
        else:
            if not isinstance(kind, str) or kind not in _KNOWN_TYPES:
                self._skipped += 1
            entry = _EMPTY
        if message_id not in self._boundary:
            old = self._entries.get(message_id)
            self._chars += _chars_of(entry) - (_chars_of(old) if old is not None else 0)
        self._entries[message_id] = entry
        message = entry.message
        if message is not None:
            if message.role == "user":
                self._ledger.named(message.content)
            for call in message.tool_calls:
                self._ledger.targeted(call.target_path)
        return entry

    def _gemini_entry(self, message_id: str, record: dict[str, Any]) -> _Entry:
        input_tokens = _input_tokens(record.get("tokens"))
        if input_tokens is None:
            input_tokens = self._tokens_by_id.get(compact_id(message_id))
        else:
            self._tokens_by_id[compact_id(message_id)] = input_tokens
        if input_tokens and self._first_input is None:
            self._first_input = input_tokens
        model = record.get("model") if isinstance(record.get("model"), str) else None
        if model:
            self._last_model = model
        parts = _parts(record.get("content"))
        text = _text(parts)
        if text.strip() == COMPRESSION_ACK:
            return _EMPTY
        timestamp = parse_timestamp(record.get("timestamp"))
        token_count = input_tokens if input_tokens else None
        raw_calls = record.get("toolCalls")
        tool_records = (
            [c for c in raw_calls if isinstance(c, dict)] if isinstance(raw_calls, list) else []
        )
        calls = _tool_calls(tool_records, parts)
        message: ParsedMessage | None = None
        if text.strip():
            message = ParsedMessage(
                role="assistant",
                content=text,
                token_count=token_count,
                timestamp=timestamp,
                tool_calls=calls,
                model=model or None,
            )
        elif calls:
            message = ParsedMessage(
                role="tool",
                content="",
                token_count=token_count,
                timestamp=timestamp,
                tool_calls=calls,
            )
        return _Entry(
            message=message,
            results=tuple(_call_result(c) for c in tool_records if c.get("result") is not None),
            timestamp=timestamp,
            input_tokens=token_count,
            model=model or None,
        )

    # ------------------------------------------------------------------ snapshot

    @property
    def prompts(self) -> int:
        """Typed prompts recorded so far (see ``LineParser.prompts``): the prompt records
        appended, each id once, and a rewound one not taken back. A ``$set.messages``
        rewrite adds none (it lists again prompts typed before: all of them under their
        ids on ``--resume``, a compression's kept tail under new ids), unless nothing was
        remembered before it."""
        return self._prompts

    def session(self) -> Session:
        """The conversation as replayed so far (docs/design.md §4, §5.1, §5.3).

        Messages: the compaction summary (when there is one), then every remembered record
        after the last compaction boundary, in first-seen order. Repeated tool results (same
        call id) are emitted once. Cheap enough to call after every fed line batch; feeding
        may continue afterwards.
        """
        messages: list[ParsedMessage] = []
        if self._summary is not None:
            messages.append(self._summary)
        emitted: set[str] = set()
        context_tokens: int | None = None
        model: str | None = None
        for message_id, entry in self._entries.items():
            if message_id in self._boundary:
                continue
            if entry.message is not None:
                messages.append(entry.message)
            if entry.results:
                results = _results_message(entry, emitted)
                if results is not None:
                    messages.append(results)
            if entry.input_tokens:
                context_tokens = entry.input_tokens
            if entry.model:
                model = entry.model
        estimated = context_tokens is None
        return Session(
            cli="gemini_cli",
            path=self._path,
            session_id=self._session_id,
            cwd=self._cwd,
            messages=tuple(messages),
            context_tokens=estimate_tokens(messages) if context_tokens is None else context_tokens,
            context_window=GEMINI_CONTEXT_WINDOW,
            tokens_estimated=estimated,
            compactions=self._compactions,
            skipped_lines=self._skipped,
            model=model or self._last_model,
            first_request_tokens=self._first_input,
            compaction_ledger=self._ledger.records(),
            messages_let_go=self._bound.let_go,
        )


# ---------------------------------------------------------------------- record helpers


def _results_message(entry: _Entry, emitted: set[str]) -> ParsedMessage | None:
    """The ``role="tool"`` message of ``entry``'s tool results, leaving out the results
    whose call id is in ``emitted`` (and adding the others' ids to it); ``None`` when
    none is left."""
    fresh: list[_Result] = []
    for result in entry.results:
        if result.key is not None:
            if result.key in emitted:
                continue
            emitted.add(result.key)
        fresh.append(result)
    if not fresh:
        return None
    return ParsedMessage(
        role="tool",
        content="\n".join(r.text for r in fresh),
        timestamp=entry.timestamp,
        is_error=any(r.is_error for r in fresh),
    )


def _chars_of(entry: _Entry) -> int:
    """``Σ len(content)`` of the messages of ``entry``, a repeated tool result counted
    (what the bound counts: a little more than :meth:`GeminiCliParser.session` emits)."""
    chars = len(entry.message.content) if entry.message is not None else 0
    if entry.results:
        chars += sum(len(result.text) for result in entry.results) + len(entry.results) - 1
    return chars


def _messages_of(entries: Iterable[_Entry], emitted: set[str]) -> Iterator[ParsedMessage]:
    """The messages of ``entries`` in order, each tool result once (as :meth:`session`)."""
    for entry in entries:
        if entry.message is not None:
            yield entry.message
        if entry.results:
            results = _results_message(entry, emitted)
            if results is not None:
                yield results


def _parts(content: object) -> list[Any]:
    """A ``PartListUnion`` as a list of parts: a string is one text part."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, list):
        return [{"text": p} if isinstance(p, str) else p for p in content]
    if isinstance(content, dict):
        return [content]
    return []


def _text_parts(parts: Iterable[Any]) -> list[str]:
    """The non-empty text of the parts that are not ``thought`` parts, in order."""
    return [
        p["text"]
        for p in parts
        if isinstance(p, dict)
        and isinstance(p.get("text"), str)
        and p["text"]
        and not p.get("thought")
    ]


def _text(parts: Iterable[Any]) -> str:
    return "\n".join(_text_parts(parts))


def _input_tokens(tokens: object) -> int | None:
    """``tokens.input`` when ``tokens`` is an object whose input is a token count, else
    ``None`` (no usage): negative, boolean, ``NaN``/``Infinity``, non-numeric and absurdly
    large values are none (:func:`read_token_count`)."""
    if not isinstance(tokens, dict):
        return None
    return read_token_count(tokens.get("input"))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _response_text(response: object) -> tuple[str, bool]:
    """The text of a ``functionResponse.response`` (``output`` then ``error``) and whether
    it reports an error."""
    if isinstance(response, str):
        return response, False
    if not isinstance(response, dict):
        return ("" if response is None else _json(response)), False
    texts: list[str] = []
    output = response.get("output")
    if output is not None:
        texts.append(output if isinstance(output, str) else _json(output))
    error = response.get("error")
    failed = error is not None and error != "" and error is not False
    if failed:
        texts.append(error if isinstance(error, str) else _json(error))
    if not texts and response:
        texts.append(_json(response))
    return "\n".join(texts), failed


def _function_response(part: object) -> dict[str, Any] | None:
    if isinstance(part, dict):
        response = part.get("functionResponse")
        if isinstance(response, dict):
            return response
    return None


def _shell_failed(text: str) -> bool:
    """Whether the text Gemini CLI gave the model for a ``run_shell_command`` says that the
    command failed: a non-zero exit code, a signal, or the CLI's own timeout.

    The CLI records such a call with ``status: "success"`` all the same, so the text is
    the only trace. Its shape, from ``ShellToolInvocation.execute`` in Gemini CLI 0.61.0
    (``packages/core/src/tools/shell.ts``, bundled in ``bundle/chunk-JDPZ4CE3.js``):
    the lines ``Output: …``, ``Error: …``, ``Exit Code: N`` (only when N ≠ 0), ``Signal:
    S``, ``Background PIDs: …``, ``Process Group PGID: P`` (each but the first only when it
    applies), wrapped whole in ``<untrusted_context>…</untrusted_context>``
    (``wrapUntrusted``, ``utils/textUtils.ts``); a command the CLI cancelled for giving no
    output in time reads ``Command was automatically cancelled because it exceeded the
    timeout of …``.
    Earlier versions of ``shell.ts`` (those of the legacy ``.json`` files) wrote every
    line, ``Exit Code: 0`` and ``Signal: (none)`` included, after ``Command:`` and
    ``Directory:``, and no wrapper.

    The sections are read from the end, up to the first line that is none of them: the
    command's own output may hold a line such as ``Exit Code: 1`` (a log it printed),
    but it always comes before the CLI's sections.
    """
    lines = text[-_SHELL_TAIL_CHARS:].splitlines()
    end = len(lines)
    while end and (not lines[end - 1].strip() or _SHELL_WRAPPER_TAIL.fullmatch(lines[end - 1])):
        end -= 1
    for line in reversed(lines[:end]):
        exit_code = _SHELL_EXIT.fullmatch(line)
        if exit_code is not None:
            return int(exit_code.group(1)) != 0
        signal = _SHELL_SIGNAL.fullmatch(line)
        if signal is not None:
            if signal.group(1) != "(none)":
                return True
            continue
        if not _SHELL_TRAILER.fullmatch(line):
            break
    body = text.removeprefix("<untrusted_context>").lstrip()
    return body.startswith(_SHELL_TIMEOUT)


def _tool_result(name: object, call_id: str | None, text: str, failed: bool) -> _Result:
    """One tool result; a shell command's is an error when its text says it failed
    (:func:`_shell_failed`)."""
    if not failed and isinstance(name, str) and name in TOOL_KINDS.shell:
        failed = _shell_failed(text)
    return _Result(key=call_id, text=text, is_error=failed)


def _call_result(call: dict[str, Any]) -> _Result:
    """One result for a ``ToolCallRecord`` that has a ``result`` (docs/formats.md §B.5)."""
    call_id = call.get("id") if isinstance(call.get("id"), str) else None
    failed = call.get("status") == "error"
    result = call.get("result")
    if isinstance(result, str):
        return _tool_result(call.get("name"), call_id, result, failed)
    texts: list[str] = []
    for part in _parts(result):
        response = _function_response(part)
        if response is not None:
            if call_id is None and isinstance(response.get("id"), str):
                call_id = response["id"]
            text, error = _response_text(response.get("response"))
            texts.append(text)
            failed = failed or error
        else:
            texts.extend(_text_parts([part]))
    text = "\n".join(t for t in texts if t)
    return _tool_result(call.get("name"), call_id, text, failed)


def _tool_calls(records: list[dict[str, Any]], parts: list[Any]) -> tuple[ToolCall, ...]:
    """Tool calls of a ``gemini`` record: its ``toolCalls`` list (authoritative) or, when it
    has none, the ``functionCall`` parts of its content (history rewrites write those)."""
    if records:
        return tuple(
            make_tool_call(c["name"], c.get("args", {}), TOOL_KINDS)
            for c in records
            if isinstance(c.get("name"), str)
        )
    calls: list[ToolCall] = []
    for part in parts:
        call = part.get("functionCall") if isinstance(part, dict) else None
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            calls.append(make_tool_call(call["name"], call.get("args", {}), TOOL_KINDS))
    return tuple(calls)


def _is_ignored_prompt(text: str) -> bool:
    """gemini-cli ``isIgnoredUserContent`` (utils/sessionUtils.ts): empty, a ``/`` command,
    ``?`` help, injected context."""
    stripped = text.strip()
    return not stripped or stripped.startswith(_IGNORED_PROMPT_PREFIXES)


def _is_cli_prompt(content: str, display: str) -> bool:
    """Whether a ``user`` record whose text is ``content`` (and whose ``displayContent``
    text is ``display``, ``""`` without one) is a turn the CLI sent on its own: the
    invalid-stream retry (:data:`CONTINUE_PROMPT`), the loop detector's recovery
    (:data:`LOOP_PROMPT`), or the next-speaker continuation (:data:`NEXT_SPEAKER_PROMPT`).

    Read from ``content``, never ``display``: the CLI sends these with the
    ``displayContent`` of the prompt it continues, and ``GeminiChat.sendMessageStream``
    (``packages/core/src/core/geminiChat.ts``) records it whenever it differs from the
    content, so such a record may show the person's prompt there. That is also how the
    next-speaker continuation is told from a person typing the same words: a typed prompt
    gets a ``displayContent`` only when its content differs from it, so a bare "Please
    continue." with one is the CLI's; without one it counts as typed.
    """
    text = content.strip()
    if text == CONTINUE_PROMPT or text.startswith(LOOP_PROMPT):
        return True
    return text == NEXT_SPEAKER_PROMPT and bool(display.strip())


def _user_entry(record: dict[str, Any]) -> _Entry:
    timestamp = parse_timestamp(record.get("timestamp"))
    parts = _parts(record.get("content"))
    texts = _text_parts(parts)
    kept = [t for t in texts if not t.lstrip().startswith(_INJECTED_PREFIXES)]
    responses = [r for r in map(_function_response, parts) if r is not None]
    if responses:
        # Tool results fed back to the model (docs/design.md §5.1), never a prompt; any text beside
        # them that is not injected context stays with them.
        results: list[_Result] = []
        for response in responses:
            text, failed = _response_text(response.get("response"))
            key = response.get("id") if isinstance(response.get("id"), str) else None
            results.append(_tool_result(response.get("name"), key, text, failed))
        if any(t.strip() for t in kept):
            results.append(_Result(key=None, text="\n".join(kept), is_error=False))
        return _Entry(results=tuple(results), timestamp=timestamp)
    if texts and texts[0].lstrip().startswith(SNAPSHOT_TAG):
        return _Entry(timestamp=timestamp, snapshot="\n".join(texts))
    content = "\n".join(kept)
    display = record.get("displayContent")
    typed = _text(_parts(display)) if display is not None else ""
    if _is_cli_prompt(content, typed) or _is_ignored_prompt(typed if typed.strip() else content):
        return _Entry(timestamp=timestamp)
    message = ParsedMessage(role="user", content=content, timestamp=timestamp)
    return _Entry(message=message, timestamp=timestamp)


# ---------------------------------------------------------------------- entry points


def legacy_document_by_member(data: bytes) -> dict[str, Any] | None:
    """A legacy single-object session decoded member by member, and its ``messages`` list
    element by element, for a file that does not decode whole because some value in it is
    nested deeper than :data:`~driftguard.adapters._common.MAX_JSON_DEPTH` (one bad message
    must not make the whole session unreadable, as one bad line of a ``.jsonl`` does not).

    A message that does not decode becomes ``None`` (not a message record: the replay
    skips it and counts it in ``skipped_lines``); another member that does not decode is
    left out (metadata such as ``memoryScratchpad``). Returns ``None`` when ``data`` is
    not one JSON object, or its ``messages`` is not an array: the file is then no readable
    session at all.
    """
    members = split_json_container(data)
    if members is None or data.lstrip()[:1] != b"{":
        return None
    document: dict[str, Any] = {}
    for member in members:
        split = split_json_member(member)
        if split is None:
            return None
        key, raw = split
        if key == "messages":
            items = split_json_container(raw)
            if items is None or raw.lstrip()[:1] != b"[":
                return None
            document[key] = [_decoded_or_none(item) for item in items]
        else:
            with contextlib.suppress(ValueError):
                document[key] = decode_json(raw)
    return document


def decode_legacy(data: bytes) -> object:
    """A legacy ``.json`` decoded whole, or member by member when some value in it is
    nested too deeply (:func:`legacy_document_by_member`).

    Raises:
        JsonTooDeepError: nested too deeply, and not one object with a ``messages`` array
            that can be read member by member.
        ValueError: not JSON (perhaps caught mid-rewrite), not UTF-8.
    """
    try:
        return decode_json(data)
    except JsonTooDeepError:
        document = legacy_document_by_member(data)
        if document is None:
            raise
        return document


def is_legacy_session(document: object) -> bool:
    """Whether a decoded ``.json`` has the shape of a legacy Gemini CLI session: an object
    with a string ``sessionId`` and a ``messages`` array (docs/formats.md §B.3). Other JSON —
    ``~/.claude.json``, a ``settings.json``, a ``package.json`` — is not a session file."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("sessionId"), str)
        and isinstance(document.get("messages"), list)
    )


def _decoded_or_none(raw: bytes) -> object:
    try:
        return decode_json(raw)
    except ValueError:  # too deep, or not JSON at all
        return None


def _read_all(path: Path) -> bytes:
    """The whole of ``path``.

    Raises:
        SessionFormatError: it cannot be read.
    """
    try:
        with path.open("rb") as stream:
            return stream.read()
    except OSError as exc:
        raise from_os_error(exc, f"cannot read {path}", SessionFormatError) from exc


def is_legacy_session_file(path: Path) -> bool:
    """Whether the ``.json`` file ``path`` is a legacy session: it has a legacy session's
    shape (:func:`is_legacy_session`, read member by member when a value in it is nested
    too deeply), or, when it does not decode at all, its first 4 KiB name both
    ``sessionId`` and ``messages`` (Gemini CLI rewrites the file in place, and the parser
    reads it again before it gives up).

    Raises:
        SessionFormatError: unreadable, or not such a session file.
    """
    data = _read_all(path)
    try:
        document = decode_legacy(data)
    except JsonTooDeepError as exc:
        raise SessionFormatError(f"{path} is not a JSON session file: {exc}") from exc
    except ValueError as exc:  # not JSON (yet: perhaps caught mid-rewrite)
        head = data[:_SNIFF_HEAD_BYTES].lstrip()
        if head.startswith(b"{") and b'"sessionId"' in head and b'"messages"' in head:
            return True
        raise SessionFormatError(f"{path} is not a JSON session file: {exc}") from exc
    if is_legacy_session(document):
        return True
    raise SessionFormatError(f"{path} is JSON but not a session file of a supported CLI")


def _load_legacy(path: Path) -> dict[str, Any]:
    """Read a legacy single-object session, retrying briefly while it may be mid-rewrite.

    Raises:
        SessionFormatError: unreadable, not JSON after the retries, its object or its
            ``messages`` list cannot be delimited (at once: a rewrite in progress never
            looks like that; :func:`decode_legacy`), or not a session object.
    """
    failure: ValueError | None = None
    for attempt in range(LEGACY_READ_ATTEMPTS):
        if attempt:
            time.sleep(LEGACY_RETRY_DELAY)
        data = _read_all(path)
        try:
            document = decode_legacy(data)
        except JsonTooDeepError as exc:
            # Not a file caught mid-rewrite: reading it again cannot help.
            raise SessionFormatError(f"{path} is not a readable Gemini CLI session: {exc}") from exc
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            failure = exc
            continue
        if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
            raise SessionFormatError(
                f"{path} is JSON but not a Gemini CLI session (no 'messages' list)"
            )
        return document
    raise SessionFormatError(
        f"{path} is not a readable Gemini CLI session: invalid JSON after "
        f"{LEGACY_READ_ATTEMPTS} reads ({failure})"
    )


def parse(path: Path) -> Session:
    """Parse one Gemini CLI session file (``.jsonl`` streamed line by line, or a legacy
    single-object ``.json``) into a :class:`Session` (docs/design.md §4, §5.1, §5.3).

    Raises:
        SessionFormatError: the file cannot be read, or a legacy ``.json`` is not a JSON
            session object (after retries; docs/formats.md §B.8 item 4).
    """
    parser = GeminiCliParser(str(path))
    if path.suffix == ".json":
        parser._replay_legacy(_load_legacy(path))
        return parser.session()
    feed_file(parser, path)
    return parser.session()
