"""The inbox: suggested changes and links to decide, and decisions on one's own.

Every decision is a form that posts and redirects, so deciding works without JavaScript; with
htmx, the form posts in place and the item is replaced by what was decided.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from markupsafe import Markup
from sse_starlette import EventSourceResponse
from starlette.responses import HTMLResponse, RedirectResponse, Response

from codna.markdown.diff_view import read_hunks
from codna.markdown.render import render as render_markdown
from codna.services import inbox, links, suggestions
from codna.services.inbox import Inbox
from codna.services.members import Member
from codna.services.suggestion_views import Suggestion
from codna.services.suggestions import Preview
from codna.web.forms import FormRoute
from codna.web.templating import page_url, render, templates
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)

# A suggestion's card (in the inbox, on its page and in its preview) shows its stored diff
# hunk by hunk, under the heading path of each, the words that changed marked in the line.
templates.env.globals["diff_hunks"] = read_hunks


@dataclass(frozen=True)
class Shown:
    member: Member
    inbox: Inbox


def _inbox(member: Member) -> Shown:
    return Shown(member, inbox.inbox(member))


@router.get("/inbox")
async def read_inbox(request: Request, seen: Seen) -> Response:
    shown = await seen.run(_inbox)
    return render(request, seen, "inbox.html", member=shown.member, inbox=shown.inbox)


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
    inbox shows may have changed; the page fetches what changed."""
    member = await seen.run(lambda member: member)

    async def stream() -> AsyncIterator[dict[str, str]]:
        async for event in inbox.changes_for(member, request.is_disconnected):
            yield {"event": "ready" if event is None else "inbox", "data": ""}

    return EventSourceResponse(stream(), ping=15)


@dataclass(frozen=True)
class Previewed:
    member: Member
    preview: Preview
    html: Markup


def _preview(member: Member, suggestion_id: int) -> Previewed:
    preview = suggestions.preview_suggestion(member, suggestion_id=suggestion_id)
    html = Markup(render_markdown(preview.body, page_url=page_url))  # sanitised by render
    return Previewed(member, preview, html)


@router.get("/inbox/changes/{suggestion_id}/preview")
async def preview(request: Request, seen: Seen, suggestion_id: int) -> Response:
    shown = await seen.run(_preview, suggestion_id)
    return render(request, seen, "preview.html", member=shown.member, shown=shown)


async def _settle(
    request: Request,
    seen: Seen,
    csrf: str,
    settle: Callable[[Member], Suggestion],
) -> Response:
    """Check the form's token and settle an item as the visitor; then the settled item in
    place of its forms (htmx), or back to the inbox."""
    seen.check_csrf(csrf)
    member, item = await seen.run(lambda member: (member, settle(member)))
    if request.headers.get("hx-request") == "true":
        return render(request, seen, "decided.html", member=member, item=item)
    return RedirectResponse("/inbox", status_code=303)


@router.post("/inbox/changes/{suggestion_id}/decide")
async def decide_change(
    request: Request,
    seen: Seen,
    suggestion_id: int,
    decision: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def decide(member: Member) -> Suggestion:
        return suggestions.decide_edit_suggestion(
            member, suggestion_id=suggestion_id, decision=decision, reason=reason or None
        )

    return await _settle(request, seen, csrf, decide)


@router.post("/inbox/changes/{suggestion_id}/withdraw")
async def withdraw_change(
    request: Request, seen: Seen, suggestion_id: int, csrf: Annotated[str, Form()] = ""
) -> Response:
    def withdraw(member: Member) -> Suggestion:
        return suggestions.withdraw_suggestion(member, suggestion_id=suggestion_id)

    return await _settle(request, seen, csrf, withdraw)


@router.post("/inbox/links/{suggestion_id}/decide")
async def decide_link(
    request: Request,
    seen: Seen,
    suggestion_id: int,
    decision: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def decide(member: Member) -> Suggestion:
        return links.decide_link(
            member, suggestion_id=suggestion_id, decision=decision, reason=reason or None
        )

    return await _settle(request, seen, csrf, decide)
