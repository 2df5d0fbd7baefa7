"""Members: people (e-mail and an argon2id password) and agents (tokens only, and the people
responsible for them). Admins manage members."""

from __future__ import annotations

import functools
import re
import secrets
from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.engine import Connection, RowMapping

from codna.errors import Duplicate, InvalidRequest, NotFound, ReadOnly, Unauthenticated
from codna.markdown.limits import check_plain_text
from codna.services.clock import now
from codna.services.context import database
from codna.storage.database import inserted_id
from codna.storage.schema import agent_responsibles, members

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
MAX_PERSON_NAME = 200  # characters in a person's name
MAX_AGENT_NAME = 64  # characters in an agent's name, its handle
_AGENT_NAME = re.compile(rf"[a-z0-9][a-z0-9._-]{{0,{MAX_AGENT_NAME - 1}}}")
MIN_PASSWORD = 8
# Checked against when there is no password to check, so that an unknown e-mail costs the same
# as a wrong password; made again if the hasher's parameters are no longer these.
_DUMMY_HASH = (
    "$argon2id$v=19$m=65536,t=3,p=4$YVaokPCpWh1PHbodM4JncA$"
    "BLJIyphiK+mW0B5b9sDcNTfbQcEnJAR53vJW091yRgg"
)
MAX_EMAIL = 320  # the members.email column, and the most RFC 5321 allows


@dataclass(frozen=True)
class Member:
    """A person or an agent, as the services see the one acting."""

    id: int
    kind: Literal["person", "agent"]
    name: str
    email: str | None
    is_admin: bool
    disabled: bool
    # The routine this member acts through, on a run's token: it reads what the member reads
    # and suggests, but never decides, edits only in output and manages nothing.
    via: str | None = None

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    @property
    def administers(self) -> bool:
        """Whether this member may manage members, tokens and sharing: an admin, not a run."""
        return self.is_admin and self.via is None

    @property
    def handle(self) -> str:
        """How commands name this member: a person's e-mail, an agent's name."""
        return self.email or self.name


@dataclass(frozen=True)
class MemberDetails:
    member: Member
    responsible: tuple[str, ...]  # for an agent: the e-mails of the people responsible for it


def member_from_row(row: RowMapping) -> Member:
    return Member(
        id=row["id"],
        kind=row["kind"],
        name=row["name"],
        email=row["email"],
        is_admin=bool(row["is_admin"]),
        disabled=bool(row["disabled"]),
    )


def _check_admin(actor: Member) -> None:
    if not actor.administers:
        raise ReadOnly("Only an admin can manage members.")


def _check_email(email: str) -> str:
    check_plain_text(email, field="email")
    email = email.strip().lower()
    if len(email) > MAX_EMAIL:
        raise InvalidRequest(
            f"An e-mail address has at most {MAX_EMAIL} characters.", field="email"
        )
    if not _EMAIL.fullmatch(email):
        raise InvalidRequest(f"'{email}' is not an e-mail address.", field="email")
    return email


def _check_name(name: str) -> str:
    check_plain_text(name, field="name")
    name = name.strip()
    if not name or len(name) > MAX_PERSON_NAME:
        raise InvalidRequest(f"A name has 1 to {MAX_PERSON_NAME} characters.", field="name")
    return name


def password_hash(password: str) -> str:
    """The argon2id hash of a new password. Raises InvalidRequest (too short, not text)."""
    return _check_password(password)


def _check_password(password: str) -> str:
    # Only a hash of it is kept, so a control character could be stored; it is refused all
    # the same because nobody could type it at a login form, and a lone surrogate cannot even
    # be hashed.
    check_plain_text(password, field="password")
    if len(password) < MIN_PASSWORD:
        raise InvalidRequest(
            f"A password has at least {MIN_PASSWORD} characters.", field="password"
        )
    return _hasher.hash(password)


