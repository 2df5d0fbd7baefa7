"""Addresses that forgive what is unambiguous: a folder named without its slash is listed, an
address that names nothing says so with the nearest address the member can read, and nothing
tells of what they cannot read. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest, NotFound, ReadOnly
from codna.services.members import access, members
from codna.services.members.members import Member
from codna.services.pages import pages, search
from tests.services.conftest import Team


def make(team: Team, *addresses: str) -> None:
    for address in addresses:
        pages.create_page(team.writer, address=address, title="A page", body="Text.\n")


def listed(who: Member, address: str, *, in_trash: bool = False, **window: int) -> list[str]:
    return [p.address for p in pages.list_pages(who, address=address, in_trash=in_trash, **window)]


def test_a_folder_named_without_its_slash_lists_the_folder(team: Team) -> None:
    make(team, "wiki:decisions/0001", "wiki:decisions/0002", "wiki:decisionsx")
    assert listed(team.reader, "wiki:decisions") == ["wiki:decisions/0001", "wiki:decisions/0002"]
    assert listed(team.agent, "wiki:decisions") == listed(team.reader, "wiki:decisions/")


def test_an_address_that_names_a_page_lists_the_page_even_when_a_folder_shares_its_name(
    team: Team,
) -> None:
    make(team, "wiki:guide", "wiki:guide/setup")
    assert listed(team.reader, "wiki:guide") == ["wiki:guide"]
    assert listed(team.reader, "wiki:guide/") == ["wiki:guide/setup"]


def test_an_address_that_names_nothing_says_so_and_suggests_the_nearest_folder(
    team: Team,
) -> None:
    make(team, "wiki:decisions/0001")
    with pytest.raises(NotFound) as refused:
        pages.list_pages(team.reader, address="wiki:decisons")
    assert refused.value.message == (
        "Nothing you can read is at wiki:decisons. The nearest you can read is wiki:decisions/."
    )
    assert refused.value.fields == {"address": "wiki:decisons", "nearest": "wiki:decisions/"}


def test_an_address_far_from_everything_is_not_found_without_a_suggestion(team: Team) -> None:
    make(team, "wiki:decisions/0001")
    with pytest.raises(NotFound) as refused:
        pages.list_pages(team.reader, address="output:zz")
    assert refused.value.message == "Nothing you can read is at output:zz."
    assert "nearest" not in refused.value.fields


def test_a_space_or_a_folder_with_its_slash_that_holds_nothing_readable_is_an_empty_list(
    team: Team,
) -> None:
    make(team, "wiki:decisions/0001")
    assert pages.list_pages(team.reader, address="output") == []
    assert pages.list_pages(team.reader, address="output:") == []
    assert pages.list_pages(team.reader, address="wiki:nothing/") == []
    assert pages.list_pages(team.stranger, address="wiki") == []


def test_a_folder_one_cannot_read_is_not_found_and_never_suggested(team: Team) -> None:
    make(team, "wiki:secret/plan", "wiki:open/notes")
    access.share(team.admin, address="wiki:open/", member="sam@example.com", level="read")
    with pytest.raises(NotFound) as unreadable:
        pages.list_pages(team.stranger, address="wiki:secret")
    with pytest.raises(NotFound) as absent:
        pages.list_pages(team.stranger, address="wiki:absent")
    assert unreadable.value.message == "Nothing you can read is at wiki:secret."
    assert absent.value.message == "Nothing you can read is at wiki:absent."
    with pytest.raises(NotFound) as typo:
        pages.list_pages(team.stranger, address="wiki:secrt")
    assert "nearest" not in typo.value.fields  # wiki:secret/ is not theirs to be told of
    with pytest.raises(NotFound) as near:
        pages.list_pages(team.stranger, address="wiki:opn")
    assert near.value.fields["nearest"] == "wiki:open/"


def test_a_folder_whose_pages_are_all_in_the_trash_lists_as_a_folder_in_or_out_of_it(
    team: Team,
) -> None:
    make(team, "wiki:old/one")
    pages.trash_page(team.writer, address="wiki:old/one")
    assert listed(team.reader, "wiki:old") == []
    assert listed(team.reader, "wiki:old", in_trash=True) == ["wiki:old/one"]


def test_a_listing_takes_an_offset_and_refuses_a_bad_one(team: Team) -> None:
    make(team, "wiki:a/1", "wiki:a/2", "wiki:a/3")
    assert listed(team.reader, "wiki:a", limit=1, offset=1) == ["wiki:a/2"]
    assert listed(team.reader, "wiki:a/", offset=3) == []
    with pytest.raises(InvalidRequest) as refused:
        pages.list_pages(team.reader, address="wiki:a/", offset=-1)
    assert refused.value.fields["field"] == "offset"


def test_reading_a_page_that_is_not_there_suggests_the_nearest_page_one_can_read(
    team: Team,
) -> None:
    make(team, "wiki:decisions/0024-markdown", "wiki:secret/0024-markdown")
    access.share(team.admin, address="wiki:decisions/", member="sam@example.com", level="read")
    with pytest.raises(NotFound) as refused:
        pages.read_page(team.stranger, address="wiki:decisions/0024-markdwn")
    assert refused.value.message == (
        "There is no page wiki:decisions/0024-markdwn. "
        "The nearest you can read is wiki:decisions/0024-markdown."
    )
    assert refused.value.fields["nearest"] == "wiki:decisions/0024-markdown"
    with pytest.raises(NotFound) as unreadable:
        pages.read_page(team.stranger, address="wiki:secret/0024-markdown")
    assert unreadable.value.fields == {
        "address": "wiki:secret/0024-markdown",
        "nearest": "wiki:decisions/0024-markdown",
    }


def test_reading_a_page_far_from_any_one_can_read_says_only_that_it_is_not_there(
    team: Team,
) -> None:
    make(team, "wiki:secret/plan")
    with pytest.raises(NotFound) as refused:
        pages.read_page(team.stranger, address="wiki:secret/plan")
    assert refused.value.message == "There is no page wiki:secret/plan."
    assert refused.value.fields == {"address": "wiki:secret/plan"}


def test_reading_a_page_in_the_trash_says_it_is_in_the_trash(team: Team) -> None:
    make(team, "wiki:gone")
    pages.trash_page(team.writer, address="wiki:gone")
    with pytest.raises(NotFound) as refused:
        pages.read_page(team.reader, address="wiki:gone")
    assert refused.value.message == "wiki:gone is in the trash; restore it first."


def hits(who: Member, query: str, **where: str) -> list[str]:
    return [h.address for h in search.search(who, query=query, **where)]


def test_a_search_within_a_folder_finds_only_the_pages_under_it(team: Team) -> None:
    for address in ("wiki:decisions/0001", "wiki:decisions/old/0002", "wiki:notes", "output:run"):
        pages.create_page(team.writer, address=address, title="Turbines", body="Turbines hum.\n")
    under = ["wiki:decisions/0001", "wiki:decisions/old/0002"]
    assert sorted(hits(team.reader, "turbines", folder="wiki:decisions/")) == under
    assert sorted(hits(team.reader, "turbines", folder="wiki:decisions")) == under
    assert hits(team.reader, "turbines", folder="wiki:decisions/old/") == under[1:]
    assert sorted(hits(team.reader, "turbines", folder="wiki", space="wiki")) == [
        *under,
        "wiki:notes",
    ]
    assert hits(team.reader, "turbines", folder="wiki:empty/") == []


def test_a_search_refuses_a_folder_that_is_a_page_or_outside_the_space(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:decisions/0001", title="T", body="Words.\n")
    with pytest.raises(InvalidRequest) as page:
        search.search(team.reader, query="words", folder="wiki:decisions/0001")
    assert page.value.message == (
        "wiki:decisions/0001 is a page, not a folder; give a folder's address, "
        "such as wiki:decisions/."
    )
    assert page.value.fields == {"field": "folder"}
    with pytest.raises(InvalidRequest) as elsewhere:
        search.search(team.reader, query="words", folder="wiki:decisions/", space="output")
    assert elsewhere.value.message == "The folder wiki:decisions/ is not in the space output."
    with pytest.raises(InvalidRequest) as malformed:
        search.search(team.reader, query="words", folder="wiki:a b/")
    assert malformed.value.fields["field"] == "folder"


def test_a_search_in_a_folder_that_holds_nothing_readable_is_not_found_with_the_nearest(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:decisions/0001", title="T", body="Words.\n")
    pages.create_page(team.writer, address="wiki:secret/plan", title="T", body="Words.\n")
    access.share(team.admin, address="wiki:decisions/", member="sam@example.com", level="read")
    with pytest.raises(NotFound) as typo:
        search.search(team.stranger, query="words", folder="wiki:decisons")
    assert typo.value.fields["nearest"] == "wiki:decisions/"
    with pytest.raises(NotFound) as unreadable:
        search.search(team.stranger, query="words", folder="wiki:secret")
    assert unreadable.value.message == "Nothing you can read is at wiki:secret."


def test_a_refused_create_says_where_the_member_may_create_pages(team: Team) -> None:
    notes = members.add_person(team.admin, email="nora@example.com", name="Nora")
    for folder, level in (("wiki:notes/", "write"), ("wiki:notes/deep/", "write")):
        access.share(team.admin, address=folder, member="nora@example.com", level=level)
    access.share(team.admin, address="output:shared/", member="nora@example.com", level="write")
    cases = {
        team.agent: ("output:checker/",),
        notes: ("output:shared/", "wiki:notes/"),
        team.stranger: (),
    }
    for who, places in cases.items():
        with pytest.raises(ReadOnly) as refused:
            pages.create_page(who, address="wiki:decisions/0099", title="T")
        assert refused.value.fields == {"address": "wiki:decisions/0099", "create_under": [*places]}
        assert refused.value.message.startswith("You cannot create pages at wiki:decisions/0099.")
    with pytest.raises(ReadOnly) as agent:
        pages.create_page(team.agent, address="wiki:decisions/0099", title="T")
    assert agent.value.message == (
        "You cannot create pages at wiki:decisions/0099. "
        "You can create pages under output:checker/, such as output:checker/new-page."
    )
    with pytest.raises(ReadOnly) as stranger:
        pages.create_page(team.stranger, address="wiki:decisions/0099", title="T")
    assert "You cannot create pages anywhere yet" in stranger.value.message
    with pytest.raises(ReadOnly) as raw:
        pages.create_page(team.writer, address="raw:sources/x", title="T")
    assert raw.value.message == (
        "Pages arrive in raw by import only. "
        "You can create pages under output: or wiki:, such as output:new-page."
    )
