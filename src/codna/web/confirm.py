"""Asking before an action that cannot be undone from the page itself (a trash, a delete for
good, a revert, a restore of an old version), without JavaScript: the action's button is a
link to a page that says what will happen in a sentence, with the form that does it and a way
back."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from starlette.responses import Response

from codna.services.addresses import Address
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.services.pages.pages import Page, PageSummary
from codna.web.pages import crumbs
from codna.web.templating import render
from codna.web.visitor import Seen


def named(page: Page | PageSummary) -> str:
    """A page as a sentence names it: its title, then its address."""
    return f"'{page.title}' ({page.address})"


@dataclass(frozen=True)
class Found:
    member: Member
    page: Page


def find_page(member: Member, where: Address) -> Found:
    """The page at `where`, with who asks: what a question names. Raises NotFound."""
    return Found(member, pages.read_page(member, address=str(where)))


def confirmation(
    request: Request,
    seen: Seen,
    member: Member,
    *,
    title: str,
    question: str,
    action: str,
    button: str,
    back: str,
    fields: dict[str, str] | None = None,
    where: Address | None = None,
) -> Response:
    """A page that asks first: `question` in a sentence, a form posting to `action` (with
    `fields` and the CSRF token) behind `button`, and Cancel back to `back`. Nothing is
    checked here: the action's service decides, once, when the form is sent."""
    return render(
        request,
        seen,
        "confirm.html",
        member=member,
        title=title,
        question=question,
        action=action,
        button=button,
        back=back,
        fields=fields or {},
        crumbs=crumbs(where) if where is not None else [],
    )
