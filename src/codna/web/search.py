"""Search: pages a member can read, by their words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from codna.services import search
from codna.services.members import Member
from codna.services.search import SearchHit
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Found:
    member: Member
    hits: list[SearchHit]


def _search(member: Member, query: str) -> Found:
    return Found(member, search.search(member, query=query))


@router.get("/search")
async def find(
    request: Request, seen: Seen, q: Annotated[str, Query(max_length=500)] = ""
) -> Response:
    if not q.strip():
        member = await seen.run(lambda member: member)
        return render(request, seen, "search.html", member=member, query="", hits=None)
    found = await seen.run(_search, q)
    return render(request, seen, "search.html", member=found.member, query=q, hits=found.hits)
