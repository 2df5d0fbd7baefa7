"""Automations: when a page is created or changed under a folder, a routine runs, as the member
who made the rule. They watch pages only: suggestions start nothing (ADR 0024, settled
question 5).

A rule may name only a routine this process knows: the routines register their names here as
they load (`register_routine`), and the worker registers its handlers the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, RowMapping

from codna.errors import Duplicate, InvalidRequest, NotFound, ReadOnly
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events.runs import check_routine_name, command_routines
from codna.services.limits import is_id
from codna.services.members.access import Rights, rights
from codna.services.members.members import Member, member_by_id_in
from codna.storage.database import inserted_id
from codna.storage.schema import automations, members

EVENT_TYPES = ("document.created", "document.changed")

_routines: set[str] = set()


def register_routine(name: str) -> None:
    """Make `name` a routine that automations may run. Raises InvalidRequest for a name that
    is not lowercase letters, digits and '-', starting with a letter (at most 100)."""
    check_routine_name(name)
    _routines.add(name)


def known_routines() -> frozenset[str]:
    """The routines this process knows, by name."""
    return frozenset(_routines)


@dataclass(frozen=True)
class Automation:
    """When `event` happens to a page under `folder`, run `routine` as `member`."""

    id: int
    event: str
    folder: str  # 'wiki:decisions/', or 'wiki:' for the whole space
    routine: str
    member_id: int  # the member the routine runs as: who made the rule
    member: str  # that member's handle (an e-mail, an agent's name)
    created_by: str
    created_at: datetime
    disabled_at: datetime | None

    @property
    def enabled(self) -> bool:
        return self.disabled_at is None


@dataclass(frozen=True)
class Watch:
    """What one enabled automation watches: an event type on pages under space:path."""

    event_type: str
    space: str
    path: str

    def covers(self, event_type: str, space: str, path: str) -> bool:
        return (event_type, space) == (self.event_type, self.space) and path.startswith(self.path)


def _check_routine(name: object) -> str:
    routine = check_routine_name(name)
    known = sorted(_routines | {r.name for r in command_routines()})
    if routine not in known:
        listed = f"the routines are {', '.join(known)}" if known else "no routine is installed here"
        raise InvalidRequest(f"There is no routine {routine}; {listed}.", field="routine")
    return routine


def _check_event(event: object) -> str:
    if event not in EVENT_TYPES:
        raise InvalidRequest(
            f"{event!r} is not an event; an automation starts on {' or '.join(EVENT_TYPES)}.",
            field="event",
        )
    return str(event)


def _check_folder(folder: object) -> Address:
    where = parse_address(folder, field="folder")
    if where.kind == "page":
        raise InvalidRequest(
            f"{where} is a page's address; an automation watches a space or a folder, such "
            f"as {where}/.",
            field="folder",
        )
    return where


def _folder(space: str, path: str) -> str:
    return f"{space}:{path}"


_maker = members.alias("maker")
_runs_as = members.alias("runs_as")
_SELECT = (
    sa.select(
        automations,
        sa.func.coalesce(_runs_as.c.email, _runs_as.c.name).label("member_handle"),
        sa.func.coalesce(_maker.c.email, _maker.c.name).label("maker_handle"),
    )
    .join(_runs_as, _runs_as.c.id == automations.c.member_id)
    .join(_maker, _maker.c.id == automations.c.created_by)
)


def _automation(row: RowMapping) -> Automation:
    return Automation(
        id=row["id"],
        event=row["event_type"],
        folder=_folder(row["space"], row["path"]),
        routine=row["routine"],
        member_id=row["member_id"],
        member=row["member_handle"],
        created_by=row["maker_handle"],
        created_at=row["created_at"],
        disabled_at=row["disabled_at"],
    )


def _one(conn: Connection, automation_id: int) -> Automation:
    row = conn.execute(_SELECT.where(automations.c.id == automation_id)).mappings().one()
    return _automation(row)


def add(actor: Member, *, event: str, folder: str, routine: str) -> Automation:
    """Run `routine` as the actor whenever `event` happens to a page under `folder` (a space
    or a folder the actor can read).

    Raises InvalidRequest (an unknown event or routine, a page's address), ReadOnly (an
    agent, a routine's run), NotFound (the actor cannot read the folder), Duplicate (the same
    rule is on).
    """
    event = _check_event(event)
    where = _check_folder(folder)
    if where.space == "output":
        raise InvalidRequest(
            "An automation watches wiki or raw: routines write their run pages in output, so "
            "one watching output would start itself.",
            field="folder",
        )
    routine = _check_routine(routine)
    if actor.is_agent:
        raise ReadOnly(
            f"{actor.name} is an agent and cannot make automations; a person responsible for "
            "it can.",
        )
    _check_not_a_run(actor)
    with database().write() as conn:
        if not rights(conn, actor).can_read(where.space, where.path):
            raise NotFound(
                f"There is no folder {_folder(where.space, where.path)} you can read.",
                field="folder",
            )
        same = conn.execute(
            sa.select(automations.c.id).where(
                automations.c.member_id == actor.id,
                automations.c.event_type == event,
                automations.c.space == where.space,
                automations.c.path == where.path,
                automations.c.routine == routine,
                automations.c.disabled_at.is_(None),
            )
        ).scalar()
        if same is not None:
            raise Duplicate(
                f"Automation {same} runs {routine} as you on {event} under "
                f"{_folder(where.space, where.path)} already.",
                automation_id=same,
            )
        made = conn.execute(
            automations.insert().values(
                event_type=event,
                space=where.space,
                path=where.path,
                routine=routine,
                member_id=actor.id,
                created_by=actor.id,
                created_at=now(),
            )
        )
        return _one(conn, inserted_id(made))


def list_automations(actor: Member) -> list[Automation]:
    """Every automation for an admin; anyone else's own (made by them or run as them). Oldest
    first, disabled ones too."""
    with database().read() as conn:
        query = _SELECT.order_by(automations.c.id)
        if not actor.administers:  # an admin's run is no admin
            query = query.where(
                sa.or_(automations.c.member_id == actor.id, automations.c.created_by == actor.id)
            )
        return [_automation(row) for row in conn.execute(query).mappings()]


def disable(actor: Member, *, automation_id: int) -> Automation:
    """Stop an automation: from now on no event starts it (an event already taken runs).
    Its maker, the member it runs as, or an admin may; to anyone else it is not there.
    Disabling a disabled one changes nothing. Raises NotFound, ReadOnly (a routine's run,
    which starts and stops nothing)."""
    missing = NotFound(f"There is no automation {automation_id}.", field="automation_id")
    if not is_id(automation_id):
        raise missing
    with database().write() as conn:
        row = (
            conn.execute(
                sa.select(automations).where(automations.c.id == automation_id).with_for_update()
            )
            .mappings()
            .first()
        )
        if row is None or not (
            actor.administers or actor.id in (row["member_id"], row["created_by"])
        ):
            raise missing
        _check_not_a_run(actor)
        conn.execute(
            automations.update()
            .where(automations.c.id == automation_id, automations.c.disabled_at.is_(None))
            .values(disabled_at=now())
        )
        return _one(conn, automation_id)


def _check_not_a_run(actor: Member) -> None:
    """A routine's run starts no run: it neither makes nor stops automations."""
    if actor.via is not None:
        raise ReadOnly("A routine's run cannot make or stop automations; its member can.")


