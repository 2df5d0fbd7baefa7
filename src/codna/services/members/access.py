"""Who may read and write what: grants on a space, a folder or a page; admins; agents.

Everything here is computed from the grants as they are when asked. An agent is given read
only, whatever it is shared with, and creates and writes only its own pages under its own
folder, `output:<agent>/`, where it reads every page.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest, NotFound, ReadOnly
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.members import grant_changes
from codna.services.members import members as members_service
from codna.services.members.members import Member
from codna.storage.records import PageHead, PageRow
from codna.storage.schema import grants, members, pages, runs
from codna.vocabulary import SPACES

Level = Literal["read", "write"]
LEVELS: tuple[Level, ...] = ("read", "write")


@dataclass(frozen=True)
class Grant:
    """`member` may `level` the space, folder or page at `address`."""

    member: str
    address: str
    level: Level


# Imported sources: read, imported and deleted, never edited nor suggested on (SPEC 1).
NEVER_EDITED = "raw"
# Where runs write their run pages.
RUN_PAGES = "output"


def under(column: sa.ColumnElement[str], prefix: str) -> sa.ColumnElement[bool]:
    """Whether `column` starts with `prefix`, exactly as `str.startswith` says: code point by
    code point. Not LIKE, which SQLite matches without regard to letter case, and whose
    wildcards and escapes a path may hold."""
    if not prefix:
        return sa.true()
    return sa.func.substr(column, 1, len(prefix)) == prefix


# The page a run looked at, beside the run page being read: made once, since an alias builds
# a proxy of each column of the table and every read of pages asks for it.
_SUBJECT = pages.alias("subject")


@dataclass(frozen=True)
class Held:
    """A grant as its member holds it: `level` on a space (path ''), a folder (a path ending
    in '/') or one page. Whether it covers a page is decided here, for the check in Python
    and the filter in SQL alike."""

    space: str
    path: str
    level: Level

    def covers(self, space: str, path: str) -> bool:
        """Whether this grant bears on the page at space:path."""
        if space != self.space:
            return False
        if self.path.endswith("/"):
            return path.startswith(self.path)
        return self.path in ("", path)

    def clause(self, table: sa.FromClause = pages) -> sa.ColumnElement[bool]:
        """The pages this grant bears on, as a WHERE clause over `table` (`pages` or an alias
        of it): `covers` in SQL."""
        in_space = table.c.space == self.space
        if self.path == "":
            return in_space
        if self.path.endswith("/"):
            return sa.and_(in_space, under(table.c.path, self.path))
        return sa.and_(in_space, table.c.path == self.path)


@dataclass(frozen=True)
class Rights:
    """What one member holds: their grants, read once per transaction."""

    member: Member
    grants: tuple[Held, ...]

    def level(self, space: str, path: str, created_by: int | None = None) -> Level | None:
        """The best level this member has on the page at space:path (None: cannot read it).
        A routine's run writes in `output` only, whatever its member may."""
        level = self._level(space, path, created_by)
        if level == "write" and self.member.via is not None and space != "output":
            return "read"
        return level

    def _level(self, space: str, path: str, created_by: int | None) -> Level | None:
        if self.member.is_admin:
            return "write"
        if self.member.is_agent and self._own(space, path):
            # Its own folder: it writes what it made and reads the rest, so that a page
            # someone else put there is no secret to the agent that cannot create there.
            return "write" if created_by == self.member.id else "read"
        best: Level | None = None
        for held in self.grants:
            if held.covers(space, path):
                if held.level == "write" and not self.member.is_agent:
                    return "write"
                best = "read"  # an agent is given read only
        return best

    def can_read(self, space: str, path: str, created_by: int | None = None) -> bool:
        return self.level(space, path, created_by) is not None

    def can_edit(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Edit, revert and restore a version: write, and never in `raw`."""
        return space != NEVER_EDITED and self.level(space, path, created_by) == "write"

    def can_suggest(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Suggest a change or a link: whoever can read the page, never in `raw` (ADR 0024)."""
        return space != NEVER_EDITED and self.can_read(space, path, created_by)

    def can_manage(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Trash, restore and delete for good: write, `raw` included."""
        return self.level(space, path, created_by) == "write"

    def can_create(self, space: str, path: str) -> bool:
        """Create a page at space:path. `raw` takes imports only; agents create in `output`."""
        if space == NEVER_EDITED:
            return False
        if self.member.is_agent:
            return self._own(space, path)
        return self.level(space, path) == "write"  # a run's: in output only

    def creatable(self) -> tuple[str, ...]:
        """Where this member may create pages, as the addresses of spaces and folders
        (`output:`, `wiki:notes/`), each once and none inside another: what can_create
        allows, to tell a member refused."""
        if self.member.is_agent:
            return (f"output:{self.member.name}/",)
        if self.member.is_admin:
            spaces = [s for s in SPACES if s != NEVER_EDITED and self.can_create(s, "page")]
            return tuple(f"{space}:" for space in spaces)
        written = sorted(
            (held.space, held.path)
            for held in self.grants
            if held.level == "write"
            and held.space != NEVER_EDITED
            and (held.path == "" or held.path.endswith("/"))
        )
        places: list[tuple[str, str]] = []
        for space, path in written:
            if self.member.via is not None and space != "output":
                continue  # a run creates in output only
            if not any(space == s and path.startswith(p) for s, p in places):
                places.append((space, path))
        return tuple(f"{space}:{path}" for space, path in places)

    def can_import(self, path: str) -> bool:
        return self._person() and self.level(NEVER_EDITED, path) == "write"

    def can_decide(self, space: str, path: str, created_by: int | None = None) -> bool:
        """Accept or reject what is suggested on a page: whoever can edit it; never an agent,
        never a routine's run (it leaves the decision to a person)."""
        return self._person() and self.can_edit(space, path, created_by)

    def _own(self, space: str, path: str) -> bool:
        """Whether space:path is under the agent's own folder, output:<agent>/: where it
        creates and writes, so that no agent squats on or probes another's addresses."""
        return space == "output" and path.startswith(f"{self.member.name}/")

    def _person(self) -> bool:
        """A person acting for themselves: neither an agent nor a routine's run."""
        return not self.member.is_agent and self.member.via is None

    def _granted(self, table: sa.FromClause = pages) -> sa.ColumnElement[bool]:
        """The pages of `table` this member's grants (and an agent's own folder) let it read:
        `can_read` in SQL."""
        clauses = [held.clause(table) for held in self.grants]
        if self.member.is_agent:
            own = under(table.c.path, f"{self.member.name}/")
            clauses.append(sa.and_(table.c.space == "output", own))
        return sa.or_(sa.false(), *clauses)

    def _no_hidden_run_page(self) -> sa.ColumnElement[bool]:
        """Leaves out each run page whose run looked at a page this member cannot read: what
        a run page quotes is its page's (run_page_hidden in SQL)."""
        subject = _SUBJECT
        hidden = sa.exists().where(
            runs.c.run_page == pages.c.space.concat(":").concat(pages.c.path),
            runs.c.address == subject.c.space.concat(":").concat(subject.c.path),
            sa.not_(self._granted(subject)),
        )
        return sa.or_(pages.c.space != RUN_PAGES, sa.not_(hidden))

    def readable(self) -> sa.ColumnElement[bool]:
        """A WHERE clause over `pages` that keeps exactly the pages this member can read."""
        if self.member.is_admin:
            return sa.true()
        return _readable(self)

    def _readable(self) -> sa.ColumnElement[bool]:
        return sa.and_(self._granted(), self._no_hidden_run_page())

    def decidable(self) -> sa.ColumnElement[bool]:
        """A WHERE clause over `pages` that keeps the pages whose suggestions this member
        decides: those it can edit, outside `raw`; none for an agent."""
        if not self._person():
            return sa.false()
        editable = pages.c.space != NEVER_EDITED
        if self.member.is_admin:
            return editable
        written = [held.clause() for held in self.grants if held.level == "write"]
        return sa.and_(editable, sa.or_(sa.false(), *written), self._no_hidden_run_page())

    def sees_suggestion(
        self, suggester_id: int, space: str, path: str, created_by: int | None
    ) -> bool:
        """Who sees a suggestion of either kind: its suggester, and whoever decides on its
        page (SPEC 3). `seen_suggestions` is the same rule in SQL."""
        return suggester_id == self.member.id or self.can_decide(space, path, created_by)

    def seen_suggestions(self, table: sa.Table) -> sa.ColumnElement[bool]:
        """A WHERE clause over a table of suggestions that keeps those this member sees, as
        `sees_suggestion` says."""
        decided = sa.select(pages.c.id).where(self.decidable())
        return sa.or_(table.c.suggester_id == self.member.id, table.c.page_id.in_(decided))


# The clause of each member's grants, built once for the same grants: a clause is never
# changed once built, and building it costs more than the read it filters.
_readable = functools.lru_cache(maxsize=1024)(Rights._readable)


Action = Literal["read", "create", "edit", "suggest", "decide", "manage"]
ACTIONS: tuple[Action, ...] = ("read", "create", "edit", "suggest", "decide", "manage")


def may_ever(member: Member, action: Action) -> bool:
    """Whether any page could let `member` do `action`, by the same rules as every check
    (Rights), given every grant there is: what an interface offers the member at all. An
    agent may edit (its own pages in `output:<agent>/`) but never decide, whatever it is given."""
    best = Rights(member, tuple(Held(space, "", "write") for space in SPACES))
    checks = {
        "read": best.can_read,
        "edit": best.can_edit,
        "suggest": best.can_suggest,
        "decide": best.can_decide,
        "manage": best.can_manage,
    }
    page = f"{member.name}/page" if member.is_agent else "page"  # an agent's: in its folder
    if action == "create":
        return any(best.can_create(space, page) for space in SPACES)
    return any(checks[action](space, page, member.id) for space in SPACES)


_GRANTS_OF = sa.select(grants.c.space, grants.c.path, grants.c.level).where(
    grants.c.member_id == sa.bindparam("member_id")
)


def rights(conn: Connection, member: Member) -> Rights:
    """Read a member's grants in this transaction."""
    if member.is_admin:
        return Rights(member, ())  # an admin may do anything: no grant changes that
    held = conn.execute(_GRANTS_OF, {"member_id": member.id}).all()
    return Rights(member, tuple(Held(space, path, level) for space, path, level in held))


# -- a page and the actor's rights on it ----------------------------------------------------

Need = Literal["read", "edit", "manage"]
AnyPage = TypeVar("AnyPage", bound=PageHead)


def _locked(query: sa.Select[Any], lock: bool) -> sa.Select[Any]:
    # NO KEY UPDATE: writers queue; rows that merely refer to the page do not
    return query.with_for_update(key_share=True) if lock else query


_PAGE_AT = {
    lock: _locked(
        sa.select(pages).where(
            pages.c.space == sa.bindparam("space"), pages.c.path == sa.bindparam("path")
        ),
        lock,
    )
    for lock in (False, True)
}
_PAGE_BY_ID = {
    lock: _locked(sa.select(pages).where(pages.c.id == sa.bindparam("id")), lock)
    for lock in (False, True)
}


def access_page(
    conn: Connection,
    actor: Member,
    address: Address | int,
    *,
    need: Need = "read",
    lock: bool = False,
    in_trash: bool | None = False,
) -> tuple[PageRow, Rights]:
    """Fetch a page (by address or id) and check the actor may `need` it; lock its row when
    asked.

    Raises NotFound (no such page, or the actor cannot read it; a page in or out of the trash
    when the other was wanted) and ReadOnly (the actor can read but not do this).
    """
    if isinstance(address, int):
        found = conn.execute(_PAGE_BY_ID[lock], {"id": address}).mappings().first()
    else:
        params = {"space": address.space, "path": address.path}
        found = conn.execute(_PAGE_AT[lock], params).mappings().first()
    row = PageRow.of(found) if found is not None else None
    return authorise(conn, actor, address, row, need=need, in_trash=in_trash)


def run_pages_hidden(conn: Connection, mine: Rights, heads: Iterable[AnyPage]) -> set[int]:
    """The ids of those of `heads` that are run pages whose run looked at a page `mine`
    cannot read: a run page quotes its page (a title, what is wrong with it), so it is read
    only by those who can read that page too. One statement, only when output pages are
    among them; `heads` are pages `mine` can otherwise read."""
    if mine.member.is_admin:
        return set()
    shown = {f"{h.space}:{h.path}": h.id for h in heads if h.space == RUN_PAGES}
    if not shown:
        return set()
    subject = _SUBJECT
    looked_at = conn.execute(
        sa.select(runs.c.run_page, subject.c.space, subject.c.path, subject.c.created_by)
        .join(subject, runs.c.address == subject.c.space.concat(":").concat(subject.c.path))
        .where(runs.c.run_page.in_(shown))
    )
    return {
        shown[r.run_page] for r in looked_at if not mine.can_read(r.space, r.path, r.created_by)
    }


def run_page_hidden(conn: Connection, mine: Rights, row: AnyPage) -> bool:
    """Whether `row` is a run page hidden from `mine` (run_pages_hidden)."""
    return bool(run_pages_hidden(conn, mine, [row]))


def authorise(
    conn: Connection,
    actor: Member,
    address: Address | int,
    row: AnyPage | None,
    *,
    need: Need = "read",
    in_trash: bool | None = False,
) -> tuple[AnyPage, Rights]:
    """The page `row` fetched for `address`, and the actor's rights, once they are known to
    allow `need` on it; raises as access_page says."""
    mine = rights(conn, actor)
    if (
        row is None
        or not mine.can_read(row.space, row.path, row.created_by)
        or run_page_hidden(conn, mine, row)
    ):
        raise NotFound(f"There is no page {address}.", address=str(address))
    where = Address(row.space, row.path)
    if in_trash is not None and row.in_trash != in_trash:
        state = "is in the trash; restore it first" if not in_trash else "is not in the trash"
        raise NotFound(f"{where} {state}.", address=str(where))
    allowed = mine.can_manage if need == "manage" else mine.can_edit
    if need != "read" and not allowed(row.space, row.path, row.created_by):
        raise ReadOnly(read_only_message(where, actor), address=str(where))
    return row, mine


def create_refused(mine: Rights, where: Address) -> ReadOnly:
    """Why `mine`'s member may not create a page at `where`, and where they may."""
    refused = (
        "Pages arrive in raw by import only."
        if where.space == NEVER_EDITED
        else f"You cannot create pages at {where}."
    )
    places = mine.creatable()
    if not places:
        return ReadOnly(
            f"{refused} You cannot create pages anywhere yet; someone who can write a space "
            "or folder may share it with you for writing.",
            address=str(where),
            create_under=[],
        )
    listed = places[0] if len(places) == 1 else f"{', '.join(places[:-1])} or {places[-1]}"
    return ReadOnly(
        f"{refused} You can create pages under {listed}, such as {places[0]}new-page.",
        address=str(where),
        create_under=list(places),
    )


def read_only_message(address: Address, actor: Member) -> str:
    """Why the actor cannot change the page at `address`, and what they may do instead."""
    if address.space == NEVER_EDITED:
        return f"{address} is in raw, which is never edited; import a new version instead."
    if actor.is_agent:
        return (
            f"{actor.name} is an agent and may only read {address}; "
            "suggest a change instead of editing."
        )
    return f"You can read {address} but not change it; suggest a change instead."


# -- sharing --------------------------------------------------------------------------------


def check_may_give(mine: Rights, target: Address, *, taking_back: bool = False) -> None:
    """Whether `mine`'s member may give a grant on `target` (a space, a folder or a page):
    an admin, or a person whose write covers all of it. Taking a grant back is allowed to
    exactly whom could give it now: this one rule decides both.

    Raises NotFound (a page the member cannot read) and ReadOnly (anything else refused).
    """
    verb = "take back what was given on" if taking_back else "share"
    if mine.member.is_agent:
        raise ReadOnly(f"An agent cannot {verb} pages.")
    if mine.member.via is not None:
        raise ReadOnly(f"A routine's run cannot {verb} pages; its member can.")
    if mine.member.administers:
        return
    if target.kind == "page":
        level = mine.level(target.space, target.path)
        if level is None:
            raise NotFound(f"There is no page {target}.", address=str(target))
        allowed = level == "write"
    else:
        # A folder or a space: only a write grant that covers all of it.
        allowed = any(
            held.level == "write" and held.covers(target.space, target.path) for held in mine.grants
        )
    if not allowed:
        raise ReadOnly(
            f"Only an admin or someone who can write all of {target} can {verb} it.",
            address=str(target),
        )


_GRANT_AT = sa.select(grants.c.id, grants.c.level).where(
    grants.c.member_id == sa.bindparam("member_id"),
    grants.c.space == sa.bindparam("space"),
    grants.c.path == sa.bindparam("path"),
)


def _lock_grants_of(conn: Connection, member_id: int) -> None:
    """Changes of one member's grants queue on the member's row (PostgreSQL; SQLite's writers
    queue anyway): each reads the level it records as before after the last one committed,
    and two that give the same grant at once never both insert it."""
    # NO KEY UPDATE: rows that merely refer to the member (its revisions, its suggestions) do
    # not wait on it.
    mine = sa.select(members.c.id).where(members.c.id == member_id)
    conn.execute(mine.with_for_update(key_share=True))


def share(actor: Member, *, address: str, member: str, level: str) -> Grant:
    """Give `member` (an e-mail or an agent's name) `read` or `write` on a space, folder or page.

    Sharing again changes the level. Each change is recorded (grant_changes) in the same
    transaction. Raises InvalidRequest (a bad level, write for an agent), NotFound (no such
    member, a page the actor cannot read), ReadOnly (the actor may not share this).
    """
    if level not in LEVELS:
        raise InvalidRequest("The level is read or write.", field="level")
    granted: Level = "write" if level == "write" else "read"
    target = parse_address(address)
    with database().write() as conn:
        check_may_give(rights(conn, actor), target)
        grantee = members_service.lookup(conn, member)
        if grantee is None:
            raise NotFound(f"There is no member {member}.", field="member")
        if grantee.is_agent and granted == "write":
            raise InvalidRequest(
                f"{grantee.name} is an agent: it is given read only and may suggest changes, "
                "never edit what it was given.",
                field="level",
            )
        _lock_grants_of(conn, grantee.id)
        where = {"member_id": grantee.id, "space": target.space, "path": target.path}
        existing = conn.execute(_GRANT_AT, where).first()
        if existing is None:
            conn.execute(grants.insert().values(**where, level=granted, created_at=now()))
        elif existing.level != granted:
            conn.execute(grants.update().where(grants.c.id == existing.id).values(level=granted))
        before = existing.level if existing is not None else None
        grant_changes.record(
            conn, actor, member_id=grantee.id, where=target, before=before, after=granted
        )
    return Grant(grantee.handle, str(target), granted)


def unshare(actor: Member, *, address: str, member: str) -> None:
    """Take back what `member` was given on exactly this address: allowed to whoever could
    give it now (check_may_give), and recorded in the same transaction.

    Raises NotFound (no such grant, a page the actor cannot read), ReadOnly (the actor could
    not give it).
    """
    target = parse_address(address)
    with database().write() as conn:
        check_may_give(rights(conn, actor), target, taking_back=True)
        grantee = members_service.lookup(conn, member)
        existing = None
        if grantee is not None:
            _lock_grants_of(conn, grantee.id)
            where = {"member_id": grantee.id, "space": target.space, "path": target.path}
            existing = conn.execute(_GRANT_AT, where).first()
        if grantee is None or existing is None:
            raise NotFound(f"{member} was given nothing on {target}.", field="member")
        conn.execute(grants.delete().where(grants.c.id == existing.id))
        grant_changes.record(
            conn, actor, member_id=grantee.id, where=target, before=existing.level, after=None
        )


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
        if not actor.administers:  # an admin's run is no admin
            query = query.where(grants.c.member_id == actor.id)
        rows = conn.execute(query).all()
    return [Grant(r.email or r.name, str(Address(r.space, r.path)), r.level) for r in rows]
