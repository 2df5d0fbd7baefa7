"""A person's edit as the whole new text (the web editor's save), on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from codna.errors import CodnaError, Conflict, InvalidRequest, NotFound, ReadOnly, TooLarge
from codna.markdown.edits import parse_edits
from codna.markdown.limits import MAX_BODY_BYTES, MAX_SUMMARY_CHARS, MAX_TITLE_CHARS
from codna.services.admin.transfer import Document, import_documents
from codna.services.pages import editing, pages, revisions
from tests.concurrency import at_once
from tests.services.conftest import Team

ADDRESS = "wiki:notes/plan"
BODY = "# Plan\n\nWe ship on Friday.\n"


def make_page(team: Team, address: str = ADDRESS) -> None:
    pages.create_page(team.writer, address=address, title="Plan", body=BODY, tags=["plan"])


def test_a_write_saves_the_whole_new_text_as_the_next_revision(team: Team) -> None:
    make_page(team)
    result = editing.write_page(
        team.writer,
        address=ADDRESS,
        body="# Plan\r\n\r\nWe ship on Monday.\r\n",
        title="  The   plan ",
        tags=["Plan", "dates", "plan"],
        summary="Move the date",
        base_version=1,
    )
    assert result.saved and result.page.version == 2
    page = pages.read_page(team.reader, address=ADDRESS)
    assert (page.body, page.title, page.tags) == (
        "# Plan\n\nWe ship on Monday.\n",
        "The plan",
        ("plan", "dates"),
    )
    assert "-We ship on Friday.\n+We ship on Monday.\n" in result.diff
    newest = revisions.history(team.writer, address=ADDRESS)[0]
    assert (newest.version, newest.kind, newest.summary, newest.author) == (
        2,
        "edit",
        "Move the date",
        "Wanda",
    )


def test_a_write_without_title_or_tags_keeps_them_and_says_what_it_changed(
    team: Team,
) -> None:
    make_page(team)
    result = editing.write_page(
        team.writer, address=ADDRESS, body=BODY + "\nMore.\n", base_version=1
    )
    assert (result.page.title, result.page.tags) == ("Plan", ("plan",))
    assert result.summary == "Edited: text"
    renamed = editing.write_page(
        team.writer, address=ADDRESS, body=BODY, title="Other", tags=[], base_version=2
    )
    assert renamed.summary == "Edited: text, new title, tags"
    assert renamed.page.tags == ()


def test_a_write_from_an_old_version_is_a_conflict_that_changes_nothing(team: Team) -> None:
    make_page(team)
    editing.write_page(team.writer, address=ADDRESS, body=BODY + "First.\n", base_version=1)
    with pytest.raises(Conflict) as refused:
        editing.write_page(team.writer, address=ADDRESS, body="Mine.\n", base_version=1)
    assert refused.value.fields["current_version"] == 2
    assert "changed to version 2 while you were editing version 1" in refused.value.message
    assert "copy your text, reload the page" in refused.value.message
    page = pages.read_page(team.writer, address=ADDRESS)
    assert (page.version, page.body) == (2, BODY + "First.\n")


def test_two_writes_from_the_same_version_at_once_save_one_and_refuse_the_other(
    team: Team,
) -> None:
    make_page(team)
    results = at_once(
        [
            lambda text=text: editing.write_page(
                team.writer, address=ADDRESS, body=text, base_version=1
            )
            for text in ["Ours.\n", "Theirs.\n"]
        ]
    )
    saved = [r for r in results if isinstance(r, editing.EditResult)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(saved) == 1 and len(conflicts) == 1, results
    page = pages.read_page(team.writer, address=ADDRESS)
    assert (page.version, page.body) == (2, saved[0].page.body)


def test_a_write_that_changes_nothing_is_refused(team: Team) -> None:
    make_page(team)
    with pytest.raises(InvalidRequest, match="nothing to save"):
        editing.write_page(
            team.writer, address=ADDRESS, body=BODY.replace("\n", "\r\n"), base_version=1
        )
    assert pages.read_page(team.writer, address=ADDRESS).version == 1


def test_a_reader_cannot_write_and_a_stranger_does_not_find_the_page(team: Team) -> None:
    make_page(team)
    with pytest.raises(ReadOnly, match="suggest a change instead"):
        editing.write_page(team.reader, address=ADDRESS, body="Nope.\n", base_version=1)
    with pytest.raises(NotFound):
        editing.write_page(team.stranger, address=ADDRESS, body="Nope.\n", base_version=1)
    assert pages.read_page(team.writer, address=ADDRESS).version == 1


def test_raw_is_never_written_even_by_a_writer(team: Team) -> None:
    [imported] = import_documents(
        team.writer, folder="raw:sources/", documents=[Document("memo.md", "Memo.\n")]
    )
    with pytest.raises(ReadOnly, match="never edited"):
        editing.write_page(team.writer, address=imported.address, body="Changed.\n", base_version=1)


def test_an_agent_writes_only_its_own_output_pages(team: Team) -> None:
    pages.create_page(team.agent, address="output:checker/mine", title="Mine", body="A.\n")
    editing.write_page(team.agent, address="output:checker/mine", body="B.\n", base_version=1)
    pages.create_page(team.writer, address="output:checks/theirs", title="Theirs", body="A.\n")
    with pytest.raises(ReadOnly, match="is an agent"):
        editing.write_page(team.agent, address="output:checks/theirs", body="B.\n", base_version=1)
    make_page(team)
    with pytest.raises(ReadOnly, match="is an agent"):
        editing.write_page(team.agent, address=ADDRESS, body="B.\n", base_version=1)
    with pytest.raises(ReadOnly, match="is an agent"):  # edits are refused alike
        editing.edit_page(
            team.agent, address=ADDRESS, edits=parse_edits([{"op": "append", "text": "B."}])
        )


def test_a_page_in_the_trash_is_restored_before_it_is_written(team: Team) -> None:
    make_page(team)
    pages.trash_page(team.writer, address=ADDRESS)
    with pytest.raises(NotFound, match="restore it first"):
        editing.write_page(team.writer, address=ADDRESS, body="New.\n", base_version=1)


@pytest.mark.parametrize(
    ("fields", "refusal", "field"),
    [
        ({"body": "x" * (MAX_BODY_BYTES + 1)}, TooLarge, "body"),
        ({"body": "bell \x07"}, InvalidRequest, "body"),
        ({"title": "   "}, InvalidRequest, "title"),
        ({"title": "x" * (MAX_TITLE_CHARS + 1)}, TooLarge, "title"),
        ({"tags": ["a,b"]}, InvalidRequest, "tags"),
        ({"summary": "s" * (MAX_SUMMARY_CHARS + 1)}, TooLarge, "summary"),
        ({"base_version": 0}, InvalidRequest, "base_version"),
    ],
)
def test_a_write_with_a_bad_field_is_refused_and_changes_nothing(
    team: Team, fields: dict[str, object], refusal: type[CodnaError], field: str
) -> None:
    make_page(team)
    sent: dict[str, object] = {"body": "New.\n", "base_version": 1, **fields}
    with pytest.raises(refusal) as refused:
        editing.write_page(team.writer, address=ADDRESS, **sent)  # type: ignore[arg-type]
    assert refused.value.fields["field"] == field
    assert pages.read_page(team.writer, address=ADDRESS).version == 1
