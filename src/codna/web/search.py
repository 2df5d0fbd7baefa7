"""Search: pages a member can read, by their words, in a space, under a folder, with a tag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from codna.errors import CodnaError, InvalidRequest, NotFound
from codna.services.limits import SEARCH
from codna.services.members.members import Member
from codna.services.pages import search
from codna.services.pages.search import SearchHit
from codna.vocabulary import SPACES
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False)

SHOWN = SEARCH.default  # hits on the page; one more is asked for, to tell whether there are more


@dataclass(frozen=True)
class Asked:
    """A search as the form sends it: its words and filters, blanks as None."""

    query: str
    space: str | None
    folder: str | None
    tag: str | None

    def url(self, **changed: str | None) -> str:
        """This search's address, with some of its values changed (None drops one)."""
        values = {"q": self.query, "space": self.space, "folder": self.folder, "tag": self.tag}
        values.update(changed)
        return "/search?" + urlencode({k: v for k, v in values.items() if v})

    def filters(self) -> list[tuple[str, str, str]]:
        """The filters that apply: (what, value, the search's address without it)."""
        applied = (("space", "Space"), ("folder", "Folder"), ("tag", "Tag"))
        return [
            (label, value, self.url(**{name: None}))
            for name, label in applied
            if (value := getattr(self, name)) is not None
        ]


@dataclass(frozen=True)
class Found:
    member: Member
    hits: list[SearchHit] | None = None
    more: bool = False  # more pages match than are shown
    refused: CodnaError | None = None


def _search(member: Member, asked: Asked) -> Found:
    try:
        hits = search.search(
            member,
            query=asked.query,
            space=asked.space,
            folder=asked.folder,
            tag=asked.tag,
            limit=SHOWN + 1,
        )
    except (InvalidRequest, NotFound) as refused:
        return Found(member, refused=refused)
    return Found(member, hits[:SHOWN], more=len(hits) > SHOWN)


def _blank(value: str) -> str | None:
    return value.strip() or None


@router.get("/search")
async def find(
    request: Request,
    seen: Seen,
    q: Annotated[str, Query(max_length=500)] = "",
    space: Annotated[str, Query(max_length=20)] = "",
    folder: Annotated[str, Query(max_length=600)] = "",
    tag: Annotated[str, Query(max_length=100)] = "",
) -> Response:
    asked = Asked(q, _blank(space), _blank(folder), _blank(tag))
    if not q.strip():
        member = await seen.run(lambda member: member)
        found = Found(member)
    else:
        found = await seen.run(_search, asked)
    refused = found.refused
    return render(
        request,
        seen,
        "search.html",
        member=found.member,
        status=refused.status if refused is not None else 200,
        query=q,
        asked=asked,
        spaces=SPACES,
        hits=found.hits,
        more=found.more,
        shown=SHOWN,
        refused=refused,
        refused_field=refused.fields.get("field") if refused is not None else None,
    )
