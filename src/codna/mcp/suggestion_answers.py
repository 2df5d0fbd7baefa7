"""What the suggestion and inbox tools answer, shaped for a model (see answers.py).

A suggested change and a suggested link each have an integer `suggestion_id` of their own
kind; `kind` says which, and the tools that take one name their kind (decide_edit_suggestion,
decide_link_suggestion), so no argument can mean either."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from codna.mcp import budget, compact
from codna.mcp.answers import Answer, listed
from codna.mcp.arguments import SuggestionKind
from codna.services.inbox.inbox import Notification
from codna.services.suggestions.attribution import named
from codna.services.suggestions.records import Suggestion
from codna.vocabulary import Status


class SuggestionAnswer(Answer):
    """A suggestion: in a list briefly, with its edits and diffs when asked for by id."""

    suggestion_id: int
    """Pass it to the tools of its kind."""
    kind: SuggestionKind
    """change or link: the tools that take its id say which."""
    page: str
    """The page it is for."""
    status: Status
    """What became of it."""
    by: str
    """Who suggested it: Dana (decision-check) for a routine, scribe (agent)."""
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
    """What accepting does now, if the page moved on and it differs from diff."""
    note: str | None = None
    """Why it no longer applies, or that the page moved on."""

    @classmethod
    def of(
        cls,
        s: Suggestion,
        *,
        full: bool = False,
        edits: bool = True,
        diff_chars: int = budget.DIFF_CHARS,
    ) -> SuggestionAnswer:
        """A suggestion of either kind: brief in a list; `full`, with its edits (unless not
        `edits`, or too long to show: its diff says what they do), diffs and anchor, each
        diff within `diff_chars`."""
        brief = cls(
            suggestion_id=s.id,
            kind=cast(SuggestionKind, s.kind),
            page=s.page,
            status=cast(Status, s.status),
            by=named(s.suggester, is_agent=s.suggester_kind == "agent", via=s.via),
            reason=s.reason,
            target=s.target,
            decided_by=s.decided_by,
            decision_reason=s.decision_reason,
            applies=s.applies,
            accepted_version=s.accepted_version,
            reverted_in_version=s.reverted_in_version,
        )
        problem = None
        if s.not_applying is not None:  # why, as this reader can act on it
            deciding = "reject" in s.actions
            problem = s.not_applying.to_editor() if deciding else s.not_applying.to_suggester()
        if not full:
            return brief.model_copy(update={"note": problem}) if problem else brief
        shown = list(s.edits) or None if edits else None
        note = problem or s.note
        if shown and len(compact.text(shown)) > diff_chars:
            shown = None
            left_out = "Its edits are too long to show; its diff says what they do."
            note = f"{note} {left_out}" if note else left_out
        if diff_chars < budget.DIFF_CHARS:
            rest = f"list_suggestions with suggestion_id={s.id} shows more."
        else:
            rest = "its edits say the rest." if shown else "the web review shows it whole."
        return brief.model_copy(
            update={
                "base_version": s.base_version,
                "edits": shown,
                "title": s.title,
                "tags_add": listed(s.tags_add),
                "tags_remove": listed(s.tags_remove),
                "anchor": s.anchor,
                "diff": budget.clipped(s.diff or None, diff_chars, rest),
                "diff_now": None
                if _same_lines(s.diff, s.diff_now)
                else budget.clipped(s.diff_now, diff_chars, rest),
                "note": note,
            }
        )


def _same_lines(diff: str, now: str | None) -> bool:
    """Whether the diff accepting makes now changes the same lines as the one written, at
    other line numbers only: then it is sent once (as `diff`)."""
    if now is None:
        return False

    def lines(text: str) -> list[str]:
        # Past the header (`--- a v1`, `+++ b`), whose versions differ, and the hunks' lines.
        return [line for line in text.splitlines()[2:] if not line.startswith("@@")]

    return lines(diff) == lines(now)


class Settled(Answer):
    """A suggestion after a decision or a withdrawal."""

    suggestion_id: int
    """Its id."""
    kind: SuggestionKind
    """change or link."""
    status: Status
    """What it is now."""
    accepted_version: int | None = None
    """The page's version that accepting made."""

    @classmethod
    def of(cls, s: Suggestion) -> Settled:
        return cls(
            suggestion_id=s.id,
            kind=cast(SuggestionKind, s.kind),
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

    suggestion_id: int | None = None
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
    suggestion_id: int | None = None
    """The suggestion decided."""
    kind: SuggestionKind
    """change or link."""
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
            suggestion_id=n.suggestion_id,
            kind=kind,
            page=n.page,
            status=n.status,
            reason=n.reason,
            by=n.decided_by,
            at=n.created_at,
            read=n.read,
        )


class InboxAnswer(Answer):
    changes_waiting: list[int] | None = None
    """Ids of suggested changes waiting on your decision; pending_decisions shows them."""
    links_waiting: list[int] | None = None
    """Ids of suggested links waiting on your decision."""
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
