"""The work the hot calls do, counted in SQL statements on SQLite and on PostgreSQL.

The numbers are pinned so that a regression in work done (a statement more per read, a query
per item listed) fails here, not in a benchmark nobody reruns. When a change really needs
another statement, change the number here and say why in the commit.
"""

from __future__ import annotations

import pytest

from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.members import tokens
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.services.suggestions import changes, links
from codna.storage.database import Database
from tests.services.conftest import Team
from tests.statements import StatementCounter, Statements

PAGE = "wiki:notes/caching"
BODY = "# Caching\n\n**Status:** Proposed\n\nWe cache rendered pages.\n"
FIX_STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]
READERS = ["reader", "admin", "agent"]

# The statements a decision on a suggested change runs, pinned per engine so that a regression
# in work shows up here. Accepting reads the page (locked on PostgreSQL), the suggestion and the
# decider's grants; it reads the suggester, saves the page and its revision, marks the
# suggestion, tells the suggester, writes the page's event for the workers and reads the names
# the answer shows. Two keep the search index in step on both engines: the lengths of the
# page's sections are read, and the one the change touched is rewritten in place.
ACCEPT = {"sqlite": 12, "postgresql": 12}
# Rejecting does the same without reading the suggester or saving the page.
REJECT = {"sqlite": 6, "postgresql": 6}


def member(team: Team, role: str) -> Member:
    found: Member = getattr(team, role)
    return found


def handle(who: Member) -> str:
    return who.email or who.name


@pytest.fixture
def page(team: Team) -> Team:
    """The page at version 2: made by the writer, then a suggested change accepted."""
    pages.create_page(team.writer, address=PAGE, title="Caching", body=BODY)
    made = changes.suggest_edit(
        team.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="It was decided."
    )
    assert made.suggestion is not None
    changes.decide_edit_suggestion(team.writer, suggestion_id=made.suggestion.id, decision="accept")
    return team


@pytest.mark.parametrize("role", READERS)
def test_a_page_read_with_its_token_check_is_at_most_three_statements(
    page: Team, statements: StatementCounter, role: str
) -> None:
    who = member(page, role)
    secret = tokens.create_token(page.admin, member=handle(who), name="read").secret
    with statements() as ran:
        caller = tokens.authenticate_token(secret)
        read = pages.read_page(caller.member, address=PAGE)
    assert read.version == 2
    count = len(ran)
    assert count <= 3, ran


@pytest.mark.parametrize("role", READERS)
def test_reading_an_older_version_with_its_token_check_is_at_most_four_statements(
    page: Team, statements: StatementCounter, role: str
) -> None:
    who = member(page, role)
    secret = tokens.create_token(page.admin, member=handle(who), name="read").secret
    with statements() as ran:
        caller = tokens.authenticate_token(secret)
        read = pages.read_page(caller.member, address=PAGE, version=1)
    assert (read.version, read.body) == (1, BODY)
    count = len(ran)
    assert count <= 4, ran


def test_accepting_a_suggestion_runs_its_pinned_number_of_statements(
    page: Team, db: Database, statements: StatementCounter
) -> None:
    made = changes.suggest_edit(
        page.agent,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "\nMemory use grows.\n"}]),
        reason="Say what it costs.",
    )
    assert made.suggestion is not None
    with statements() as ran:
        decided = changes.decide_edit_suggestion(
            page.writer, suggestion_id=made.suggestion.id, decision="accept"
        )
    assert (decided.status, decided.accepted_version) == ("accepted", 3)
    count = len(ran)
    assert count == ACCEPT[db.dialect], ran


def test_rejecting_a_suggestion_runs_its_pinned_number_of_statements(
    page: Team, db: Database, statements: StatementCounter
) -> None:
    made = changes.suggest_edit(
        page.agent,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "\nMemory use grows.\n"}]),
        reason="Say what it costs.",
    )
    assert made.suggestion is not None
    with statements() as ran:
        decided = changes.decide_edit_suggestion(
            page.writer, suggestion_id=made.suggestion.id, decision="reject", reason="Not yet."
        )
    assert decided.status == "rejected"
    count = len(ran)
    assert count == REJECT[db.dialect], ran


def make_waiting(team: Team, numbers: range) -> None:
    """A suggested change and a suggested link on each of the pages `wiki:waiting/<n>`, by two
    suggesters in turn, all waiting on the writer."""
    for n in numbers:
        address = f"wiki:waiting/{n}"
        pages.create_page(team.writer, address=address, title=f"Page {n}", body=BODY)
        suggester = team.agent if n % 2 else team.reader
        changes.suggest_edit(
            suggester, address=address, edits=parse_edits(FIX_STATUS), reason="It was decided."
        )
        links.suggest_link(suggester, address=address, target=PAGE, reason="Related.")


def listing_what_waits(team: Team, statements: StatementCounter, waiting: int) -> Statements:
    with statements() as ran:
        listed = inbox.pending_decisions(team.writer)
    assert (listed.suggested_changes.total, listed.suggested_links.total) == (waiting, waiting)
    assert len(listed.suggested_changes.items) == len(listed.suggested_links.items) == waiting
    return ran


def test_listing_what_waits_takes_as_many_statements_for_twenty_suggestions_as_for_one(
    page: Team, statements: StatementCounter
) -> None:
    make_waiting(page, range(1))
    one = listing_what_waits(page, statements, 1)
    make_waiting(page, range(1, 20))
    twenty = listing_what_waits(page, statements, 20)
    counts = (len(one), len(twenty))
    assert counts[1] == counts[0], f"with one waiting, {one}\nwith twenty, {twenty}"
