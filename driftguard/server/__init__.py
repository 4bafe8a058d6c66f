"""The MCP server over stdio: ``get_drift``, ``get_handoff``, ``get_trend`` and the
``handoff`` prompt (docs/design.md §6). A thin shell: it resolves the session, asks the
engine, and renders a typed result (structured content for the app, readable text for
the model).

Long-lived state — the incremental parse cache and the history store — lives as long as
the server, made on the first call that needs it (start-up imports only the SDK, pydantic
and this module, so the host's health check is answered fast). Tools raise
:class:`~driftguard.errors.DriftguardError` on failure; the SDK turns it into a tool error
the model can read. Logging goes to stderr only: stdout is the protocol.

A shell: may import the engine, :mod:`driftguard.setup_scripts` (what a host's settings
run) and every wing below them; never another shell (``cli``, ``live``)
(``tests/test_layout.py`` checks it).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated, Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    ListRootsResult,
    ToolAnnotations,
)
from pydantic import Field

from driftguard import __version__
from driftguard.errors import DriftguardError
from driftguard.server.context import (
    ServerState,
    as_tool_error,
    call_notes,
    call_store,
    client_roots,
    lifespan,
    load,
    project_roots,
    root_paths,
)
from driftguard.server.results import (
    DriftResult,
    HandoffResult,
    TrendResult,
    handoff_result,
    session_info,
    tool_result,
    trend_result,
    with_notes,
)

# Start-up imports only what answers ``initialize`` and lists the tools, so the host's
# health check is answered fast: the engine, the parsers, numpy and the rest load on the
# first call that needs them.

__all__ = ["SERVER_NAME", "create_server", "main"]

log = logging.getLogger("driftguard")

SERVER_NAME = "driftguard"
INSTRUCTIONS = """\
driftguard measures whether this coding session has degraded: how full the context \
window is, whether replies repeat themselves, shrink, hedge, correct themselves or wander \
from the goal. It reads this session's own transcript; no arguments are needed.

Call get_drift when the session has run long (dozens of turns, large files read), after \
a compaction, when replies start repeating or going in circles, or before starting a big \
new task. Pass goal="<the user's original request>" once; it is remembered. The result \
gives a 0-100 score (fresh < 30, warming, drifting > 60, polluted > 80) and says whether \
to carry on or start fresh.

When get_drift suggests a handoff, or the user wants to start a fresh session, call \
get_handoff and follow its instructions to write handoff.md for the next session. \
save_handoff does the same but first saves the draft as .driftguard/handoff.md in the \
project, to be completed in place; the next session started in this project then begins \
with it where driftguard's hooks are installed, and must be asked to read it elsewhere (its \
result says which). get_trend shows how the score moved over this session."""

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
SAVES_HANDOFF = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
"""save_handoff writes driftguard's own files in the project's ``.driftguard/`` (a
replaced handoff.md is kept as handoff.prev.md, so nothing is lost: not destructive);
each call writes a new checkpoint (not idempotent). Every other tool is read-only."""

SessionArg = Annotated[
    str | None,
    Field(
        description="Session id, or the path of a session file in the CLIs' own session "
        "folders (or a folder listed in the config's sessionFolders). Omit it: the current "
        "session is found automatically."
    ),
]


