"""Browser sessions: a person signs in with e-mail and password and gets a secret for a cookie,
kept only as a SHA-256; failed sign-ins are throttled per e-mail and per client address, from
rows in the database, so the throttle holds across server processes."""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest, NotFound, RateLimited, ReadOnly, Unauthenticated
from codna.markdown.limits import check_plain_text
from codna.services.clock import now
from codna.services.context import database
from codna.services.members import members as members_service
from codna.services.members.members import MAX_EMAIL, Member, member_from_row
from codna.storage.database import inserted_id
from codna.storage.schema import members, sign_in_failures, web_sessions

PREFIX = "codna_session_"
IDLE_TIMEOUT = timedelta(hours=12)  # a session unused this long has ended
LIFETIME = timedelta(days=14)  # and any session ends this long after sign-in
TOUCH_EVERY = timedelta(minutes=1)  # how stale last_seen_at may be before it is written
# Live sessions one member holds (browsers, devices); a sign-in past it ends the one least
# recently used, so signing in again and again never grows the table.
SESSIONS_PER_MEMBER = 20
# Failed sign-ins count for FAILURE_WINDOW. After the free ones for an e-mail (or from a client
# address), each further attempt waits a back-off after the newest failure, doubling from 1 s
# up to MAX_BACKOFF: guessing slows to one try a minute, and the owner, who knows the password,
# is in after at most a minute's wait, never locked out.
FAILURE_WINDOW = timedelta(minutes=15)
FREE_FAILURES_PER_EMAIL = 5
FREE_FAILURES_PER_ADDRESS = 20  # many people may share one address (an office's NAT)
MAX_BACKOFF = timedelta(minutes=1)
MAX_ADDRESS = 100  # the sign_in_failures.address column; an IPv6 address has at most 45

_ENDED = "Your session has ended; sign in again."
# Keys of PostgreSQL's two-int advisory locks (a key space apart from the one-bigint locks).
_LOCK_EMAIL = 0x5E55
_LOCK_ADDRESS = 0x5E56


