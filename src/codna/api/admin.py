"""Members, agents, sharing and tokens."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.services import access, members, tokens
from codna.services.access import Grant
from codna.services.members import Member, MemberDetails
from codna.services.tokens import NewToken, Token

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
    token_id: int


class Done(BaseModel):
    done: bool = True


@router.get("/me", tags=["members"], summary="Who the token belongs to")
def me(member: Reader) -> Member:
    return member


@router.get("/members", tags=["members"], summary="Every member (admins)")
def list_members(member: Reader) -> list[MemberDetails]:
    return members.list_members(member)


@router.post("/members", tags=["members"], status_code=status.HTTP_201_CREATED)
def add_person(member: Writer, body: AddPerson) -> Member:
    """Add a person (admins)."""
    return members.add_person(member, **body.model_dump())


@router.post("/agents", tags=["members"], status_code=status.HTTP_201_CREATED)
def add_agent(member: Writer, body: AddAgent) -> Member:
    """Add an agent member with the people responsible for it (admins)."""
    return members.add_agent(member, name=body.name, responsible=body.responsible)


@router.post("/members/disable", tags=["members"])
def disable(member: Writer, body: Disable) -> Member:
    """Disable or enable a member; a disabled member's tokens stop working (admins)."""
    return members.set_disabled(member, handle=body.member, disabled=body.disabled)


@router.get("/grants", tags=["sharing"], summary="Grants: all for an admin, one's own else")
def list_grants(member: Reader) -> list[Grant]:
    return access.list_grants(member)


@router.post("/grants", tags=["sharing"], summary="Share a space, folder or page")
def share(member: Writer, body: Share) -> Grant:
    return access.share(member, address=body.address, member=body.member, level=body.level)


@router.post("/grants/delete", tags=["sharing"], summary="Take back a grant")
def unshare(member: Writer, body: Unshare) -> Done:
    access.unshare(member, address=body.address, member=body.member)
    return Done()


@router.get("/tokens", tags=["tokens"], summary="Tokens of a member (default: one's own)")
def list_tokens(member: Reader, owner: str | None = None) -> list[Token]:
    return tokens.list_tokens(member, member=owner)


@router.post("/tokens", tags=["tokens"], status_code=status.HTTP_201_CREATED)
def create_token(member: Writer, body: NewTokenFor) -> NewToken:
    """Make a token; its secret is in this answer only."""
    return tokens.create_token(member, member=body.member, name=body.name)


@router.post("/tokens/revoke", tags=["tokens"], summary="Revoke a token at once")
def revoke_token(member: Writer, body: Revoke) -> Done:
    tokens.revoke_token(member, token_id=body.token_id)
    return Done()
