"""The tools of suggested changes (ADR 0024): suggest, list, decide, withdraw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from codna.mcp.inbox_tools import DECIDE, SUGGEST, ReasonArg
from codna.mcp.server import CodnaMCP
from codna.mcp.tools import READ, AddressArg
from codna.schemas import Edits, TagChanges, Version, edits_of, window
from codna.services import suggestions
from codna.services.limits import SUGGESTIONS
from codna.services.members import Member
from codna.services.suggestion_views import Suggestion
from codna.settings import base_url

Status = Literal["pending", "accepted", "rejected", "withdrawn"]


@dataclass(frozen=True)
class Suggested:
    """What suggest_edit answers: the suggestion (none on a dry run), the diff its edits make
    and where the suggestion is to be found."""

    saved: bool
    diff: str
    suggestion: Suggestion | None
    url: str | None


def register(server: CodnaMCP) -> None:
    """Add the tools of suggested changes to `server`."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for("suggest", annotations=SUGGEST)
    def suggest_edit(
        address: AddressArg,
        reason: ReasonArg,
        edits: Edits = None,
        title: Annotated[str | None, Field(description="A new title.")] = None,
        tags: Annotated[TagChanges | None, Field(description="Tags to add and remove.")] = None,
        base_version: Annotated[
            Version | None, Field(description="The version you read; default the current one.")
        ] = None,
        dry_run: Annotated[bool, Field(description="Run every check; save nothing.")] = False,
    ) -> Suggested:
        """Suggest a change to a page instead of editing it: a person who can edit the page
        accepts it (one revision naming you and your reason) or rejects it. Use it for pages
        people wrote. Refused at once if the edits do not apply; the same edits as a rejected
        suggestion are refused for good. At most 20 waiting per page and 200 in all."""
        changes = tags or TagChanges()
        made = suggestions.suggest_edit(
            me(),
            address=address,
            edits=edits_of(edits),
            reason=reason,
            title=title,
            tags_add=changes.add,
            tags_remove=changes.remove,
            base_version=base_version,
            dry_run=dry_run,
        )
        url = None
        if made.suggestion is not None:  # where the page's editors decide it, in the web UI
            space, _, path = made.suggestion.page.partition(":")
            url = f"{base_url()}/suggestions/{space}/{path}#change-{made.suggestion.id}"
        return Suggested(made.saved, made.diff, made.suggestion, url)

    @server.tool_for("read", annotations=READ)
    def list_suggestions(
        address: Annotated[
            str | None,
            Field(description="A page's suggestions (its editors see all); default your own."),
        ] = None,
        status: Annotated[Status | None, Field(description="Only those with this status.")] = None,
        limit: Annotated[int, Field(**window(SUGGESTIONS, "suggestions"))] = SUGGESTIONS.default,
    ) -> list[Suggestion]:
        """Suggested changes with their status, reason and decision; a pending one says whether
        it still applies. Check your own to learn what was accepted, rejected or reverted."""
        return suggestions.list_suggestions(me(), address=address, status=status, limit=limit)

    @server.tool_for("decide", annotations=DECIDE)
    def decide_edit_suggestion(
        suggestion_id: int,
        decision: Literal["accept", "reject"],
        reason: Annotated[str | None, Field(description="Why; the suggester reads it.")] = None,
    ) -> Suggestion:
        """Accept (the edits applied to the page as it is now, one revision in your name) or
        reject a suggested change on a page you can edit. One decision settles it for all."""
        return suggestions.decide_edit_suggestion(
            me(), suggestion_id=suggestion_id, decision=decision, reason=reason
        )

    @server.tool_for("suggest", annotations=SUGGEST)
    def withdraw_suggestion(suggestion_id: int) -> Suggestion:
        """Take back a suggested change of yours that still waits."""
        return suggestions.withdraw_suggestion(me(), suggestion_id=suggestion_id)
