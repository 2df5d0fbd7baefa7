"""API tokens: shown once when made, kept only as a SHA-256, checked on every request."""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import sqlalchemy as sa

from codna.errors import InvalidRequest, NotFound, RateLimited, ReadOnly, Unauthenticated
from codna.markdown.limits import check_plain_text
from codna.services.clock import now
from codna.services.context import database
from codna.services.limits import TOKENS_PER_HOUR
from codna.services.members import members as members_service
from codna.services.members.members import Member, member_from_row
from codna.storage.database import inserted_id
from codna.storage.schema import MAX_ID, agent_responsibles, members, tokens

PREFIX = "codna_"
MAX_NAME = 100  # the tokens.name column


@dataclass(frozen=True)
class Token:
    """A token as listed: never the secret itself."""

    id: int
    member: str
    name: str
    prefix: str
    created_at: datetime
    revoked: bool


@dataclass(frozen=True)
class Caller:
    """Who a request comes from: the member and the token it used."""

    member: Member
    token_id: int


@dataclass(frozen=True)
class NewToken:
    token: Token
    secret: str  # shown once; only its hash is stored


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _may_manage(conn: sa.Connection, actor: Member, owner: Member) -> bool:
    if actor.administers or actor.id == owner.id:  # an admin's run is no admin
        return True
    if owner.is_agent and not actor.is_agent:
        row = conn.execute(
            sa.select(agent_responsibles.c.agent_id).where(
                agent_responsibles.c.agent_id == owner.id,
                agent_responsibles.c.person_id == actor.id,
            )
        ).first()
        return row is not None
    return False


def create_token(actor: Member, *, member: str, name: str = "default") -> NewToken:
    """Make a token for `member` (oneself, an agent one is responsible for, or anyone for an
    admin). Only a person's token makes tokens: an agent's are made by an admin or a person
    responsible for it, so revoking a leaked token ends the leak. At most TOKENS_PER_HOUR are
    made for one member in any hour, revoked ones counted, so a stolen session cannot mint
    tokens without end. Raises NotFound, ReadOnly, InvalidRequest, RateLimited."""
    _check_not_a_run(actor)
    if actor.is_agent:
        raise ReadOnly(
            f"{actor.name} is an agent: its tokens are made by an admin or a person "
            "responsible for it, never by a token of its own."
        )
    check_plain_text(name, field="name")
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise InvalidRequest(f"A token's name has 1 to {MAX_NAME} characters.", field="name")
    secret = PREFIX + secrets.token_urlsafe(32)  # 256 random bits
    with database().write() as conn:
        owner = members_service.lookup(conn, member)
        if owner is None:
            raise NotFound(f"There is no member {member}.", field="member")
        if not _may_manage(conn, actor, owner):
            raise ReadOnly(f"You cannot make tokens for {owner.handle}.")
        at = now()
        made = (
            conn.execute(
                sa.select(tokens.c.created_at)
                .where(
                    tokens.c.member_id == owner.id,
                    tokens.c.run_id.is_(None),
                    tokens.c.created_at > at - timedelta(hours=1),
                )
                .order_by(tokens.c.created_at.desc())
                .limit(TOKENS_PER_HOUR)
            )
            .scalars()
            .all()
        )
        if len(made) >= TOKENS_PER_HOUR:
            wait = max(1, math.ceil((made[-1] + timedelta(hours=1) - at).total_seconds()))
            raise RateLimited(
                f"At most {TOKENS_PER_HOUR} tokens are made for one member in an hour; "
                f"{owner.handle} has had that many. Retry in {wait} s, or use one you have.",
                retry_after=wait,
                limit=TOKENS_PER_HOUR,
            )
        token_id = inserted_id(
            conn.execute(
                tokens.insert().values(
                    member_id=owner.id,
                    name=name,
                    token_hash=_hash(secret),
                    prefix=secret[: len(PREFIX) + 6],
                    created_at=at,
                )
            )
        )
    return NewToken(
        Token(token_id, owner.handle, name, secret[: len(PREFIX) + 6], at, False), secret
    )


def list_tokens(actor: Member, *, member: str | None = None) -> list[Token]:
    """Tokens of `member` (default: the actor's own; every member's for an admin asking for
    all with `member="*"`). Raises NotFound, ReadOnly."""
    with database().read() as conn:
        query = sa.select(tokens, members.c.email, members.c.name.label("member_name")).join(
            members, members.c.id == tokens.c.member_id
        )
        if member == "*":
            if not actor.administers:
                raise ReadOnly("Only an admin can list everyone's tokens.")
        else:
            owner = members_service.lookup(conn, member) if member else actor
            if owner is None:
                raise NotFound(f"There is no member {member}.", field="member")
            if not _may_manage(conn, actor, owner):
                raise ReadOnly(f"You cannot see the tokens of {owner.handle}.")
            query = query.where(tokens.c.member_id == owner.id)
        rows = conn.execute(query.order_by(tokens.c.id)).mappings().all()
    return [
        Token(
            r["id"],
            r["email"] or r["member_name"],
            r["name"],
            r["prefix"],
            r["created_at"],
            r["revoked_at"] is not None,
        )
        for r in rows
    ]