@dataclass(frozen=True)
class Session:
    """A session just made: the secret is shown once (it goes into the cookie)."""

    secret: str
    member: Member
    expires_at: datetime


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _lock_key(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big", signed=True)


def _check_text(value: object, *, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidRequest(f"The {field} must be text.", field=field)
    check_plain_text(value, field=field)
    return value


# How many failures a key has in the window, and when the newest was.
def _failures(column: sa.Column[str]) -> sa.Select[int, datetime | None]:
    return sa.select(sa.func.count(), sa.func.max(sign_in_failures.c.at)).where(
        column == sa.bindparam("key"), sign_in_failures.c.at > sa.bindparam("since")
    )


_BY_EMAIL = _failures(sign_in_failures.c.email)
_BY_ADDRESS = _failures(sign_in_failures.c.address)


def backoff(failures: int, *, free: int) -> timedelta:
    """How long after its newest failure a key with `failures` in the window waits: nothing
    for the first `free`, then 1, 2, 4, … seconds, at most MAX_BACKOFF."""
    if failures < free:
        return timedelta(0)
    return min(timedelta(seconds=2 ** min(failures - free, 30)), MAX_BACKOFF)


def _check_throttle(conn: Connection, *, email: str, address: str, at: datetime) -> None:
    """Raise RateLimited while the e-mail or the address waits out its back-off. Only failure
    rows decide, so an e-mail no member has is answered like one a member has, and the
    password is never looked at: a refusal here says nothing of it."""
    since = at - FAILURE_WINDOW
    retry_after = 0.0
    for query, key, free in (
        (_BY_EMAIL, email, FREE_FAILURES_PER_EMAIL),
        (_BY_ADDRESS, address, FREE_FAILURES_PER_ADDRESS),
    ):
        count, newest = conn.execute(query, {"key": key, "since": since}).one()
        if newest is not None:
            wait = (newest + backoff(count, free=free) - at).total_seconds()
            retry_after = max(retry_after, wait)
    if retry_after > 0:
        seconds = max(1, math.ceil(retry_after))
        raise RateLimited(f"Too many failed sign-ins; retry in {seconds} s.", retry_after=seconds)


def _reserve_attempt(email: str, address: str) -> int:
    """Check the throttle and count this attempt as a failure until it succeeds, in one
    transaction, so that attempts made at once cannot pass the limit together."""
    with database().write() as conn:
        if conn.dialect.name == "postgresql":
            # SQLite's writers queue already; here, attempts for one e-mail or address do.
            # Always the e-mail first, so two attempts never wait on each other in a circle.
            lock = sa.text("SELECT pg_advisory_xact_lock(:space, :key)")
            conn.execute(lock, {"space": _LOCK_EMAIL, "key": _lock_key(email)})
            conn.execute(lock, {"space": _LOCK_ADDRESS, "key": _lock_key(address)})
        at = now()
        _check_throttle(conn, email=email, address=address, at=at)
        conn.execute(sign_in_failures.delete().where(sign_in_failures.c.at <= at - FAILURE_WINDOW))
        return inserted_id(
            conn.execute(sign_in_failures.insert().values(email=email, address=address, at=at))
        )


def sign_in(email: str, password: str, *, address: str) -> Session:
    """Sign a person in with e-mail and password from the client at `address` (its IP
    address); a new session each time.

    Raises Unauthenticated, the same for an unknown e-mail, a wrong password, an agent, a
    disabled member and a person without a password; RateLimited (`retry_after` seconds) while
    the e-mail or the address waits out its back-off after failures (see `backoff`);
    InvalidRequest for an e-mail, password or address that is not text, or is too long.

    The attempt is recorded as a failure before the password is checked (so a throttle decided
    by rows holds for attempts made at once) and the record is taken back on success; the
    password's hash is worked outside any transaction, never holding a write lock.
    """
    email = _check_text(email, field="email").strip().lower()
    password = _check_text(password, field="password")
    address = _check_text(address, field="address")
    if len(email) > MAX_EMAIL:
        raise InvalidRequest(
            f"An e-mail address has at most {MAX_EMAIL} characters.", field="email"
        )
    if len(address) > MAX_ADDRESS:
        raise InvalidRequest(f"An address has at most {MAX_ADDRESS} characters.", field="address")
    attempt = _reserve_attempt(email, address)
    member = members_service.authenticate(email, password)  # the refusal leaves the failure
    secret = PREFIX + secrets.token_urlsafe(32)  # 256 random bits
    with database().write() as conn:
        at = now()
        # Success forgives the e-mail's failures (and this attempt), not the address's.
        conn.execute(
            sign_in_failures.delete().where(
                sa.or_(sign_in_failures.c.id == attempt, sign_in_failures.c.email == email)
            )
        )
        # The member's sessions that have ended go, so the table holds little but live ones.
        conn.execute(
            web_sessions.delete().where(
                web_sessions.c.member_id == member.id,
                sa.or_(
                    web_sessions.c.expires_at <= at,
                    web_sessions.c.last_seen_at <= at - IDLE_TIMEOUT,
                ),
            )
        )
        expires_at = at + LIFETIME
        conn.execute(
            web_sessions.insert().values(
                secret_hash=_hash(secret),
                member_id=member.id,
                created_at=at,
                last_seen_at=at,
                expires_at=expires_at,
            )
        )
        kept = (
            sa.select(web_sessions.c.id)
            .where(web_sessions.c.member_id == member.id)
            .order_by(web_sessions.c.last_seen_at.desc(), web_sessions.c.id.desc())
            .limit(SESSIONS_PER_MEMBER)
        )
        conn.execute(
            web_sessions.delete().where(
                web_sessions.c.member_id == member.id,
                web_sessions.c.id.not_in(sa.select(kept.subquery().c.id)),
            )
        )
    return Session(secret, member, expires_at)


# Only what a Member holds: never the password's hash.
_MEMBER_BY_SESSION = (
    sa.select(
        members.c.id,
        members.c.kind,
        members.c.name,
        members.c.email,
        members.c.is_admin,
        members.c.disabled,
        web_sessions.c.id.label("session_id"),
        web_sessions.c.last_seen_at,
        web_sessions.c.expires_at,
    )
    .join(web_sessions, web_sessions.c.member_id == members.c.id)
    .where(web_sessions.c.secret_hash == sa.bindparam("secret_hash"))
)
# Compare-and-set: of requests at once, one writes the time and the others nothing.
_TOUCH = (
    web_sessions.update()
    .where(
        web_sessions.c.id == sa.bindparam("session_id"),
        web_sessions.c.last_seen_at <= sa.bindparam("stale"),
    )
    .values(last_seen_at=sa.bindparam("at"))
)


def session_member(secret: str) -> Member:
    """The member of a live session. Raises Unauthenticated for a session unknown, signed out,
    idle for IDLE_TIMEOUT, older than LIFETIME, or whose member is disabled.

    A request reads; the time of last use is written at most once per TOUCH_EVERY."""
    # A secret is ASCII as made: anything else is no session (and could not even be hashed).
    if not isinstance(secret, str) or not secret.startswith(PREFIX) or not secret.isascii():
        raise Unauthenticated(_ENDED)
    with database().read() as conn:
        row = conn.execute(_MEMBER_BY_SESSION, {"secret_hash": _hash(secret)}).mappings().first()
    at = now()
    if (
        row is None
        or row["disabled"]
        or row["expires_at"] <= at
        or row["last_seen_at"] <= at - IDLE_TIMEOUT
    ):
        raise Unauthenticated(_ENDED)
    if row["last_seen_at"] <= at - TOUCH_EVERY:
        with database().write() as conn:
            conn.execute(
                _TOUCH, {"session_id": row["session_id"], "stale": at - TOUCH_EVERY, "at": at}
            )
    return member_from_row(row)


def sign_out(secret: str) -> None:
    """End the session at once (its row is deleted); an unknown secret is no error."""
    if not isinstance(secret, str) or not secret.startswith(PREFIX) or not secret.isascii():
        return
    with database().write() as conn:
        conn.execute(web_sessions.delete().where(web_sessions.c.secret_hash == _hash(secret)))


def end_sessions(actor: Member, *, member: str) -> int:
    """End every session of `member` (a person's e-mail or an agent's name): an admin's
    doing, or the member's own. Returns how many live sessions ended. Raises NotFound,
    ReadOnly, InvalidRequest (a handle that is not text)."""
    with database().write() as conn:
        owner = members_service.lookup(conn, member)
        if owner is None:
            raise NotFound(f"There is no member {member}.", field="member")
        if not (actor.administers or actor.id == owner.id):
            raise ReadOnly(f"You cannot end the sessions of {owner.handle}.")
        return _end_sessions_of(conn, owner.id)


def _end_sessions_of(conn: Connection, member_id: int, *, keep: str | None = None) -> int:
    """Delete the member's sessions but the one whose secret is `keep`; how many were live."""
    ended = web_sessions.c.member_id == member_id
    if keep is not None:
        ended = sa.and_(ended, web_sessions.c.secret_hash != _hash(keep))
    at = now()
    live = conn.execute(
        web_sessions.delete().where(
            ended,
            web_sessions.c.expires_at > at,
            web_sessions.c.last_seen_at > at - IDLE_TIMEOUT,
        )
    ).rowcount
    conn.execute(web_sessions.delete().where(ended))
    return int(live)


def end_other_sessions(actor: Member, *, keep: str) -> int:
    """End every session of the actor's but the one whose secret is `keep` (the browser
    asking): signing out everywhere else. Returns how many live sessions ended."""
    with database().write() as conn:
        return _end_sessions_of(conn, actor.id, keep=_check_text(keep, field="session"))


def _check_person(actor: Member) -> str:
    if actor.via is not None:
        raise ReadOnly("A routine's run cannot change the password of the member it runs as.")
    if actor.is_agent or actor.email is None:
        raise ReadOnly(f"{actor.name} is an agent: it has tokens, never a password.")
    return actor.email


def change_password(
    actor: Member, *, current: str, new: str, address: str, keep: str | None = None
) -> int:
    """Change the actor's own password, given the current one; every other session of theirs
    ends (all of them if `keep`, the secret of the session asking, is None). Returns how many
    live sessions ended.

    A wrong current password counts as a failed sign-in from `address` for the actor's
    e-mail, under the same back-off as signing in (see `sign_in`). Raises InvalidRequest (field
    current_password: the current password is wrong; field password: the new one breaks the
    rules), RateLimited (waiting out the back-off), ReadOnly (an agent, a routine's run).
    """
    email = _check_person(actor)
    current = _check_text(current, field="current_password")
    address = _check_text(address, field="address")[:MAX_ADDRESS]
    new_hash = members_service.password_hash(_check_text(new, field="password"))
    try:
        attempt = _reserve_attempt(email, address)
    except RateLimited as throttled:
        seconds = throttled.fields["retry_after"]
        raise RateLimited(
            f"Too many wrong passwords; retry in {seconds} s.", retry_after=seconds
        ) from None
    try:
        members_service.authenticate(email, current)
    except Unauthenticated:
        raise InvalidRequest(
            "The current password is wrong; nothing was changed.", field="current_password"
        ) from None
    with database().write() as conn:
        conn.execute(
            sign_in_failures.delete().where(
                sa.or_(sign_in_failures.c.id == attempt, sign_in_failures.c.email == email)
            )
        )
        conn.execute(
            members.update().where(members.c.id == actor.id).values(password_hash=new_hash)
        )
        return _end_sessions_of(conn, actor.id, keep=keep)


def reset_password(actor: Member, *, member: str, password: str) -> int:
    """Set a person's password (an admin's doing): every session of theirs ends, and failed
    sign-ins for their e-mail are forgotten, so they sign in with it at once. Their tokens
    keep working. Returns how many live sessions ended.

    Raises ReadOnly (not an admin), NotFound (no such person), InvalidRequest (the password
    breaks the rules, an agent)."""
    if not actor.administers:
        raise ReadOnly("Only an admin can set another member's password.")
    new_hash = members_service.password_hash(_check_text(password, field="password"))
    with database().write() as conn:
        person = members_service.lookup(conn, member)
        if person is None:
            raise NotFound(f"There is no member {member}.", field="member")
        if person.email is None:
            raise InvalidRequest(
                f"{person.name} is an agent: it has tokens, never a password.", field="member"
            )
        conn.execute(
            members.update().where(members.c.id == person.id).values(password_hash=new_hash)
        )
        conn.execute(sign_in_failures.delete().where(sign_in_failures.c.email == person.email))
        return _end_sessions_of(conn, person.id)
