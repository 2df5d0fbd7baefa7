"""A routine's run token, on both databases: it reads what its person reads and suggests,
naming the routine; it never decides, never edits outside output, manages nothing, mints no
token; and once the run ends it no longer works."""

from __future__ import annotations

import pytest

from codna.errors import NotFound, ReadOnly, Unauthenticated
from codna.markdown.edits import parse_edits
from codna.services.events import runs
from codna.services.members import access, members, tokens
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from tests.services.conftest import Team

EDIT = parse_edits([{"op": "append", "text": "One more line."}])


def run_as(member: Member, address: str = "wiki:decisions/0001") -> tuple[int, Member]:
    started = runs.start_run(member, routine="decision-check", address=address)
    return started.run.id, tokens.authenticate_token(started.secret).member


@pytest.fixture
def record(team: Team) -> Team:
    pages.create_page(team.writer, address="wiki:decisions/0001", title="0001 · A", body="A.\n")
    return team


def test_a_run_reads_what_its_person_reads_and_suggests_in_the_routines_name(
    record: Team,
) -> None:
    _, run = run_as(record.writer)
    assert run.via == "decision-check" and run.id == record.writer.id
    assert pages.read_page(run, address="wiki:decisions/0001").editable is False
    made = changes.suggest_edit(run, address="wiki:decisions/0001", edits=EDIT, reason="r")
    assert made.suggestion is not None and made.suggestion.via == "decision-check"
    decided = changes.decide_edit_suggestion(
        record.writer, suggestion_id=made.suggestion.id, decision="accept"
    )
    history = changes.read_suggestion(record.writer, suggestion_id=decided.id)
    assert history.status == "accepted"


def test_a_run_never_decides_edits_outside_output_manages_or_mints(record: Team) -> None:
    _, run = run_as(record.writer)
    other = changes.suggest_edit(
        record.reader, address="wiki:decisions/0001", edits=EDIT, reason="r"
    )
    assert other.suggestion is not None
    # Another's suggestion it cannot decide is not there for it; its own it cannot decide.
    with pytest.raises(NotFound):
        changes.decide_edit_suggestion(run, suggestion_id=other.suggestion.id, decision="accept")
    own = changes.suggest_edit(
        run,
        address="wiki:decisions/0001",
        edits=parse_edits([{"op": "append", "text": "B."}]),
        reason="r",
    )
    assert own.suggestion is not None
    with pytest.raises(ReadOnly):
        changes.decide_edit_suggestion(run, suggestion_id=own.suggestion.id, decision="accept")
    with pytest.raises(ReadOnly):
        editing.edit_page(run, address="wiki:decisions/0001", edits=EDIT)
    with pytest.raises(ReadOnly):
        pages.create_page(run, address="wiki:decisions/0002", title="No", body="")
    with pytest.raises(ReadOnly):
        pages.trash_page(run, address="wiki:decisions/0001")
    with pytest.raises(ReadOnly):
        tokens.create_token(run, member=record.writer.email or "", name="more")
    with pytest.raises(ReadOnly):
        access.share(run, address="wiki:decisions/0001", member="sam@example.com", level="read")
    assert not access.may_ever(run, "decide")
    # In output it writes what its person may: its run page.
    made = pages.create_page(run, address="output:decision-check/runs/1", title="Run", body="")
    assert made.editable


def test_an_admins_run_is_no_admin(team: Team) -> None:
    _, run = run_as(team.admin, "wiki:anything")
    with pytest.raises(ReadOnly):
        members.add_person(run, email="eve@example.com", name="Eve")
    with pytest.raises(ReadOnly):
        pages.create_page(run, address="wiki:made-by-a-run", title="No", body="")
    assert run.administers is False


def test_a_runs_token_no_longer_works_once_the_run_ends(record: Team) -> None:
    started = runs.start_run(record.writer, routine="decision-check", address="wiki:decisions/0001")
    tokens.authenticate_token(started.secret)
    ended = runs.finish_run(started.run.id, status="succeeded", run_page="output:r/1")
    assert (ended.status, ended.run_page) == ("succeeded", "output:r/1")
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(started.secret)


def test_a_run_cannot_start_runs_and_runs_are_their_members_to_see(record: Team) -> None:
    run_id, run = run_as(record.writer)
    with pytest.raises(ReadOnly):
        runs.start_run(run, routine="decision-check", address="wiki:decisions/0001")
    assert runs.read_run(record.writer, run_id=run_id).routine == "decision-check"
    assert runs.read_run(record.admin, run_id=run_id).member == "wanda@example.com"
    with pytest.raises(NotFound):
        runs.read_run(record.reader, run_id=run_id)
    assert [r.id for r in runs.list_runs(record.reader)] == []
