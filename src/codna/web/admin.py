"""Admin, in sections: an overview, people, agents, sharing (access) and tokens, each a page of
its own under one sub-navigation. Every check is the services' own: a member who is not an admin
is refused by them, as over the API.

A form done goes back to its section with a sentence saying what it did; a form refused shows
the section again with the service's sentence at its top.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from codna.errors import (
    CodnaError,
    Conflict,
    Duplicate,
    InvalidRequest,
    NotFound,
    RateLimited,
    ReadOnly,
)
from codna.services.members import access, grant_changes, members, sessions, tokens
from codna.services.members.access import Grant
from codna.services.members.grant_changes import GrantChange
from codna.services.members.members import Member, MemberDetails
from codna.services.members.tokens import NewToken, Token
from codna.web import automations
from codna.web.forms import FormRoute
from codna.web.said import tell
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)
# Automations have a page of their own, for anyone signed in, served with the admin's views.
router.include_router(automations.router)

NEWEST = 5  # members and changes of grants the overview shows
# Refusals a section answers itself, at its top (ReadOnly, a visitor who is no admin, is not:
# the section would be refused too).
KEPT_IN_PAGE = (InvalidRequest, NotFound, Duplicate, Conflict, RateLimited)


@dataclass(frozen=True)
class Shown:
    member: Member
    members: list[MemberDetails] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    changes: list[GrantChange] = field(default_factory=list)  # the newest changes of grants
    tokens: list[Token] = field(default_factory=list)

    @property
    def people(self) -> list[MemberDetails]:
        return [d for d in self.members if not d.member.is_agent]

    @property
    def agents(self) -> list[MemberDetails]:
        return [d for d in self.members if d.member.is_agent]

    @property
    def newest(self) -> list[MemberDetails]:
        return self.members[::-1][:NEWEST]


def _overview(member: Member) -> Shown:
    return Shown(
        member,
        members=members.list_members(member),
        grants=access.list_grants(member),
        changes=grant_changes.list_grant_changes(member, limit=NEWEST * 2),
        tokens=tokens.list_tokens(member, member="*"),
    )


def _people(member: Member) -> Shown:
    return Shown(member, members=members.list_members(member))


def _access(member: Member) -> Shown:
    return Shown(
        member,
        members=members.list_members(member),  # refuses anyone but an admin first
        grants=access.list_grants(member),
        changes=grant_changes.list_grant_changes(member),
    )


def _tokens(member: Member) -> Shown:
    return Shown(
        member, members=members.list_members(member), tokens=tokens.list_tokens(member, member="*")
    )


# What each section shows: how it is read, and its template.
_SECTION = {
    "/admin": (_overview, "admin.html"),
    "/admin/people": (_people, "admin_people.html"),
    "/admin/agents": (_people, "admin_agents.html"),
    "/admin/access": (_access, "admin_access.html"),
    "/admin/tokens": (_tokens, "admin_tokens.html"),
}


async def _section(
    request: Request, seen: Seen, path: str, refused: CodnaError | None = None
) -> Response:
    read, template = _SECTION[path]
    shown = await seen.run(read)
    return render(
        request,
        seen,
        template,
        member=shown.member,
        status=refused.status if refused else 200,
        shown=shown,
        here=path,
        error=refused.message if refused else None,
    )


@router.get("/admin")
async def overview(request: Request, seen: Seen) -> Response:
    return await _section(request, seen, "/admin")


@router.get("/admin/people")
async def people(request: Request, seen: Seen) -> Response:
    return await _section(request, seen, "/admin/people")


@router.get("/admin/agents")
async def agents(request: Request, seen: Seen) -> Response:
    return await _section(request, seen, "/admin/agents")


@router.get("/admin/access")
async def sharing(request: Request, seen: Seen) -> Response:
    return await _section(request, seen, "/admin/access")


@router.get("/admin/tokens")
async def listed_tokens(request: Request, seen: Seen) -> Response:
    return await _section(request, seen, "/admin/tokens")


async def _done(
    request: Request, seen: Seen, csrf: str, back: str, change: Callable[[Member], str]
) -> Response:
    """Check the form's token, make the change as the visitor, and go back to the section
    `back` saying what was done (the sentence `change` returns), or show it with the refusal."""
    seen.check_csrf(csrf)
    try:
        said = await seen.run(change)
    except KEPT_IN_PAGE as refused:
        return await _refused(request, seen, back, refused)
    redirect = RedirectResponse(back, status_code=303)
    return tell(redirect, said, secure=request.url.scheme == "https")


async def _refused(request: Request, seen: Seen, back: str, refused: CodnaError) -> Response:
    """The section `back` with the refusal at its top; for a visitor who may not see the
    section (no admin), the refusal alone, as it came (a token not theirs is not found)."""
    try:
        return await _section(request, seen, back, refused)
    except ReadOnly:
        raise refused from None


@router.post("/admin/people")
async def add_person(
    request: Request,
    seen: Seen,
    email: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    admin: Annotated[bool, Form()] = False,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        made = members.add_person(
            member, email=email, name=name, password=password or None, admin=admin
        )
        return f"{made.name} ({made.email}) is added{' as an admin' if admin else ''}."

    return await _done(request, seen, csrf, "/admin/people", change)


@router.post("/admin/people/edit")
async def edit_person(
    request: Request,
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    email: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    admin: Annotated[bool, Form()] = False,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        person = members.update_person(member, handle=handle, name=name, email=email, admin=admin)
        role = "an admin" if person.is_admin else "not an admin"
        return f"{person.name} ({person.email}) is saved, {role}."

    return await _done(request, seen, csrf, "/admin/people", change)


@router.post("/admin/people/password")
async def reset_password(
    request: Request,
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        ended = sessions.reset_password(member, member=handle, password=password)
        count = f"{ended} session{'' if ended == 1 else 's'}"
        return f"The password of {handle} is set; {count} of theirs ended."

    return await _done(request, seen, csrf, "/admin/people", change)


@router.post("/admin/agents")
async def add_agent(
    request: Request,
    seen: Seen,
    name: Annotated[str, Form()] = "",
    responsible: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    people = _emails(responsible)

    def change(member: Member) -> str:
        made = members.add_agent(member, name=name, responsible=people)
        return f"The agent {made.name} is added."

    return await _done(request, seen, csrf, "/admin/agents", change)


@router.post("/admin/agents/edit")
async def edit_agent(
    request: Request,
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    responsible: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    people = _emails(responsible)

    def change(member: Member) -> str:
        saved = members.update_agent(member, handle=handle, name=name, responsible=people)
        return (
            f"The agent {saved.member.name} is saved, "
            f"{', '.join(saved.responsible)} responsible for it."
        )

    return await _done(request, seen, csrf, "/admin/agents", change)


def _emails(listed: str) -> list[str]:
    return [p.strip() for p in listed.split(",") if p.strip()]


@router.post("/admin/disabled")
async def set_disabled(
    request: Request,
    seen: Seen,
    handle: Annotated[str, Form()] = "",
    disabled: Annotated[bool, Form()] = False,
    back: Annotated[str, Form()] = "/admin/people",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        changed = members.set_disabled(member, handle=handle, disabled=disabled)
        if changed.disabled:
            return f"{changed.handle} is disabled: signed out, and their tokens refused."
        return f"{changed.handle} is enabled again."

    where = back if back in _SECTION else "/admin/people"
    return await _done(request, seen, csrf, where, change)


@router.post("/admin/grants")
async def share(
    request: Request,
    seen: Seen,
    address: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
    level: Annotated[str, Form()] = "read",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        grant = access.share(member, address=address, member=handle, level=level)
        return f"{grant.member} has {grant.level} on {grant.address}."

    return await _done(request, seen, csrf, "/admin/access", change)


@router.post("/admin/grants/delete")
async def unshare(
    request: Request,
    seen: Seen,
    address: Annotated[str, Form()] = "",
    handle: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        access.unshare(member, address=address, member=handle)
        return f"What {handle} had on {address} is taken back."

    return await _done(request, seen, csrf, "/admin/access", change)


@router.post("/admin/tokens/revoke")
async def revoke(
    request: Request,
    seen: Seen,
    token_id: Annotated[int, Form()] = 0,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        tokens.revoke_token(member, token_id=token_id)
        return f"Token {token_id} is revoked; the next request with it is refused."

    return await _done(request, seen, csrf, "/admin/tokens", change)


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

    try:
        shown = await seen.run(make)
    except KEPT_IN_PAGE as refused:
        return await _refused(request, seen, "/admin/tokens", refused)
    answer = render(request, seen, "token.html", member=shown.member, made=shown.made)
    answer.headers["Cache-Control"] = "no-store"
    return answer
