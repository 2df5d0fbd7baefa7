"""The outbox, on SQLite and PostgreSQL: a page's creation and each new revision write one
event in their own transaction, suggesting writes none; events are claimed for a lease, done
by their holder only, retried after a back-off and failed for good after the last attempt;
an event whose worker stopped is taken again once its lease has run out."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from codna.errors import Conflict, Duplicate, InvalidEdit, NotFound, ReadOnly
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.events import automations, outbox
from codna.services.events.outbox import MAX_ATTEMPTS, Event
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, links, reverts
from tests.concurrency import at_once, unexpected
from tests.services.conftest import Team

ROUTINE = "outbox-test"
PAGE = "wiki:decisions/0001-caching"
BODY = "# Caching\n\n**Status:** Proposed\n\nWe cache rendered pages.\n"
FIX_STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]
LEASE = timedelta(seconds=30)


class Clock:
    """The services' time, moved on by hand: a lease or a back-off runs out when told to."""

    def __init__(self) -> None:
        self.at = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, by: timedelta) -> None:
        self.at += by


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fixed = Clock()
    monkeypatch.setattr(outbox, "now", fixed)
    return fixed


@pytest.fixture
def watched(team: Team) -> Iterator[Team]:
    """The writer's automation on every page created or changed under wiki:decisions/."""
    automations.register_routine(ROUTINE)
    for event in automations.EVENT_TYPES:
        automations.add(team.writer, event=event, folder="wiki:decisions/", routine=ROUTINE)
    yield team


def every_event() -> list[Event]:
    return outbox.latest(limit=1000)[::-1]


def new_events(before: list[Event]) -> list[Event]:
    seen = {e.id for e in before}
    return [e for e in every_event() if e.id not in seen]


def make_page(team: Team, address: str = PAGE) -> None:
    pages.create_page(team.writer, address=address, title="Caching", body=BODY)


def edit(team: Team, edits: list[dict[str, str]], **kw: object) -> None:
    editing.edit_page(team.writer, address=PAGE, edits=parse_edits(edits), **kw)  # type: ignore[arg-type]


# -- what writes an event ----------------------------------------------------------------------


def test_creating_a_page_writes_one_document_created_event_with_its_address_and_version(
    team: Team,
) -> None:
    make_page(team)
    [event] = every_event()
    assert (event.type, event.address, event.version, event.author_id) == (
        "document.created",
        PAGE,
        1,
        team.writer.id,
    )
    assert (event.attempts, event.taken_by, event.done_at, event.failed_at) == (0, None, None, None)


def test_an_edit_writes_exactly_one_document_changed_event_for_the_version_it_made(
    team: Team,
) -> None:
    make_page(team)
    before = every_event()
    edit(team, FIX_STATUS)
    [event] = new_events(before)
    assert (event.type, event.address, event.version) == ("document.changed", PAGE, 2)


@pytest.mark.parametrize(
    ("who", "edits", "kw", "refusal"),
    [
        ("writer", [{"op": "replace", "old": "not on the page", "new": "x"}], {}, InvalidEdit),
        ("reader", FIX_STATUS, {}, ReadOnly),
        ("writer", [{"op": "append", "text": "More.\n"}], {"base_version": 1}, Conflict),
    ],
    ids=["an edit that does not apply", "a reader's edit", "a stale base version"],
)
def test_a_refused_edit_writes_no_event(
    team: Team, who: str, edits: list[dict[str, str]], kw: dict[str, object], refusal: type
) -> None:
    make_page(team)
    edit(team, [{"op": "append", "text": "Memory use grows.\n"}])  # version 2: 1 is stale
    before = every_event()
    with pytest.raises(refusal):
        editing.edit_page(getattr(team, who), address=PAGE, edits=parse_edits(edits), **kw)  # type: ignore[arg-type]
    assert new_events(before) == []


def test_an_import_refused_part_way_writes_no_event_for_the_pages_before_the_refusal(
    team: Team,
) -> None:
    transfer.import_documents(
        team.admin, documents=[transfer.Document("b.md", "# B\n")], folder="raw:src/"
    )
    before = every_event()
    with pytest.raises(Duplicate):
        transfer.import_documents(
            team.admin,
            documents=[transfer.Document("a.md", "# A\n"), transfer.Document("b.md", "# B\n")],
            folder="raw:src/",
        )
    assert new_events(before) == []


def test_an_import_writes_document_created_for_each_page(team: Team) -> None:
    transfer.import_documents(
        team.admin,
        documents=[transfer.Document("a.md", "# A\n"), transfer.Document("b.md", "# B\n")],
        folder="raw:src/",
    )
    assert [(e.type, e.address) for e in every_event()] == [
        ("document.created", "raw:src/a"),
        ("document.created", "raw:src/b"),
    ]