@dataclass(frozen=True)
class OwnToken:
    """One of a member's own tokens, as their account lists it: never the secret itself."""

    id: int
    name: str
    prefix: str
    created_at: datetime
    expires_at: datetime | None  # None: until revoked
    revoked_at: datetime | None


def list_own_tokens(actor: Member) -> list[OwnToken]:
    """The actor's own tokens, newest first, without those of routines' runs (each run's
    token ends with its run)."""
    with database().read() as conn:
        rows = conn.execute(
            sa.select(tokens)
            .where(tokens.c.member_id == actor.id, tokens.c.run_id.is_(None))
            .order_by(tokens.c.id.desc())
        ).mappings()
        return [
            OwnToken(
                r["id"], r["name"], r["prefix"], r["created_at"], r["expires_at"], r["revoked_at"]
            )
            for r in rows
        ]


def revoke_token(actor: Member, *, token_id: int, own: bool = False) -> None:
    """Revoke a token; the very next request with it is refused. With `own`, only one of the
    actor's own tokens (as their account offers), whatever else they may manage. Raises
    NotFound, ReadOnly."""
    _check_not_a_run(actor)
    with database().write() as conn:
        query = sa.select(tokens.c.member_id).where(tokens.c.id == token_id)
        row = conn.execute(query).first() if 1 <= token_id <= MAX_ID else None
        owner = members_service.member_by_id_in(conn, row.member_id) if row else None
        if owner is None or not _may_manage(conn, actor, owner) or (own and owner.id != actor.id):
            raise NotFound(f"There is no token {token_id}.", field="token_id")
        conn.execute(
            tokens.update()
            .where(tokens.c.id == token_id, tokens.c.revoked_at.is_(None))
            .values(revoked_at=now())
        )


# Only what a Member holds: never the password's hash.
_MEMBER_BY_TOKEN = (
    sa.select(
        members.c.id,
        members.c.kind,
        members.c.name,
        members.c.email,
        members.c.is_admin,
        members.c.disabled,
        tokens.c.id.label("token_id"),
        tokens.c.routine,
    )
    .join(tokens, tokens.c.member_id == members.c.id)
    .where(
        tokens.c.token_hash == sa.bindparam("token_hash"),
        tokens.c.revoked_at.is_(None),
        # A run token ends at its expiry even if its run was never ended (its server died).
        sa.or_(tokens.c.expires_at.is_(None), tokens.c.expires_at > sa.bindparam("at")),
    )
)


def authenticate_token(secret: str) -> Caller:
    """The member a bearer token belongs to. Raises Unauthenticated: for a token unknown,
    revoked or expired, saying nothing more; for one whose member is disabled, saying so (only
    the holder of a real token learns it, and they can then ask an admin instead of making new
    tokens)."""
    # A secret is ASCII as made: anything else is no token (and could not even be hashed).
    if not secret.startswith(PREFIX) or not secret.isascii():
        raise Unauthenticated("The token is wrong or revoked.")
    with database().read() as conn:
        found = conn.execute(_MEMBER_BY_TOKEN, {"token_hash": _hash(secret), "at": now()})
        row = found.mappings().first()
    if row is None:
        raise Unauthenticated("The token is wrong or revoked.")
    if row["disabled"]:
        raise Unauthenticated(
            f"The token belongs to {row['email'] or row['name']}, a member who is disabled; "
            "an admin can enable the member again."
        )
    return Caller(replace(member_from_row(row), via=row["routine"]), row["token_id"])


def _check_not_a_run(actor: Member) -> None:
    if actor.via is not None:
        raise ReadOnly(
            "A routine's run token cannot make or revoke tokens; the member it runs as can."
        )


def mint_run_token(
    conn: sa.Connection, *, member_id: int, routine: str, run_id: int, expires_at: datetime
) -> str:
    """A token for one run of `routine` as the member, in the run's own transaction: its
    member acts through the routine (see Member.via). Revoked by revoke_run_token, and
    refused after `expires_at` in any case, so it dies with a server killed mid-run."""
    secret = PREFIX + secrets.token_urlsafe(32)
    conn.execute(
        tokens.insert().values(
            member_id=member_id,
            name=f"run {run_id} of {routine}",
            token_hash=_hash(secret),
            prefix=secret[: len(PREFIX) + 6],
            created_at=now(),
            routine=routine,
            run_id=run_id,
            expires_at=expires_at,
        )
    )
    return secret


def revoke_run_token(conn: sa.Connection, run_id: int) -> None:
    """End a run's token: the very next request with it is refused."""
    conn.execute(
        tokens.update()
        .where(tokens.c.run_id == run_id, tokens.c.revoked_at.is_(None))
        .values(revoked_at=now())
    )