def watches(conn: Connection) -> tuple[Watch, ...]:
    """What the enabled automations watch, for sorting events that start nothing from those
    that may (`matching` then says which run, as their members' rights are now)."""
    rows = conn.execute(
        sa.select(automations.c.event_type, automations.c.space, automations.c.path)
        .where(automations.c.disabled_at.is_(None))
        .distinct()
    )
    return tuple(Watch(*row) for row in rows)


def matching(conn: Connection, event_type: str, page: Address) -> list[Automation]:
    """The enabled automations that an event of `event_type` on `page` starts: its type, a
    folder holding the page, and a member who is not disabled and can read the page now.
    Oldest first."""
    rows = (
        conn.execute(
            _SELECT.where(
                automations.c.disabled_at.is_(None),
                automations.c.event_type == event_type,
                automations.c.space == page.space,
            ).order_by(automations.c.id)
        )
        .mappings()
        .all()
    )
    found = []
    rights_of: dict[int, Rights | None] = {}
    for row in rows:
        if not page.path.startswith(row["path"]):
            continue
        member_id = row["member_id"]
        if member_id not in rights_of:
            member = member_by_id_in(conn, member_id)
            rights_of[member_id] = (
                None if member is None or member.disabled else rights(conn, member)
            )
        mine = rights_of[member_id]
        if mine is not None and mine.can_read(page.space, page.path):
            found.append(_automation(row))
    return found


def for_event(event_type: str, page: Address) -> list[Automation]:
    """`matching`, in a transaction of its own: what the worker runs for an event."""
    with database().read() as conn:
        return matching(conn, event_type, page)
