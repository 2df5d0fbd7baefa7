"""Every text field a caller sends is plain text: a control character or a lone surrogate in
any of them is refused as invalid_request naming the field, and nothing is saved, on SQLite
and PostgreSQL alike (PostgreSQL cannot store NUL at all; SQLite would keep it).

Since no refusal changes anything, the table's rows share one workspace per engine, and each
row shows that every table is as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa

from codna.errors import InvalidRequest, NotFound
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.services.pages import editing, pages, revisions, search
from codna.services.suggestions import changes, links, reverts
from codna.storage.database import Database
from codna.storage.schema import metadata
from tests.conftest import ENGINES, ROLES, fresh_database, seed
from tests.services.conftest import Team

PAGE = "wiki:notes/first"
OTHER = "wiki:notes/second"
BODY = "# Notes\n\nOne line.\n\n## Later\n\nAnother line.\n"


@dataclass(frozen=True)
class Ready:
    """A team, a page at version 2 with a pending suggestion and a pending suggested link."""

    team: Team
    suggestion_id: int
    link_id: int


def prepare(team: Team) -> Ready:
    pages.create_page(team.writer, address=PAGE, title="First", body=BODY)
    pages.create_page(team.writer, address=OTHER, title="Second", body="Two.\n")
    editing.edit_page(
        team.writer, address=PAGE, edits=parse_edits([{"op": "append", "text": "More."}])
    )
    made = changes.suggest_edit(
        team.reader,
        address=PAGE,
        edits=parse_edits([{"op": "replace", "old": "One line.", "new": "A line."}]),
        reason="Shorter.",
    )
    assert made.suggestion is not None
    link = links.suggest_link(team.reader, address=PAGE, target=OTHER, reason="Related.")
    return Ready(team, made.suggestion.id, link.id)


@pytest.fixture(scope="module", params=ENGINES)
def workspace(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Database, Ready]]:
    """The seeded team of tests/conftest.py and the page of `prepare`, once per engine."""
    with fresh_database(request.param, request, tmp_path_factory) as url:
        seed(url, spare=())
        database = Database(url)
        use_database(database)
        try:
            team = Team(*(members.member_by_handle(handle) for handle in ROLES.values()))
            prepared = prepare(team)
        finally:
            use_database(None)
        try:
            yield database, prepared
        finally:
            database.dispose()


@pytest.fixture
def shared(workspace: tuple[Database, Ready]) -> Iterator[tuple[Database, Ready]]:
    """The module's workspace, in use for one test."""
    use_database(workspace[0])
    try:
        yield workspace
    finally:
        use_database(None)


@dataclass(frozen=True)
class Field:
    """A text field: how to send `value` in it, and where a character sits in a value that
    is otherwise accepted."""

    field: str
    send: Callable[[Ready, str], object]
    spelled: str = "a{}b"
    edit_index: int | None = None


def edit(edits: list[dict[str, str]]) -> Callable[[Ready, str], object]:
    """Edit the page with `edits`, where "{}" in a value is replaced by the value sent."""

    def send(r: Ready, value: str) -> object:
        filled = [{k: v.replace("{}", value) for k, v in e.items()} for e in edits]
        return editing.edit_page(r.team.writer, address=PAGE, edits=parse_edits(filled))

    return send


def suggest(field: str, shape: Callable[[str], object]) -> Callable[[Ready, str], object]:
    """Suggest a change to the page, with `shape(value)` as `field`."""

    def send(r: Ready, value: str) -> object:
        given: dict[str, Any] = {
            "edits": [{"op": "append", "text": "Suggested."}],
            "reason": "Because.",
            field: shape(value),
        }
        given["edits"] = parse_edits(given["edits"])
        return changes.suggest_edit(r.team.reader, address=PAGE, **given)

    return send


def same(value: str) -> str:
    return value


