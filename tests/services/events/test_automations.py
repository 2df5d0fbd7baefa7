"""Automations, on SQLite and PostgreSQL: made by a member who can read the folder, run as
that member; listed by their makers (all by an admin); disabled by their maker or an admin,
and not there for anyone else; matched to an event by its type and a folder holding its page,
as the member's rights are now."""

from __future__ import annotations

import pytest

from codna.errors import Duplicate, InvalidRequest, NotFound, ReadOnly
from codna.services.events import automations, outbox
from codna.services.events.outbox import Event
from codna.services.members import access, members
from codna.services.pages import pages
from codna.storage.database import Database
from tests.services.conftest import Team

ROUTINE = "decision-check"


@pytest.fixture(autouse=True)
def known_routine() -> None:
    automations.register_routine(ROUTINE)


def add(team: Team, who: str = "writer", **kw: str) -> automations.Automation:
    given = {"event": "document.created", "folder": "wiki:decisions/", "routine": ROUTINE, **kw}
    return automations.add(getattr(team, who), **given)


def event_at(team: Team, address: str) -> Event:
    """The event of a page made at `address` by the admin."""
    pages.create_page(team.admin, address=address, title="A page", body="# A page\n")
    return outbox.latest(limit=1)[0]


def matched(db: Database, event: Event) -> list[int]:
    with db.read() as conn:
        return [a.id for a in automations.matching(conn, event.type, event.page)]


def test_an_automation_runs_its_routine_as_the_member_who_made_it(team: Team) -> None:
    made = add(team)
    assert (made.event, made.folder, made.routine) == (
        "document.created",
        "wiki:decisions/",
        ROUTINE,
    )
    assert (made.member_id, made.member, made.created_by) == (
        team.writer.id,
        "wanda@example.com",
        "wanda@example.com",
    )
    assert made.enabled and made.disabled_at is None


def test_a_whole_space_may_be_watched(team: Team) -> None:
    assert add(team, folder="wiki").folder == "wiki:"
    assert add(team, folder="raw:", event="document.changed").folder == "raw:"


