"""Finding one's way: the tree of a space, recent changes, backlinks and tags, each holding only
what the member can read, outside the trash."""

from __future__ import annotations

from codna.markdown.edits import Append, Replace
from codna.services.addresses import Address
from codna.services.members import access
from codna.services.pages import editing, navigation, pages
from tests.services.conftest import Team


def _wiki(team: Team) -> None:
    made = {
        "wiki:home": ("Home", "See [the plan](plans/q1) and [rules](wiki:rules).\n", ["start"]),
        "wiki:rules": ("Rules", "Back [home](home).\n", ["policy"]),
        "wiki:plans/q1": ("Q1", "Up: [home](../home.md#top). Self: [me](q1).\n", ["plan"]),
        "wiki:plans/q2": ("Q2", "Nothing.\n", ["plan", "draft"]),
        "wiki:plans/old/q0": ("Q0", "[home](wiki:home)\n", []),
        "wiki:secret/s": ("Secret", "[home](wiki:home) and [q1](../plans/q1)\n", ["plan"]),
    }
    for address, (title, body, tags) in made.items():
        pages.create_page(team.writer, address=address, title=title, body=body, tags=tags)
    access.share(team.admin, address="wiki:plans/", member="sam@example.com", level="read")


def test_the_tree_opens_the_way_to_a_page(team: Team) -> None:
    _wiki(team)
    root, plans = navigation.tree(team.reader, address="wiki:plans/q1")
    assert root.folder == Address("wiki", "")
    assert root.folders == [("plans", 3), ("secret", 1)]
    assert root.pages == [("wiki:home", "Home"), ("wiki:rules", "Rules")]
    assert plans.folder == Address("wiki", "plans/")
    assert plans.folders == [("old", 1)]
    assert plans.pages == [("wiki:plans/q1", "Q1"), ("wiki:plans/q2", "Q2")]


def test_the_tree_holds_only_what_the_member_reads(team: Team) -> None:
    _wiki(team)
    (root,) = navigation.tree(team.stranger, address="wiki:")
    assert root.folders == [("plans", 3)] and root.pages == []
    pages.trash_page(team.writer, address="wiki:plans/q2")
    root, plans = navigation.tree(team.stranger, address="wiki:plans/")
    assert plans.pages == [("wiki:plans/q1", "Q1")]


def test_backlinks_resolve_relative_links_and_leave_out_the_unreadable(team: Team) -> None:
    _wiki(team)
    assert navigation.backlinks(team.reader, address="wiki:home") == [
        ("wiki:plans/old/q0", "Q0"),
        ("wiki:plans/q1", "Q1"),
        ("wiki:rules", "Rules"),
        ("wiki:secret/s", "Secret"),
    ]
    # Sam reads plans/ only; a page's link to itself is no backlink.
    assert navigation.backlinks(team.stranger, address="wiki:plans/q1") == []
    assert navigation.backlinks(team.reader, address="wiki:plans/q1") == [
        ("wiki:home", "Home"),
        ("wiki:secret/s", "Secret"),
    ]


def test_backlinks_follow_each_save(team: Team) -> None:
    _wiki(team)
    page = pages.read_page(team.writer, address="wiki:rules")
    editing.edit_page(
        team.writer,
        address="wiki:rules",
        edits=[Replace(old="[home](home)", new="[plan](plans/q2)")],
        base_version=page.version,
    )
    assert ("wiki:rules", "Rules") not in navigation.backlinks(team.reader, address="wiki:home")
    assert navigation.backlinks(team.reader, address="wiki:plans/q2") == [("wiki:rules", "Rules")]
    pages.trash_page(team.writer, address="wiki:rules")
    assert navigation.backlinks(team.reader, address="wiki:plans/q2") == []


def test_recent_changes_newest_first_in_a_folder_and_for_readers_only(team: Team) -> None:
    _wiki(team)
    page = pages.read_page(team.writer, address="wiki:plans/q2")
    editing.edit_page(
        team.writer,
        address="wiki:plans/q2",
        edits=[Append(text="More.\n")],
        base_version=page.version,
        summary="Say more",
    )
    everything = navigation.recent_changes(team.reader)
    assert [(c.address, c.version) for c in everything[:2]] == [
        ("wiki:plans/q2", 2),
        ("wiki:secret/s", 1),
    ]
    assert everything[0].summary == "Say more" and everything[0].author == "Wanda"
    assert {c.address for c in navigation.recent_changes(team.stranger)} == {
        "wiki:plans/q1",
        "wiki:plans/q2",
        "wiki:plans/old/q0",
    }
    folder = navigation.recent_changes(team.reader, address="wiki:plans/old/")
    assert [c.address for c in folder] == ["wiki:plans/old/q0"]
    assert len(navigation.recent_changes(team.reader, limit=2, offset=1)) == 2


def test_tags_count_readable_pages(team: Team) -> None:
    _wiki(team)
    assert navigation.tags(team.reader) == [
        ("draft", 1),
        ("plan", 3),
        ("policy", 1),
        ("start", 1),
    ]
    assert navigation.tags(team.stranger) == [("draft", 1), ("plan", 2)]
    assert [p.address for p in navigation.tagged(team.stranger, tag="plan")] == [
        "wiki:plans/q1",
        "wiki:plans/q2",
    ]


def test_a_missing_page_may_be_made_by_a_writer_only(team: Team) -> None:
    _wiki(team)
    assert navigation.may_create(team.writer, address="wiki:plans/q3")
    assert not navigation.may_create(team.reader, address="wiki:plans/q3")
    assert not navigation.may_create(team.writer, address="wiki:plans/q1")  # there already
    pages.trash_page(team.writer, address="wiki:plans/q2")
    assert not navigation.may_create(team.writer, address="wiki:plans/q2")  # in the trash


def test_a_save_that_changes_only_a_link_s_destination_moves_the_backlink(team: Team) -> None:
    _wiki(team)
    page = pages.read_page(team.writer, address="wiki:plans/q1")
    editing.edit_page(
        team.writer,
        address="wiki:plans/q1",
        edits=[Replace(old="../home.md#top", new="q2")],  # only the destination's text
        base_version=page.version,
    )
    assert ("wiki:plans/q1", "Q1") in navigation.backlinks(team.reader, address="wiki:plans/q2")
    assert ("wiki:plans/q1", "Q1") not in navigation.backlinks(team.reader, address="wiki:home")
    # A fence opened far above a link hides it: judged on the whole page.
    page = pages.read_page(team.writer, address="wiki:home")
    editing.edit_page(
        team.writer,
        address="wiki:home",
        edits=[Replace(old="See [the plan]", new="```\nSee [the plan]")],
        base_version=page.version,
    )
    assert navigation.backlinks(team.reader, address="wiki:rules") == []


def test_whether_a_member_reads_a_page_leaves_out_the_trash_and_others(team: Team) -> None:
    _wiki(team)
    assert navigation.reads(team.reader, address="wiki:home")
    assert not navigation.reads(team.stranger, address="wiki:home")  # plans/ only
    assert navigation.reads(team.stranger, address="wiki:plans/q1")
    pages.trash_page(team.writer, address="wiki:plans/q1")
    assert not navigation.reads(team.stranger, address="wiki:plans/q1")