FIELDS: dict[str, Field] = {
    # pages
    "the address of a new page": Field(
        "address",
        lambda r, v: pages.create_page(r.team.writer, address=v, title="T"),
        spelled="wiki:notes/a{}b",
    ),
    "the address of a page read": Field(
        "address",
        lambda r, v: pages.read_page(r.team.writer, address=v),
        spelled="wiki:notes/first{}",
    ),
    "the address of a listing": Field(
        "address",
        lambda r, v: pages.list_pages(r.team.writer, address=v),
        spelled="wiki:notes{}/",
    ),
    "a new page's title": Field(
        "title", lambda r, v: pages.create_page(r.team.writer, address="wiki:t", title=v)
    ),
    "a new page's tag": Field(
        "tags",
        lambda r, v: pages.create_page(r.team.writer, address="wiki:t", title="T", tags=[v]),
    ),
    "a new page's body": Field(
        "body",
        lambda r, v: pages.create_page(r.team.writer, address="wiki:t", title="T", body=v),
    ),
    "a new page's summary": Field(
        "summary",
        lambda r, v: pages.create_page(r.team.writer, address="wiki:t", title="T", summary=v),
    ),
    # edits
    "an edit's old text": Field(
        "old",
        edit([{"op": "append", "text": "Fine."}, {"op": "replace", "old": "{}", "new": "x"}]),
        edit_index=1,
    ),
    "an edit's new text": Field(
        "new", edit([{"op": "replace", "old": "One line.", "new": "{}"}]), edit_index=0
    ),
    "an edit's anchor": Field(
        "anchor", edit([{"op": "insert_after", "anchor": "{}", "text": "x"}]), edit_index=0
    ),
    "an edit's text": Field("text", edit([{"op": "append", "text": "{}"}]), edit_index=0),
    "an edit's heading": Field(
        "heading", edit([{"op": "delete_section", "heading": "{}"}]), edit_index=0
    ),
    "an edit's section body": Field(
        "body",
        edit([{"op": "replace_section", "heading": "Later", "body": "{}"}]),
        edit_index=0,
    ),
    "an edit's new title": Field(
        "title", lambda r, v: editing.edit_page(r.team.writer, address=PAGE, edits=[], title=v)
    ),
    "a tag an edit adds": Field(
        "tags.add",
        lambda r, v: editing.edit_page(r.team.writer, address=PAGE, edits=[], tags_add=[v]),
    ),
    "a tag an edit removes": Field(
        "tags.remove",
        lambda r, v: editing.edit_page(r.team.writer, address=PAGE, edits=[], tags_remove=[v]),
    ),
    "an edit's summary": Field(
        "summary",
        lambda r, v: editing.edit_page(
            r.team.writer,
            address=PAGE,
            edits=parse_edits([{"op": "append", "text": "x"}]),
            summary=v,
        ),
    ),
    # reverting
    "a revert's summary": Field(
        "summary",
        lambda r, v: reverts.revert_revision(r.team.writer, address=PAGE, version=2, summary=v),
    ),
    "a restore's summary": Field(
        "summary",
        lambda r, v: reverts.restore_version(r.team.writer, address=PAGE, version=1, summary=v),
    ),
    # suggested changes
    "a suggestion's reason": Field("reason", suggest("reason", same)),
    "a suggestion's routine": Field("via", suggest("via", same)),
    "a suggestion's title": Field("title", suggest("title", same)),
    "a tag a suggestion adds": Field("tags.add", suggest("tags_add", lambda v: [v])),
    "a tag a suggestion removes": Field("tags.remove", suggest("tags_remove", lambda v: [v])),
    "a suggestion's edit": Field(
        "text", suggest("edits", lambda v: [{"op": "append", "text": v}]), edit_index=0
    ),
    "the reason for a decision on a suggestion": Field(
        "reason",
        lambda r, v: changes.decide_edit_suggestion(
            r.team.writer, suggestion_id=r.suggestion_id, decision="reject", reason=v
        ),
    ),
    # suggested links
    "a suggested link's reason": Field(
        "reason",
        lambda r, v: links.suggest_link(r.team.reader, address=OTHER, target=PAGE, reason=v),
    ),
    "a suggested link's target": Field(
        "address",
        lambda r, v: links.suggest_link(r.team.reader, address=OTHER, target=v, reason="x"),
        spelled="wiki:notes/first{}",
    ),
    "a suggested link's anchor": Field(
        "anchor",
        lambda r, v: links.suggest_link(
            r.team.reader, address=OTHER, target=PAGE, reason="x", anchor=v
        ),
    ),
    "the reason for a decision on a link": Field(
        "reason",
        lambda r, v: links.decide_link(
            r.team.writer, suggestion_id=r.link_id, decision="reject", reason=v
        ),
    ),
    # members
    "a person's e-mail": Field(
        "email",
        lambda r, v: members.add_person(r.team.admin, email=v, name="Pat"),
        spelled="pat{}@example.com",
    ),
    "a person's name": Field(
        "name", lambda r, v: members.add_person(r.team.admin, email="pat@example.com", name=v)
    ),
    "a person's password": Field(
        "password",
        lambda r, v: members.add_person(
            r.team.admin, email="pat@example.com", name="Pat", password=v
        ),
        spelled="long enough {} password",
    ),
    "an agent's name": Field(
        "name",
        lambda r, v: members.add_agent(r.team.admin, name=v, responsible=["wanda@example.com"]),
    ),
    "a person responsible for an agent": Field(
        "responsible",
        lambda r, v: members.add_agent(r.team.admin, name="helper", responsible=[v]),
        spelled="wanda@example.com{}",
    ),
    "the e-mail signing in": Field(
        "email",
        lambda r, v: members.authenticate(v, "correct horse"),
        spelled="ada@example.com{}",
    ),
    "the password signing in": Field(
        "password",
        lambda r, v: members.authenticate("ada@example.com", v),
        spelled="correct horse{}",
    ),
    "the member disabled": Field(
        "member",
        lambda r, v: members.set_disabled(r.team.admin, handle=v, disabled=True),
        spelled="rita@example.com{}",
    ),
    # sharing
    "the member shared with": Field(
        "member",
        lambda r, v: access.share(r.team.admin, address=PAGE, member=v, level="read"),
        spelled="sam@example.com{}",
    ),
    "the address shared": Field(
        "address",
        lambda r, v: access.share(r.team.admin, address=v, member="sam@example.com", level="read"),
        spelled="wiki:notes/first{}",
    ),
    "the member a share is taken from": Field(
        "member",
        lambda r, v: access.unshare(r.team.admin, address="wiki", member=v),
        spelled="rita@example.com{}",
    ),
    # tokens
    "a token's name": Field(
        "name",
        lambda r, v: tokens.create_token(r.team.admin, member="wanda@example.com", name=v),
    ),
    "the member a token is for": Field(
        "member",
        lambda r, v: tokens.create_token(r.team.admin, member=v, name="t"),
        spelled="wanda@example.com{}",
    ),
    # search
    "a search query": Field(
        "query", lambda r, v: search.search(r.team.reader, query=v), spelled="one {}line"
    ),
    # import: the text of a file becomes a body
    "an imported file's text": Field(
        "body",
        lambda r, v: transfer.import_documents(
            r.team.admin, documents=[transfer.Document("n.md", v)], folder="raw:in/"
        ),
    ),
}


