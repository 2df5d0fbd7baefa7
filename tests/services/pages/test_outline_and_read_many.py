"""A page's outline without its body, and several pages read in one call, up to a bound. On
SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest

from codna.errors import InvalidRequest, NotFound
from codna.markdown.edits import parse_edits
from codna.markdown.render import render
from codna.services.limits import READ_MANY
from codna.services.members import access
from codna.services.pages import editing, pages
from codna.services.pages.outlines import OutlineHeading
from tests.services.conftest import Team
from tests.statements import StatementCounter
from tests.statements import statements as statements  # the fixture

BODY = (
    "Before any heading.\n\n"
    "# Decision\n\nWe chose Markdown.\n\n"
    "## Context\n\nPeople write it.\n\n"
    "```\n# not a heading\n```\n\n"
    "## Limits & costs\n\nNone yet.\n\n"
    "Context\n-------\n\nAgain.\n"
)


def test_an_outline_gives_each_heading_its_level_anchor_and_the_size_of_its_section(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:decisions/0024", title="Markdown", body=BODY)
    outline = pages.outline(team.agent, address="wiki:decisions/0024")
    assert (outline.address, outline.title, outline.version, outline.size) == (
        "wiki:decisions/0024",
        "Markdown",
        1,
        len(BODY),
    )
    decision = BODY.index("# Decision")
    context = BODY.index("## Context")
    limits = BODY.index("## Limits")
    again = BODY.index("Context\n---")
    assert outline.headings == (
        OutlineHeading(1, "Decision", "decision", len(BODY) - decision),
        OutlineHeading(2, "Context", "context", limits - context),
        OutlineHeading(2, "Limits & costs", "limits-costs", again - limits),
        OutlineHeading(2, "Context", "context-2", len(BODY) - again),
    )


def test_an_outlines_anchors_are_the_ids_the_rendered_page_gives_its_headings(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:guide", title="Guide", body=BODY)
    html = render(BODY, page_url=lambda address: "/p/" + address)
    ids = re.findall(r'<h[1-6] id="([^"]+)"', html)
    assert [h.anchor for h in pages.outline(team.reader, address="wiki:guide").headings] == ids


def test_an_outline_of_an_older_version_is_of_that_version(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:guide", title="Guide", body="# One\n\nText.\n")
    editing.edit_page(
        team.writer,
        address="wiki:guide",
        edits=parse_edits([{"op": "append", "text": "# Two\n\nMore.\n"}]),
    )
    assert [h.text for h in pages.outline(team.reader, address="wiki:guide").headings] == [
        "One",
        "Two",
    ]
    old = pages.outline(team.reader, address="wiki:guide", version=1)
    assert (old.version, [h.text for h in old.headings]) == (1, ["One"])


def test_an_outline_of_a_page_one_cannot_read_is_not_found(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:secret/plan", title="Plan", body="# Plan\n")
    with pytest.raises(NotFound) as refused:
        pages.outline(team.stranger, address="wiki:secret/plan")
    assert refused.value.message == "There is no page wiki:secret/plan."


def test_several_pages_are_read_in_the_order_asked_each_once_with_the_rest_missing(
    team: Team, statements: StatementCounter
) -> None:
    for name in ("one", "two", "three"):
        pages.create_page(team.writer, address=f"wiki:open/{name}", title=name, body=f"{name}\n")
    pages.create_page(team.writer, address="wiki:secret/plan", title="Plan", body="Secret.\n")
    pages.create_page(team.writer, address="wiki:open/gone", title="Gone", body="Gone.\n")
    pages.trash_page(team.writer, address="wiki:open/gone")
    access.share(team.admin, address="wiki:open/", member="sam@example.com", level="read")
    asked = [
        "wiki:open/three",
        "wiki:secret/plan",
        "wiki:open/one",
        "wiki:absent",
        "wiki:open/three",
        "wiki:open/gone",
    ]
    with statements() as ran:
        read = pages.read_pages(team.stranger, addresses=asked)
    assert [(p.address, p.body) for p in read.pages] == [
        ("wiki:open/three", "three\n"),
        ("wiki:open/one", "one\n"),
    ]
    assert read.missing == ("wiki:secret/plan", "wiki:absent", "wiki:open/gone")
    assert len(ran) <= 2, ran  # the member's grants, then the pages with their authors
    assert read.pages[0] == pages.read_page(team.stranger, address="wiki:open/three")


def test_reading_more_pages_than_the_bound_at_once_is_refused_naming_the_bound(
    team: Team,
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        pages.read_pages(team.reader, addresses=[f"wiki:p{n}" for n in range(READ_MANY + 1)])
    assert refused.value.message == f"Give 1 to {READ_MANY} page addresses to read at once."
    assert refused.value.fields == {"field": "addresses", "limit": READ_MANY}
    with pytest.raises(InvalidRequest):
        pages.read_pages(team.reader, addresses=[])
    assert len(pages.read_pages(team.reader, addresses=["wiki:p"] * READ_MANY).missing) == 1


def test_reading_several_refuses_what_is_not_a_list_of_page_addresses(team: Team) -> None:
    with pytest.raises(InvalidRequest) as text:
        pages.read_pages(team.reader, addresses="wiki:one")
    assert text.value.fields["field"] == "addresses"
    with pytest.raises(InvalidRequest) as folder:
        pages.read_pages(team.reader, addresses=["wiki:one", "wiki:decisions/"])
    assert folder.value.message == "'wiki:decisions/' is not a page address."
    assert folder.value.fields["field"] == "addresses"
