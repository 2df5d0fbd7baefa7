"""The inbox: suggested changes and links to decide, and decisions on one's own; and "my
suggestions", each of one's own with its status. Each suggestion is a card (cards.py).

The decisions on one's suggestions are marked read once the inbox has shown them, so the
header's badge counts only what is new. While the inbox is open, a live event makes the page
fetch it again; static/inbox.js then replaces only the cards that changed, and keeps what was
typed or opened in the others."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse
from starlette.responses import HTMLResponse, Response

from codna import vocabulary
from codna.services.inbox import inbox
from codna.services.inbox.inbox import Inbox
from codna.services.members.members import Member
from codna.services.suggestions import changes, links
from codna.services.suggestions.records import Suggestion
from codna.web import cards  # noqa: F401 (the cards' template globals)
from codna.web.forms import FormRoute
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)


@dataclass(frozen=True)
class Shown:
    member: Member
    inbox: Inbox


def _inbox(member: Member) -> Shown:
    shown = inbox.inbox(member)
    unread = [n.id for n in shown.decisions if not n.read]
    if unread:  # shown now: the badge need not count them again
        inbox.mark_read(member, ids=unread)
    return Shown(member, shown)


@router.get("/inbox")
async def read_inbox(request: Request, seen: Seen) -> Response:
    shown = await seen.run(_inbox)
    return render(request, seen, "inbox.html", member=shown.member, inbox=shown.inbox)


# "My suggestions": a filter per status, as the services name them.
STATUSES = dict(
    zip(vocabulary.STATUSES, ("Waiting", "Accepted", "Rejected", "Withdrawn"), strict=True)
)
MINE_LIMIT = 100


@dataclass(frozen=True)
class Mine:
    member: Member
    items: list[Suggestion]
    status: str | None


def _mine(member: Member, status: str | None) -> Mine:
    suggested = changes.list_suggestions(member, status=status, limit=MINE_LIMIT)
    linked = links.list_links(member, status=status, limit=MINE_LIMIT)
    items = sorted([*suggested, *linked], key=lambda s: (s.created_at, s.id), reverse=True)
    return Mine(member, items[:MINE_LIMIT], status)


@router.get("/inbox/mine")
async def mine(request: Request, seen: Seen, status: str | None = None) -> Response:
    """One's own suggestions, newest first, each with its status; those waiting can be
    withdrawn."""
    shown = await seen.run(_mine, status or None)
    return render(request, seen, "mine.html", member=shown.member, mine=shown, statuses=STATUSES)


def _waiting(member: Member) -> int:
    shown = inbox.inbox(member, limit=1)
    return shown.suggested_changes.total + shown.suggested_links.total + shown.unread


@router.get("/inbox/count")
async def count(seen: Seen) -> Response:
    """How much waits in the inbox, as the header shows it (fetched again on each event)."""
    waiting = await seen.run(_waiting)
    return HTMLResponse(str(waiting) if waiting else "")


@router.get("/inbox/events")
async def live(request: Request, seen: Seen) -> EventSourceResponse:
    """Server-sent events, with the session: an `inbox` event whenever what the visitor's
    inbox shows may have changed (or events were missed); the page fetches what changed. The
    stream ends when the session does, with an `ended` event: the page closes its
    EventSource on it (`sse-close`) instead of meeting a dropped connection, which a browser
    reports as an error and tries again."""
    member = await seen.run(lambda member: member)
    inbox.streams.check(member)  # RateLimited: too many open already

    async def stream() -> AsyncIterator[dict[str, str]]:
        # The cards show whether a suggestion still applies: a change to its page wakes too.
        updates = inbox.changes_for(
            member, request.is_disconnected, still_valid=seen.still_valid, pages_too=True
        )
        async for event in updates:
            yield {"event": "ready" if event is None else "inbox", "data": ""}
        yield {"event": "ended", "data": ""}

    return EventSourceResponse(stream(), ping=15)
