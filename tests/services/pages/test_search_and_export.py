"""Search over what a member can read, and export to Markdown files with front matter."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from codna.errors import InvalidRequest
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.members import access
from codna.services.pages import editing, pages, search
from tests.services.conftest import Team


def test_search_ranks_title_matches_and_finds_every_word(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:turbines", title="Turbines", body="How they hum.")
    pages.create_page(
        team.writer, address="wiki:notes", title="Notes", body="The turbines are loud."
    )
    pages.create_page(team.writer, address="wiki:other", title="Other", body="Nothing here.")
    hits = search.search(team.reader, query="turbines")
    assert [h.address for h in hits] == ["wiki:turbines", "wiki:notes"]
    assert [h.address for h in search.search(team.reader, query="turbines loud")] == ["wiki:notes"]
    assert "[turbines]" in hits[1].snippet.lower()


def test_search_stems_words_and_survives_query_syntax(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:run", title="Runs", body="She was running fast.")
    assert [h.address for h in search.search(team.reader, query="runs")] == ["wiki:run"]
    assert search.search(team.reader, query='"running* (fast:') != []
    with pytest.raises(InvalidRequest):
        search.search(team.reader, query="  ?! ")


def test_search_takes_prefixes_and_phrases(team: Team) -> None:
    pages.create_page(
        team.writer, address="wiki:log", title="Log", body="The zeppelin quartermaster reports."
    )
    pages.create_page(
        team.writer, address="wiki:apart", title="Apart", body="Reports of a quartermaster."
    )
    assert [h.address for h in search.search(team.reader, query="zepp*")] == ["wiki:log"]
    assert search.search(team.reader, query="zepp") == []
    phrase = search.search(team.reader, query='"quartermaster reports"')
    assert [h.address for h in phrase] == ["wiki:log"]
    both = {h.address for h in search.search(team.reader, query="quartermaster reports")}
    assert both == {"wiki:log", "wiki:apart"}
    assert [h.address for h in search.search(team.reader, query='"zeppelin quarter*')] == [
        "wiki:log"
    ]


def test_search_follows_edits_trash_and_folder_grants(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:secret/plan", title="Plan", body="zebra")
    access.share(team.admin, address="wiki:secret/", member="sam@example.com", level="read")
    assert [h.address for h in search.search(team.stranger, query="zebra")] == ["wiki:secret/plan"]
    editing.edit_page(
        team.writer,
        address="wiki:secret/plan",
        edits=parse_edits([{"op": "replace", "old": "zebra", "new": "lion"}]),
    )
    assert search.search(team.stranger, query="zebra") == []
    pages.trash_page(team.writer, address="wiki:secret/plan")
    assert search.search(team.stranger, query="lion") == []


def test_export_writes_front_matter_and_body_and_leaves_out_the_trash(
    team: Team, tmp_path: Path
) -> None:
    pages.create_page(team.writer, address="wiki:a/b", title="B: colon", body="Text\n", tags=["t"])
    pages.create_page(team.writer, address="wiki:gone", title="Gone")
    pages.trash_page(team.writer, address="wiki:gone")
    [exported] = transfer.export_documents(team.reader)
    assert (exported.address, exported.path) == ("wiki:a/b", "wiki/a/b.md")
    meta, body = transfer.split_front_matter(exported.text)
    assert (meta["title"], meta["tags"], meta["address"], meta["version"], body) == (
        "B: colon",
        ["t"],
        "wiki:a/b",
        1,
        "Text\n",
    )
    assert yaml.safe_load(yaml.safe_dump(meta)) == meta
