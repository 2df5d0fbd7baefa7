"""Writing: create a page, edit it in a plain Markdown editor, trash and restore it.

A person in the editor sends the page's whole new text (the edit language is for agents and
the API). What they typed is never lost to a refusal: a conflict or a bad field shows the
form again with their text in it and the service's sentence above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError, Conflict, Duplicate, InvalidRequest, ReadOnly, TooLarge
from codna.markdown.limits import MAX_BODY_BYTES
from codna.schemas import UrlNumber
from codna.services import changes, pages
from codna.services.access import read_only_message
from codna.services.addresses import Address, parse_address
from codna.services.members import Member
from codna.services.pages import Page
from codna.web.forms import FormRoute
from codna.web.pages import PageWindow, crumbs, page_window
from codna.web.templating import page_url, render
from codna.web.visitor import Seen

# A browser sends a form URL-encoded, up to three bytes for each byte of the text, so a field
# may be three times the largest body for the body's own limit to be the one that refuses.
FIELD_BYTES = 3 * MAX_BODY_BYTES
router = APIRouter(
    include_in_schema=False, route_class=FormRoute, form_limits={"max_part_size": FIELD_BYTES}
)

# Refusals the form answers itself, with the typed text kept; any other (not found) is the
# error page.
KEPT_IN_FORM = (Conflict, InvalidRequest, TooLarge)
# Saving also keeps the text when the right to edit went while the editor was open.
KEPT_IN_SAVE = (*KEPT_IN_FORM, ReadOnly)
# A new page's form also answers for an address that is taken or not the member's to write.
KEPT_IN_NEW_FORM = (*KEPT_IN_FORM, Duplicate, ReadOnly)


def _page_address(space: str, path: str) -> Address:
    return parse_address(f"{space}:{path}", want="page")


def _folder(where: Address) -> Address:
    """The folder a page is in (its space, for a page at the top)."""
    head = where.path.rpartition("/")[0]
    return Address(where.space, head + "/" if head else "")


def split_tags(text: str) -> list[str]:
    """The tags of the form's one field: comma-separated, blanks dropped."""
    return [tag for tag in (part.strip() for part in text.split(",")) if tag]


@dataclass(frozen=True)
class Draft:
    """What an editor's form holds: the page as saved, or what the person typed."""

    title: str
    tags: str  # comma-separated
    body: str
    summary: str = ""

    @classmethod
    def of(cls, page: Page) -> Draft:
        return cls(page.title, ", ".join(page.tags), page.body)


@dataclass(frozen=True)
class Tried:
    """A write as the view answers it: the member, and the page saved or the refusal."""

    member: Member
    page: Page | None = None
    refused: CodnaError | None = None


# The editor ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opened:
    member: Member
    page: Page


def _open(member: Member, where: Address) -> Opened:
    page = pages.read_page(member, address=str(where))
    if not page.editable:
        raise ReadOnly(read_only_message(where, member), address=str(where))
    return Opened(member, page)


def _write(member: Member, where: Address, draft: Draft, base_version: int) -> Tried:
    try:
        result = changes.write_page(
            member,
            address=str(where),
            body=draft.body,
            title=draft.title,
            tags=split_tags(draft.tags),
            summary=draft.summary or None,
            base_version=base_version,
        )
    except KEPT_IN_SAVE as refused:
        return Tried(member, refused=refused)
    return Tried(member, page=result.page)


def _editor(
    request: Request,
    seen: Seen,
    member: Member,
    where: Address,
    draft: Draft,
    *,
    base_version: int,
    refused: CodnaError | None = None,
) -> Response:
    return render(
        request,
        seen,
        "edit.html",
        member=member,
        status=refused.status if refused else 200,
        where=where,
        crumbs=crumbs(where),
        draft=draft,
        base_version=base_version,
        error=refused.message if refused else None,
        conflict=isinstance(refused, Conflict),
    )


@router.get("/edit/{space}/{path:path}")
async def edit(request: Request, seen: Seen, space: str, path: str) -> Response:
    where = _page_address(space, path)
    opened = await seen.run(_open, where)
    page = opened.page
    return _editor(request, seen, opened.member, where, Draft.of(page), base_version=page.version)