@pytest.mark.parametrize(
    ("given", "field", "says"),
    [
        ({"event": "suggestion.created"}, "event", "document.created or document.changed"),
        ({"event": "document.deleted"}, "event", "document.created or document.changed"),
        ({"folder": "wiki:decisions"}, "folder", "such as wiki:decisions/"),
        ({"folder": "attic:old/"}, "folder", "the spaces are wiki, raw and output"),
        ({"routine": "Decision Check"}, "routine", "lowercase letters"),
        ({"routine": "no-such-routine"}, "routine", "There is no routine no-such-routine"),
    ],
)
def test_a_wrong_event_folder_or_routine_is_refused_with_what_to_give(
    team: Team, given: dict[str, str], field: str, says: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        add(team, **given)
    assert refused.value.fields["field"] == field
    assert says in refused.value.message
    assert automations.list_automations(team.admin) == []


def test_an_unknown_routine_is_refused_naming_the_known_ones(team: Team) -> None:
    with pytest.raises(InvalidRequest) as refused:
        add(team, routine="decision-chek")
    assert f"the routines are {', '.join(sorted(automations.known_routines()))}." in str(
        refused.value
    )


def test_a_folder_the_member_cannot_read_is_not_found(team: Team) -> None:
    with pytest.raises(NotFound) as refused:
        add(team, "stranger")
    assert refused.value.message == "There is no folder wiki:decisions/ you can read."
    access.share(team.admin, address="wiki:decisions/0001", member="sam@example.com", level="read")
    with pytest.raises(NotFound):
        add(team, "stranger")  # one page under it is not the folder


def test_an_agent_cannot_make_automations(team: Team) -> None:
    with pytest.raises(ReadOnly) as refused:
        add(team, "agent")
    assert "a person responsible for it can" in refused.value.message


def test_the_same_rule_twice_is_a_duplicate_until_the_first_is_disabled(team: Team) -> None:
    first = add(team)
    with pytest.raises(Duplicate) as refused:
        add(team)
    assert refused.value.fields["automation_id"] == first.id
    add(team, "reader")  # another member's is their own
    automations.disable(team.writer, automation_id=first.id)
    assert add(team).id != first.id


def test_an_admin_lists_every_automation_and_anyone_else_their_own(team: Team) -> None:
    by_writer = add(team)
    by_reader = add(team, "reader")
    assert [a.id for a in automations.list_automations(team.admin)] == [by_writer.id, by_reader.id]
    assert [a.id for a in automations.list_automations(team.writer)] == [by_writer.id]
    assert [a.id for a in automations.list_automations(team.reader)] == [by_reader.id]
    assert automations.list_automations(team.stranger) == []


def test_a_maker_or_an_admin_disables_an_automation_and_to_others_it_is_not_there(
    team: Team,
) -> None:
    made = add(team)
    for other in (team.reader, team.stranger, team.agent):
        with pytest.raises(NotFound) as refused:
            automations.disable(other, automation_id=made.id)
        assert refused.value.message == f"There is no automation {made.id}."
    off = automations.disable(team.writer, automation_id=made.id)
    assert not off.enabled and off.disabled_at is not None
    again = automations.disable(team.admin, automation_id=made.id)
    assert again.disabled_at == off.disabled_at  # disabling twice changes nothing
    [listed] = automations.list_automations(team.writer)
    assert listed == off
    for missing in (0, 999_999, 2**40):
        with pytest.raises(NotFound):
            automations.disable(team.admin, automation_id=missing)


def test_an_event_matches_the_enabled_automations_of_its_type_and_folder(
    team: Team, db: Database
) -> None:
    created = add(team)
    changed = add(team, event="document.changed")
    space = add(team, "reader", folder="wiki:")
    nested = add(team, folder="wiki:decisions/old/")
    off = add(team, folder="wiki:decisions/old/", event="document.changed")
    automations.disable(team.writer, automation_id=off.id)

    assert matched(db, event_at(team, "wiki:decisions/0001")) == [created.id, space.id]
    assert matched(db, event_at(team, "wiki:decisions/old/0002")) == [
        created.id,
        space.id,
        nested.id,
    ]
    assert matched(db, event_at(team, "wiki:decisionsx")) == [space.id]  # a folder, not a prefix
    assert matched(db, event_at(team, "output:decisions/0001")) == []  # another space
    assert changed.id not in matched(db, event_at(team, "wiki:decisions/0003"))


def test_a_changed_event_matches_the_automations_on_changes(team: Team, db: Database) -> None:
    created = add(team)
    changed = add(team, event="document.changed")
    event = event_at(team, "wiki:decisions/0001")
    assert matched(db, event) == [created.id]
    changed_event = Event(**{**event.__dict__, "type": "document.changed", "version": 2})
    assert matched(db, changed_event) == [changed.id]


def test_an_automation_whose_member_can_no_longer_read_the_page_or_is_disabled_does_not_run(
    team: Team, db: Database
) -> None:
    reader_made = add(team, "reader")
    writer_made = add(team)
    event = event_at(team, "wiki:decisions/0001")
    assert matched(db, event) == [reader_made.id, writer_made.id]
    access.unshare(team.admin, address="wiki", member="rita@example.com")
    assert matched(db, event) == [writer_made.id]
    members.set_disabled(team.admin, handle="wanda@example.com", disabled=True)
    assert matched(db, event) == []
    assert automations.for_event(event.type, event.page) == []


def test_an_automation_never_watches_output_where_runs_write_their_pages(team: Team) -> None:
    with pytest.raises(InvalidRequest) as refused:
        automations.add(
            team.writer, event="document.created", folder="output:", routine="decision-check"
        )
    assert "would start itself" in refused.value.message
    assert "An automation watches wiki or raw" in refused.value.message
