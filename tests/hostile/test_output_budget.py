"""One member cannot fill the disk by writing in `output`, where agents and routines write with
nobody deciding anything: the versions a member wrote of pages there, trashed ones included,
are bounded in bytes as stored (OUTPUT_BYTES). Past it every create, edit, revert, restored
version and accepted suggestion there is refused as `too_large` and stores nothing. A run is
its person; an admin acting as themselves is not limited; writes outside output are not
counted. The budget is made small here, so that a few pages reach it: what is counted, not how
big the real number is. On SQLite and PostgreSQL (the `team` fixture's database).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from codna.errors import NotFound, TooLarge
from codna.markdown.edits import parse_edits
from codna.services.context import database
from codna.services.events import runs
from codna.services.members import tokens
from codna.services.members.members import Member
from codna.services.pages import editing, output_budget, pages
from codna.services.suggestions import changes, reverts
from codna.storage.schema import outbox, page_sections, revisions
from codna.storage.schema import pages as page_rows
from tests.services.conftest import Team, team

__all__ = ["team"]  # the fixture, reused as it is

BUDGET = 64 * 1024
CHUNK = 10_000  # a page's text: six or so reach the budget


def text(size: int = CHUNK) -> str:
    """`size` bytes of lines that do not compress (PostgreSQL counts what a row takes on disk)."""
    return "".join(uuid.uuid4().hex + "\n" for _ in range(size // 33))


@pytest.fixture
def budget(team: Team, monkeypatch: pytest.MonkeyPatch) -> Team:
    monkeypatch.setattr(output_budget, "OUTPUT_BYTES", BUDGET)
    return team


def stored(member: Member) -> int:
    with database().read() as conn:
        return output_budget.output_bytes(conn, member.id)


def rows() -> tuple[int, ...]:
    """How many pages, revisions, indexed sections and events the database holds."""
    with database().read() as conn:
        return tuple(
            conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in (page_rows, revisions, page_sections, outbox)
        )


def fill(member: Member, folder: str) -> tuple[list[str], TooLarge]:
    """Create pages of CHUNK bytes in `folder` until refused: the pages made, the refusal."""
    made: list[str] = []
    for n in range(40):
        address = f"{folder}{n}"
        before = rows()
        try:
            pages.create_page(member, address=address, title=f"Page {n}", body=text())
        except TooLarge as refused:
            assert rows() == before  # the refusal stored nothing
            with pytest.raises(NotFound):
                pages.read_page(member, address=address)
            return made, refused
        made.append(address)
    pytest.fail(f"{member.name} wrote 40 pages in output and was never refused")


def refused_storing_nothing(member: Member, write: Callable[[], object]) -> TooLarge:
    before, held = rows(), stored(member)
    with pytest.raises(TooLarge) as refused:
        write()
    assert rows() == before and stored(member) == held
    return refused.value


def run_of(member: Member, address: str) -> Member:
    started = runs.start_run(member, routine="decision-check", address=address)
    return tokens.authenticate_token(started.secret).member


def test_an_agent_filling_its_output_folder_is_refused_at_the_budget(budget: Team) -> None:
    made, refused = fill(budget.agent, "output:checker/")
    assert 3 <= len(made) <= 8
    assert refused.code == "too_large" and refused.fields["limit"] == BUDGET
    held = stored(budget.agent)
    assert refused.fields["stored"] == held
    assert BUDGET - CHUNK - 1024 < held <= BUDGET
    assert "output" in refused.message and "trash" in refused.message
    assert refused.message.endswith(".")
    # Asked again, the same: nothing was half done.
    refused_storing_nothing(
        budget.agent,
        lambda: pages.create_page(
            budget.agent, address="output:checker/again", title="Again", body=text()
        ),
    )


def test_edits_count_toward_the_budget(budget: Team) -> None:
    address = "output:checker/growing"
    pages.create_page(budget.agent, address=address, title="Growing", body="Start.\n")
    grow = parse_edits([{"op": "append", "text": text()}])
    for _ in range(40):
        version = pages.read_page(budget.agent, address=address).version
        try:
            editing.edit_page(budget.agent, address=address, edits=grow)
        except TooLarge as refused:
            assert refused.fields["limit"] == BUDGET
            break
    else:
        pytest.fail("40 edits of 10 KB each were never refused")
    assert 3 <= version <= 9
    assert pages.read_page(budget.agent, address=address).version == version


def test_at_the_budget_every_kind_of_write_in_output_is_refused(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer, address = team.writer, "output:notes/one"
    pages.create_page(writer, address=address, title="One", body="First.\n")
    editing.edit_page(writer, address=address, edits=parse_edits([{"op": "append", "text": "B"}]))
    made = changes.suggest_edit(
        team.reader,
        address=address,
        edits=parse_edits([{"op": "append", "text": "C"}]),
        reason="More.",
    )
    assert made.suggestion is not None
    monkeypatch.setattr(output_budget, "OUTPUT_BYTES", stored(writer))  # full: no revision fits
    more = parse_edits([{"op": "append", "text": "D"}])
    for write in (
        lambda: pages.create_page(writer, address="output:notes/two", title="Two"),
        lambda: editing.edit_page(writer, address=address, edits=more),
        lambda: editing.write_page(writer, address=address, body="New.\n", base_version=2),
        lambda: reverts.revert_revision(writer, address=address, version=2),
        lambda: reverts.restore_version(writer, address=address, version=1),
        lambda: changes.decide_edit_suggestion(
            writer, suggestion_id=made.suggestion.id, decision="accept"
        ),
    ):
        refused_storing_nothing(writer, write)
    assert changes.read_suggestion(writer, suggestion_id=made.suggestion.id).status == ("pending")
    # Outside output nothing is counted.
    pages.create_page(writer, address="wiki:notes/big", title="Big", body=text())


def test_a_runs_writes_count_toward_its_persons_budget(budget: Team) -> None:
    pages.create_page(budget.writer, address="wiki:decisions/0001", title="0001", body="A.\n")
    run = run_of(budget.writer, "wiki:decisions/0001")
    made, refused = fill(run, "output:runs/")
    assert 3 <= len(made) <= 8 and refused.fields["stored"] == stored(budget.writer)
    # The person, acting as themselves, stores there in the same budget.
    refused_storing_nothing(
        budget.writer,
        lambda: pages.create_page(budget.writer, address="output:mine", title="Mine", body=text()),
    )


def test_an_admin_is_not_limited_but_their_runs_are(budget: Team) -> None:
    admin = budget.admin
    for n in range(10):
        pages.create_page(admin, address=f"output:admin/{n}", title=f"Page {n}", body=text())
    assert stored(admin) > BUDGET  # counted all the same
    pages.create_page(admin, address="wiki:decisions/0001", title="0001", body="A.\n")
    run = run_of(admin, "wiki:decisions/0001")
    refused_storing_nothing(
        admin, lambda: pages.create_page(run, address="output:runs/one", title="One", body="1.\n")
    )


def test_each_member_has_a_budget_of_their_own(budget: Team) -> None:
    fill(budget.agent, "output:checker/")
    made, _ = fill(budget.writer, "output:notes/")
    assert 3 <= len(made) <= 8
    assert stored(budget.reader) == 0


def test_trashing_frees_nothing_but_deleting_for_good_does(budget: Team) -> None:
    agent = budget.agent
    made, _ = fill(agent, "output:checker/")
    held = stored(agent)
    for address in made[:2]:
        pages.trash_page(agent, address=address)
    assert stored(agent) == held
    refused_storing_nothing(
        agent,
        lambda: pages.create_page(agent, address="output:checker/new", title="New", body=text()),
    )
    for address in made[:2]:
        pages.purge_page(agent, address=address)
    assert stored(agent) < held - CHUNK
    pages.create_page(agent, address="output:checker/new", title="New", body=text())
