"""A suggestion's card, where a person decides on it: in the inbox, on the page's list of
suggestions, in "my suggestions", and on its own at /inbox/changes/ID.

The card shows the change where it is (the section's heading path, word by word) and, a click
away, as the page will read (`rendered`), and it is where a decision is made. Every decision is
a form that posts: with htmx the card is replaced in place by what was decided; without
JavaScript the browser goes back to the list it came from. A refused decision (the page moved
on and the suggestion no longer applies, or someone else decided first) shows the card as it
is now with the refusal in it: in place with htmx, on the card's own page without.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError, NoLongerApplies, NotFound, Unauthenticated
from codna.markdown.diff_view import read_hunks
from codna.markdown.render import render as render_markdown
from codna.markdown.rendered_diff import Block, around_changes, rendered_diff
from codna.services.limits import MAX_REASON_CHARS
from codna.services.members.members import Member
from codna.services.suggestions import changes, links
from codna.services.suggestions.changes import Preview
from codna.services.suggestions.records import Suggestion
from codna.web.forms import FormRoute
from codna.web.templating import page_url, render, templates
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)


def by_whom(item: Suggestion) -> str:
    """Who suggested it, as ADR 0024 names them: "scribe (agent), for Ada", "Ada, through the
    routine decision-check", or "Ada"."""
    if item.suggester_kind == "agent":
        named = f"{item.suggester} (agent)"
        return f"{named}, for {' and '.join(item.suggester_for)}" if item.suggester_for else named
    if item.via:
        return f"{item.suggester}, through the routine {item.via}"
    return item.suggester


def status_of(item: Suggestion) -> str:
    """Its status in words, with who decided and why: "waiting"; "accepted by Ben in version
    4"; "accepted by Ben in version 4, reverted in version 5"; "rejected by Ben: “Not now.”";
    "withdrawn"."""
    if item.status == "pending":
        return "waiting"
    said = item.status + (f" by {item.decided_by}" if item.decided_by else "")
    if item.status == "accepted" and item.accepted_version is not None:
        said += f" in version {item.accepted_version}"
    if item.reverted_in_version is not None:
        said += f", reverted in version {item.reverted_in_version}"
    if item.decision_reason:
        said += f": “{item.decision_reason}”"
    return said


def card_state(item: Suggestion) -> str:
    """What the card shows that may change while it is open: a live update replaces the card
    only when this differs, so what is typed or opened in it stays."""
    return f"{item.status}:{item.current_version}:{item.applies}:{item.reverted_in_version}"


def refused_in_card(refusal: CodnaError) -> str:
    """Why a decision made in the card was refused, said in the card."""
    if isinstance(refusal, NoLongerApplies):
        return "Not accepted: the page changed while this was open, and it no longer applies."
    return f"Not done: {refusal.message}"


def around_space(text: str) -> tuple[str, str, str]:
    """The white space before a changed run, the run, and the white space after: only the run
    is marked, so a mark never ends in a blank."""
    word = text.strip()
    if not word:
        return text, "", ""
    start = text.index(word)
    return text[:start], word, text[start + len(word) :]


templates.env.globals |= {
    "around_space": around_space,
    "diff_hunks": read_hunks,
    "by_whom": by_whom,
    "status_of": status_of,
    "card_state": card_state,
    "refused_in_card": refused_in_card,
    "max_reason": MAX_REASON_CHARS,
}

# Only these lists are gone back to after a decision without JavaScript.
_BACK = ("/inbox", "/suggestions/")


def back_to(sent: str) -> str:
    """Where to go after a decision: the list the form was on, if it is one of ours."""
    if sent.startswith(_BACK) and not sent.startswith("//") and "\\" not in sent:
        return sent
    return "/inbox"


@dataclass(frozen=True)
class Card:
    member: Member
    item: Suggestion


@dataclass(frozen=True)
class Kind:
    """What the web does with suggestions of one kind, named in its addresses' plural."""

    read: Callable[..., Suggestion]
    decide: Callable[..., Suggestion]
    withdraw: Callable[..., Suggestion]


KINDS = {
    "changes": Kind(
        changes.read_suggestion,
        changes.decide_edit_suggestion,
        changes.withdraw_suggestion,
    ),
    "links": Kind(links.read_link, links.decide_link, links.withdraw_link),
}


def _kind(plural: str) -> Kind:
    if plural not in KINDS:
        raise HTTPException(404)
    return KINDS[plural]


def _read(kind: Kind) -> Callable[[Member, int], Card]:
    def card(member: Member, suggestion_id: int) -> Card:
        return Card(member, kind.read(member, suggestion_id=suggestion_id))

    return card


