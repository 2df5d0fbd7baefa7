"""An inbox a routine can follow: what came since a time or after a notification, and the
newest notification's id to start from next time. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from codna.errors import InvalidRequest
from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.services.suggestions import changes
from tests.services.conftest import Team


def suggest(team: Team, address: str, text: str) -> int:
    made = changes.suggest_edit(
        team.agent,
        address=address,
        edits=parse_edits([{"op": "append", "text": text}]),
        reason="It is missing.",
    )
    assert made.suggestion is not None
    return made.suggestion.id


def decide(team: Team, suggestion_id: int, decision: str) -> None:
    changes.decide_edit_suggestion(
        team.writer, suggestion_id=suggestion_id, decision=decision, reason="Seen."
    )


def decided(
    who: Member, *, since: datetime | None = None, after: int | None = None
) -> list[int | None]:
    return [d.suggestion_id for d in inbox.inbox(who, since=since, after=after).decisions]


@pytest.fixture
def two_decisions(team: Team) -> tuple[int, int]:
    """Two suggestions of the agent's, the first accepted, then the second rejected."""
    pages.create_page(team.writer, address="wiki:decisions/0001", title="One", body="One.\n")
    first = suggest(team, "wiki:decisions/0001", "\nMore.\n")
    second = suggest(team, "wiki:decisions/0001", "\nOther.\n")
    decide(team, first, "accept")
    decide(team, second, "reject")
    return first, second


def test_the_inbox_says_the_id_of_the_newest_notification_whatever_it_was_asked(
    team: Team, two_decisions: tuple[int, int]
) -> None:
    box = inbox.inbox(team.agent)
    ids = [d.id for d in box.decisions]
    assert box.latest == max(ids) and box.unread == 2
    assert inbox.inbox(team.agent, after=box.latest).latest == box.latest
    assert inbox.inbox(team.reader).latest is None


def test_after_keeps_only_the_notifications_that_came_after_the_one_given(
    team: Team, two_decisions: tuple[int, int]
) -> None:
    _, second = two_decisions
    box = inbox.inbox(team.agent)
    oldest = min(d.id for d in box.decisions)
    assert decided(team.agent, after=oldest) == [second]
    assert decided(team.agent, after=box.latest) == []
    third = suggest(team, "wiki:decisions/0001", "\nA third.\n")
    decide(team, third, "reject")
    assert decided(team.agent, after=box.latest) == [third]


def test_since_keeps_the_decisions_and_waiting_suggestions_made_after_that_time(
    team: Team, two_decisions: tuple[int, int]
) -> None:
    first, second = two_decisions
    notes = {d.suggestion_id: d for d in inbox.inbox(team.agent).decisions}
    assert decided(team.agent, since=notes[first].created_at) == [second]
    assert decided(team.agent, since=notes[second].created_at) == []
    waiting = suggest(team, "wiki:decisions/0001", "\nStill waiting.\n")
    box = inbox.inbox(team.writer, since=notes[second].created_at)
    assert [s.id for s in box.suggested_changes.items] == [waiting]
    assert box.suggested_changes.total == 1
    made = box.suggested_changes.items[0].created_at
    assert inbox.inbox(team.writer, since=made).suggested_changes.total == 0


def test_a_routine_that_marks_what_it_read_sees_only_what_is_new_next_time(
    team: Team, two_decisions: tuple[int, int]
) -> None:
    box = inbox.inbox(team.agent)
    assert inbox.mark_read(team.agent, ids=[d.id for d in box.decisions]) == 2
    again = inbox.inbox(team.agent, after=box.latest)
    assert (again.decisions, again.unread, again.latest) == ((), 0, box.latest)


@pytest.mark.parametrize(
    ("asked", "field"),
    [
        ({"since": datetime(2024, 5, 1, 9, 0)}, "since"),  # no time zone
        ({"since": "2024-05-01T09:00:00Z"}, "since"),  # text, not a time
        ({"since": datetime(9999, 12, 31, 23, tzinfo=timezone(-timedelta(hours=23)))}, "since"),
        ({"after": 0}, "after"),
        ({"after": 2**31}, "after"),
        ({"after": True}, "after"),
        ({"after": "7"}, "after"),
    ],
)
def test_the_inbox_refuses_a_since_without_its_zone_and_an_after_that_is_no_id(
    team: Team, asked: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        inbox.inbox(team.agent, **asked)  # type: ignore[arg-type]
    assert refused.value.fields == {"field": field}
