"""The trash: a page moved there (asking first), brought back, or deleted for good (asking
first), and the list of what is in it. Each says what it did on the page it leads to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import RedirectResponse, Response

from codna.errors import NotFound
from codna.schemas import UrlNumber
from codna.services.addresses import Address, parse_address
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.services.pages.pages import PageSummary
from codna.web.confirm import confirmation, find_page, named
from codna.web.forms import FormRoute
from codna.web.pages import PageWindow, page_window
from codna.web.said import tell
from codna.web.templating import page_url, render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)


def _page_address(space: str, path: str) -> Address:
    return parse_address(f"{space}:{path}", want="page")


def folder_of_page(where: Address) -> Address:
    """The folder a page is in (its space, for a page at the top)."""
    head = where.path.rpartition("/")[0]
    return Address(where.space, head + "/" if head else "")


@router.get("/trash/{space}/{path:path}")
async def ask_trash(request: Request, seen: Seen, space: str, path: str) -> Response:
    """Ask before moving the page to the trash."""
    where = _page_address(space, path)
    found = await seen.run(find_page, where)
    return confirmation(
        request,
        seen,
        found.member,
        title=f"Move {found.page.title} to the trash?",
        question=f"Move {named(found.page)} to the trash? People can restore it from the trash.",
        action=page_url(where, view="trash"),
        button="Move to the trash",
        back=page_url(where),
        where=where,
    )


@router.post("/trash/{space}/{path:path}")
async def trash(
    request: Request, seen: Seen, space: str, path: str, csrf: Annotated[str, Form()] = ""
) -> Response:
    """Move the page to the trash; back to its folder, where it no longer shows."""
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    page = await seen.run(lambda member: pages.trash_page(member, address=str(where)))
    answer = RedirectResponse(page_url(folder_of_page(where)), status_code=303)
    said = f"Moved {named(page)} to the trash. It can be restored from the trash."
    return tell(answer, said, secure=request.url.scheme == "https")


@router.post("/restore/{space}/{path:path}")
async def restore(
    request: Request, seen: Seen, space: str, path: str, csrf: Annotated[str, Form()] = ""
) -> Response:
    """Bring the page back from the trash, and show it."""
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    page = await seen.run(lambda member: pages.restore_page(member, address=str(where)))
    answer = RedirectResponse(page_url(page.address), status_code=303)
    return tell(
        answer, f"Restored {named(page)} from the trash.", secure=request.url.scheme == "https"
    )


@dataclass(frozen=True)
class InTrash:
    member: Member
    page: PageSummary


def _in_trash(member: Member, where: Address) -> InTrash:
    """The page at `where` in the trash, as the trash lists it. Raises NotFound (no such page
    in the trash that the member can read)."""
    found = pages.list_pages(member, address=str(where), in_trash=True, limit=1)
    if not found or found[0].address != str(where):
        raise NotFound(f"There is no page {where} in the trash.", address=str(where))
    return InTrash(member, found[0])


@router.get("/purge/{space}/{path:path}")
async def ask_purge(request: Request, seen: Seen, space: str, path: str) -> Response:
    """Ask before deleting a page in the trash for good."""
    where = _page_address(space, path)
    found = await seen.run(_in_trash, where)
    return confirmation(
        request,
        seen,
        found.member,
        title=f"Delete {found.page.title} for good?",
        question=(
            f"Delete {named(found.page)} for good, with all its versions? This cannot be undone."
        ),
        action=page_url(where, view="purge"),
        button="Delete for good",
        back="/trash",
    )


@router.post("/purge/{space}/{path:path}")
async def purge(
    request: Request, seen: Seen, space: str, path: str, csrf: Annotated[str, Form()] = ""
) -> Response:
    """Delete a page in the trash for good; back to the trash."""
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    await seen.run(lambda member: pages.purge_page(member, address=str(where)))
    answer = RedirectResponse("/trash", status_code=303)
    return tell(answer, f"Deleted {where} for good.", secure=request.url.scheme == "https")


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
