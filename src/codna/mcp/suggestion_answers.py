"""What the suggestion and inbox tools answer, shaped for a model (see answers.py). A
suggestion's id names its kind (`change-12`, `link-5`), so no id can mean either."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, cast

from codna.mcp.answers import Answer, listed
from codna.mcp.arguments import SuggestionKind
from codna.services.inbox import Notification
from codna.services.links import LinkSuggestion
from codna.services.suggestion_views import Suggestion

Status = Literal["pending", "accepted", "rejected", "withdrawn"]


def suggestion_id(kind: SuggestionKind, number: int) -> str:
    """The id a model passes back: change-12, link-5."""
    return f"{kind}-{number}"


class SuggestionAnswer(Answer):
    """A suggestion: in a list briefly, with its edits and diffs when asked for by id."""

    id: str
    """change-12 (a suggested change) or link-5 (a suggested link)."""
    page: str
    """The page it is for."""
    status: Status
    """What became of it."""
    by: str
    """Who suggested it, and through which routine: Dana (decision-check)."""
    reason: str
    """Why, as the suggester said."""
    target: str | None = None
    """The page a link points to."""
    decided_by: str | None = None
    """Who decided."""
    decision_reason: str | None = None
    """Why, if they said."""
    applies: bool | None = None
    """Pending: whether it still applies to the page as it is now."""
    accepted_version: int | None = None
    """The page's version that accepting made."""
    reverted_in_version: int | None = None
    """A later revision undid what accepting did."""
    base_version: int | None = None
    """The page's version it was written against."""
    edits: list[dict[str, str]] | None = None
    """Its edits, as edit_document takes them."""
    title: str | None = None
    """The new title it sets."""
    tags_add: list[str] | None = None
    """Tags it adds."""
    tags_remove: list[str] | None = None
    """Tags it removes."""
    anchor: str | None = None
    """The text that becomes the link."""
    diff: str | None = None
    """What it does to base_version."""
    diff_now: str | None = None
    """What accepting would do to the page now, when the page has moved on."""
    note: str | None = None
    """Why it no longer applies, or that the page moved on."""

    @classmethod
    def of_change(
        cls, s: Suggestion, *, full: bool = False, edits: bool = True
    ) -> SuggestionAnswer:
        brief = cls(
            id=suggestion_id("change", s.id),
            page=s.page,
            status=cast(Status, s.status),
            by=f"{s.suggester} ({s.via})" if s.via else s.suggester,
            reason=s.reason,
            decided_by=s.decided_by,
            decision_reason=s.decision_reason,
            applies=s.applies,
            accepted_version=s.accepted_version,
            reverted_in_version=s.reverted_in_version,
        )
        if not full:
            return brief
        problem = s.not_applying.message if s.not_applying is not None else None
        return brief.model_copy(
            update={
                "base_version": s.base_version,
                "edits": list(s.edits) or None if edits else None,
                "title": s.title,
                "tags_add": listed(s.tags_add),
                "tags_remove": listed(s.tags_remove),
                "diff": s.diff or None,
                "diff_now": s.diff_now,
                "note": problem or s.note,
            }
        )

    @classmethod
    def of_link(cls, s: LinkSuggestion, *, full: bool = False) -> SuggestionAnswer:
        return cls(
            id=suggestion_id("link", s.id),
            page=s.page,
            status=cast(Status, s.status),
            by=s.suggester,
            reason=s.reason,
            target=s.target,
            decided_by=s.decided_by,
            decision_reason=s.decision_reason,
            accepted_version=s.accepted_version,
            reverted_in_version=s.reverted_in_version,
            anchor=s.anchor if full else None,
        )


class Settled(Answer):
    """A suggestion after a decision or a withdrawal."""

    id: str
    """Such as change-12."""
    status: Status
    """What it is now."""
    accepted_version: int | None = None
    """The page's version that accepting made."""

    @classmethod
    def of_change(cls, s: Suggestion) -> Settled:
        return cls(
            id=suggestion_id("change", s.id),
            status=cast(Status, s.status),
            accepted_version=s.accepted_version,
        )

    @classmethod
    def of_link(cls, s: LinkSuggestion) -> Settled:
        return cls(
            id=suggestion_id("link", s.id),
            status=cast(Status, s.status),
            accepted_version=s.accepted_version,
        )


class SuggestionList(Answer):
    suggestions: list[SuggestionAnswer]
    """Newest first."""
    note: str | None = None
    """Said when empty or cut short."""


class Suggested(Answer):
    """What suggest_edit or suggest_link made (nothing on a dry run)."""

    id: str | None = None
    """The new suggestion's id; list_suggestions shows what became of it."""
    saved: bool
    """false on a dry run."""
    diff: str | None = None
    """What its edits do to the page."""
    url: str | None = None
    """Where the page's editors decide it, for a link on your run page."""


class Pending(Answer):
    """What waits on your decision, newest first."""

    changes: list[SuggestionAnswer]
    """With their diffs."""
    changes_total: int
    """How many changes wait in all."""
    links: list[SuggestionAnswer]
    """Suggested links."""
    links_total: int
    """How many links wait in all."""
    note: str | None = None
    """Said when empty or cut short."""


# -- the inbox -----------------------------------------------------------------------------


class NotificationAnswer(Answer):
    id: int
    """Pass it to mark_read, or as inbox's after."""
    suggestion: str | None = None
    """The suggestion decided, such as change-12."""
    page: str
    """The page it was for."""
    status: str
    """What became of it: accepted, rejected, reverted…"""
    reason: str | None = None
    """Why, as the decider said."""
    by: str | None = None
    """Who decided."""
    at: datetime
    """When."""
    read: bool
    """true: marked read."""

    @classmethod
    def of(cls, n: Notification) -> NotificationAnswer:
        kind: SuggestionKind = "link" if n.kind.startswith("link") else "change"
        return cls(
            id=n.id,
            suggestion=suggestion_id(kind, n.suggestion_id) if n.suggestion_id else None,
            page=n.page,
            status=n.status,
            reason=n.reason,
            by=n.decided_by,
            at=n.created_at,
            read=n.read,
        )


class InboxAnswer(Answer):
    waiting: list[str] | None = None
    """Ids of suggestions waiting on your decision; pending_decisions shows them."""
    decisions: list[NotificationAnswer]
    """On what you suggested, unread first."""
    unread: int
    """How many notifications are unread."""
    latest: int | None = None
    """The newest notification's id: pass it as after next time to see only what is new."""
    note: str | None = None
    """What to do next."""


class Marked(Answer):
    marked: int
    """How many notifications were marked read."""