def test_suggesting_rejecting_and_withdrawing_write_no_event_and_accepting_writes_one(
    team: Team,
) -> None:
    make_page(team)
    before = every_event()
    made = changes.suggest_edit(
        team.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="It was decided."
    )
    other = changes.suggest_edit(
        team.reader,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "\nMemory use grows.\n"}]),
        reason="Say what it costs.",
    )
    third = changes.suggest_edit(
        team.reader,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "\nIt is fast.\n"}]),
        reason="Say why.",
    )
    assert made.suggestion and other.suggestion and third.suggestion
    changes.decide_edit_suggestion(
        team.writer, suggestion_id=other.suggestion.id, decision="reject", reason="Not yet."
    )
    changes.withdraw_suggestion(team.reader, suggestion_id=third.suggestion.id)
    assert new_events(before) == []
    changes.decide_edit_suggestion(team.writer, suggestion_id=made.suggestion.id, decision="accept")
    [event] = new_events(before)
    assert (event.type, event.version, event.author_id) == ("document.changed", 2, team.writer.id)


def test_a_suggested_link_writes_no_event_until_it_is_accepted(team: Team) -> None:
    make_page(team)
    pages.create_page(team.writer, address="wiki:guide", title="Guide", body="# Guide\n")
    before = every_event()
    made = links.suggest_link(
        team.agent, address=PAGE, target="wiki:guide", reason="It explains caching."
    )
    assert new_events(before) == []
    links.decide_link(team.writer, suggestion_id=made.id, decision="accept")
    [event] = new_events(before)
    assert (event.type, event.address, event.version) == ("document.changed", PAGE, 2)


def test_a_revert_and_a_restored_version_each_write_one_event(team: Team) -> None:
    make_page(team)
    edit(team, FIX_STATUS)
    before = every_event()
    reverts.revert_revision(team.writer, address=PAGE, version=2)
    reverts.restore_version(team.writer, address=PAGE, version=2)
    assert [(e.type, e.version) for e in new_events(before)] == [
        ("document.changed", 3),
        ("document.changed", 4),
    ]


def test_moving_a_page_to_the_trash_and_back_writes_no_event(team: Team) -> None:
    make_page(team)
    before = every_event()
    pages.trash_page(team.writer, address=PAGE)
    pages.restore_page(team.writer, address=PAGE)
    assert new_events(before) == []


# -- claiming and finishing --------------------------------------------------------------------


def test_events_no_automation_watches_are_marked_done_at_the_first_claim(team: Team) -> None:
    make_page(team)
    make_page(team, "wiki:notes/elsewhere")
    assert outbox.claim("w1", lease=LEASE) is None
    assert all(e.done_at is not None and e.attempts == 0 for e in every_event())
    assert outbox.next_due() is None


def test_a_claim_takes_the_oldest_watched_event_for_a_lease_and_counts_the_attempt(
    watched: Team, clock: Clock
) -> None:
    make_page(watched, "wiki:notes/unwatched")
    make_page(watched, f"{PAGE}-a")
    make_page(watched, f"{PAGE}-b")
    first = outbox.claim("w1", lease=LEASE)
    assert first is not None
    assert (first.address, first.taken_by, first.attempts) == (f"{PAGE}-a", "w1", 1)
    assert first.lease_until == clock.at + LEASE
    second = outbox.claim("w2", lease=LEASE)
    assert second is not None and second.address == f"{PAGE}-b"
    assert outbox.claim("w3", lease=LEASE) is None
    unwatched = every_event()[0]
    assert unwatched.done_at is not None


def test_only_the_worker_that_holds_an_event_marks_it_done(watched: Team) -> None:
    make_page(watched)
    event = outbox.claim("w1", lease=LEASE)
    assert event is not None
    assert outbox.done(event.id, "w2") is False
    assert outbox.get(event.id).done_at is None
    assert outbox.done(event.id, "w1") is True
    assert outbox.get(event.id).done_at is not None
    assert outbox.done(event.id, "w1") is False  # done once
    assert outbox.claim("w1", lease=LEASE) is None


