"""Reading: spaces and folders, a page, a page's suggestions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from codna.errors import NotFound
from codna.schemas import UrlNumber
from codna.services.addresses import Address, parse_address
from codna.services.limits import PAGES, SUGGESTIONS
from codna.services.members.members import Member
from codna.services.pages import navigation, pages
from codna.services.pages.pages import Page, PageSummary
from codna.services.suggestions import changes
from codna.services.suggestions.records import Suggestion
from codna.web.rendering import rendered
from codna.web.templating import INNER, page_url, render, render_around
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class PageWindow:
    """A window of a listing of pages, by address: PAGES.default of them after `offset`."""

    pages: list[PageSummary]
    offset: int = 0
    more: bool = False  # pages after the window are left out

    @property
    def next_offset(self) -> int | None:
        """Where the next window starts, while pages after this one are left out."""
        return self.offset + PAGES.default if self.more else None

    @property
    def previous_offset(self) -> int | None:
        """Where the previous window starts, when this one is not the first."""
        return max(0, self.offset - PAGES.default) if self.offset else None


def page_window(
    member: Member, *, address: str | None = None, in_trash: bool = False, offset: int = 0
) -> PageWindow:
    """The pages `member` can read at `address` (or in the trash), a window of them."""
    # One more than shown: whether pages after the window are left out.
    found = pages.list_pages(
        member, address=address, in_trash=in_trash, limit=PAGES.default + 1, offset=offset
    )
    return PageWindow(found[: PAGES.default], offset, len(found) > PAGES.default)


@dataclass(frozen=True)
class Shown:
    """What the page view shows: a page with its HTML, or a window of a space's or folder's
    pages."""

    member: Member
    where: Address
    page: Page | None = None
    html: bytes | None = None  # the page's HTML, UTF-8, as kept
    listing: PageWindow | None = None
    mine: list[Suggestion] | None = None  # a suggester's own suggestions on the page
    backlinks: list[tuple[str, str]] | None = None  # (address, title) of pages linking here


def _show(member: Member, where: Address, offset: int = 0) -> Shown:
    if where.kind != "page":
        return Shown(member, where, listing=page_window(member, address=str(where), offset=offset))
    page = pages.read_page(member, address=str(where))
    html = rendered.encoded(page.address, page.version, page.updated_at, page.body)
    # Its editors see how many wait (pending_suggestions); anyone else, their own, if any.
    mine = None
    if page.pending_suggestions is None:
        mine = changes.list_suggestions(member, address=str(where))
    linking = navigation.backlinks(member, address=str(where))
    return Shown(member, where, page=page, html=html, mine=mine, backlinks=linking)


@dataclass(frozen=True)
class Missing:
    """A page that is not there (or not the member's to read), and whether they may make it."""

    member: Member
    may_create: bool


def _missing(member: Member, where: Address) -> Missing:
    return Missing(member, navigation.may_create(member, address=str(where)))


def crumbs(where: Address) -> list[tuple[str, str]]:
    """The space and each folder above `where`, as (label, url)."""
    trail = [(where.space, f"/p/{where.space}/")]
    parts = where.path.split("/")[:-1]
    for depth in range(len(parts)):
        folder = "/".join(parts[: depth + 1]) + "/"
        trail.append((parts[depth], page_url(Address(where.space, folder))))
    return trail


@router.get("/p/{space}/{path:path}")
async def read(
    request: Request,
    seen: Seen,
    space: str,
    path: str = "",
    offset: Annotated[UrlNumber, Query(description="Of a folder: pages to skip.")] = 0,
) -> Response:
    where = parse_address(f"{space}:{path}")
    try:
        shown = await seen.run(_show, where, offset)
    except NotFound as missing:
        if where.kind != "page":
            raise
        offer = await seen.run(_missing, where)
        return render(
            request,
            seen,
            "missing.html",
            member=offer.member,
            status=404,
            where=where,
            message=missing.message,
            nearest=missing.fields.get("nearest"),
            may_create=offer.may_create,
            crumbs=crumbs(where),
        )
    if shown.html is not None:
        return render_around(
            request,
            seen,
            "page.html",
            inner=shown.html,
            member=shown.member,
            shown=shown,
            crumbs=crumbs(where),
            body=INNER,
        )
    return render(
        request, seen, "folder.html", member=shown.member, shown=shown, crumbs=crumbs(where)
    )


@dataclass(frozen=True)
class Listed:
    member: Member
    where: Address
    waiting: list[Suggestion]
    decided: list[Suggestion]


DECIDED_SHOWN = 20


def _suggestions(member: Member, where: Address) -> Listed:
    address = str(where)
    waiting = changes.list_suggestions(member, address=address, status="pending", diff_now=True)
    shown = min(DECIDED_SHOWN + len(waiting), SUGGESTIONS.most)
    latest = changes.list_suggestions(member, address=address, limit=shown)
    decided = [s for s in latest if s.status != "pending"][:DECIDED_SHOWN]
    return Listed(member, where, waiting, decided)


@router.get("/suggestions/{space}/{path:path}")
async def page_suggestions(request: Request, seen: Seen, space: str, path: str) -> Response:
    """A page's suggested changes: all of them for its editors, one's own for anyone else."""
    where = parse_address(f"{space}:{path}", want="page")
    listed = await seen.run(_suggestions, where)
    return render(
        request,
        seen,
        "suggestions.html",
        member=listed.member,
        listed=listed,
        crumbs=crumbs(where),
        back=request.url.path,
    )
