"""A team made through the services, as people would make it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from codna.services.members import access, members
from codna.services.members.members import Member
from codna.storage.database import Database
from codna.storage.schema import metadata


@dataclass(frozen=True)
class Team:
    admin: Member
    writer: Member  # write on wiki, raw and output
    reader: Member  # read on wiki, raw and output
    stranger: Member  # no grant at all
    agent: Member  # read on wiki, raw and output


HANDLES = ("ada@example.com", "wanda@example.com", "rita@example.com", "sam@example.com")

# The rows the team is, per engine: made through the services by the first test of each
# process that asks for a team, and written back as they are for the others.
_made: dict[str, list[tuple[sa.Table, list[dict[str, Any]]]]] = {}


def _make_team() -> None:
    admin = members.init_workspace(admin_email=HANDLES[0], admin_password="correct horse")
    writer = members.add_person(admin, email=HANDLES[1], name="Wanda")
    reader = members.add_person(admin, email=HANDLES[2], name="Rita")
    members.add_person(admin, email=HANDLES[3], name="Sam")
    members.add_agent(admin, name="checker", responsible=[HANDLES[1]])
    for space in ("wiki", "raw", "output"):
        access.share(admin, address=space, member=writer.email or "", level="write")
        access.share(admin, address=space, member=reader.email or "", level="read")
        access.share(admin, address=space, member="checker", level="read")


def _rows(db: Database) -> list[tuple[sa.Table, list[dict[str, Any]]]]:
    with db.read() as conn:
        return [
            (table, [dict(row) for row in conn.execute(sa.select(table)).mappings()])
            for table in metadata.sorted_tables
        ]


def _write_back(db: Database, rows: list[tuple[sa.Table, list[dict[str, Any]]]]) -> None:
    with db.write() as conn:
        for table, kept in rows:
            if kept:
                conn.execute(table.insert(), kept)
        if not db.is_sqlite:  # SQLite moves an AUTOINCREMENT on by the ids written
            for table, kept in rows:
                if kept and "id" in table.c:
                    conn.execute(
                        sa.text("SELECT setval(pg_get_serial_sequence(:t, 'id'), :n)"),
                        {"t": table.name, "n": max(row["id"] for row in kept)},
                    )


@pytest.fixture
def team(db: Database) -> Team:
    """The team, made through the services as people would make it; after the first time in
    a process, its rows are written back as they were made."""
    if db.dialect in _made:
        _write_back(db, _made[db.dialect])
    else:
        _make_team()
        _made[db.dialect] = _rows(db)
    admin, writer, reader, stranger = (members.member_by_handle(h) for h in HANDLES)
    return Team(admin, writer, reader, stranger, members.member_by_handle("checker"))