def _show(
    request: Request, seen: Seen, card: Card, *, refusal: CodnaError | None = None, back: str
) -> Response:
    """The card alone (htmx), or on a page of its own."""
    name = "_card.html" if request.headers.get("hx-request") == "true" else "card.html"
    return render(
        request,
        seen,
        name,
        member=card.member,
        s=card.item,
        refusal=refusal,
        back=back,
        # A refusal's page says what the refusal is; in place, the card swaps in as it is.
        status=refusal.status if refusal is not None and name == "card.html" else 200,
    )


@router.get("/inbox/{plural}/{suggestion_id}")
async def card(request: Request, seen: Seen, plural: str, suggestion_id: int) -> Response:
    """One suggestion's card: in place of the one shown (htmx), or on a page of its own."""
    shown = await seen.run(_read(_kind(plural)), suggestion_id)
    return _show(request, seen, shown, back="/inbox")


@dataclass(frozen=True)
class Rendered:
    member: Member
    preview: Preview
    blocks: list[Block]


def _rendered(member: Member, suggestion_id: int) -> Rendered:
    preview = changes.preview_suggestion(member, suggestion_id=suggestion_id)
    # Both are sanitised by render; the merge only adds <ins> and <del> around their words.
    at = preview.suggestion.page  # relative links resolve from the page's folder
    before = render_markdown(preview.body_now, page_url=page_url, at=at)
    after = render_markdown(preview.body, page_url=page_url, at=at)
    return Rendered(member, preview, rendered_diff(before, after))


def _markup(blocks: list[Block | None]) -> list[Markup | None]:
    return [Markup(b.html) if b is not None else None for b in blocks]


@router.get("/inbox/changes/{suggestion_id}/rendered")
async def rendered(request: Request, seen: Seen, suggestion_id: int) -> Response:
    """The change as the page will read, around what changed (the card's second view)."""
    shown = await seen.run(_rendered, suggestion_id)
    blocks = _markup(around_changes(shown.blocks))
    return render(request, seen, "_rendered.html", member=shown.member, blocks=blocks, s=shown)


@router.get("/inbox/changes/{suggestion_id}/preview")
async def preview(request: Request, seen: Seen, suggestion_id: int) -> Response:
    """The whole page as accepting would leave it, with what changes marked."""
    shown = await seen.run(_rendered, suggestion_id)
    blocks = _markup(list(shown.blocks))
    return render(
        request, seen, "preview.html", member=shown.member, shown=shown.preview, blocks=blocks
    )


async def _settle(
    request: Request,
    seen: Seen,
    kind: Kind,
    suggestion_id: int,
    form: SettleForm,
    settle: Callable[[Member], Suggestion],
) -> Response:
    """Check the form's token and settle an item as the visitor: then the settled card in
    place (htmx), or back to the list. A refusal shows the card as it is now, saying why."""
    seen.check_csrf(form.csrf)
    back = back_to(form.back)
    try:
        member, item = await seen.run(lambda member: (member, settle(member)))
    except CodnaError as refused:
        if isinstance(refused, Unauthenticated | NotFound):
            raise
        try:
            shown = await seen.run(_read(kind), suggestion_id)
        except NotFound:
            raise refused from None
        return _show(request, seen, shown, refusal=refused, back=back)
    if request.headers.get("hx-request") == "true":
        return render(request, seen, "decided.html", member=member, item=item)
    return RedirectResponse(back, status_code=303)


@dataclass(frozen=True)
class SettleForm:
    """What every deciding form sends: its token and the list to go back to."""

    csrf: str
    back: str


Text = Annotated[str, Form()]


@router.post("/inbox/{plural}/{suggestion_id}/decide")
async def decide(
    request: Request,
    seen: Seen,
    plural: str,
    suggestion_id: int,
    decision: Text = "",
    reason: Text = "",
    csrf: Text = "",
    back: Text = "/inbox",
) -> Response:
    kind = _kind(plural)

    def decided(member: Member) -> Suggestion:
        return kind.decide(
            member, suggestion_id=suggestion_id, decision=decision, reason=reason or None
        )

    return await _settle(request, seen, kind, suggestion_id, SettleForm(csrf, back), decided)


@router.post("/inbox/{plural}/{suggestion_id}/withdraw")
async def withdraw(
    request: Request,
    seen: Seen,
    plural: str,
    suggestion_id: int,
    csrf: Text = "",
    back: Text = "/inbox",
) -> Response:
    kind = _kind(plural)

    def withdrawn(member: Member) -> Suggestion:
        return kind.withdraw(member, suggestion_id=suggestion_id)

    return await _settle(request, seen, kind, suggestion_id, SettleForm(csrf, back), withdrawn)