def test_a_failed_run_is_recorded_and_taken_again_after_its_back_off(
    watched: Team, clock: Clock
) -> None:
    make_page(watched)
    event = outbox.claim("w1", lease=LEASE)
    assert event is not None
    assert outbox.failed(event.id, "w1", "decision-check: the page could not be read.") is True
    after = outbox.get(event.id)
    assert after.last_error == "decision-check: the page could not be read."
    assert after.available_at == clock.at + outbox.backoff(1) == clock.at + timedelta(seconds=2)
    assert (after.failed_at, after.done_at) == (None, None)
    assert outbox.claim("w1", lease=LEASE) is None
    assert outbox.next_due() == after.available_at
    clock.advance(timedelta(seconds=2))
    again = outbox.claim("w2", lease=LEASE)
    assert again is not None and (again.id, again.attempts, again.taken_by) == (event.id, 2, "w2")


def test_the_back_off_doubles_and_stops_at_five_minutes() -> None:
    assert [outbox.backoff(n).total_seconds() for n in range(1, 5)] == [2, 4, 8, 16]
    assert outbox.backoff(9) == outbox.backoff(60) == timedelta(minutes=5)


def test_an_event_that_fails_every_attempt_is_failed_for_good_with_its_last_error(
    watched: Team, clock: Clock
) -> None:
    make_page(watched)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        event = outbox.claim("w1", lease=LEASE)
        assert event is not None and event.attempts == attempt
        assert outbox.failed(event.id, "w1", f"failure {attempt}")
        clock.advance(outbox.MAX_BACKOFF)
    gone = outbox.get(event.id)
    assert gone.failed_at is not None and gone.last_error == f"failure {MAX_ATTEMPTS}"
    assert outbox.claim("w1", lease=LEASE) is None
    assert outbox.next_due() is None


def test_an_event_whose_lease_ran_out_is_taken_by_another_worker_and_the_first_cannot_finish_it(
    watched: Team, clock: Clock
) -> None:
    make_page(watched)
    event = outbox.claim("w1", lease=LEASE)
    assert event is not None
    assert outbox.claim("w2", lease=LEASE) is None  # held
    assert outbox.next_due() == event.lease_until
    clock.advance(LEASE)
    again = outbox.claim("w2", lease=LEASE)
    assert again is not None and (again.id, again.attempts, again.taken_by) == (event.id, 2, "w2")
    assert outbox.renew(event.id, "w1", lease=LEASE) is False
    assert outbox.done(event.id, "w1") is False
    assert outbox.failed(event.id, "w1", "too late") is False
    assert outbox.done(event.id, "w2") is True


def test_renewing_a_lease_keeps_the_event_from_other_workers(watched: Team, clock: Clock) -> None:
    make_page(watched)
    event = outbox.claim("w1", lease=LEASE)
    assert event is not None
    clock.advance(LEASE / 2)
    assert outbox.renew(event.id, "w1", lease=LEASE) is True
    clock.advance(LEASE / 2)
    assert outbox.claim("w2", lease=LEASE) is None
    assert outbox.get(event.id).lease_until == clock.at + LEASE / 2


def test_an_event_whose_workers_stopped_mid_run_every_attempt_is_failed_for_good(
    watched: Team, clock: Clock
) -> None:
    make_page(watched)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        event = outbox.claim(f"w{attempt}", lease=LEASE)
        assert event is not None and event.attempts == attempt
        clock.advance(LEASE)  # the worker died: its lease runs out
    assert outbox.claim("w9", lease=LEASE) is None
    gone = outbox.get(event.id)
    assert gone.failed_at is not None
    assert (
        gone.last_error == f"Its worker stopped before the routine finished, {MAX_ATTEMPTS} times."
    )


def test_a_disabled_automation_no_longer_keeps_events_open(watched: Team) -> None:
    for automation in automations.list_automations(watched.writer):
        automations.disable(watched.writer, automation_id=automation.id)
    make_page(watched)
    assert outbox.claim("w1", lease=LEASE) is None
    assert every_event()[-1].done_at is not None


def test_workers_claiming_at_once_never_take_the_same_event(watched: Team) -> None:
    for n in range(40):
        make_page(watched, f"{PAGE}-{n}")
    taken: list[int] = []
    lock = threading.Lock()

    def work(name: str) -> None:
        while outbox.next_due() is not None:  # None from a claim: the others hold the rest
            event = outbox.claim(name, lease=LEASE)
            if event is not None:
                with lock:
                    taken.append(event.id)
                assert outbox.done(event.id, name)

    results = at_once([lambda name=name: work(name) for name in ["w1", "w2", "w3", "w4"]])
    assert unexpected(results) == []
    assert sorted(taken) == sorted(e.id for e in every_event())
    assert len(set(taken)) == 40


def test_an_event_that_is_not_there_is_not_found(team: Team) -> None:
    with pytest.raises(NotFound):
        outbox.get(12345)