def create_server() -> MCPServer[ServerState]:
    """The driftguard MCP server with its three tools and the ``handoff`` prompt."""
    server: MCPServer[ServerState] = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
    )

    @server.tool(title="Session drift score", annotations=READ_ONLY)
    def get_drift(
        ctx: Context[ServerState, Any],
        goal: Annotated[
            str | None,
            Field(
                description="The session's goal, e.g. the user's first request. Given once, "
                "it is remembered for this session."
            ),
        ] = None,
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(project_roots)] = None,
    ) -> Annotated[CallToolResult, DriftResult]:
        """Score how far this coding session has degraded (0-100: fresh, warming, drifting,
        polluted) from six factors: context saturation, repetition, length collapse, goal
        distance, uncertainty and confidence drift. Says whether to carry on or start fresh,
        and records the score for get_trend."""
        from driftguard.engine import drift as engine

        store = call_store(ctx)
        with as_tool_error():
            loaded = load(ctx, session, roots)
            outcome = engine.drift(
                loaded.session,
                project=loaded.project,
                store=store,
                goal=goal if goal is not None and goal.strip() else None,
                resolved_by=loaded.resolved.resolved_by,
                more_folders=loaded.folders,
                features=loaded.features,
            )
        notes = call_notes(loaded, store)
        text = with_notes(outcome.to_text("mcp"), notes)
        payload = outcome.to_json()
        result = DriftResult.model_validate(
            {
                **payload,
                "session": session_info(outcome.report, loaded.served),
                "text": text,
                "notes": notes,
            }
        )
        return tool_result(text, result)

    def _handoff(
        ctx: Context[ServerState, Any],
        session: str | None,
        write: bool,
        roots: ListRootsResult | None = None,
        replace: bool = False,
    ) -> CallToolResult:
        from driftguard.engine.handoff import prepare_handoff, write_handoff
        from driftguard.sessions.resolve import start_projects
        from driftguard.setup_scripts.hooked import session_start_hooked

        notes: list[str] = []
        store = call_store(ctx)
        saved = None
        with as_tool_error():
            loaded = load(ctx, session, roots)
            if write:
                written = write_handoff(
                    loaded.session,
                    project=loaded.project,
                    store=store,
                    projects=[*start_projects(), *root_paths(roots)],
                    found_for_project=loaded.resolved.resolved_by != "argument",
                    replace=replace,
                    resolved_by=loaded.resolved.resolved_by,
                    hooked=session_start_hooked(loaded.session.cli),
                    features=loaded.features,
                )
                notes += [written.not_saved] if written.not_saved else []
                handoff, report, saved = written.handoff, written.report, written.saved
            else:
                handoff, report = prepare_handoff(
                    loaded.session,
                    project=loaded.project,
                    store=store,
                    resolved_by=loaded.resolved.resolved_by,
                    hooked=session_start_hooked(loaded.session.cli),
                    features=loaded.features,
                )
            notes += call_notes(loaded, store)
        if saved is not None and saved.kept is not None:
            how = saved.kept_progress.describe() if saved.kept_progress else "edited"
            notes.append(f"the handoff.md that was there had been {how}: kept as {saved.kept}")
        result = handoff_result(handoff, report, saved, loaded.served, notes)
        return tool_result(with_notes(handoff.prompt, notes), result)

    @server.tool(title="Session handoff", annotations=READ_ONLY)
    def get_handoff(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(project_roots)] = None,
    ) -> Annotated[CallToolResult, HandoffResult]:
        """Instructions to write handoff.md for a fresh session, pre-filled with facts from
        this session's transcript (goal, files edited, commands run, last errors, score).
        Secrets are redacted; follow the instructions in the returned prompt."""
        return _handoff(ctx, session, write=False, roots=roots)

    @server.tool(name="save_handoff", title="Save a session handoff", annotations=SAVES_HANDOFF)
    def save_handoff_tool(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        replace: Annotated[
            bool,
            Field(
                description="Replace a handoff.md someone edited that still waits for the "
                "next session (it is kept as .driftguard/handoff-<UTC time>.md). Without it, "
                "such a handoff is not replaced and the call fails saying so."
            ),
        ] = False,
        roots: Annotated[ListRootsResult | None, Resolve(client_roots)] = None,
    ) -> Annotated[CallToolResult, HandoffResult]:
        """Like get_handoff, but first saves the pre-filled draft as .driftguard/handoff.md in
        the project (with a checkpoint), so that the next session started there begins with
        it; then complete that file in place as the returned instructions say. A session of
        another folder than the project is not saved: its handoff comes back as text. A
        handoff.md someone edited is never lost: it is kept as handoff-<UTC time>.md."""
        return _handoff(ctx, session, write=True, roots=roots, replace=replace)

    @server.tool(title="Session drift trend", annotations=READ_ONLY)
    def get_trend(
        ctx: Context[ServerState, Any],
        session: SessionArg = None,
        roots: Annotated[ListRootsResult | None, Resolve(project_roots)] = None,
    ) -> Annotated[CallToolResult, TrendResult]:
        """How this session's drift score moved over the scores get_drift recorded:
        sparkline, peak, average, latest state and whether it is climbing or falling."""
        from driftguard.engine import drift as engine
        from driftguard.engine.trend import trend as trend_of

        store = call_store(ctx)
        with as_tool_error():
            loaded = load(ctx, session, roots)
            outcome = engine.drift(
                loaded.session,
                project=loaded.project,
                store=store,
                resolved_by=loaded.resolved.resolved_by,
                record=False,
                features=loaded.features,
            )
            trend = trend_of(
                loaded.session, project=loaded.project, store=store, more_folders=loaded.folders
            )
        result = trend_result(trend, outcome.report, loaded.served, call_notes(loaded, store))
        return tool_result(result.text, result)

    @server.prompt(name="handoff", title="Write a handoff for a fresh session")
    def handoff_prompt(ctx: Context[ServerState, Any], session: str | None = None) -> str:
        """Write handoff.md so a fresh session can pick up where this one stands
        (session: a session file path or id; default: this session)."""
        from driftguard.engine.handoff import prepare_handoff

        store = call_store(ctx)
        try:
            loaded = load(ctx, session)
            handoff, _ = prepare_handoff(
                loaded.session,
                project=loaded.project,
                store=store,
                resolved_by=loaded.resolved.resolved_by,
                features=loaded.features,
            )
            call_notes(loaded, store)  # a prompt has no notes field: stderr only
        except DriftguardError as exc:
            # Prompts have no error result: a protocol error carries the message, which the
            # SDK would otherwise replace with "Error rendering prompt".
            raise MCPError(INVALID_PARAMS, exc.full_text()) from exc
        return handoff.prompt

    return server


def configure_logging() -> None:
    """Log to stderr only (stdout is the protocol), before the SDK configures its own."""
    level = os.environ.get("DRIFTGUARD_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else "INFO",
        format="driftguard %(levelname)s %(name)s: %(message)s",
    )


def main() -> None:
    """Run the server over stdio until the host closes stdin (``driftguard serve``)."""
    configure_logging()
    create_server().run()


if __name__ == "__main__":
    main()
