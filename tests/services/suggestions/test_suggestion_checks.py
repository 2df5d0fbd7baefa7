"""Whether a pending suggestion still applies is kept for the page version it was made on, so
that listing what waits does not run every suggestion's edits on every call; what was kept is
never taken for a version it was not worked out for, and a read never writes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, checks
from codna.storage.database import Database
from codna.storage.schema import suggestion_checks as kept_checks
from tests.services.conftest import Team
from tests.statements import count_statements

PAGE = "wiki:decisions/0009-queues"
BODY = "## Context\n\nJobs wait.\n\n## Decision\n\nWe use a queue.\n"
CLARIFY = [{"op": "replace", "old": "Jobs wait.", "new": "Jobs wait for minutes."}]


@pytest.fixture
def waiting(team: Team) -> int:
    pages.create_page(team.writer, address=PAGE, title="0009 Queues", body=BODY)
    made = changes.suggest_edit(
        team.agent, address=PAGE, edits=parse_edits(CLARIFY), reason="Be exact."
    )
    assert made.suggestion is not None
    return made.suggestion.id


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The ids of the suggestions whose edits were run to see whether they still apply."""
    ran: list[int] = []
    check = checks._check

    def counted(page, row):  # type: ignore[no-untyped-def]
        ran.append(row.id)
        return check(page, row)

    monkeypatch.setattr(checks, "_check", counted)
    yield ran


def _kept(db: Database, suggestion_id: int) -> sa.RowMapping | None:
    with db.read() as conn:
        query = sa.select(kept_checks).where(kept_checks.c.suggestion_id == suggestion_id)
        return conn.execute(query).mappings().first()


def _applies(editor: Member) -> list[bool | None]:
    return [s.applies for s in inbox.pending_decisions(editor).suggested_changes.items]


def test_making_a_suggestion_keeps_that_it_applies_to_the_version_it_was_made_on(
    db: Database, team: Team, waiting: int, runs: list[int]
) -> None:
    kept = _kept(db, waiting)
    assert kept is not None and (kept["page_version"], kept["applies"]) == (1, True)
    assert _applies(team.writer) == [True]
    assert runs == []  # nothing to work out: the page is at the version it was checked on


def test_a_page_that_moved_on_is_checked_by_each_read_which_writes_nothing(
    db: Database, team: Team, waiting: int, runs: list[int]
) -> None:
    editing.edit_page(
        team.writer, address=PAGE, edits=parse_edits([{"op": "append", "text": "More.\n"}])
    )
    with count_statements(db) as ran:
        assert _applies(team.writer) == [True]
        assert _applies(team.writer) == [True]
        assert changes.list_suggestions(team.agent)[0].applies is True
    assert runs == [waiting] * 3  # for version 2, by each read, for its own answer
    assert not [text for text in ran.texts if not text.lstrip().upper().startswith("SELECT")]
    kept = _kept(db, waiting)
    assert kept is not None and (kept["page_version"], kept["applies"]) == (1, True)


def test_what_was_kept_for_an_old_version_is_never_taken_for_a_newer_one(
    db: Database, team: Team, waiting: int, runs: list[int]
) -> None:
    editing.edit_page(
        team.writer,
        address=PAGE,
        edits=parse_edits([{"op": "replace", "old": "Jobs wait.", "new": "Jobs."}]),
    )
    [stale] = inbox.pending_decisions(team.writer).suggested_changes.items
    assert stale.applies is False and stale.actions == ("reject",)
    assert stale.not_applying is not None and stale.not_applying.reason == "text_not_found"
    kept = _kept(db, waiting)  # what version 1 said, never taken for version 2
    assert kept is not None and (kept["page_version"], kept["applies"]) == (1, True)
    # Put the text back: version 3 takes the suggestion again, whatever version 2 said.
    editing.edit_page(
        team.writer,
        address=PAGE,
        edits=parse_edits([{"op": "replace", "old": "Jobs.", "new": "Jobs wait."}]),
    )
    [again] = inbox.pending_decisions(team.writer).suggested_changes.items
    assert again.applies is True and again.actions == ("accept", "reject")
    [stale_again] = _applies(team.writer)
    assert stale_again is True and runs == [waiting] * 3
    changes.decide_edit_suggestion(team.writer, suggestion_id=waiting, decision="accept")
    assert "Jobs wait for minutes." in pages.read_page(team.writer, address=PAGE).body


def test_a_late_check_of_an_older_version_does_not_replace_a_newer_one(
    db: Database, team: Team, waiting: int
) -> None:
    editing.edit_page(
        team.writer, address=PAGE, edits=parse_edits([{"op": "append", "text": "More.\n"}])
    )
    with db.write() as conn:  # a writer keeps the check of version 2
        checks.remember(conn, [checks._kept(waiting, 2, None)])
    with db.write() as conn:  # one that worked on version 1 keeps its check late
        checks.remember(conn, [checks._kept(waiting, 1, None)])
    kept = _kept(db, waiting)
    assert kept is not None and kept["page_version"] == 2


def test_what_was_kept_goes_with_the_page_deleted_for_good(
    db: Database, team: Team, waiting: int
) -> None:
    pages.trash_page(team.writer, address=PAGE)
    pages.purge_page(team.admin, address=PAGE)
    assert _kept(db, waiting) is None
