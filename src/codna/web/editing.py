"""Writing: create a page, edit it in a plain Markdown editor with a live preview.

A person in the editor sends the page's whole new text (the edit language is for agents and
the API). What they typed is never lost to a refusal: a conflict or a bad field shows the
form again with their text in it and the service's sentence above. While they type, the
editor asks for a preview (POST /preview), which renders the text as the page would show it
and saves nothing.

Saving and creating say what they did on the page they lead to. The trash's routes
(web/trash.py) come in with this router.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from markupsafe import Markup
from starlette.responses import HTMLResponse, RedirectResponse, Response

from codna.errors import CodnaError, Conflict, Duplicate, InvalidRequest, ReadOnly, TooLarge
from codna.markdown.limits import MAX_BODY_BYTES, check_body_size
from codna.markdown.render import render as render_markdown
from codna.services.addresses import Address, parse_address
from codna.services.members.access import read_only_message
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.pages.pages import Page
from codna.web import trash
from codna.web.confirm import named
from codna.web.forms import FormRoute
from codna.web.pages import crumbs
from codna.web.rendering import rendered
from codna.web.said import tell
from codna.web.templating import page_url, render
from codna.web.visitor import Seen

# A browser sends a form URL-encoded, up to three bytes for each byte of the text, so a field
# may be three times the largest body for the body's own limit to be the one that refuses.
FIELD_BYTES = 3 * MAX_BODY_BYTES
router = APIRouter(
    include_in_schema=False, route_class=FormRoute, form_limits={"max_part_size": FIELD_BYTES}
)
router.include_router(trash.router)

# Refusals the form answers itself, with the typed text kept; any other (not found) is the
# error page.
KEPT_IN_FORM = (Conflict, InvalidRequest, TooLarge)
# Saving also keeps the text when the right to edit went while the editor was open.
KEPT_IN_SAVE = (*KEPT_IN_FORM, ReadOnly)
# A new page's form also answers for an address that is taken or not the member's to write.
KEPT_IN_NEW_FORM = (*KEPT_IN_FORM, Duplicate, ReadOnly)


def _page_address(space: str, path: str) -> Address:
    return parse_address(f"{space}:{path}", want="page")


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


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
    preview: Markup  # the page as saved, rendered: the preview before anything is typed


def _open(member: Member, where: Address) -> Opened:
    page = pages.read_page(member, address=str(where))
    if not page.editable:
        raise ReadOnly(read_only_message(where, member), address=str(where))
    return Opened(
        member, page, rendered.html(page.address, page.version, page.updated_at, page.body)
    )


def _write(member: Member, where: Address, draft: Draft, base_version: int) -> Tried:
    try:
        result = editing.write_page(
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
    preview: Markup | None = None,
) -> Response:
    """The editor; without `preview` (the text as typed is not the page as saved) the
    preview is asked for once the editor has loaded."""
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
        preview=preview,
    )


@router.get("/edit/{space}/{path:path}")
async def edit(request: Request, seen: Seen, space: str, path: str) -> Response:
    where = _page_address(space, path)
    opened = await seen.run(_open, where)
    page = opened.page
    return _editor(
        request,
        seen,
        opened.member,
        where,
        Draft.of(page),
        base_version=page.version,
        preview=opened.preview,
    )


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
        answer = RedirectResponse(page_url(tried.page.address), status_code=303)
        return tell(answer, f"Saved as version {tried.page.version}.", secure=_secure(request))
    return _editor(
        request, seen, tried.member, where, draft, base_version=base_version, refused=tried.refused
    )


# The preview --------------------------------------------------------------------------------

NOTHING_YET = Markup('<p class="hint">Nothing to preview yet: the text shows here as you type.</p>')


def _preview(member: Member, body: str, address: str) -> Markup:
    """`body` as the page at `address` would show it (sanitised HTML; relative links resolved
    from `address`, kept as text when it is no page's address yet); nothing is saved. Raises
    TooLarge (over the page body limit)."""
    check_body_size(body)
    if not body.strip():
        return NOTHING_YET
    return Markup(render_markdown(body, page_url=page_url, at=address or None, navigation=True))


@router.post("/preview")
async def preview(
    seen: Seen,
    body: Annotated[str, Form()] = "",
    address: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """The editor's text rendered, as a fragment for the editor's preview pane; a refusal is
    a fragment too, with its status, so the pane says what was wrong."""
    try:
        seen.check_csrf(csrf)
        html = await seen.run(_preview, body, address)
    except CodnaError as refused:
        fragment = Markup('<p class="error" role="alert">{}</p>').format(refused.message)
        return HTMLResponse(fragment, status_code=refused.status)
    return HTMLResponse(html)


# A new page ---------------------------------------------------------------------------------


def _folder_of(text: str) -> Address:
    """The folder (or space) `text` names, or the one its page is in."""
    where = parse_address(text)
    return trash.folder_of_page(where) if where.kind == "page" else where


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
        preview=None if draft.body.strip() else NOTHING_YET,
    )


@router.get("/new")
async def new(
    request: Request,
    seen: Seen,
    folder: Annotated[str, Query(alias="in", max_length=600)] = "wiki:",
    address: Annotated[str | None, Query(max_length=600)] = None,
) -> Response:
    """The form for a new page: in a folder (`in`), or at an address a link named (`address`,
    from a missing page), its title taken from the address's last step."""
    member = await seen.run(lambda member: member)
    if address is not None:
        where = parse_address(address, want="page")
        title = where.path.rpartition("/")[2].replace("-", " ").capitalize()
        return _new_form(request, seen, member, str(where), Draft(title, "", ""))
    start = _folder_of(folder)
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
        page = tried.page
        answer = RedirectResponse(page_url(page.address), status_code=303)
        return tell(answer, f"Created {named(page)} as version 1.", secure=_secure(request))
    return _new_form(request, seen, tried.member, address, draft, tried.refused)