@router.post("/edit/{space}/{path:path}")
async def save(
    request: Request,
    seen: Seen,
    space: str,
    path: str,
    base_version: Annotated[int, Form()],
    body: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    tags: Annotated[str, Form()] = "",
    summary: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    draft = Draft(title, tags, body, summary)
    tried = await seen.run(_write, where, draft, base_version)
    if tried.page is not None:
        return RedirectResponse(page_url(tried.page.address), status_code=303)
    return _editor(
        request, seen, tried.member, where, draft, base_version=base_version, refused=tried.refused
    )


# A new page ---------------------------------------------------------------------------------


def _folder_of(text: str) -> Address:
    """The folder (or space) `text` names, or the one its page is in."""
    where = parse_address(text)
    return _folder(where) if where.kind == "page" else where


def _back(address: str) -> str:
    """Where Cancel leads from a new page's form: the folder of the address typed so far."""
    try:
        return page_url(_folder_of(address))
    except InvalidRequest:
        return "/p/wiki/"


def _create(member: Member, address: str, draft: Draft) -> Tried:
    try:
        page = pages.create_page(
            member,
            address=address,
            title=draft.title,
            body=draft.body,
            tags=split_tags(draft.tags),
            summary=draft.summary or None,
        )
    except KEPT_IN_NEW_FORM as refused:
        return Tried(member, refused=refused)
    return Tried(member, page=page)


def _new_form(
    request: Request,
    seen: Seen,
    member: Member,
    address: str,
    draft: Draft,
    refused: CodnaError | None = None,
) -> Response:
    return render(
        request,
        seen,
        "new.html",
        member=member,
        status=refused.status if refused else 200,
        address=address,
        back=_back(address),
        draft=draft,
        error=refused.message if refused else None,
    )


@router.get("/new")
async def new(
    request: Request,
    seen: Seen,
    folder: Annotated[str, Query(alias="in", max_length=600)] = "wiki:",
) -> Response:
    start = _folder_of(folder)
    member = await seen.run(lambda member: member)
    return _new_form(request, seen, member, f"{start.space}:{start.path}", Draft("", "", ""))


@router.post("/new")
async def create(
    request: Request,
    seen: Seen,
    address: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    body: Annotated[str, Form()] = "",
    tags: Annotated[str, Form()] = "",
    summary: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    seen.check_csrf(csrf)
    draft = Draft(title, tags, body, summary)
    tried = await seen.run(_create, address, draft)
    if tried.page is not None:
        return RedirectResponse(page_url(tried.page.address), status_code=303)
    return _new_form(request, seen, tried.member, address, draft, tried.refused)


# The trash ----------------------------------------------------------------------------------


@router.post("/trash/{space}/{path:path}")
async def trash(seen: Seen, space: str, path: str, csrf: Annotated[str, Form()] = "") -> Response:
    """Move the page to the trash; back to its folder, where it no longer shows."""
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    await seen.run(lambda member: pages.trash_page(member, address=str(where)))
    return RedirectResponse(page_url(_folder(where)), status_code=303)


@router.post("/restore/{space}/{path:path}")
async def restore(seen: Seen, space: str, path: str, csrf: Annotated[str, Form()] = "") -> Response:
    """Bring the page back from the trash, and show it."""
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    page = await seen.run(lambda member: pages.restore_page(member, address=str(where)))
    return RedirectResponse(page_url(page.address), status_code=303)


@dataclass(frozen=True)
class Trashed:
    member: Member
    window: PageWindow


def _trashed(member: Member, offset: int) -> Trashed:
    return Trashed(member, page_window(member, in_trash=True, offset=offset))


@router.get("/trash")
async def trashed(
    request: Request,
    seen: Seen,
    offset: Annotated[UrlNumber, Query(description="Pages to skip, by address.")] = 0,
) -> Response:
    listed = await seen.run(_trashed, offset)
    return render(request, seen, "trash.html", member=listed.member, listed=listed.window)
