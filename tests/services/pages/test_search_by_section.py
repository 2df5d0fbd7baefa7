"""Search by section: a hit names the section that matches and links to it, titles rank first,
and a save re-indexes only the sections it changed."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlalchemy as sa

from codna.errors import InvalidRequest
from codna.markdown.edits import parse_edits
from codna.markdown.render import render
from codna.services.admin import transfer
from codna.services.members import access
from codna.services.pages import editing, pages, search
from codna.services.suggestions import reverts
from codna.storage.database import Database
from codna.storage.schema import page_sections
from tests.services.conftest import Team
from tests.statements import StatementCounter
from tests.statements import statements as statements  # the fixture

GUIDE = (
    "Read this first.\n\n"
    "# Operations guide\n\nHow we run the service.\n\n"
    "## Setup\n\nInstall the packages.\n\n"
    "## Deployment rollback\n\nA rollback puts the previous release back.\n\n"
    "### When to roll back\n\nWhen errors climb after a release.\n"
)


def sections_of(db: Database, address: str) -> list[Any]:
    """The index's rows of a page, by ordinal: (id, ordinal, heading, anchor, digest)."""
    space, path = address.split(":")
    with db.read() as conn:
        page_id = conn.execute(
            sa.text("SELECT id FROM pages WHERE space = :s AND path = :p"), {"s": space, "p": path}
        ).scalar_one()
        columns = (page_sections.c.id, page_sections.c.ordinal, page_sections.c.heading)
        query = sa.select(*columns, page_sections.c.anchor, page_sections.c.digest).where(
            page_sections.c.page_id == page_id
        )
        return list(conn.execute(query.order_by(page_sections.c.ordinal)).all())


def numbered(count: int, word: str = "filler") -> str:
    return "".join(f"## Part {n}\n\nThe {word} of part {n}.\n\n" for n in range(1, count + 1))