def _insert_person(
    conn: Connection, *, email: str, name: str, password: str | None, admin: bool
) -> Member:
    email = _check_email(email)
    name = _check_name(name)
    password_hash = _check_password(password) if password is not None else None
    if conn.execute(sa.select(members.c.id).where(members.c.email == email)).first():
        raise Duplicate(f"A member with the e-mail {email} already exists.", field="email")
    member_id = inserted_id(
        conn.execute(
            members.insert().values(
                kind="person",
                email=email,
                name=name,
                password_hash=password_hash,
                is_admin=admin,
                disabled=False,
                created_at=now(),
            )
        )
    )
    return Member(member_id, "person", name, email, admin, False)


def init_workspace(*, admin_email: str, admin_password: str, admin_name: str = "Admin") -> Member:
    """Create the first admin of an empty database. Raises Duplicate if it has members already."""
    with database().write() as conn:
        if conn.execute(sa.select(members.c.id).limit(1)).first():
            raise Duplicate("This workspace already has members; add more with `member add`.")
        return _insert_person(
            conn, email=admin_email, name=admin_name, password=admin_password, admin=True
        )


def add_person(
    actor: Member, *, email: str, name: str, password: str | None = None, admin: bool = False
) -> Member:
    """Add a person. Raises ReadOnly (not an admin), InvalidRequest, Duplicate."""
    _check_admin(actor)
    with database().write() as conn:
        return _insert_person(conn, email=email, name=name, password=password, admin=admin)


def _check_agent_name(name: str) -> str:
    check_plain_text(name, field="name")
    name = name.strip()
    if not _AGENT_NAME.fullmatch(name):
        raise InvalidRequest(
            f"An agent's name is 1 to {MAX_AGENT_NAME} lower-case letters, digits, '.', '_' "
            "or '-'.",
            field="name",
        )
    return name


def _responsible_people(conn: Connection, responsible: list[str]) -> list[int]:
    """The ids of the people the e-mails name, each once. Raises InvalidRequest, NotFound."""
    if not responsible:
        raise InvalidRequest(
            "Name at least one person responsible for the agent.", field="responsible"
        )
    people = []
    for email in responsible:
        check_plain_text(email, field="responsible")
        row = conn.execute(
            sa.select(members.c.id).where(
                members.c.email == email.strip().lower(), members.c.kind == "person"
            )
        ).first()
        if row is None:
            raise NotFound(f"There is no person with the e-mail {email}.", field="responsible")
        people.append(row.id)
    return sorted(set(people))


def _check_agent_name_free(conn: Connection, name: str, *, other_than: int | None = None) -> None:
    query = sa.select(members.c.id).where(members.c.kind == "agent", members.c.name == name)
    if other_than is not None:
        query = query.where(members.c.id != other_than)
    if conn.execute(query).first():
        raise Duplicate(f"An agent named {name} already exists.", field="name")


def add_agent(actor: Member, *, name: str, responsible: list[str]) -> Member:
    """Add an agent member with the people responsible for it (their e-mails).

    Raises ReadOnly (not an admin), InvalidRequest, Duplicate, NotFound (a responsible person).
    """
    _check_admin(actor)
    name = _check_agent_name(name)
    if not responsible:
        raise InvalidRequest(
            "Name at least one person responsible for the agent.", field="responsible"
        )
    with database().write() as conn:
        people = _responsible_people(conn, responsible)
        _check_agent_name_free(conn, name)
        agent_id = inserted_id(
            conn.execute(
                members.insert().values(
                    kind="agent", name=name, is_admin=False, disabled=False, created_at=now()
                )
            )
        )
        conn.execute(
            agent_responsibles.insert(),
            [{"agent_id": agent_id, "person_id": person} for person in people],
        )
        return Member(agent_id, "agent", name, None, False, False)


def lookup(conn: Connection, handle: str) -> Member | None:
    """The member a handle names: a person's e-mail or an agent's name. Raises InvalidRequest
    (field "member") for a handle that is not text."""
    check_plain_text(handle, field="member")
    handle = handle.strip()
    if "@" in handle:
        where = members.c.email == handle.lower()
    else:
        where = sa.and_(members.c.kind == "agent", members.c.name == handle)
    row = conn.execute(sa.select(members).where(where)).mappings().first()
    return member_from_row(row) if row else None


