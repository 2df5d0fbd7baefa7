"""The workspace check, on both databases: every version of every page rebuilds to its
SHA-256, or it names each one that does not."""

from __future__ import annotations

import pytest

from codna.errors import ReadOnly
from codna.markdown import delta
from codna.services.admin import integrity
from codna.services.pages import pages, revisions
from codna.services.pages.revisions import DamagedRevision
from codna.storage.database import Database
from codna.storage.schema import pages as pages_table
from tests.services.conftest import Team
from tests.services.pages.test_revision_deltas import damage, edit, make_body, stored


def test_the_check_names_a_version_whose_delta_was_damaged_and_those_built_on_it(
    team: Team, db: Database
) -> None:
    address = "wiki:damaged"
    pages.create_page(team.writer, address=address, title="D", body=make_body(200))
    for n in range(4):
        edit(team, address, {"op": "replace", "old": f"Line {n} says", "new": f"Line {n} said"})
    start, stop, text = delta.decode(stored(db, address)[2].delta or "")[0]
    damage(db, address, 3, delta=delta.encode([(start, stop, text.upper())]))
    checked = integrity.check_workspace(team.admin)
    assert not checked.ok
    assert [(d.address, d.version) for d in checked.damaged] == [
        (address, 3),
        (address, 4),
        (address, 5),
    ]
    assert all(d.reason == "its text does not match its SHA-256" for d in checked.damaged)


def test_the_check_names_a_delta_that_cannot_be_read_and_the_versions_built_on_it(
    team: Team, db: Database
) -> None:
    address = "wiki:unreadable"
    pages.create_page(team.writer, address=address, title="U", body=make_body(200))
    for n in range(3):
        edit(team, address, {"op": "replace", "old": f"Line {n} says", "new": f"Line {n} said"})
    damage(db, address, 2, delta="[[1, 2")
    checked = integrity.check_workspace(team.admin)
    assert [(d.address, d.version) for d in checked.damaged] == [
        (address, 2),
        (address, 3),
        (address, 4),
    ]
    assert "not JSON" in checked.damaged[0].reason
    with pytest.raises(DamagedRevision, match="the delta is not JSON"):
        revisions.read_revision(team.reader, address=address, version=2)


def test_the_check_passes_on_a_clean_workspace_and_counts_what_it_read(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:one", title="One", body=make_body(50))
    pages.create_page(team.writer, address="wiki:two", title="Two", body="Two.\n")
    edit(team, "wiki:one", {"op": "append", "text": "More."})
    pages.trash_page(team.writer, address="wiki:two")  # in the trash, and checked
    checked = integrity.check_workspace(team.admin)
    assert (checked.ok, checked.pages, checked.versions, checked.damaged) == (True, 2, 3, ())


def test_the_check_knows_a_page_whose_text_is_not_its_latest_version(
    team: Team, db: Database
) -> None:
    pages.create_page(team.writer, address="wiki:drift", title="Drift", body="As saved.\n")
    with db.write() as conn:
        conn.execute(pages_table.update().values(body="Changed behind its back.\n"))
    [found] = integrity.check_workspace(team.admin).damaged
    assert (found.address, found.version) == ("wiki:drift", 1)
    assert found.reason == "the page's text is not its latest version's"


def test_only_an_admin_checks_the_workspace(team: Team) -> None:
    with pytest.raises(ReadOnly):
        integrity.check_workspace(team.writer)
