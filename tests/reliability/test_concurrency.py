"""Concurrency through the services, on SQLite and PostgreSQL: one decision however many
editors press Accept at once, races between an accept, an edit and a revert that end as some
serial order of them would, and the suggestion limits held exactly under many suggesters.

The quick forms run in the suite; `pytest --long` runs the rounds docs/reliability.md reports.
tests/services/pages/test_concurrency.py and suggestions/test_suggestion_concurrency.py hold
the simpler cases.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from codna.errors import (
    AlreadyDecided,
    CodnaError,
    Conflict,
    InvalidEdit,
    LimitReached,
    NoLongerApplies,
)
from codna.markdown.edits import parse_edits
from codna.services import limits
from codna.services.members import access, members
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import changes, reverts
from codna.storage.database import Database
from codna.storage.schema import edit_suggestions, notifications
from tests.concurrency import DEADLINE, at_once, unexpected
from tests.services.conftest import Team


def outcome(call: Callable[[], object]) -> object:
    """What a call returned, or the exception it raised (any, so that none goes unseen)."""
    try:
        return call()
    except Exception as error:  # an unexpected one is what the tests look for
        return error


# -- 32 editors accept one suggestion at once ----------------------------------------------


def test_thirty_two_editors_accepting_one_suggestion_at_once_make_exactly_one_revision(
    team: Team, db: Database, long_form: bool
) -> None:
    rounds = 200 if long_form else 10
    address = "wiki:accepted-at-once"
    pages.create_page(team.writer, address=address, title="At once", body="Start.\n")
    editors = [team.writer, team.admin]

    def accept(editor: Member, suggestion_id: int) -> Callable[[], object]:
        return lambda: changes.decide_edit_suggestion(
            editor, suggestion_id=suggestion_id, decision="accept"
        )

    for n in range(rounds):
        before = pages.read_page(team.writer, address=address).version
        made = changes.suggest_edit(
            team.agent,
            address=address,
            edits=parse_edits([{"op": "append", "text": f"Line {n}."}]),
            reason="One more line.",
        ).suggestion
        assert made is not None
        results = at_once([accept(editors[i % 2], made.id) for i in range(32)])

        assert unexpected(results, AlreadyDecided) == [], f"round {n}"
        accepted = [r for r in results if isinstance(r, changes.Suggestion)]
        assert len(accepted) == 1, f"round {n}: {results}"
        assert sum(isinstance(r, AlreadyDecided) for r in results) == 31
        assert accepted[0].accepted_version == before + 1
        page = pages.read_page(team.writer, address=address)
        assert page.version == before + 1 and page.body.count(f"Line {n}.") == 1
        latest = revisions.history(team.writer, address=address)[0]
        assert (latest.version, latest.kind) == (before + 1, "accept_suggestion")
        with db.read() as conn:
            told = conn.execute(
                sa.select(sa.func.count()).where(notifications.c.edit_suggestion_id == made.id)
            ).scalar_one()
        assert told == 1, f"round {n}: the suggester was told {told} times"
    history = revisions.history(team.writer, address=address)
    assert [r.version for r in history] == list(range(rounds + 1, 0, -1))


# -- an accept, an edit and a revert in every order ----------------------------------------

BODY = "alpha\n\nbeta\n\ngamma\n"


@dataclass(frozen=True)
class Race:
    """A page made for one race: version 2 changed gamma to GAMMA, and a suggestion to change
    alpha to ALPHA waits. `edit` is the edit that races the accept and the revert of
    version 2."""

    address: str
    suggestion_id: int


# The edit racing the others. "named": it changes the text the suggestion changes, so the two
# exclude each other (the loser's text is gone). "stale": it is written against version 2
# and changes what version 2 wrote, so it is a conflict unless first, and once it is saved
# version 2 can no longer be reverted.
EDITS = {
    "named": ([{"op": "replace", "old": "alpha", "new": "omega"}], None),
    "stale": ([{"op": "replace", "old": "GAMMA", "new": "delta"}], 2),
}
OPS = ("accept", "edit", "revert")
# A refusal in a race is the clean one that names why: the text is gone, or the page moved on.
CLEAN = (Conflict, InvalidEdit, NoLongerApplies)


def make_race(team: Team, address: str) -> Race:
    pages.create_page(team.writer, address=address, title="Race", body=BODY)
    editing.edit_page(
        team.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "gamma", "new": "GAMMA"}]),
    )
    made = changes.suggest_edit(
        team.agent,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "alpha", "new": "ALPHA"}]),
        reason="Names are capitalised.",
    ).suggestion
    assert made is not None
    return Race(address, made.id)


def race_calls(team: Team, race: Race, variant: str) -> dict[str, Callable[[], object]]:
    edits, base_version = EDITS[variant]
    return {
        "accept": lambda: changes.decide_edit_suggestion(
            team.admin, suggestion_id=race.suggestion_id, decision="accept"
        ),
        "edit": lambda: editing.edit_page(
            team.writer, address=race.address, edits=parse_edits(edits), base_version=base_version
        ),
        "revert": lambda: reverts.revert_revision(team.writer, address=race.address, version=2),
    }


Outcomes = tuple[str, ...]  # per op of OPS: "ok" or the refusal's code
State = tuple[str, tuple[str, ...], str, int]  # title, tags, body, version


def code_of(result: object) -> str:
    if isinstance(result, CodnaError):
        return result.code
    assert not isinstance(result, Exception), f"an unexpected exception: {result!r}"
    return "ok"


def final_state(team: Team, race: Race) -> State:
    page = pages.read_page(team.writer, address=race.address)
    return page.title, page.tags, page.body, page.version


def check_race_records(team: Team, race: Race, outcomes: Outcomes) -> None:
    """What the race left besides the text: one revision per success, versions without a
    gap, and the suggestion accepted (with its revision) exactly when the accept succeeded."""
    history = revisions.history(team.writer, address=race.address)
    saved = sum(o == "ok" for o in outcomes)
    assert [r.version for r in history] == list(range(2 + saved, 0, -1))
    made = changes.read_suggestion(team.writer, suggestion_id=race.suggestion_id)
    if outcomes[OPS.index("accept")] == "ok":
        assert made.status == "accepted" and made.accepted_version is not None
        kinds = {r.version: r.kind for r in history}
        assert kinds[made.accepted_version] == "accept_suggestion"
    else:
        assert made.status == "pending" and made.accepted_version is None


@pytest.fixture
def first_statement(db: Database) -> Iterator[dict[int, threading.Event]]:
    """Per thread (by ident) an event set when the thread first runs a statement on `db`:
    the racing calls start in a given order by each waiting until the one before it has
    reached the database, and then run together."""
    started: dict[int, threading.Event] = {}

    def seen(*_: Any) -> None:
        event = started.get(threading.get_ident())
        if event is not None:
            event.set()

    sa.event.listen(db.engine, "before_cursor_execute", seen)
    try:
        yield started
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", seen)


def in_order(
    calls: Sequence[Callable[[], object]], first_statement: dict[int, threading.Event]
) -> list[object]:
    """The calls, released together, each starting once the one before it has reached the
    database (or ended): their outcomes."""
    reached = [threading.Event() for _ in calls]

    def after_the_one_before(position: int) -> Callable[[], object]:
        def run() -> object:
            first_statement[threading.get_ident()] = reached[position]
            try:
                if position > 0:
                    assert reached[position - 1].wait(DEADLINE), "the call before never started"
                return calls[position]()
            finally:
                reached[position].set()

        return run

    return at_once([after_the_one_before(p) for p in range(len(calls))])


@pytest.mark.parametrize("variant", sorted(EDITS))
def test_an_accept_an_edit_and_a_revert_at_once_end_as_some_serial_order_of_them(
    team: Team,
    db: Database,
    long_form: bool,
    variant: str,
    first_statement: dict[int, threading.Event],
) -> None:
    # What each serial order gives, by the same services on fresh pages.
    serial: dict[tuple[Outcomes, State], tuple[str, ...]] = {}
    for n, order in enumerate(itertools.permutations(OPS)):
        race = make_race(team, f"wiki:serial/{variant}/{n}")
        calls = race_calls(team, race, variant)
        done = {op: outcome(calls[op]) for op in order}
        outcomes = tuple(code_of(done[op]) for op in OPS)
        serial[(outcomes, final_state(team, race))] = order
        check_race_records(team, race, outcomes)
    # The order matters: the serial orders end in more than one way.
    assert len(serial) > 1, serial

    repeats = 10 if long_form else 2
    orders = list(itertools.permutations(OPS)) * repeats
    for n, order in enumerate(orders):
        race = make_race(team, f"wiki:race/{variant}/{n}")
        calls = race_calls(team, race, variant)
        ran = in_order([calls[op] for op in order], first_statement)
        results = dict(zip(order, ran, strict=True))
        assert unexpected(list(results.values()), *CLEAN) == [], (order, results)
        outcomes = tuple(code_of(results[op]) for op in OPS)
        state = final_state(team, race)
        assert (outcomes, state) in serial, (
            f"started in the order {order}, the race ended as no serial order would: "
            f"{dict(zip(OPS, outcomes, strict=True))}, {state}; serial results: {serial}"
        )
        check_race_records(team, race, outcomes)


# -- the suggestion limits under 50 suggesting threads --------------------------------------


def suggesters(team: Team, how_many: int) -> list[Member]:
    """`how_many` people who read the wiki, made through the services."""
    made = []
    for n in range(how_many):
        email = f"suggester{n}@example.com"
        made.append(members.add_person(team.admin, email=email, name=f"Suggester {n}"))
        access.share(team.admin, address="wiki", member=email, level="read")
    return made


def suggest(member: Member, address: str, text: str) -> Callable[[], object]:
    return lambda: changes.suggest_edit(
        member,
        address=address,
        edits=parse_edits([{"op": "append", "text": text}]),
        reason="One more line.",
    )


def fifty_at_once(calls: list[Callable[[], object]]) -> list[object]:
    """The calls, shuffled, on 50 threads that start together."""
    order = list(range(len(calls)))
    random.Random(len(calls)).shuffle(order)
    shuffled = at_once([calls[index] for index in order], threads=50)
    results: list[object] = [None] * len(calls)
    for index, result in zip(order, shuffled, strict=True):
        results[index] = result
    return results


def pending_of(db: Database) -> Counter[tuple[int, int]]:
    """How many suggestions wait, per (suggester, page)."""
    with db.read() as conn:
        rows = conn.execute(
            sa.select(edit_suggestions.c.suggester_id, edit_suggestions.c.page_id).where(
                edit_suggestions.c.status == "pending"
            )
        ).all()
    return Counter((r.suggester_id, r.page_id) for r in rows)


def test_many_suggesters_at_once_on_one_page_each_end_with_exactly_twenty_waiting(
    team: Team, db: Database, long_form: bool
) -> None:
    people = suggesters(team, 50 if long_form else 8)
    address = "wiki:crowded"
    pages.create_page(team.writer, address=address, title="Crowded", body="Text.\n")
    tries = limits.PER_PAGE_LIMIT + 5
    calls = [suggest(p, address, f"{p.name}, line {n}.") for p in people for n in range(tries)]

    results = fifty_at_once(calls)

    assert unexpected(results, LimitReached) == []
    for i, person in enumerate(people):
        mine = results[i * tries : (i + 1) * tries]
        made = sum(isinstance(r, changes.SuggestResult) for r in mine)
        refused = [r for r in mine if isinstance(r, LimitReached)]
        assert (made, len(refused)) == (limits.PER_PAGE_LIMIT, 5), person.name
        assert all(r.fields["pending"] == limits.PER_PAGE_LIMIT for r in refused)
    waiting = pending_of(db)
    assert set(waiting.values()) == {limits.PER_PAGE_LIMIT}
    assert len(waiting) == len(people)


def test_many_suggesters_at_once_across_pages_each_end_with_exactly_two_hundred_waiting(
    team: Team, db: Database, long_form: bool
) -> None:
    people = suggesters(team, 50 if long_form else 3)
    per_page = limits.PER_PAGE_LIMIT
    total = limits.TOTAL_LIMIT
    # Pages enough for 200 waiting with no page at its own limit, and more.
    addresses = [f"wiki:wide/{n}" for n in range(total // (per_page // 2) + 2)]
    for address in addresses:
        pages.create_page(team.writer, address=address, title="Wide", body="Text.\n")
    # Each suggester already has 190 waiting, spread 10 to a page, made one by one ...
    head_start = total - 10
    for person in people:
        for n in range(head_start):
            outcome_ = suggest(person, addresses[n // 10], f"{person.name}, early {n}.")()
            assert isinstance(outcome_, changes.SuggestResult)
    # ... and then 30 more each, all at once on 50 threads, on pages where the page's own
    # limit is far off: 10 of them fit.
    tries = 30
    free = addresses[head_start // 10 :]
    calls = [
        suggest(p, free[n % len(free)], f"{p.name}, late {n}.")
        for p in people
        for n in range(tries)
    ]

    results = fifty_at_once(calls)

    assert unexpected(results, LimitReached) == []
    for i, person in enumerate(people):
        mine = results[i * tries : (i + 1) * tries]
        made = sum(isinstance(r, changes.SuggestResult) for r in mine)
        refused = [r for r in mine if isinstance(r, LimitReached)]
        assert (made, len(refused)) == (total - head_start, tries - (total - head_start))
        assert all(r.fields == {"limit": total, "pending": total} for r in refused), person.name
    waiting = pending_of(db)
    for person in people:
        assert sum(n for (who, _), n in waiting.items() if who == person.id) == total
    assert max(waiting.values()) <= per_page
