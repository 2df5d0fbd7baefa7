"""The tools of suggesting and deciding: suggested links, what waits, the inbox."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from codna.mcp.server import CodnaMCP
from codna.mcp.tools import READ, AddressArg
from codna.schemas import OFFSET, window
from codna.services import inbox, links
from codna.services.inbox import Inbox, Pending
from codna.services.limits import INBOX, MAX_REASON_CHARS, PENDING
from codna.services.links import LinkSuggestion
from codna.services.members import Member

SUGGEST = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DECIDE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
ReasonArg = Annotated[
    str, Field(description=f"Why, in a sentence or two (at most {MAX_REASON_CHARS} characters).")
]


def register(server: CodnaMCP) -> None:
    """Add the suggesting and deciding tools to `server`."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for("suggest", annotations=SUGGEST)
    def suggest_link(
        address: AddressArg,
        target: Annotated[str, Field(description="The address of the page to link to.")],
        reason: ReasonArg,
        anchor: Annotated[
            str | None,
            Field(description="Text on the page that should become the link (exactly once)."),
        ] = None,
    ) -> LinkSuggestion:
        """Propose a link from one page to another that you can read. A person who can edit
        the page accepts or rejects it; a rejected link is never proposed again."""
        return links.suggest_link(
            me(), address=address, target=target, reason=reason, anchor=anchor
        )

    @server.tool_for("decide", annotations=DECIDE)
    def decide_link_suggestion(
        suggestion_id: int,
        decision: Literal["accept", "reject"],
        reason: Annotated[str | None, Field(description="Why; the suggester reads it.")] = None,
    ) -> LinkSuggestion:
        """Accept (an edit of the page, in your name) or reject a suggested link that waits on
        you. One decision settles it for every editor."""
        return links.decide_link(
            me(), suggestion_id=suggestion_id, decision=decision, reason=reason
        )

    @server.tool_for("decide", annotations=READ)
    def pending_decisions(
        kind: Annotated[
            Literal["link", "change"] | None, Field(description="Only this kind.")
        ] = None,
        limit: Annotated[int, Field(**window(PENDING, "of each kind"))] = PENDING.default,
        offset: Annotated[int, Field(**OFFSET)] = 0,
    ) -> Pending:
        """What waits on your decision on pages you can edit: suggested links and suggested
        changes (each with its diff and whether it still applies), newest first, with totals."""
        return inbox.pending_decisions(me(), kind=kind, limit=limit, offset=offset)

    @server.tool_for("read", name="inbox", annotations=READ)
    def read_inbox(
        limit: Annotated[int, Field(**window(INBOX, "items"))] = INBOX.default,
    ) -> Inbox:
        """Your inbox: what waits on you, and decisions (status and reason) on what you
        suggested. Check it to learn what was taken or rejected."""
        return inbox.inbox(me(), limit=limit)
