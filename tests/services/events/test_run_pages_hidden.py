"""A run page quotes the page its run looked at (a title, what is wrong with it), so it is read
only by those who can read that page too, through every path: reading, listing, search,
export, reading several, and the suggestions on it. Computed when asked: read given on the
page shows the run page."""

from __future__ import annotations

import pytest

from codna.errors import NotFound
from codna.services.admin import transfer
from codna.services.events import runs
from codna.services.members import access
from codna.services.pages import pages, search
from tests.services.conftest import Team

SECRET, OPEN = "wiki:secret/plan", "wiki:open/plan"
WORD = "zebracorn"


def _run_page(team: Team, subject: str, page: str) -> None:
    """A finished run of the writer's on `subject`, whose run page is `page`."""
    started = runs.start_run(team.writer, routine="decision-check", address=subject)
    pages.create_page(team.admin, address=page, title=f"Looked at {subject}", body=f"{WORD}\n")
    runs.finish_run(started.run.id, status="succeeded", run_page=page)


@pytest.fixture
def run_pages(team: Team) -> Team:
    for subject in (SECRET, OPEN):
        pages.create_page(team.writer, address=subject, title="Plan", body="Text.\n")
    access.share(team.admin, address="wiki:open/", member="sam@example.com", level="read")
    access.share(team.admin, address="output", member="sam@example.com", level="read")
    _run_page(team, SECRET, "output:decision-check/runs/1")
    _run_page(team, OPEN, "output:decision-check/runs/2")
    return team


def _seen(team: Team) -> dict[str, set[str]]:
    sam = team.stranger
    many = pages.read_pages(
        sam, addresses=["output:decision-check/runs/1", "output:decision-check/runs/2"]
    )
    return {
        "listed": {p.address for p in pages.list_pages(sam, address="output")},
        "found": {h.address for h in search.search(sam, query=WORD)},
        "exported": {f.address for f in transfer.export_documents(sam, address="output")},
        "read together": {p.address for p in many.pages},
    }


def test_a_run_page_is_read_only_by_readers_of_the_page_it_looked_at(run_pages: Team) -> None:
    team = run_pages
    shown = {"output:decision-check/runs/2"}
    assert _seen(team) == dict.fromkeys(_seen(team), shown)
    with pytest.raises(NotFound) as refused:
        pages.read_page(team.stranger, address="output:decision-check/runs/1")
    assert "secret" not in refused.value.message.replace("runs/1", "")
    assert pages.read_page(team.stranger, address="output:decision-check/runs/2").body
    # The writer, whose run it was, and the admin read both.
    for member in (team.writer, team.admin):
        assert len(pages.list_pages(member, address="output")) == 2
    # Read given on the page it looked at, the run page shows: computed when asked.
    access.share(team.admin, address=SECRET, member="sam@example.com", level="read")
    both = {"output:decision-check/runs/1", "output:decision-check/runs/2"}
    assert _seen(team) == dict.fromkeys(_seen(team), both)
