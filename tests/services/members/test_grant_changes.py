"""Who takes back a grant, and the record of every change of one, on both databases.

A grant is taken back only by whom could give it now (the one rule, access.check_may_give);
a refusal is not found where the caller cannot read the page, a read_only refusal elsewhere.
Every change (given, changed, taken back) is written down with who, when, whom and where, in
the change's own transaction; who may read which changes is checked here too.
"""

from __future__ import annotations

import itertools

import pytest
import sqlalchemy as sa

from codna.errors import InvalidRequest, NotFound, ReadOnly
from codna.services.context import database
from codna.services.events import runs
from codna.services.members import access, grant_changes, members, tokens
from codna.services.members.grant_changes import GrantChange
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.storage.schema import grant_changes as grant_changes_table
from codna.storage.schema import grants
from tests.concurrency import at_once, unexpected
from tests.services.conftest import Team


def changes_of(actor: Member) -> list[tuple[str, str, str, str, str | None, str | None]]:
    """What `actor` reads of the record, oldest first, without the times."""
    found = grant_changes.list_grant_changes(actor)
    return [(c.changed_by, c.change, c.member, c.address, c.before, c.after) for c in found][::-1]


def count_rows() -> tuple[int, int]:
    with database().read() as conn:
        held = conn.execute(sa.select(sa.func.count()).select_from(grants)).scalar_one()
        noted = conn.execute(
            sa.select(sa.func.count()).select_from(grant_changes_table)
        ).scalar_one()
    return held, noted


def test_giving_changing_and_taking_back_a_grant_are_each_recorded_with_who_and_when(
    team: Team,
) -> None:
    before = grant_changes.list_grant_changes(team.admin)
    access.share(team.writer, address="wiki:team/", member="sam@example.com", level="read")
    access.share(team.writer, address="wiki:team/", member="sam@example.com", level="write")
    access.share(team.admin, address="wiki:team/", member="sam@example.com", level="write")
    access.unshare(team.admin, address="wiki:team/", member="sam@example.com")
    found = grant_changes.list_grant_changes(team.admin)
    new = found[: len(found) - len(before)]
    assert [(c.changed_by, c.change, c.before, c.after) for c in reversed(new)] == [
        ("wanda@example.com", "given", None, "read"),
        ("wanda@example.com", "changed", "read", "write"),
        # Sharing again at the level held changes nothing, and nothing is recorded.
        ("ada@example.com", "taken_back", "write", None),
    ]
    assert {(c.member, c.address) for c in new} == {("sam@example.com", "wiki:team/")}
    assert all(c.changed_at.tzinfo is not None for c in new)
    assert [c.changed_at for c in new] == sorted((c.changed_at for c in new), reverse=True)


def test_the_team_s_own_grants_were_recorded_as_they_were_given(team: Team) -> None:
    given = [c for c in grant_changes.list_grant_changes(team.admin) if c.change == "given"]
    assert len(given) == 9  # three spaces for the writer, the reader and the agent
    assert {c.changed_by for c in given} == {"ada@example.com"}


def test_whoever_could_give_a_grant_takes_it_back_even_one_someone_else_gave(
    team: Team,
) -> None:
    access.share(team.admin, address="wiki:team/", member="sam@example.com", level="write")
    access.unshare(team.writer, address="wiki:team/", member="sam@example.com")
    assert changes_of(team.admin)[-1] == (
        "wanda@example.com",
        "taken_back",
        "sam@example.com",
        "wiki:team/",
        "write",
        None,
    )


def test_one_who_cannot_read_the_page_is_told_the_grant_is_not_there(team: Team) -> None:
    pages.create_page(team.admin, address="wiki:secret", title="Secret", body="S.\n")
    access.share(team.admin, address="wiki:secret", member="rita@example.com", level="read")
    held = count_rows()
    for address in ("wiki:secret", "wiki:nothing-here"):
        with pytest.raises(NotFound) as refused:
            access.unshare(team.stranger, address=address, member="rita@example.com")
        assert refused.value.code == "not_found"
        assert refused.value.message == f"There is no page {address}."
    assert count_rows() == held


def test_one_who_reads_but_could_not_give_is_refused_as_read_only(team: Team) -> None:
    access.share(team.admin, address="wiki:team/", member="sam@example.com", level="read")
    held = count_rows()
    for actor, address in (
        (team.reader, "wiki:team/"),
        (team.reader, "wiki"),
        (team.stranger, "wiki:team/"),  # a folder: whether it holds pages is not told
    ):
        with pytest.raises(ReadOnly) as refused:
            access.unshare(actor, address=address, member="sam@example.com")
        assert refused.value.message == (
            f"Only an admin or someone who can write all of {address} can take back what was "
            f"given on it."
        )
    assert count_rows() == held


def test_agents_and_runs_take_back_nothing(team: Team) -> None:
    access.share(team.admin, address="wiki:team/", member="sam@example.com", level="read")
    started = runs.start_run(team.admin, routine="decision-check", address="wiki:team/x")
    run = tokens.authenticate_token(started.secret).member
    for actor, says in ((team.agent, "An agent cannot"), (run, "A routine's run cannot")):
        with pytest.raises(ReadOnly) as refused:
            access.unshare(actor, address="wiki:team/", member="sam@example.com")
        assert refused.value.message.startswith(f"{says} take back what was given on pages")


