"""Members, agents, sharing and tokens."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import OFFSET, Number, UrlNumber, window
from codna.services.members import access, grant_changes, members, tokens
from codna.services.members.access import Grant
from codna.services.members.grant_changes import CHANGES, GrantChange
from codna.services.members.members import Member, MemberDetails
from codna.services.members.tokens import NewToken, Token

router = APIRouter()


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddPerson(_Body):
    email: str
    name: str
    password: str | None = None
    admin: bool = False


class AddAgent(_Body):
    name: str
    responsible: list[str]


class Disable(_Body):
    member: str
    disabled: bool = True


class Share(_Body):
    address: str
    member: str
    level: str = Field(description="read or write")


class Unshare(_Body):
    address: str
    member: str


class NewTokenFor(_Body):
    member: str
    name: str = "default"


class Revoke(_Body):
    token_id: Number


class Done(BaseModel):
    done: bool = True


@router.get("/me", tags=["members"], summary="Who the token belongs to")
async def me(caller: Reader) -> Member:
    return await caller.member()


@router.get("/members", tags=["members"], summary="Every member (admins)")
async def list_members(caller: Reader) -> list[MemberDetails]:
    return await caller.run(members.list_members)


@router.post("/members", tags=["members"], status_code=status.HTTP_201_CREATED)
async def add_person(caller: Writer, body: AddPerson) -> Member:
    """Add a person (admins)."""
    return await caller.run(members.add_person, **body.model_dump())


@router.post("/agents", tags=["members"], status_code=status.HTTP_201_CREATED)
async def add_agent(caller: Writer, body: AddAgent) -> Member:
    """Add an agent member with the people responsible for it (admins)."""
    return await caller.run(members.add_agent, name=body.name, responsible=body.responsible)


@router.post("/members/disable", tags=["members"])
async def disable(caller: Writer, body: Disable) -> Member:
    """Disable or enable a member; a disabled member's tokens stop working (admins)."""
    return await caller.run(members.set_disabled, handle=body.member, disabled=body.disabled)


@router.get("/grants", tags=["sharing"], summary="Grants: all for an admin, one's own else")
async def list_grants(caller: Reader) -> list[Grant]:
    return await caller.run(access.list_grants)


@router.get(
    "/grants/changes",
    tags=["sharing"],
    summary="Changes of grants, newest first: all for an admin; else one's own, those made "
    "and those of the agents one is responsible for",
)
async def list_grant_changes(
    caller: Reader,
    limit: Annotated[UrlNumber, Query(**window(CHANGES, "changes"))] = CHANGES.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> list[GrantChange]:
    return await caller.run(grant_changes.list_grant_changes, limit=limit, offset=offset)


@router.post("/grants", tags=["sharing"], summary="Share a space, folder or page")
async def share(caller: Writer, body: Share) -> Grant:
    return await caller.run(
        access.share, address=body.address, member=body.member, level=body.level
    )


@router.post("/grants/delete", tags=["sharing"], summary="Take back a grant")
async def unshare(caller: Writer, body: Unshare) -> Done:
    await caller.run(access.unshare, address=body.address, member=body.member)
    return Done()


@router.get("/tokens", tags=["tokens"], summary="Tokens of a member (default: one's own)")
async def list_tokens(caller: Reader, owner: str | None = None) -> list[Token]:
    return await caller.run(tokens.list_tokens, member=owner)


@router.post("/tokens", tags=["tokens"], status_code=status.HTTP_201_CREATED)
async def create_token(caller: Writer, body: NewTokenFor) -> NewToken:
    """Make a token; its secret is in this answer only."""
    return await caller.run(tokens.create_token, member=body.member, name=body.name)


@router.post("/tokens/revoke", tags=["tokens"], summary="Revoke a token at once")
async def revoke_token(caller: Writer, body: Revoke) -> Done:
    await caller.run(tokens.revoke_token, token_id=body.token_id)
    return Done()
