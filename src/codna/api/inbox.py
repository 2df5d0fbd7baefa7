"""Suggested links, the inbox, and its live events as server-sent events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, status
from pydantic import BaseModel, ConfigDict
from sse_starlette import EventSourceResponse

from codna.api.auth import Reader, Writer
from codna.schemas import OFFSET, Number, UrlNumber, Version, window
from codna.services.events import events
from codna.services.inbox import inbox
from codna.services.inbox.inbox import Inbox, Pending
from codna.services.limits import INBOX, PENDING, SUGGESTIONS
from codna.services.members.members import Member
from codna.services.suggestions import links
from codna.services.suggestions.records import Suggestion

router = APIRouter(tags=["inbox"])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuggestLink(_Body):
    address: str
    target: str
    reason: str
    anchor: str | None = None


class DecideLink(_Body):
    decision: str
    reason: str | None = None


class MarkRead(_Body):
    ids: list[Number] | None = None


class Marked(BaseModel):
    marked: int


@router.post("/links", status_code=status.HTTP_201_CREATED, summary="Suggest a link")
async def suggest_link(caller: Writer, body: SuggestLink) -> Suggestion:
    made = await caller.run(links.suggest_link, **body.model_dump())
    assert made is not None  # made for real: no dry run here
    return made


@router.get("/links", summary="Suggested links on a page, folder or space, or one's own")
async def list_links(
    caller: Reader,
    address: str | None = None,
    status: str | None = None,
    limit: Annotated[
        UrlNumber, Query(**window(SUGGESTIONS, "suggested links"))
    ] = SUGGESTIONS.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> list[Suggestion]:
    return await caller.run(
        links.list_links, address=address, status=status, limit=limit, offset=offset
    )


@router.get("/links/{suggestion_id}", summary="One suggested link")
async def read_link(caller: Reader, suggestion_id: UrlNumber) -> Suggestion:
    return await caller.run(links.read_link, suggestion_id=suggestion_id)


@router.post("/links/{suggestion_id}/decide", summary="Accept or reject a suggested link")
async def decide_link(caller: Writer, suggestion_id: UrlNumber, body: DecideLink) -> Suggestion:
    return await caller.run(links.decide_link, suggestion_id=suggestion_id, **body.model_dump())


@router.post("/links/{suggestion_id}/withdraw", summary="Withdraw one's suggested link")
async def withdraw_link(caller: Writer, suggestion_id: UrlNumber) -> Suggestion:
    return await caller.run(links.withdraw_link, suggestion_id=suggestion_id)


@router.get("/pending", summary="What waits on one's decision, newest first")
async def pending_decisions(
    caller: Reader,
    kind: str | None = None,
    limit: Annotated[UrlNumber, Query(**window(PENDING, "of each kind"))] = PENDING.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> Pending:
    return await caller.run(inbox.pending_decisions, kind=kind, limit=limit, offset=offset)


@router.get("/inbox", summary="One's inbox: what waits, and decisions on what one suggested")
async def read_inbox(
    caller: Reader,
    limit: Annotated[UrlNumber, Query(**window(INBOX, "items"))] = INBOX.default,
    since: Annotated[
        datetime | None,
        Query(
            description="Only what came after this time, an ISO 8601 date and time with its "
            "zone, such as 2024-05-01T09:00:00Z."
        ),
    ] = None,
    after: Annotated[
        Version | None,
        Query(description="Only notifications after this one's id, such as the last latest."),
    ] = None,
) -> Inbox:
    return await caller.run(inbox.inbox, limit=limit, since=since, after=after)


@router.post("/inbox/read", summary="Mark notifications read (these, or all)")
async def mark_read(caller: Writer, body: MarkRead) -> Marked:
    return Marked(marked=await caller.run(inbox.mark_read, ids=body.ids))


@router.get(
    "/inbox/events",
    summary="Server-sent events: one `inbox` event per change that concerns the caller",
    description=(
        "First a `ready` event once subscribed; then an `inbox` event per change that concerns "
        "the caller; a `resync` event when events may have been missed (fetch the inbox "
        "again). The stream ends when its token is revoked or its member disabled; at most "
        f"{inbox.STREAMS_PER_MEMBER} are open per member (`rate_limited` past that)."
    ),
    response_class=EventSourceResponse,
)
async def inbox_events(request: Request, caller: Reader) -> EventSourceResponse:
    member = await caller.member()
    inbox.streams.check(member)  # RateLimited: too many open already
    return EventSourceResponse(_stream(request, member, caller.still_valid), ping=15)


async def _stream(
    request: Request, member: Member, still_valid: Callable[[], object]
) -> AsyncIterator[dict[str, Any]]:
    changes = inbox.changes_for(member, request.is_disconnected, still_valid=still_valid)
    async for event in changes:
        if event is None:  # say when the subscription is live: nothing from now is missed
            yield {"event": "ready", "data": json.dumps({"member": member.handle})}
        elif event == events.RESYNC:  # events may have been missed: fetch again
            yield {"event": "resync", "data": json.dumps({"fetch_again": True})}
        else:
            data = {"table": event.table, "id": event.id, "op": event.op}
            yield {"event": "inbox", "data": json.dumps(data)}
