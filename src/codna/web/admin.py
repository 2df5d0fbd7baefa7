"""Admin: members and agents, sharing, tokens. Every check is the services' own: a member who
is not an admin is refused by them, as over the API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from codna.services import access, grant_changes, members, tokens
from codna.services.access import Grant
from codna.services.grant_changes import GrantChange
from codna.services.members import Member, MemberDetails
from codna.services.tokens import NewToken, Token
from codna.web import automations
from codna.web.forms import FormRoute
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)
# Automations have a page of their own, for anyone signed in, served with the admin's views.
router.include_router(automations.router)


@dataclass(frozen=True)
class Shown:
    member: Member
    members: list[MemberDetails]
    grants: list[Grant]
    changes: list[GrantChange]  # the newest changes of grants
    tokens: list[Token]


def _admin(member: Member) -> Shown:
    return Shown(
        member,
        members.list_members(member),
        access.list_grants(member),
        grant_changes.list_grant_changes(member),
        tokens.list_tokens(member, member="*"),
    )


@router.get("/admin")
async def admin(request: Request, seen: Seen) -> Response:
    shown = await seen.run(_admin)
    return render(request, seen, "admin.html", member=shown.member, shown=shown)


async def _done(seen: Seen, csrf: str, change: Callable[[Member], object]) -> Response:
    """Check the form's token, make the change as the visitor, and go back to the admin page."""
    seen.check_csrf(csrf)
    await seen.run(change)
    return RedirectResponse("/admin", status_code=303)


@router.post("/admin/people")
async def add_person(
    seen: Seen,
    email: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    admin: Annotated[bool, Form()] = False,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> object:
        return members.add_person(
            member, email=email, name=name, password=password or None, admin=admin
        )

    return await _done(seen, csrf, change)


@router.post("/admin/agents")
async def add_agent(
    seen: Seen,
    name: Annotated[str, Form()] = "",
    responsible: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    people = [p.strip() for p in responsible.split(",") if p.strip()]
    return await _done(
        seen, csrf, lambda member: members.add_agent(member, name=name, responsible=people)
    )


@router.post("/admin/disabled")
async def set_disabled(
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    disabled: Annotated[bool, Form()] = False,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    return await _done(
        seen, csrf, lambda member: members.set_disabled(member, handle=handle, disabled=disabled)
    )


@router.post("/admin/grants")
async def share(
    seen: Seen,
    address: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
    level: Annotated[str, Form()] = "read",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    return await _done(
        seen,
        csrf,
        lambda member: access.share(member, address=address, member=handle, level=level),
    )


@router.post("/admin/grants/delete")
async def unshare(
    seen: Seen,
    address: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    return await _done(
        seen, csrf, lambda member: access.unshare(member, address=address, member=handle)
    )


@router.post("/admin/tokens/revoke")
async def revoke(
    seen: Seen, token_id: Annotated[int, Form()] = 0, csrf: Annotated[str, Form()] = ""
) -> Response:
    return await _done(seen, csrf, lambda member: tokens.revoke_token(member, token_id=token_id))


@dataclass(frozen=True)
class Made:
    member: Member
    made: NewToken


@router.post("/admin/tokens")
async def create_token(
    request: Request,
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "default",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    """A new token, its secret on this answer only (never stored, never cached)."""
    seen.check_csrf(csrf)

    def make(member: Member) -> Made:
        return Made(member, tokens.create_token(member, member=handle, name=name))

    shown = await seen.run(make)
    answer = render(request, seen, "token.html", member=shown.member, made=shown.made)
    answer.headers["Cache-Control"] = "no-store"
    return answer