def member_by_handle(handle: str) -> Member:
    """The member an operator names on the command line. Raises NotFound."""
    with database().read() as conn:
        member = lookup(conn, handle)
    if member is None:
        raise NotFound(f"There is no member {handle}.", field="member")
    return member


_MEMBER_BY_ID = sa.select(members).where(members.c.id == sa.bindparam("member_id"))


def member_by_id_in(conn: Connection, member_id: int) -> Member | None:
    row = conn.execute(_MEMBER_BY_ID, {"member_id": member_id}).mappings().first()
    return member_from_row(row) if row else None


def authenticate(email: str, password: str) -> Member:
    """The person with this e-mail and password. Raises Unauthenticated, saying nothing more;
    InvalidRequest for an e-mail or password that is not text (no password set holds any)."""
    check_plain_text(email, field="email")
    check_plain_text(password, field="password")
    with database().read() as conn:
        row = (
            conn.execute(
                sa.select(members).where(
                    members.c.email == email.strip().lower(), members.c.kind == "person"
                )
            )
            .mappings()
            .first()
        )
    refusal = Unauthenticated("The e-mail or the password is wrong.")
    stored = row["password_hash"] if row is not None and not row["disabled"] else None
    try:
        # The same work either way, a verification, so the time tells nothing either.
        _hasher.verify(stored or _dummy_hash(), password)
    except (VerificationError, InvalidHashError):
        raise refusal from None
    if row is None or not stored:
        raise refusal
    return member_from_row(row)


@functools.cache
def _dummy_hash() -> str:
    if _hasher.check_needs_rehash(_DUMMY_HASH):
        return _hasher.hash(secrets.token_urlsafe(16))
    return _DUMMY_HASH


def list_members(actor: Member) -> list[MemberDetails]:
    """Every member, with the people responsible for each agent. Raises ReadOnly."""
    _check_admin(actor)
    with database().read() as conn:
        rows = conn.execute(sa.select(members).order_by(members.c.id)).mappings().all()
        person = members.alias("person")
        links = conn.execute(
            sa.select(agent_responsibles.c.agent_id, person.c.email).join(
                person, person.c.id == agent_responsibles.c.person_id
            )
        ).all()
    responsible: dict[int, list[str]] = {}
    for agent_id, email in links:
        responsible.setdefault(agent_id, []).append(email)
    return [
        MemberDetails(member_from_row(row), tuple(sorted(responsible.get(row["id"], []))))
        for row in rows
    ]


def set_disabled(actor: Member, *, handle: str, disabled: bool) -> Member:
    """Disable or enable a member; a disabled member's tokens stop working. Raises ReadOnly."""
    _check_admin(actor)
    with database().write() as conn:
        member = lookup(conn, handle)
        if member is None:
            raise NotFound(f"There is no member {handle}.", field="member")
        if member.id == actor.id and disabled:
            raise InvalidRequest("An admin cannot disable themselves.", field="member")
        conn.execute(members.update().where(members.c.id == member.id).values(disabled=disabled))
    return Member(member.id, member.kind, member.name, member.email, member.is_admin, disabled)


def names(conn: Connection, ids: set[int]) -> dict[int, str]:
    """Members' display names by id, in one query."""
    if not ids:
        return {}
    rows = conn.execute(sa.select(members.c.id, members.c.name).where(members.c.id.in_(ids)))
    return {r.id: r.name for r in rows}


def first_admin() -> Member:
    """The workspace's first admin (whom local commands act as by default). Raises NotFound."""
    with database().read() as conn:
        row = (
            conn.execute(
                sa.select(members)
                .where(members.c.is_admin.is_(True), members.c.disabled.is_(False))
                .order_by(members.c.id)
                .limit(1)
            )
            .mappings()
            .first()
        )
    if row is None:
        raise NotFound("This workspace has no admin yet; run `codna init` first.", field="member")
    return member_from_row(row)


