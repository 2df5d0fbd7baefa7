"""Pages and revisions through the services, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from codna.errors import (
    Conflict,
    Duplicate,
    InvalidEdit,
    InvalidRequest,
    NotFound,
    ReadOnly,
    TooLarge,
)
from codna.markdown.edits import parse_edits
from codna.services.admin.transfer import Document, import_documents
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import reverts
from tests.services.conftest import Team

BODY = "# Title\n\n## Context\n\nWe had a problem.\n\n## Decision\n\nWe decided.\n"


def make_page(team: Team, address: str = "wiki:decisions/0001", body: str = BODY) -> None:
    pages.create_page(
        team.writer, address=address, title="Decision one", body=body, tags=["decision"]
    )


def test_a_new_page_is_version_one_with_a_create_revision(team: Team) -> None:
    make_page(team)
    page = pages.read_page(team.reader, address="wiki:decisions/0001")
    assert (page.version, page.title, page.tags, page.body) == (
        1,
        "Decision one",
        ("decision",),
        BODY,
    )
    assert page.created_by == "Wanda" and not page.editable
    [revision] = revisions.history(team.reader, address="wiki:decisions/0001")
    assert (revision.version, revision.kind, revision.author) == (1, "create", "Wanda")


def test_an_edit_makes_the_next_revision_with_its_summary_and_diff(team: Team) -> None:
    make_page(team)
    result = editing.edit_page(
        team.writer,
        address="wiki:decisions/0001",
        edits=parse_edits(
            [{"op": "replace", "old": "We decided.", "new": "We decided to use Markdown."}]
        ),
        tags_add=["core"],
        summary="Say what we decided",
    )
    assert result.saved and result.page.version == 2
    assert result.page.tags == ("decision", "core")
    assert "-We decided.\n+We decided to use Markdown.\n" in result.diff
    newest = revisions.history(team.writer, address="wiki:decisions/0001")[0]
    assert (newest.version, newest.kind, newest.summary) == (2, "edit", "Say what we decided")


def test_a_dry_run_returns_the_diff_the_save_makes_and_saves_nothing(team: Team) -> None:
    make_page(team)
    edits = [{"op": "replace_section", "heading": "Context", "body": "A new context."}]
    dry = editing.edit_page(
        team.writer, address="wiki:decisions/0001", edits=parse_edits(edits), dry_run=True
    )
    assert not dry.saved and dry.page.version == 1
    assert pages.read_page(team.writer, address="wiki:decisions/0001").body == BODY
    real = editing.edit_page(team.writer, address="wiki:decisions/0001", edits=parse_edits(edits))
    assert real.diff == dry.diff


def test_a_refused_edit_changes_nothing_and_names_the_edit(team: Team) -> None:
    make_page(team)
    edits = [
        {"op": "replace", "old": "We had a problem.", "new": "We had two."},
        {"op": "replace", "old": "not there", "new": "x"},
    ]
    with pytest.raises(InvalidEdit) as refused:
        editing.edit_page(team.writer, address="wiki:decisions/0001", edits=parse_edits(edits))
    assert refused.value.fields["edit_index"] == 1
    assert refused.value.fields["reason"] == "text_not_found"
    page = pages.read_page(team.writer, address="wiki:decisions/0001")
    assert (page.version, page.body) == (1, BODY)


def test_a_stale_base_version_is_a_conflict_naming_the_current_version(team: Team) -> None:
    make_page(team)
    edit = [{"op": "append", "text": "More."}]
    editing.edit_page(team.writer, address="wiki:decisions/0001", edits=parse_edits(edit))
    with pytest.raises(Conflict) as refused:
        editing.edit_page(
            team.writer, address="wiki:decisions/0001", edits=parse_edits(edit), base_version=1
        )
    assert refused.value.fields["current_version"] == 2


def test_edits_that_change_nothing_are_refused(team: Team) -> None:
    make_page(team)
    with pytest.raises(InvalidRequest):
        editing.edit_page(
            team.writer,
            address="wiki:decisions/0001",
            edits=parse_edits([{"op": "replace", "old": "We decided.", "new": "We decided."}]),
        )


def test_a_body_over_the_limit_is_too_large(team: Team) -> None:
    with pytest.raises(TooLarge) as refused:
        pages.create_page(
            team.writer, address="wiki:big", title="Big", body="x" * (1024 * 1024 + 1)
        )
    assert refused.value.fields["limit"] == 1024 * 1024
    # Edits that each fit but together grow the body past it are refused alike.
    make_page(team)
    quarter = [{"op": "append", "text": "y" * (250 * 1024)}]
    with pytest.raises(TooLarge) as grown:
        editing.edit_page(
            team.writer, address="wiki:decisions/0001", edits=parse_edits(quarter * 5)
        )
    assert grown.value.fields["limit"] == 1024 * 1024
    assert pages.read_page(team.writer, address="wiki:decisions/0001").version == 1


@pytest.mark.parametrize(
    ("old", "meant"),
    [
        ("**status:** proposed", "**Status:** Proposed"),  # letter case
        ("**Status:**  Proposed", "**Status:** Proposed"),  # spaces
        ("# Guide **Status:**", "# Guide\n\n**Status:**"),  # a line break
        ("**Status:** Accepted", "**Status:** Proposed"),  # a word changed: the nearest
    ],
)
def test_a_text_not_on_the_page_names_the_one_meant(team: Team, old: str, meant: str) -> None:
    make_page(team, body="# Guide\n\n**Status:** Proposed\n")
    with pytest.raises(InvalidEdit) as refused:
        editing.edit_page(
            team.writer,
            address="wiki:decisions/0001",
            edits=parse_edits([{"op": "replace", "old": old, "new": "x"}]),
        )
    assert refused.value.fields["reason"] == "text_not_found"
    assert f"Did you mean {json.dumps(meant)}?" in refused.value.message


def test_crlf_line_endings_are_normalised(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:crlf", title="CRLF", body="one\r\ntwo\r\n")
    assert pages.read_page(team.writer, address="wiki:crlf").body == "one\ntwo\n"


def test_a_page_address_is_unique(team: Team) -> None:
    make_page(team)
    with pytest.raises(Duplicate):
        make_page(team)


def test_reading_an_old_version_shows_its_content(team: Team) -> None:
    make_page(team)
    editing.edit_page(
        team.writer,
        address="wiki:decisions/0001",
        edits=parse_edits([{"op": "append", "text": "Two."}]),
    )
    old = pages.read_page(team.reader, address="wiki:decisions/0001", version=1)
    assert (old.version, old.latest_version, old.body) == (1, 2, BODY)
    with pytest.raises(NotFound):
        pages.read_page(team.reader, address="wiki:decisions/0001", version=9)


def test_reverting_the_latest_revision_restores_the_one_before(team: Team) -> None:
    make_page(team)
    editing.edit_page(
        team.writer,
        address="wiki:decisions/0001",
        edits=parse_edits([{"op": "append", "text": "Two."}]),
        title="New",
    )
    result = reverts.revert_revision(team.writer, address="wiki:decisions/0001", version=2)
    assert (result.page.version, result.page.body, result.page.title) == (3, BODY, "Decision one")
    assert revisions.history(team.writer, address="wiki:decisions/0001")[0].kind == "revert"


def test_reverting_an_older_revision_keeps_the_changes_made_since(team: Team) -> None:
    make_page(team)
    address = "wiki:decisions/0001"
    editing.edit_page(
        team.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "We had a problem.", "new": "Trouble."}]),
    )
    editing.edit_page(
        team.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "We decided.", "new": "Done."}]),
    )
    result = reverts.revert_revision(team.writer, address=address, version=2)
    assert "We had a problem." in result.page.body and "Done." in result.page.body


def test_reverting_a_revision_whose_text_changed_since_is_refused(team: Team) -> None:
    make_page(team)
    address = "wiki:decisions/0001"
    editing.edit_page(
        team.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "We decided.", "new": "A."}]),
    )
    editing.edit_page(
        team.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "A.", "new": "B."}]),
    )
    with pytest.raises(Conflict):
        reverts.revert_revision(team.writer, address=address, version=2)
    assert pages.read_page(team.writer, address=address).version == 3


def test_restoring_a_named_version(team: Team) -> None:
    make_page(team)
    address = "wiki:decisions/0001"
    editing.edit_page(
        team.writer, address=address, edits=parse_edits([{"op": "append", "text": "Two."}])
    )
    editing.edit_page(
        team.writer, address=address, edits=parse_edits([{"op": "append", "text": "Three."}])
    )
    result = reverts.restore_version(team.writer, address=address, version=1)
    assert (result.page.version, result.page.body) == (4, BODY)


def test_trash_restore_and_delete_for_good(team: Team) -> None:
    make_page(team)
    address = "wiki:decisions/0001"
    pages.trash_page(team.writer, address=address)
    with pytest.raises(NotFound):
        pages.read_page(team.writer, address=address)
    assert [p.address for p in pages.list_pages(team.writer, in_trash=True)] == [address]
    pages.restore_page(team.writer, address=address)
    assert pages.read_page(team.writer, address=address).version == 1
    with pytest.raises(InvalidRequest):
        pages.purge_page(team.writer, address=address)
    pages.trash_page(team.writer, address=address)
    pages.purge_page(team.writer, address=address)
    with pytest.raises(NotFound):
        revisions.history(team.admin, address=address)
    make_page(team)  # the address is free again, with a fresh history
    assert len(revisions.history(team.admin, address=address)) == 1


def test_raw_is_never_edited_even_by_an_admin(team: Team) -> None:
    import_documents(team.writer, documents=[Document("notes.md", "# Notes\n\nText.\n")])
    page = pages.read_page(team.reader, address="raw:notes")
    assert page.title == "Notes"
    for dry_run in (False, True):
        with pytest.raises(ReadOnly):
            editing.edit_page(
                team.admin,
                address="raw:notes",
                edits=parse_edits([{"op": "append", "text": "x"}]),
                dry_run=dry_run,
            )
    with pytest.raises(ReadOnly):
        reverts.revert_revision(team.admin, address="raw:notes", version=1)
    with pytest.raises(ReadOnly):
        pages.create_page(team.admin, address="raw:new", title="New")
    assert pages.read_page(team.reader, address="raw:notes").version == 1


def test_an_agent_trashes_and_restores_its_own_output_pages_and_no_one_elses(
    team: Team,
) -> None:
    own, others = "output:checker/runs/1", "output:runs/theirs"
    pages.create_page(team.agent, address=own, title="Run", body="Ran.\n")
    pages.create_page(team.writer, address=others, title="Theirs", body="Theirs.\n")
    make_page(team)
    assert pages.trash_page(team.agent, address=own).in_trash is True
    trashed = pages.list_pages(team.agent, address="output:checker/runs", in_trash=True)
    assert [p.address for p in trashed] == [own]
    assert pages.restore_page(team.agent, address=own).in_trash is False
    for address in (others, "wiki:decisions/0001"):
        with pytest.raises(ReadOnly):
            pages.trash_page(team.agent, address=address)
    with pytest.raises(NotFound):  # nothing of theirs in the trash to restore
        pages.restore_page(team.agent, address=others)
    assert not pages.read_page(team.writer, address=others).in_trash


def test_an_import_takes_its_title_and_tags_from_front_matter_all_or_none(team: Team) -> None:
    doc = Document("a/Meeting Notes.md", "---\ntitle: Meeting\ntags: [x, Y]\n---\nBody\n")
    [made] = import_documents(team.writer, documents=[doc], folder="raw:sources/")
    assert (made.address, made.title, made.tags, made.body) == (
        "raw:sources/a/meeting-notes",
        "Meeting",
        ("x", "y"),
        "Body\n",
    )
    with pytest.raises(Duplicate):
        import_documents(
            team.writer, documents=[Document("fresh.md", "x"), doc], folder="raw:sources/"
        )
    with pytest.raises(NotFound):
        pages.read_page(team.writer, address="raw:sources/fresh")