def test_a_hit_names_its_best_section_and_links_to_the_anchor_the_page_renders(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    [hit] = search.search(team.reader, query="previous release")
    assert (hit.address, hit.section, hit.anchor) == (
        "wiki:ops",
        "Deployment rollback",
        "deployment-rollback",
    )
    assert "[previous]" in hit.snippet and "[release]" in hit.snippet
    assert f'id="{hit.anchor}"' in render(GUIDE, page_url=lambda a: a)
    [deeper] = search.search(team.reader, query="errors climb")
    assert (deeper.section, deeper.anchor) == ("When to roll back", "when-to-roll-back")


def test_a_repeated_heading_links_to_the_numbered_anchor_the_page_renders(team: Team) -> None:
    body = "## Notes\n\nAbout apples.\n\n## Other\n\nPears.\n\n## Notes\n\nAbout quinces.\n"
    pages.create_page(team.writer, address="wiki:fruit", title="Fruit", body=body)
    [hit] = search.search(team.reader, query="quinces")
    assert (hit.section, hit.anchor) == ("Notes", "notes-2")
    ids = re.findall(r'<h2 id="([^"]+)"', render(body, page_url=lambda a: a))
    assert ids == ["notes", "other", "notes-2"]


def test_the_text_before_the_first_heading_is_a_section_without_a_name(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    [hit] = search.search(team.reader, query="first")
    assert (hit.section, hit.anchor) == (None, None)
    assert "[first]" in hit.snippet


def test_a_page_appears_once_with_the_section_that_matches_best(team: Team) -> None:
    body = (
        "## Intro\n\nOne kestrel here among many other words of no interest at all today.\n\n"
        "## Kestrel\n\nThe kestrel hovers; a kestrel hunts.\n\n"
        "## Later\n\nA kestrel again, once, in passing among other words.\n"
    )
    pages.create_page(team.writer, address="wiki:birds", title="Birds", body=body)
    hits = search.search(team.reader, query="kestrel")
    assert [(h.address, h.section) for h in hits] == [("wiki:birds", "Kestrel")]


def test_every_term_must_match_within_one_section(team: Team) -> None:
    body = "## North\n\nThe gannet nests.\n\n## South\n\nThe puffin nests.\n"
    pages.create_page(team.writer, address="wiki:coast", title="Coast", body=body)
    assert search.search(team.reader, query="gannet puffin") == []
    assert [h.section for h in search.search(team.reader, query="puffin nests")] == ["South"]


def test_a_page_whose_title_matches_ranks_above_pages_that_match_only_in_sections(
    team: Team,
) -> None:
    busy = "## Rollback\n\nRollback, rollback and rollback again: the rollback.\n"
    pages.create_page(team.writer, address="wiki:busy", title="Busy", body=busy)
    pages.create_page(
        team.writer, address="wiki:named", title="Rollback", body="Plain words.\n\n## Later\n\nx\n"
    )
    hits = search.search(team.reader, query="rollback")
    assert [h.address for h in hits] == ["wiki:named", "wiki:busy"]
    # Only the title matched: the hit points at the page, its opening words as the snippet.
    assert (hits[0].section, hits[0].anchor, hits[0].snippet) == (None, None, "Plain words.")
    assert hits[1].section == "Rollback"


def test_a_title_match_still_names_a_section_that_matches_too(team: Team) -> None:
    body = "Opening.\n\n## Setup\n\nNothing.\n\n## Kiln firing\n\nThe kiln reaches heat.\n"
    pages.create_page(team.writer, address="wiki:kiln", title="Kiln", body=body)
    [hit] = search.search(team.reader, query="kiln")
    assert (hit.section, hit.anchor) == ("Kiln firing", "kiln-firing")


def test_tags_are_found_with_the_title(team: Team) -> None:
    pages.create_page(
        team.writer, address="wiki:t", title="Plain", body="Nothing.\n", tags=["ornithology"]
    )
    assert [h.address for h in search.search(team.reader, query="ornithology")] == ["wiki:t"]


def test_a_phrase_matches_within_one_section_and_a_prefix_matches_the_words_it_begins(
    team: Team,
) -> None:
    body = (
        "## Language\n\nThe edit language names its text.\n\n"
        "## Split\n\nWe edit pages.\n\n## After\n\nLanguage comes later.\n"
    )
    pages.create_page(team.writer, address="wiki:lang", title="Lang", body=body)
    assert [h.section for h in search.search(team.reader, query='"edit language"')] == ["Language"]
    assert [h.section for h in search.search(team.reader, query='"edit lang*"')] == ["Language"]
    assert search.search(team.reader, query='"pages language"') == []
    assert [h.address for h in search.search(team.reader, query="langu*")] == ["wiki:lang"]


def rewritten(before: list[Any], after: list[Any]) -> list[Any]:
    """The rows of `after` whose text is not what it was in `before` (a row rewritten in place
    keeps its id; a new one has another)."""
    kept = {(row.id, row.digest) for row in before}
    return [row for row in after if (row.id, row.digest) not in kept]


def test_an_edit_of_one_section_rewrites_that_sections_row_and_keeps_the_others(
    team: Team, db: Database, statements: StatementCounter
) -> None:
    body = numbered(10)
    pages.create_page(team.writer, address="wiki:long", title="Long", body=body)
    before = sections_of(db, "wiki:long")
    edit = [{"op": "replace", "old": "The filler of part 4.", "new": "The lapwing of part 4."}]
    with statements() as ran:
        editing.edit_page(team.writer, address="wiki:long", edits=parse_edits(edit))
    after = sections_of(db, "wiki:long")
    assert [r.id for r in after] == [r.id for r in before]
    changed = rewritten(before, after)
    assert [(r.ordinal, r.heading, r.anchor) for r in changed] == [(4, "Part 4", "part-4")]
    touching = [t for t in ran.texts if "page_sections" in t and "page_search" not in t]
    assert [t.split()[0] for t in touching] == ["SELECT", "UPDATE"]
    assert "page_sections.text" not in touching[0]  # the lengths alone, no section's text
    [hit] = search.search(team.reader, query="lapwing")
    assert hit.anchor == "part-4"
    assert search.search(team.reader, query='"filler of part 4"') == []


def test_an_edit_of_fifty_sections_rewrites_fifty_rows(team: Team, db: Database) -> None:
    body = numbered(60)
    pages.create_page(team.writer, address="wiki:long", title="Long", body=body)
    before = sections_of(db, "wiki:long")
    edited = body
    for n in range(1, 51):
        edited = edited.replace(f"The filler of part {n}.", f"The plover of part {n}.")
    editing.write_page(team.writer, address="wiki:long", body=edited, base_version=1)
    after = sections_of(db, "wiki:long")
    assert [r.ordinal for r in rewritten(before, after)] == list(range(1, 51))
    assert len(after) == 61
    assert len(search.search(team.reader, query="plover")) == 1
    assert search.search(team.reader, query='"filler of part 7"') == []
    assert len(search.search(team.reader, query='"filler of part 51"')) == 1


def test_a_section_added_above_others_renumbers_them_without_replacing_them(
    team: Team, db: Database
) -> None:
    body = "## Notes\n\nFirst notes.\n\n## Other\n\nMore.\n"
    pages.create_page(team.writer, address="wiki:n", title="N", body=body)
    before = {row.heading: row.id for row in sections_of(db, "wiki:n")[1:]}
    editing.write_page(
        team.writer, address="wiki:n", body="## Notes\n\nEarlier notes.\n\n" + body, base_version=1
    )
    after = sections_of(db, "wiki:n")
    assert [(r.ordinal, r.heading, r.anchor) for r in after] == [
        (-1, "N", None),
        (1, "Notes", "notes"),
        (2, "Notes", "notes-2"),
        (3, "Other", "other"),
    ]
    assert (after[2].id, after[3].id) == (before["Notes"], before["Other"])
    [hit] = search.search(team.reader, query="first notes")
    assert hit.anchor == "notes-2"


def test_a_new_title_replaces_only_the_title_row(team: Team, db: Database) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    before = sections_of(db, "wiki:ops")
    editing.edit_page(team.writer, address="wiki:ops", edits=[], title="Runbook")
    after = sections_of(db, "wiki:ops")
    assert [r.id for r in after] == [r.id for r in before]
    assert rewritten(before, after) == [after[0]] and after[0].heading == "Runbook"
    assert [h.address for h in search.search(team.reader, query="runbook")] == ["wiki:ops"]
    assert search.search(team.reader, query="ops") == []


def test_reverts_restores_and_imports_keep_the_index_in_step(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:r", title="R", body="## A\n\nThe avocet.\n")
    editing.write_page(team.writer, address="wiki:r", body="## A\n\nThe bittern.\n", base_version=1)
    assert search.search(team.reader, query="avocet") == []
    reverts.revert_revision(team.writer, address="wiki:r", version=2)
    assert [h.section for h in search.search(team.reader, query="avocet")] == ["A"]
    assert search.search(team.reader, query="bittern") == []
    reverts.restore_version(team.writer, address="wiki:r", version=2)
    assert [h.section for h in search.search(team.reader, query="bittern")] == ["A"]
    documents = [transfer.Document("field.md", "# Field\n\n## Count\n\nTwo curlews.\n")]
    transfer.import_documents(team.writer, documents=documents, folder="raw:birds/")
    [hit] = search.search(team.reader, query="curlews")
    assert (hit.address, hit.section, hit.anchor) == ("raw:birds/field", "Count", "count")


def test_space_and_folder_filters_still_apply(team: Team) -> None:
    for address in ("wiki:birds/a", "wiki:birds/deep/b", "wiki:fish/c", "output:birds/d"):
        pages.create_page(team.writer, address=address, title="T", body="## S\n\nA shrike.\n")
    found = {h.address for h in search.search(team.reader, query="shrike", folder="wiki:birds/")}
    assert found == {"wiki:birds/a", "wiki:birds/deep/b"}
    found = {h.address for h in search.search(team.reader, query="shrike", space="output")}
    assert found == {"output:birds/d"}
    assert len(search.search(team.reader, query="shrike")) == 4
    assert len(search.search(team.reader, query="shrike", limit=2)) == 2


def test_a_page_one_cannot_read_never_appears(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:open/a", title="Open", body="A wren.\n")
    pages.create_page(
        team.writer, address="wiki:closed/b", title="Wren", body="## Wren\n\nWren, wren, wren.\n"
    )
    access.share(team.admin, address="wiki:open/", member="sam@example.com", level="read")
    assert [h.address for h in search.search(team.stranger, query="wren")] == ["wiki:open/a"]
    pages.trash_page(team.writer, address="wiki:open/a")
    assert search.search(team.stranger, query="wren") == []
    assert [h.address for h in search.search(team.reader, query="wren")] == ["wiki:closed/b"]


def test_purging_a_page_takes_its_sections_out_of_the_index(team: Team, db: Database) -> None:
    pages.create_page(team.writer, address="wiki:gone", title="Gone", body=GUIDE)
    pages.trash_page(team.writer, address="wiki:gone")
    pages.purge_page(team.admin, address="wiki:gone")
    with db.read() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(page_sections)).scalar() == 0
        if db.dialect == "sqlite":
            match = "SELECT count(*) FROM page_search WHERE page_search MATCH 'rollback'"
            assert conn.execute(sa.text(match)).scalar() == 0


# Queries with the syntax of FTS5, of to_tsquery or of SQL, quotes, stars and scripts: each
# is searched for its words (all of them required) or refused as invalid, on both engines.
OPS = ["wiki:ops"]
REFUSED = "refused"  # no word in it
HOSTILE: list[tuple[str, list[str] | str | None]] = [
    ('"', REFUSED),
    ('""', REFUSED),
    ("*", REFUSED),
    ("**", REFUSED),
    ("()", REFUSED),
    ("🚀", REFUSED),
    ('"unclosed phrase', []),
    ("rollback*", OPS),
    ("roll*", OPS),
    ('"roll*"', OPS),
    ('"previous rel*"', OPS),
    ('"previous rel*" "puts the"', OPS),
    ("(rollback", OPS),
    ("rollback)", OPS),
    ("-rollback", OPS),  # a minus is no NOT: the word is wanted
    ("^rollback", OPS),
    ("rollback:*", OPS),
    ("rollback + release", OPS),
    ("heading:rollback", []),  # no column filter: "heading" is a word wanted like the other
    ("{heading text}: rollback", []),
    ("rollback NEAR release", []),
    ("NEAR(rollback release, 3)", []),
    ("'; DROP TABLE pages; --", []),
    ("a & b | !c <-> d:*", []),
    ("(a OR b) AND NOT c", []),
    ("AND", []),
    ("NOT", []),
    ("OR rollback", None),  # either: PostgreSQL drops "or" as a stop word, SQLite wants it
    ("_", []),
    ("foo_bar", []),
    ("½ ² ①", []),
    ("déploiement", []),
    ("Rückgängig", []),
    ("откат", []),
    ("回滚", []),
    ("🚀 rollback", OPS),
    ("e\u0301", []),
]


@pytest.mark.parametrize(("query", "expected"), HOSTILE)
def test_a_query_with_syntax_of_its_own_is_searched_for_its_words_or_refused(
    team: Team, query: str, expected: list[str] | str | None
) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    try:
        found = [hit.address for hit in search.search(team.reader, query=query)]
    except InvalidRequest as refused:
        assert (refused.fields["field"], expected) == ("query", REFUSED), refused
        return
    if expected is not None:
        assert found == expected
    assert pages.read_page(team.reader, address="wiki:ops").version == 1


def test_a_query_of_no_words_or_too_many_terms_is_refused(team: Team) -> None:
    for query in ("", "  ?! ", '"" * ()', "🚀"):
        with pytest.raises(InvalidRequest, match="at least one word"):
            search.search(team.reader, query=query)
    with pytest.raises(InvalidRequest, match=f"at most {search.MAX_TERMS}"):
        search.search(team.reader, query=" ".join(f"w{n}" for n in range(search.MAX_TERMS + 1)))
    assert search.search(team.reader, query=" ".join(["w"] * search.MAX_TERMS)) == []


def test_a_query_the_index_cannot_read_is_refused_as_invalid(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages.create_page(team.writer, address="wiki:ops", title="Ops", body=GUIDE)
    monkeypatch.setattr(search, "_fts5", lambda found: '"unclosed AND (')
    monkeypatch.setattr(search, "_tsquery", lambda found: "(unclosed & ")
    with pytest.raises(InvalidRequest, match="cannot read this query"):
        search.search(team.reader, query="rollback")
