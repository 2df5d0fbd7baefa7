"""Finding one's way: the wiki's home, the tree of a space beside a page, recent changes (of the
whole wiki, a space or a folder), and the pages by tag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response

from codna.schemas import UrlNumber
from codna.services.addresses import Address, parse_address
from codna.services.limits import PAGES, RECENT
from codna.services.members.members import Member
from codna.services.pages import navigation
from codna.services.pages.navigation import Branch, Change
from codna.services.pages.pages import PageSummary
from codna.web.pages import crumbs
from codna.web.templating import page_url, render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False)

HOME_PAGE = "wiki:home"  # the wiki's home page, where signing in lands when there is one


def _home(member: Member) -> str:
    return page_url(HOME_PAGE) if navigation.reads(member, address=HOME_PAGE) else "/p/wiki/"


@router.get("/home")
async def home(seen: Seen) -> Response:
    """The wiki's home page, or the wiki's pages when it has none the member can read."""
    return RedirectResponse(await seen.run(_home), status_code=303)


@dataclass(frozen=True)
class Tree:
    member: Member
    branches: list[Branch]


@router.get("/tree/{space}/{path:path}")
async def tree(
    request: Request,
    seen: Seen,
    space: str,
    path: str = "",
    one: Annotated[bool, Query(description="Only the folder's own entries.")] = False,
) -> Response:
    """The tree of a space, open down to a page or folder: a fragment for the page's side, or
    (`one`) the entries of one folder opened in it."""
    where = parse_address(f"{space}:{path}")
    found = await seen.run(lambda member: Tree(member, navigation.tree(member, address=str(where))))
    branches = found.branches[-1:] if one else found.branches
    return render(
        request, seen, "_tree.html", member=found.member, branches=branches, current=str(where)
    )


@dataclass(frozen=True)
class Recent:
    member: Member
    changes: list[Change]
    more: bool


def _recent(member: Member, address: str | None, offset: int) -> Recent:
    found = navigation.recent_changes(
        member, address=address, limit=RECENT.default + 1, offset=offset
    )
    return Recent(member, found[: RECENT.default], len(found) > RECENT.default)


async def _recent_page(
    request: Request, seen: Seen, where: Address | None, offset: int
) -> Response:
    found = await seen.run(_recent, str(where) if where else None, offset)
    here = f"/recent/{where.space}/{where.path}" if where else "/recent"
    return render(
        request,
        seen,
        "recent.html",
        member=found.member,
        where=where,
        crumbs=crumbs(where) if where else [],
        recent=found,
        here=here,
        offset=offset,
        next_offset=offset + RECENT.default if found.more else None,
        previous_offset=max(0, offset - RECENT.default) if offset else None,
    )


@router.get("/recent")
async def recent(
    request: Request, seen: Seen, offset: Annotated[UrlNumber, Query()] = 0
) -> Response:
    """What changed lately in every page the member can read."""
    return await _recent_page(request, seen, None, offset)


@router.get("/recent/{space}/{path:path}")
async def recent_in(
    request: Request,
    seen: Seen,
    space: str,
    path: str = "",
    offset: Annotated[UrlNumber, Query()] = 0,
) -> Response:
    """What changed lately in a space or a folder."""
    where = parse_address(f"{space}:{path}")
    if where.kind == "page":  # a folder named without its slash
        where = Address(where.space, where.path + "/")
    return await _recent_page(request, seen, where, offset)


@dataclass(frozen=True)
class Tags:
    member: Member
    tags: list[tuple[str, int]]


@router.get("/tags")
async def all_tags(request: Request, seen: Seen) -> Response:
    """Every tag of the pages the member can read, with how many pages have it."""
    found = await seen.run(lambda member: Tags(member, navigation.tags(member)))
    return render(request, seen, "tags.html", member=found.member, tags=found.tags)


@dataclass(frozen=True)
class Tagged:
    member: Member
    pages: list[PageSummary]
    more: bool


def _tagged(member: Member, tag: str, offset: int) -> Tagged:
    found = navigation.tagged(member, tag=tag, limit=PAGES.default + 1, offset=offset)
    return Tagged(member, found[: PAGES.default], len(found) > PAGES.default)


@router.get("/tags/{tag}")
async def tag_page(
    request: Request, seen: Seen, tag: str, offset: Annotated[UrlNumber, Query()] = 0
) -> Response:
    """The pages with one tag."""
    found = await seen.run(_tagged, tag, offset)
    return render(
        request,
        seen,
        "tag.html",
        member=found.member,
        tag=tag,
        tagged=found,
        next_offset=offset + PAGES.default if found.more else None,
        previous_offset=max(0, offset - PAGES.default) if offset else None,
    )
