"""Suggested changes under concurrency, on SQLite and PostgreSQL: one decision, never a lost
edit, and limits that hold however many suggest at once."""

from __future__ import annotations

from codna.errors import CodnaError, LimitReached, NoLongerApplies
from codna.markdown.edits import parse_edits
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from tests.concurrency import at_once, unexpected
from tests.services.conftest import Team

PAGE = "wiki:busy"


def test_accept_racing_an_edit_loses_neither_and_never_applies_text_that_is_gone(
    team: Team,
) -> None:
    for n in range(8):
        address = f"wiki:race/{n}"
        pages.create_page(team.writer, address=address, title="Race", body="alpha\n\nbeta\n")
        made = changes.suggest_edit(
            team.agent,
            address=address,
            edits=parse_edits([{"op": "replace", "old": "alpha", "new": "ALPHA"}]),
            reason="r",
        ).suggestion
        assert made is not None
        # On even pages the edit leaves the suggestion's text alone; on odd ones it removes it.
        old = "beta" if n % 2 == 0 else "alpha"
        edit = lambda a=address, o=old: editing.edit_page(  # noqa: E731
            team.writer, address=a, edits=parse_edits([{"op": "replace", "old": o, "new": "omega"}])
        )
        accept = lambda s=made.id: changes.decide_edit_suggestion(  # noqa: E731
            team.admin, suggestion_id=s, decision="accept"
        )
        results = at_once([edit, accept])
        assert unexpected(results, CodnaError) == [], results
        body = pages.read_page(team.writer, address=address).body
        if n % 2 == 0:
            assert body == "ALPHA\n\nomega\n", results
        elif isinstance(results[1], NoLongerApplies):  # the edit came first: alpha is gone
            assert body == "omega\n\nbeta\n"
        else:  # the accept came first; the edit then found no alpha and was refused
            assert body == "ALPHA\n\nbeta\n" and isinstance(results[0], CodnaError)


def test_fifty_clients_suggesting_at_once_on_one_page_leave_exactly_twenty(team: Team) -> None:
    pages.create_page(team.writer, address=PAGE, title="Busy", body="Text.\n")
    calls = [
        (
            lambda n=n: changes.suggest_edit(
                team.agent,
                address=PAGE,
                edits=parse_edits([{"op": "append", "text": f"Line {n}."}]),
                reason="r",
            )
        )
        for n in range(50)
    ]
    results = at_once(calls)
    assert sum(isinstance(r, changes.SuggestResult) for r in results) == 20
    assert sum(isinstance(r, LimitReached) for r in results) == 30
    assert len(changes.list_suggestions(team.agent, address=PAGE, status="pending")) == 20


def test_one_suggester_on_250_pages_from_16_threads_ends_with_exactly_200(team: Team) -> None:
    for n in range(250):
        pages.create_page(team.writer, address=f"wiki:wide/{n}", title=f"Wide {n}", body="Text.\n")
    calls = [
        (
            lambda n=n: changes.suggest_edit(
                team.agent,
                address=f"wiki:wide/{n}",
                edits=parse_edits([{"op": "append", "text": "More."}]),
                reason="r",
            )
        )
        for n in range(250)
    ]
    results = at_once(calls, threads=16)
    assert sum(isinstance(r, changes.SuggestResult) for r in results) == 200
    assert sum(isinstance(r, LimitReached) for r in results) == 50
    assert len(changes.list_suggestions(team.agent, status="pending", limit=200)) == 200