def everything(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to show that a refusal saved nothing."""
    with database.read() as conn:
        return {
            table.name: sorted((tuple(row) for row in conn.execute(sa.select(table))), key=repr)
            for table in metadata.sorted_tables
        }


@pytest.mark.parametrize("case", FIELDS.values(), ids=FIELDS.keys())
def test_a_nul_or_a_lone_surrogate_in_any_text_field_is_refused_naming_the_field_and_saving_nothing(
    shared: tuple[Database, Ready], case: Field
) -> None:
    db, ready = shared
    before = everything(db)
    with pytest.raises(InvalidRequest) as refused:
        case.send(ready, case.spelled.format("\x00"))
    named = {key: refused.value.fields.get(key) for key in ("field", "edit_index", "character")}
    assert named == {"field": case.field, "edit_index": case.edit_index, "character": "U+0000"}
    assert "U+0000" in refused.value.message and f"'{case.field}'" in refused.value.message
    with pytest.raises(InvalidRequest) as refused:
        case.send(ready, case.spelled.format("\udc80"))
    named = {key: refused.value.fields.get(key) for key in ("field", "edit_index")}
    assert named == {"field": case.field, "edit_index": case.edit_index}
    assert "surrogate" in refused.value.message
    assert everything(db) == before


def test_a_control_character_is_refused_in_a_title_before_its_spaces_are_tidied(
    team: Team,
) -> None:
    # U+001F is white space to str.split, which tidies a title: it must be refused, not lost.
    with pytest.raises(InvalidRequest) as refused:
        pages.create_page(team.writer, address="wiki:t", title="A\x1ftitle")
    assert refused.value.message == (
        "The field 'title' holds the control character U+001F; remove it."
    )
    assert pages.list_pages(team.writer) == []


def test_tabs_newlines_and_carriage_returns_are_kept_as_text(team: Team) -> None:
    made = pages.create_page(
        team.writer,
        address="wiki:t",
        title="A\r\ntitle",
        body="a\tb\r\nc\rd\n",
        summary="Made\r\nit.",
        tags=["one\ttag"],
    )
    assert (made.title, made.body, made.tags) == ("A title", "a\tb\nc\nd\n", ("one tag",))
    done = editing.edit_page(
        team.writer, address="wiki:t", edits=parse_edits([{"op": "append", "text": "e\r\n\tf"}])
    )
    assert "e\n\tf" in done.page.body and "\r" not in done.page.body


def test_a_text_beyond_ascii_is_accepted(team: Team) -> None:
    title, body = "Ærø — 東京 ✓ 🎉", "A\u00a0non-breaking space, a zero\u200bwidth one, ©°±."
    made = pages.create_page(team.writer, address="wiki:t", title=title, body=body)
    assert (made.title, made.body) == (title, body)


# -- a new page's address is a file name ----------------------------------------------------

NOT_FILE_NAMES = {
    "an empty part": "wiki:notes//a",
    "a part that is .": "wiki:notes/./a",
    "a part that is ..": "wiki:notes/../a",
    "a page's name ending in a dot": "wiki:notes/a.",
    "a folder's name ending in a dot": "wiki:notes./a",
    "a space": "wiki:notes/a b",
    "a folder's name ending in a space": "wiki:notes /a",
    **{f"the character {c}": f"wiki:notes/a{c}b" for c in '\\:*?"<>|'},
    "CON": "wiki:con",
    "PRN in capitals": "wiki:notes/PRN",
    "AUX in a folder's name": "wiki:Aux/a",
    "NUL with an extension": "wiki:notes/nul.md",
    "COM1": "wiki:notes/com1",
    "COM9 with two extensions": "wiki:notes/COM9.tar.gz",
    "LPT1": "wiki:lpt1",
    "LPT9 with an extension": "wiki:notes/lpt9.txt",
    "a folder's name of 256 bytes": "wiki:" + "f" * 256 + "/a",
    "a page's name of 253 bytes, 256 with .md": "wiki:notes/" + "p" * 253,
}
FILE_NAMES = {
    "a name that starts like a device's": "wiki:notes/console",
    "COM10": "wiki:notes/com10",
    "LPT0": "wiki:notes/lpt0",
    "a dot inside a name": "wiki:notes/v1.2",
    "a folder's name of 255 bytes": "wiki:" + "f" * 255 + "/a",
    "a page's name of 252 bytes, 255 with .md": "wiki:notes/" + "p" * 252,
}


@pytest.mark.parametrize("address", NOT_FILE_NAMES.values(), ids=NOT_FILE_NAMES.keys())
def test_a_page_is_not_made_at_an_address_that_cannot_be_a_file_name(
    shared: tuple[Database, Ready], address: str
) -> None:
    db, ready = shared
    before = everything(db)
    with pytest.raises(InvalidRequest) as refused:
        pages.create_page(ready.team.writer, address=address, title="T")
    assert refused.value.fields == {"field": "address"}
    assert refused.value.message.endswith(".")
    assert everything(db) == before


@pytest.mark.parametrize("address", FILE_NAMES.values(), ids=FILE_NAMES.keys())
def test_a_page_is_made_at_an_address_that_is_a_file_name_everywhere(
    team: Team, address: str
) -> None:
    assert pages.create_page(team.writer, address=address, title="T").address == address


def test_an_import_is_refused_whole_when_a_file_would_become_a_device_name(team: Team) -> None:
    documents = [transfer.Document("fine.md", "Fine.\n"), transfer.Document("aux.md", "No.\n")]
    with pytest.raises(InvalidRequest) as refused:
        transfer.import_documents(team.admin, documents=documents, folder="raw:in/")
    assert "'aux'" in refused.value.message and "reserves" in refused.value.message
    assert pages.list_pages(team.admin, address="raw") == []


def test_a_page_made_before_the_file_name_rule_is_read_and_edited_at_its_address(
    team: Team, db: Database
) -> None:
    pages.create_page(team.writer, address="wiki:notes/draft", title="Draft", body="Old.\n")
    # How such a page looks, made by an earlier version: its address as it was allowed then.
    with db.write() as conn:
        conn.execute(
            sa.update(metadata.tables["pages"])
            .where(metadata.tables["pages"].c.path == "notes/draft")
            .values(path="notes/CON.")
        )
    address = "wiki:notes/CON."
    assert pages.read_page(team.reader, address=address).body == "Old.\n"
    editing.edit_page(
        team.writer, address=address, edits=parse_edits([{"op": "append", "text": "New."}])
    )
    assert [r.version for r in revisions.history(team.reader, address=address)] == [2, 1]
    assert [p.address for p in pages.list_pages(team.reader, address="wiki:notes/")] == [address]
    with pytest.raises(NotFound):
        pages.read_page(team.reader, address="wiki:notes/nul")  # refused for making only


# -- a short field holds no bidirectional control; a Markdown field may --------------------

BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x61C)]
# The fields that are Markdown, the page's own text: they may quote any text, and do.
MARKDOWN = {
    "a new page's body",
    "an edit's old text",
    "an edit's new text",
    "an edit's anchor",
    "an edit's text",
    "an edit's heading",
    "an edit's section body",
    "a suggestion's edit",
    "a suggested link's anchor",
    "an imported file's text",
}
SHORT = {name: field for name, field in FIELDS.items() if name not in MARKDOWN}


@pytest.mark.parametrize("case", SHORT.values(), ids=SHORT.keys())
def test_a_bidirectional_control_in_any_short_field_is_refused_naming_the_field_and_character(
    shared: tuple[Database, Ready], case: Field
) -> None:
    db, ready = shared
    before = everything(db)
    for bidi in BIDI:
        character = f"U+{ord(bidi):04X}"
        with pytest.raises(InvalidRequest) as refused:
            case.send(ready, case.spelled.format(bidi))
        named = {key: refused.value.fields.get(key) for key in ("field", "edit_index", "character")}
        assert named == {"field": case.field, "edit_index": None, "character": character}
        assert character in refused.value.message and f"'{case.field}'" in refused.value.message
        assert refused.value.code == "invalid_request"
    assert everything(db) == before


def test_a_body_and_an_edit_keep_a_bidirectional_control_as_the_page_text_it_is(
    team: Team,
) -> None:
    body = "Hebrew in a sentence: \u2067שלום\u2069, and a mark\u200f.\n"
    made = pages.create_page(team.writer, address="wiki:t", title="T", body=body)
    assert made.body == body
    done = editing.edit_page(
        team.writer,
        address="wiki:t",
        edits=parse_edits([{"op": "append", "text": "An override \u202eright to left\u202c."}]),
    )
    assert "\u202eright to left\u202c" in done.page.body


# -- a reason that shows nothing is no reason --------------------------------------------

INVISIBLE = {
    "white space of every kind": " \t\n\r\u00a0\u2002\u2003\u2009\u200a\u2028\u2029\u3000\u205f",
    "zero-width spaces and joiners": "\u200b\u200c\u200d",
    "a byte-order mark": "\ufeff",
    "a word joiner": "\u2060",
    "a soft hyphen": "\u00ad",
    "other format characters": "\u2061\u2062\u2063\u2064\u180e\U000e0041",
    "combining marks alone": "\u0301\u0308\u20dd",
    "blank letters": "\u3164\u115f\u2800",
    "all of them together": " \u200b\u00ad\u0301\ufeff\u2060 \u3164",
}


@pytest.mark.parametrize("reason", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_reason_that_shows_nothing_is_refused_as_missing_where_one_is_required(
    shared: tuple[Database, Ready], reason: str
) -> None:
    db, ready = shared
    before = everything(db)
    required = {
        "suggesting a change": lambda: changes.suggest_edit(
            ready.team.reader,
            address=PAGE,
            edits=parse_edits([{"op": "append", "text": "Unseen."}]),
            reason=reason,
        ),
        "suggesting a link": lambda: links.suggest_link(
            ready.team.reader, address=OTHER, target=PAGE, reason=reason
        ),
    }
    for send in required.values():
        with pytest.raises(InvalidRequest) as refused:
            send()
        assert refused.value.fields == {"field": "reason"}
        assert refused.value.message == (
            "Say why, in a sentence or two: the reason is required. "
            "What was sent shows nothing to a reader."
        )
    assert everything(db) == before


def test_a_reason_that_shows_nothing_on_a_rejection_is_kept_as_no_reason(team: Team) -> None:
    pages.create_page(team.writer, address=PAGE, title="First", body=BODY)
    made = changes.suggest_edit(
        team.reader,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "More."}]),
        reason="Shorter.",
    )
    assert made.suggestion is not None
    rejected = changes.decide_edit_suggestion(
        team.writer, suggestion_id=made.suggestion.id, decision="reject", reason="\u200b\u00ad "
    )
    assert rejected.decision_reason is None


def test_a_reason_with_a_mark_on_a_letter_or_an_emoji_alone_shows_something(team: Team) -> None:
    pages.create_page(team.writer, address=PAGE, title="First", body=BODY)
    for n, reason in enumerate(["e\u0301", "\U0001f44d", "\u200b\u5b57\u200b"]):
        made = changes.suggest_edit(
            team.reader,
            address=PAGE,
            edits=parse_edits([{"op": "append", "text": f"More {n}."}]),
            reason=reason,
        )
        assert made.suggestion is not None and made.suggestion.reason == reason
