"""A hit's snippet is the plain text a reader sees around the first hit, the same on both
engines; search narrows by space, folder and tag in its own query."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest
from codna.markdown.plain_text import Piece
from codna.services.pages import editing, pages, search
from tests.services.conftest import Team

DECISION = (
    "**Status:** Accepted · 2026-11-02\n\n"
    "## Consequences\n\n"
    "| Who | What |\n|-----|------|\n| *People* | read [pages](wiki:home) |\n\n"
    "- [x] Every **kestrel** change is a `revision` &amp; can be undone.\n"
    "- Links like [the guide](https://example.com/kestrel) keep their label.\n\n"
    "```\nkestrel = '**not stripped**'\n```\n"
)


def hit_words(hit: search.SearchHit) -> list[str]:
    return [p.text for p in hit.pieces if p.hit]


def test_a_snippet_is_the_sections_plain_text_with_the_hit_as_a_piece_of_its_own(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:d", title="D", body=DECISION)
    [hit] = search.search(team.reader, query="undone")
    assert hit.section == "Consequences"
    assert hit.pieces == (
        Piece("…What People read pages Every kestrel change is a revision & can be "),
        Piece("undone", hit=True),
        Piece(
            ". Links like the guide keep their label. kestrel = '**not stripped**'",
        ),
    )
    assert hit.snippet == (
        "…What People read pages Every kestrel change is a revision & can be [undone]. "
        "Links like the guide keep their label. kestrel = '**not stripped**'"
    )


def test_every_hit_in_the_snippet_is_marked_and_a_phrase_word_by_word(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:d", title="D", body=DECISION)
    [hit] = search.search(team.reader, query="kestrel")
    assert hit_words(hit) == ["kestrel", "kestrel"]  # the one in the link's address is not shown
    assert "**" not in "".join(p.text for p in hit.pieces[:-1])
    [phrase] = search.search(team.reader, query='"kestrel change"')
    assert hit_words(phrase) == ["kestrel", "change", "kestrel"]  # its words wherever they are
    assert "Every [kestrel] [change] is" in phrase.snippet


def test_a_hit_deep_in_a_long_section_is_shown_with_the_words_around_it(team: Team) -> None:
    filler = "".join(f"- Item number {n} of a long list.\n" for n in range(400))
    body = f"## Long\n\n{filler}\nThe **osprey** nests at the end.\n\n{filler}"
    pages.create_page(team.writer, address="wiki:long", title="Long", body=body)
    [hit] = search.search(team.reader, query="osprey")
    assert hit.pieces[0] == Piece(
        "…Item number 398 of a long list. Item number 399 of a long list. The "
    )
    assert hit.pieces[1] == Piece("osprey", hit=True)
    assert hit.pieces[-1].text.endswith("…")
    assert len("".join(p.text for p in hit.pieces)) <= 225


def test_a_hit_only_in_the_heading_shows_the_sections_opening(team: Team) -> None:
    body = "## Merlin sightings\n\nThe *first* was in [May](wiki:may).\n"
    pages.create_page(team.writer, address="wiki:m", title="M", body=body)
    [hit] = search.search(team.reader, query="merlin")
    assert (hit.section, hit.pieces) == ("Merlin sightings", (Piece("The first was in May."),))


def test_a_page_only_its_title_matches_shows_its_opening_words_in_plain_text(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:t", title="Gannet", body=DECISION)
    [hit] = search.search(team.reader, query="gannet")
    assert hit.section is None
    assert hit.pieces[0].text.startswith("Status: Accepted")
    assert not any(p.hit for p in hit.pieces)


def make_birds(team: Team) -> None:
    for address, tags in (
        ("wiki:birds/a", ["coast"]),
        ("wiki:birds/deep/b", ["coast", "rare"]),
        ("wiki:fish/c", ["coast"]),
        ("output:birds/d", ["Rare"]),
    ):
        pages.create_page(
            team.writer, address=address, title="T", body="## S\n\nA shrike.\n", tags=tags
        )


def found(team: Team, **filters: str) -> set[str]:
    return {hit.address for hit in search.search(team.reader, query="shrike", **filters)}


def test_a_tag_filter_keeps_the_pages_with_that_tag_alone_and_combines_with_the_others(
    team: Team,
) -> None:
    make_birds(team)
    assert found(team, tag="rare") == {"wiki:birds/deep/b", "output:birds/d"}
    assert found(team, tag=" RARE ") == {"wiki:birds/deep/b", "output:birds/d"}
    assert found(team, tag="coast", folder="wiki:birds/") == {"wiki:birds/a", "wiki:birds/deep/b"}
    assert found(team, tag="coast", space="wiki") == {
        "wiki:birds/a",
        "wiki:birds/deep/b",
        "wiki:fish/c",
    }
    assert found(team, tag="rare", space="output") == {"output:birds/d"}
    assert found(team, tag="absent") == set()


def test_the_filters_apply_before_the_limit(team: Team) -> None:
    for n in range(5):  # pages that rank above the tagged one: their title matches
        pages.create_page(team.writer, address=f"wiki:top/{n}", title="Shrike", body="x\n")
    pages.create_page(
        team.writer, address="wiki:low/z", title="Z", body="A shrike.\n", tags=["wanted"]
    )
    assert [h.address for h in search.search(team.reader, query="shrike", limit=1)] != [
        "wiki:low/z"
    ]
    [hit] = search.search(team.reader, query="shrike", tag="wanted", limit=1)
    assert hit.address == "wiki:low/z"
    [hit] = search.search(team.reader, query="shrike", folder="wiki:low/", limit=1)
    assert hit.address == "wiki:low/z"


@pytest.mark.parametrize("tag", ["", "   ", "x" * 51, "a\x07b"])
def test_a_tag_no_page_could_have_is_refused(team: Team, tag: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        search.search(team.reader, query="shrike", tag=tag)
    assert refused.value.fields["field"] == "tag"


def test_a_tag_filter_never_shows_a_page_one_cannot_read(team: Team) -> None:
    make_birds(team)
    assert {h.address for h in search.search(team.stranger, query="shrike", tag="rare")} == set()


GUIDE = (
    "Read this first.\n\n"
    "# Operations guide\n\nHow we run the service.\n\n"
    "## Setup\n\nInstall the packages.\n\n"
    "## Deployment *rollback*\n\nA rollback puts the previous release back.\n\n"
    "### When to roll back\n\nWhen errors climb after a release.\n\n"
    "Notes\n-----\n\nSetext, and about egrets.\n\n"
    "# Appendix\n\n## Setup\n\nThe heron setup.\n"
)


def path_of(hit: search.SearchHit) -> list[tuple[str, str]]:
    return [(p.heading, p.anchor) for p in hit.path]


def test_a_hit_names_the_headings_its_section_is_under_each_with_its_anchor(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    [deep] = search.search(team.reader, query="errors climb")
    assert path_of(deep) == [
        ("Operations guide", "operations-guide"),
        ("Deployment rollback", "deployment-rollback"),
        ("When to roll back", "when-to-roll-back"),
    ]
    [setext] = search.search(team.reader, query="egrets")
    assert path_of(setext) == [("Operations guide", "operations-guide"), ("Notes", "notes")]
    [repeated] = search.search(team.reader, query="heron")
    assert path_of(repeated) == [("Appendix", "appendix"), ("Setup", "setup-2")]
    [top] = search.search(team.reader, query="service")
    assert path_of(top) == [("Operations guide", "operations-guide")]
    [opening] = search.search(team.reader, query="first")
    assert opening.path == ()


def test_a_path_follows_an_edit_above_the_section(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    editing.write_page(
        team.writer,
        address="wiki:ops",
        body=GUIDE.replace("# Operations guide", "# Runbook\n\n## Intro\n\nWords."),
        base_version=1,
    )
    [deep] = search.search(team.reader, query="errors climb")
    assert [p.heading for p in deep.path] == ["Runbook", "Deployment rollback", "When to roll back"]
