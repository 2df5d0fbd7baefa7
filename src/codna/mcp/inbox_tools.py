"""The tools of the inbox: what became of one's suggestions, what is new, marking it read."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from codna.mcp import arguments as a
from codna.mcp import budget
from codna.mcp.server import CodnaMCP
from codna.mcp.suggestion_answers import InboxAnswer, Marked, NotificationAnswer
from codna.mcp.suggestion_tools import SUGGEST
from codna.mcp.tools import READ
from codna.services.inbox import inbox
from codna.services.limits import INBOX
from codna.services.members.members import Member


def register(server: CodnaMCP) -> None:
    """Add the tools of the inbox to `server`."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for("read", name="inbox", title="Your inbox", annotations=READ)
    def read_inbox(
        after: a.After = None,
        since: Annotated[
            datetime | None,
            Field(description="Only what is newer, such as 2026-05-04T09:00:00Z."),
        ] = None,
        limit: a.InboxLimit = INBOX.to_model,
    ) -> InboxAnswer:
        """Decisions on what you suggested (accepted, rejected, reverted, why), unread first,
        and what waits on you. Pass latest as after next time."""
        box = inbox.inbox(me(), limit=limit, since=since, after=after)
        total = box.suggested_changes.total + box.suggested_links.total
        notes = []
        if total:
            notes.append(f"{total} suggestions wait on you; pending_decisions shows them.")
        if not box.decisions:
            notes.append(
                "No decisions on your suggestions" + (" since then." if after or since else ".")
            )
        decisions = budget.fit([NotificationAnswer.of(n) for n in box.decisions])
        if len(decisions) < len(box.decisions):
            notes.append(
                f"Cut to {len(decisions)} to stay within {budget.ANSWER_CHARS:,} characters: "
                "mark_read these, then look again."
            )
        return InboxAnswer(
            changes_waiting=[s.id for s in box.suggested_changes.items] or None,
            links_waiting=[s.id for s in box.suggested_links.items] or None,
            decisions=decisions,
            unread=box.unread,
            latest=box.latest,
            note=" ".join(notes) or None,
        )

    @server.tool_for("read", title="Mark read", annotations=SUGGEST)
    def mark_read(
        ids: a.NotificationIds = None,
    ) -> Marked:
        """Mark inbox notifications read."""
        return Marked(marked=inbox.mark_read(me(), ids=ids))