def test_one_whose_write_was_taken_back_can_no_longer_take_back_what_they_gave(
    team: Team,
) -> None:
    access.share(team.writer, address="wiki:team/", member="sam@example.com", level="read")
    access.share(team.admin, address="wiki", member="wanda@example.com", level="read")
    with pytest.raises(ReadOnly):
        access.unshare(team.writer, address="wiki:team/", member="sam@example.com")
    with pytest.raises(ReadOnly):
        access.share(team.writer, address="wiki:team/", member="sam@example.com", level="write")


def test_a_write_on_one_page_gives_and_takes_back_that_page_and_nothing_wider(
    team: Team,
) -> None:
    pages.create_page(team.admin, address="wiki:notes/one", title="One", body="1.\n")
    access.share(team.admin, address="wiki", member="wanda@example.com", level="read")
    access.share(team.admin, address="wiki:notes/one", member="wanda@example.com", level="write")
    access.share(team.writer, address="wiki:notes/one", member="sam@example.com", level="read")
    access.share(team.admin, address="wiki:notes/", member="sam@example.com", level="read")
    with pytest.raises(ReadOnly):
        access.unshare(team.writer, address="wiki:notes/", member="sam@example.com")
    access.unshare(team.writer, address="wiki:notes/one", member="sam@example.com")


def test_taking_back_what_was_never_given_is_not_found_and_records_nothing(team: Team) -> None:
    held = count_rows()
    for member in ("sam@example.com", "nobody@example.com", "no-such-agent"):
        with pytest.raises(NotFound) as refused:
            access.unshare(team.writer, address="wiki:team/", member=member)
        assert refused.value.fields == {"field": "member"}
    assert count_rows() == held


def test_a_change_and_its_record_are_written_together_or_not_at_all(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = grant_changes.record

    def record_then_fail(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("the transaction fails after the record")

    access.share(team.admin, address="wiki:team/", member="sam@example.com", level="read")
    held = count_rows()
    monkeypatch.setattr(grant_changes, "record", record_then_fail)
    with pytest.raises(RuntimeError):
        access.share(team.admin, address="wiki:more/", member="sam@example.com", level="read")
    with pytest.raises(RuntimeError):
        access.share(team.admin, address="wiki:team/", member="sam@example.com", level="write")
    with pytest.raises(RuntimeError):
        access.unshare(team.admin, address="wiki:team/", member="sam@example.com")
    assert count_rows() == held
    assert [g.level for g in access.list_grants(team.stranger)] == ["read"]


def test_each_member_reads_the_changes_they_made_that_concern_them_or_their_agents(
    team: Team,
) -> None:
    other = members.add_agent(team.admin, name="other-agent", responsible=["sam@example.com"])
    access.share(team.admin, address="wiki:a/", member="checker", level="read")
    access.share(team.admin, address="wiki:b/", member=other.name, level="read")
    access.share(team.writer, address="wiki:c/", member="sam@example.com", level="read")
    access.share(team.admin, address="wiki:d/", member="rita@example.com", level="write")
    seen = {
        role: {c.address for c in grant_changes.list_grant_changes(getattr(team, role))}
        for role in ("writer", "reader", "stranger", "agent")
    }
    # Wanda is responsible for checker; Sam for other-agent.
    assert seen["writer"] == {"wiki", "raw", "output", "wiki:a/", "wiki:c/"}
    assert seen["reader"] == {"wiki", "raw", "output", "wiki:d/"}
    assert seen["stranger"] == {"wiki:b/", "wiki:c/"}
    assert seen["agent"] == {"wiki", "raw", "output", "wiki:a/"}
    assert len(grant_changes.list_grant_changes(team.admin)) == 13


def test_an_admin_s_run_reads_neither_every_grant_nor_every_change(team: Team) -> None:
    access.share(team.writer, address="wiki:c/", member="sam@example.com", level="read")
    started = runs.start_run(team.admin, routine="decision-check", address="wiki:x")
    run = tokens.authenticate_token(started.secret).member
    assert access.list_grants(run) == []
    # As any member: the changes the admin made, none of the writer's.
    seen = grant_changes.list_grant_changes(run)
    assert len(seen) == 9 and {c.changed_by for c in seen} == {"ada@example.com"}


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (501, 0), (10, -1)])
def test_a_listing_beyond_its_bounds_is_refused(team: Team, limit: int, offset: int) -> None:
    with pytest.raises(InvalidRequest):
        grant_changes.list_grant_changes(team.admin, limit=limit, offset=offset)


def test_a_listing_pages_through_the_changes_newest_first(team: Team) -> None:
    whole = grant_changes.list_grant_changes(team.admin)
    pages_of_two: list[GrantChange] = []
    for offset in range(0, len(whole), 2):
        pages_of_two += grant_changes.list_grant_changes(team.admin, limit=2, offset=offset)
    assert pages_of_two == whole


def test_changes_of_one_grant_at_once_each_record_the_level_the_one_before_left(
    team: Team,
) -> None:
    levels = ["read", "write"] * 8

    def give(level: str) -> None:
        access.share(team.admin, address="wiki:race/", member="sam@example.com", level=level)

    results = at_once([lambda level=level: give(level) for level in levels], threads=8)
    assert unexpected(results) == []  # no refusal, no error
    made = [c for c in grant_changes.list_grant_changes(team.admin) if c.address == "wiki:race/"]
    made.reverse()  # oldest first
    assert made[0].change == "given"
    assert all(b.before == a.after for a, b in itertools.pairwise(made))
    assert all(c.before != c.after for c in made)
    assert [g.level for g in access.list_grants(team.stranger)] == [made[-1].after]
