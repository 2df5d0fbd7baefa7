"""Who may read and write what: grants on a space, a folder or a page; admins; agents.

Everything here is computed from the grants as they are when asked. An agent is given read
only, whatever it is shared with, and may write only the pages it created in `output`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa

from codna.errors import InvalidRequest, NotFound, ReadOnly
from codna.services import members as members_service
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.members import Member
from codna.storage.prepared import Prepared, Reads, Row
from codna.storage.schema import grants, members, pages

Level = Literal["read", "write"]
LEVELS: tuple[Level, ...] = ("read", "write")


@dataclass(frozen=True)
class Grant:
    """`member` may `level` the space, folder or page at `address`."""

    member: str
    address: str
    level: Level


@dataclass(frozen=True)
class Rights:
    """What one member holds: their grants, read once per transaction."""

    member: Member
    grants: tuple[tuple[str, str, Level], ...]  # (space, path, level)
    # Set when only the grants bearing on one page were read (`grants_on`, `rights_from`):
    # nothing else may be asked.
    page: tuple[str, str] | None = None
    # Levels already worked out, by page: a read asks for one page's level several times.
    _known: dict[tuple[str, str, int | None], Level | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    def level(self, space: str, path: str, created_by: int | None = None) -> Level | None:
        """The best level this member has on the page at space:path (None: cannot read it)."""
        if self.page is not None and (space, path) != self.page:
            raise ValueError(f"These rights were read for {self.page} only, not {space}:{path}.")
        key = (space, path, created_by)
        if key not in self._known:
            self._known[key] = self._level(space, path, created_by)
        return self._known[key]

    def _level(self, space: str, path: str, created_by: int | None) -> Level | None:
        if self.member.is_admin:
            return "write"
        best: Level | None = None
        for g_space, g_path, g_level in self.grants:
            if g_space != space:
                continue
            if g_path == "" or g_path == path or (g_path.endswith("/") and path.startswith(g_path)):
                best = "write" if g_level == "write" or best == "write" else "read"
        if self.member.is_agent:
            if space == "output" and created_by == self.member.id:
                return "write"
            return "read" if best else None
        return best

    def can_read(self, space: str, path: str, created_by: int | None = None) -> bool:
        return self.level(space, path, created_by) is not None

    def can_edit(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Edit, revert and restore a version: write, and never in `raw`."""
        return space != "raw" and self.level(space, path, created_by) == "write"

    def can_manage(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Trash, restore and delete for good: write, `raw` included."""
        return self.level(space, path, created_by) == "write"

    def can_create(self, space: str, path: str) -> bool:
        """Create a page at space:path. `raw` takes imports only; agents create in `output`."""
        if space == "raw":
            return False
        if self.member.is_agent:
            return space == "output"
        return self.level(space, path) == "write"

    def can_import(self, path: str) -> bool:
        return not self.member.is_agent and self.level("raw", path) == "write"

    def can_decide(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Accept or reject what is suggested on a page: whoever can edit it; never an agent."""
        return not self.member.is_agent and self.can_edit(space, path, created_by)

    def readable(self) -> sa.ColumnElement[bool]:
        """A WHERE clause over `pages` that keeps exactly the pages this member can read."""
        self._all_grants_read()
        if self.member.is_admin:
            return sa.true()
        clauses = self._granted({"read", "write"})
        if self.member.is_agent:
            clauses.append(sa.and_(pages.c.space == "output", pages.c.created_by == self.member.id))
        return sa.or_(sa.false(), *clauses)

    def decidable(self) -> sa.ColumnElement[bool]:
        """A WHERE clause over `pages` that keeps the pages whose suggestions this member
        decides: those it can edit, outside `raw`; none for an agent."""
        self._all_grants_read()
        if self.member.is_agent:
            return sa.false()
        outside_raw = pages.c.space != "raw"
        if self.member.is_admin:
            return outside_raw
        return sa.and_(outside_raw, sa.or_(sa.false(), *self._granted({"write"})))

    def _all_grants_read(self) -> None:
        if self.page is not None:
            raise ValueError(f"These rights were read for {self.page} only, not for every page.")

    def _granted(self, levels: set[str]) -> list[sa.ColumnElement[bool]]:
        clauses: list[sa.ColumnElement[bool]] = []
        for g_space, g_path, g_level in self.grants:
            if g_level not in levels:
                continue
            if g_path == "":
                clauses.append(pages.c.space == g_space)
            elif g_path.endswith("/"):
                clauses.append(
                    sa.and_(
                        pages.c.space == g_space,
                        pages.c.path.startswith(g_path, autoescape=True),
                    )
                )
            else:
                clauses.append(sa.and_(pages.c.space == g_space, pages.c.path == g_path))
        return clauses


# Built once: every call that checks access runs it.
_GRANTS_OF = Prepared(
    sa.select(grants.c.space, grants.c.path, grants.c.level).where(
        grants.c.member_id == sa.bindparam("member_id")
    )
)


# The grants that can bear on one page: its space whole, or a path that begins its path (a
# folder) or is its path. The SQL only narrows; Rights.level decides, as for all grants.
_GRANTS_ON = Prepared(
    _GRANTS_OF.statement.where(
        grants.c.space == sa.bindparam("space"),
        sa.or_(
            grants.c.path == "",
            sa.func.substr(sa.bindparam("path", type_=sa.String), 1, sa.func.length(grants.c.path))
            == grants.c.path,
        ),
    )
)


def rights(conn: Reads, member: Member) -> Rights:
    """Read a member's grants in this transaction."""
    if member.is_admin:
        return Rights(member, ())  # an admin may do anything: no grant changes that
    return Rights(member, tuple(_GRANTS_OF.tuples(conn, {"member_id": member.id})))


def grants_on(member: Member, space: str, path: str) -> tuple[Prepared, dict[str, Any]]:
    """The statement that reads only the grants bearing on the one page at space:path (a
    member may hold many), and its parameters: run it (alone, or `together` with a caller's
    own statements) and give its rows to `rights_from`."""
    return _GRANTS_ON, {"member_id": member.id, "space": space, "path": path}


def rights_from(member: Member, rows: Sequence[Row], space: str, path: str) -> Rights:
    """The rights on space:path from the rows of `grants_on`; asking them about any other
    page raises ValueError."""
    held = () if member.is_admin else tuple((r["space"], r["path"], r["level"]) for r in rows)
    return Rights(member, held, page=(space, path))


def _check_may_share(mine: Rights, target: Address) -> None:
    if mine.member.is_agent:
        raise ReadOnly("An agent cannot share pages.")
    if mine.member.is_admin:
        return
    if target.kind == "page":
        level = mine.level(target.space, target.path)
        if level is None:
            raise NotFound(f"There is no page {target}.", address=str(target))
        allowed = level == "write"
    else:
        allowed = any(
            g_space == target.space
            and g_level == "write"
            and (g_path == "" or (g_path.endswith("/") and target.path.startswith(g_path)))
            for g_space, g_path, g_level in mine.grants
        )
    if not allowed:
        raise ReadOnly(f"Only an admin or someone who can write all of {target} can share it.")


def share(actor: Member, *, address: str, member: str, level: str) -> Grant:
    """Give `member` (an e-mail or an agent's name) `read` or `write` on a space, folder or page.

    Sharing again changes the level. Raises InvalidRequest (a bad level, write for an agent),
    NotFound (no such member), ReadOnly (the actor may not share this).
    """
    if level not in LEVELS:
        raise InvalidRequest("The level is read or write.", field="level")
    granted: Level = "write" if level == "write" else "read"
    target = parse_address(address)
    with database().write() as conn:
        _check_may_share(rights(conn, actor), target)
        grantee = members_service.lookup(conn, member)
        if grantee is None:
            raise NotFound(f"There is no member {member}.", field="member")
        if grantee.is_agent and level == "write":
            raise InvalidRequest(
                f"{grantee.name} is an agent: it is given read only and may suggest changes, "
                "never edit what it was given.",
                field="level",
            )
        existing = conn.execute(
            sa.select(grants.c.id).where(
                grants.c.member_id == grantee.id,
                grants.c.space == target.space,
                grants.c.path == target.path,
            )
        ).first()
        if existing:
            conn.execute(grants.update().where(grants.c.id == existing.id).values(level=level))
        else:
            conn.execute(
                grants.insert().values(
                    member_id=grantee.id,
                    space=target.space,
                    path=target.path,
                    level=level,
                    created_at=now(),
                )
            )
    return Grant(grantee.handle, str(target), granted)


def unshare(actor: Member, *, address: str, member: str) -> None:
    """Take back what `member` was given on exactly this address. Raises NotFound, ReadOnly."""
    target = parse_address(address)
    with database().write() as conn:
        _check_may_share(rights(conn, actor), target)
        grantee = members_service.lookup(conn, member)
        deleted = 0
        if grantee is not None:
            deleted = conn.execute(
                grants.delete().where(
                    grants.c.member_id == grantee.id,
                    grants.c.space == target.space,
                    grants.c.path == target.path,
                )
            ).rowcount
        if not deleted:
            raise NotFound(f"{member} was given nothing on {target}.", field="member")


def list_grants(actor: Member) -> list[Grant]:
    """Every grant (admins), or the actor's own."""
    with database().read() as conn:
        query = (
            sa.select(
                members.c.email, members.c.name, grants.c.space, grants.c.path, grants.c.level
            )
            .join(members, members.c.id == grants.c.member_id)
            .order_by(grants.c.space, grants.c.path, members.c.name)
        )
        if not actor.is_admin:
            query = query.where(grants.c.member_id == actor.id)
        rows = conn.execute(query).all()
    return [Grant(r.email or r.name, str(Address(r.space, r.path)), r.level) for r in rows]