def _existing(conn: Connection, handle: str, kind: Literal["person", "agent"]) -> Member:
    member = lookup(conn, handle)
    if member is None or member.kind != kind:
        raise NotFound(f"There is no {kind} {handle}.", field="member")
    return member


def rename_self(actor: Member, *, name: str) -> Member:
    """Change the actor's own display name. Raises ReadOnly (an agent, whose name is its
    handle, or a routine's run), InvalidRequest (a name empty, too long or not text)."""
    if actor.via is not None:
        raise ReadOnly("A routine's run cannot change the name of the member it runs as.")
    if actor.is_agent:
        raise ReadOnly(f"{actor.name} is an agent: its name is its handle, which an admin changes.")
    name = _check_name(name)
    with database().write() as conn:
        conn.execute(members.update().where(members.c.id == actor.id).values(name=name))
    return Member(actor.id, actor.kind, name, actor.email, actor.is_admin, actor.disabled)


def _check_another_admin(conn: Connection, person: Member) -> None:
    """Raise InvalidRequest unless an admin other than `person` would be left, enabled. The
    admins' rows are locked on PostgreSQL, so two admins demoting each other at once cannot
    both leave none."""
    admins = (
        conn.execute(
            sa.select(members.c.id)
            .where(members.c.is_admin.is_(True), members.c.disabled.is_(False))
            .with_for_update()
        )
        .scalars()
        .all()
    )
    if not set(admins) - {person.id}:
        raise InvalidRequest(
            f"{person.name} is the last admin; make another person admin first.", field="admin"
        )


def update_person(actor: Member, *, handle: str, name: str, email: str, admin: bool) -> Member:
    """Change a person's name, e-mail and whether they are an admin. The last admin stays one.

    Raises ReadOnly (not an admin), NotFound (no such person), InvalidRequest (a bad name or
    e-mail, the last admin), Duplicate (the e-mail is another member's)."""
    _check_admin(actor)
    name = _check_name(name)
    email = _check_email(email)
    with database().write() as conn:
        person = _existing(conn, handle, "person")
        if email != person.email:
            taken = sa.select(members.c.id).where(
                members.c.email == email, members.c.id != person.id
            )
            if conn.execute(taken).first():
                raise Duplicate(f"A member with the e-mail {email} already exists.", field="email")
        if person.is_admin and not admin:
            _check_another_admin(conn, person)
        conn.execute(
            members.update()
            .where(members.c.id == person.id)
            .values(name=name, email=email, is_admin=admin)
        )
    return Member(person.id, "person", name, email, admin, person.disabled)


def update_agent(actor: Member, *, handle: str, name: str, responsible: list[str]) -> MemberDetails:
    """Change an agent's name (its handle) and the people responsible for it (their e-mails).

    Raises ReadOnly (not an admin), NotFound (no such agent, a responsible person),
    InvalidRequest (a bad name, nobody responsible), Duplicate (another agent's name)."""
    _check_admin(actor)
    name = _check_agent_name(name)
    with database().write() as conn:
        agent = _existing(conn, handle, "agent")
        people = _responsible_people(conn, responsible)
        _check_agent_name_free(conn, name, other_than=agent.id)
        conn.execute(members.update().where(members.c.id == agent.id).values(name=name))
        conn.execute(agent_responsibles.delete().where(agent_responsibles.c.agent_id == agent.id))
        conn.execute(
            agent_responsibles.insert(),
            [{"agent_id": agent.id, "person_id": person} for person in people],
        )
        emails = conn.execute(
            sa.select(members.c.email).where(members.c.id.in_(people)).order_by(members.c.email)
        )
        return MemberDetails(
            Member(agent.id, "agent", name, None, False, agent.disabled),
            tuple(e for e in emails.scalars() if e),
        )
