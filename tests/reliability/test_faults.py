"""A fault after each statement of a write leaves all of it or none of it, on SQLite and
PostgreSQL: accept, edit, revert, suggest and import are each run again and again, failing
after their first statement, then their second, and so on, until one runs to its end. After
every fault every table holds exactly the rows it held before, SQLite's integrity_check says
ok, and the workspace check finds nothing damaged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.admin import integrity, transfer
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import changes, reverts
from codna.storage.database import Database
from tests.services.conftest import Team

MOST_STATEMENTS = 200  # no operation here runs this many; one that does fails the test


class InjectedFault(Exception):
    """The fault the test injects after a statement."""


@dataclass(eq=False)  # hashable by identity, as an event listener must be
class Fault:
    """Raises InjectedFault after the `at`-th statement run on the engine while armed."""

    at: int = 0
    seen: int = 0

    def __call__(self, *_: Any) -> None:
        if not self.at:
            return
        self.seen += 1
        if self.seen == self.at:
            raise InjectedFault(f"after statement {self.at}")

    def arm(self, at: int) -> None:
        self.at, self.seen = at, 0

    def disarm(self) -> None:
        self.at = 0


@pytest.fixture
def fault(db: Database) -> Iterator[Fault]:
    injected = Fault()
    sa.event.listen(db.engine, "after_cursor_execute", injected)
    try:
        yield injected
    finally:
        sa.event.remove(db.engine, "after_cursor_execute", injected)


Rows = dict[str, list[tuple[str, ...]]]


def snapshot(db: Database) -> Rows:
    """Every row of every table (the search index's own tables too), in a stable order."""
    with db.read() as conn:
        names = sa.inspect(conn).get_table_names()
        return {
            name: sorted(
                tuple(repr(value) for value in row)
                for row in conn.execute(sa.text(f'SELECT * FROM "{name}"'))
            )
            for name in names
        }


def check_sound(db: Database, team: Team) -> None:
    """SQLite's own check says ok, and every version of every page reads back as saved."""
    if db.is_sqlite:
        with db.read() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalars().all() == ["ok"]
    checked = integrity.check_workspace(team.admin)
    assert checked.ok, checked


def all_or_none(db: Database, team: Team, fault: Fault, operation: Callable[[], object]) -> int:
    """Run `operation` with a fault after its 1st statement, its 2nd, ... until it runs to
    its end; after each fault the database is as it was. How many statements it ran."""
    before = snapshot(db)
    for at in range(1, MOST_STATEMENTS + 1):
        fault.arm(at)
        try:
            operation()
        except InjectedFault:
            fault.disarm()
            assert snapshot(db) == before, f"a fault after statement {at} left part of it"
            check_sound(db, team)
            continue
        finally:
            fault.disarm()
        assert snapshot(db) != before, "the operation wrote nothing"
        check_sound(db, team)
        return at - 1
    pytest.fail(f"the operation ran more than {MOST_STATEMENTS} statements")


def test_a_fault_in_accepting_a_suggestion_leaves_it_pending_and_the_page_as_it_was(
    team: Team, db: Database, fault: Fault
) -> None:
    address = "wiki:faults/accept"
    pages.create_page(team.writer, address=address, title="Accept", body="The old text.\n")
    made = changes.suggest_edit(
        team.agent,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "old", "new": "new"}]),
        reason="Newer is better.",
    ).suggestion
    assert made is not None

    ran = all_or_none(
        db,
        team,
        fault,
        lambda: changes.decide_edit_suggestion(
            team.writer, suggestion_id=made.id, decision="accept"
        ),
    )

    assert ran > 3
    accepted = changes.read_suggestion(team.writer, suggestion_id=made.id)
    assert (accepted.status, accepted.accepted_version) == ("accepted", 2)
    assert pages.read_page(team.writer, address=address).body == "The new text.\n"


def test_a_fault_in_an_edit_leaves_the_page_at_its_version(
    team: Team, db: Database, fault: Fault
) -> None:
    address = "wiki:faults/edit"
    pages.create_page(team.writer, address=address, title="Edit", body="# One\n\nA.\n\n# Two\n")
    edits = parse_edits(
        [
            {"op": "replace", "old": "A.", "new": "B."},
            {"op": "append", "text": "C."},
        ]
    )

    all_or_none(
        db,
        team,
        fault,
        lambda: editing.edit_page(
            team.writer, address=address, edits=edits, title="Edited", tags_add=["x"]
        ),
    )

    page = pages.read_page(team.writer, address=address)
    assert (page.version, page.title, page.tags) == (2, "Edited", ("x",))
    assert page.body == "# One\n\nB.\n\n# Two\n\nC.\n"


def test_a_fault_in_a_revert_leaves_the_page_and_what_was_accepted_as_they_were(
    team: Team, db: Database, fault: Fault
) -> None:
    address = "wiki:faults/revert"
    pages.create_page(team.writer, address=address, title="Revert", body="one\n\ntwo\n")
    made = changes.suggest_edit(
        team.agent,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "one", "new": "ONE"}]),
        reason="Louder.",
    ).suggestion
    assert made is not None
    changes.decide_edit_suggestion(team.writer, suggestion_id=made.id, decision="accept")
    editing.edit_page(
        team.writer, address=address, edits=parse_edits([{"op": "append", "text": "three"}])
    )

    all_or_none(
        db,
        team,
        fault,
        lambda: reverts.revert_revision(team.writer, address=address, version=2),
    )

    assert pages.read_page(team.writer, address=address).body == "one\n\ntwo\n\nthree\n"
    undone = changes.read_suggestion(team.writer, suggestion_id=made.id)
    assert undone.reverted_in_version == 4
    assert revisions.history(team.writer, address=address)[0].kind == "revert"


def test_a_fault_in_suggesting_leaves_no_suggestion(team: Team, db: Database, fault: Fault) -> None:
    address = "wiki:faults/suggest"
    pages.create_page(team.writer, address=address, title="Suggest", body="Text.\n")

    all_or_none(
        db,
        team,
        fault,
        lambda: changes.suggest_edit(
            team.agent,
            address=address,
            edits=parse_edits([{"op": "append", "text": "More text."}]),
            reason="It says more.",
            title="Suggested",
        ),
    )

    (made,) = changes.list_suggestions(team.agent, address=address)
    assert (made.status, made.applies) == ("pending", True)


def test_a_fault_in_an_import_leaves_none_of_its_documents(
    team: Team, db: Database, fault: Fault
) -> None:
    documents = [
        transfer.Document(f"notes/{n}.md", f"---\ntags: [imported]\n---\n# Note {n}\n\nText.\n")
        for n in range(3)
    ]

    all_or_none(
        db,
        team,
        fault,
        lambda: transfer.import_documents(team.writer, documents=documents, folder="raw:sources/"),
    )

    listed = pages.list_pages(team.writer, address="raw:sources/")
    assert sorted(p.title for p in listed) == ["Note 0", "Note 1", "Note 2"]
