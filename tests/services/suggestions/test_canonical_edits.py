"""The durable rejection and the duplicate check compare edits in a canonical form that names a
heading as the page resolves it (`## Alternatives` and `Alternatives` are one edit), and tell
which suggestion it was only to whom may see it; migration 0008 marks the stored hashes stale
and the running code works them out again in that form, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.errors import CodnaError, Duplicate, InvalidEdit, RejectedBefore
from codna.markdown.apply import apply_edits, canonical_edits
from codna.markdown.edits import Append, DeleteSection, Edit, Replace, ReplaceSection, parse_edits
from codna.markdown.edits_hash import edits_hash
from codna.markdown.sections import scan_headings
from codna.services.context import use_database
from codna.services.members import access, members
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.pages import revisions as page_revisions
from codna.services.suggestions import changes
from codna.services.suggestions.checks import change_of
from codna.storage.database import Database
from codna.storage.records import SuggestionRow
from codna.storage.schema import edit_suggestions
from tests.markdown.test_sections import generated_pages
from tests.services.conftest import Team
from tests.storage.migrating import downgrade, empty_database

PAGE = "wiki:decisions/0024-suggested-changes"
BODY = """\
# Suggested changes

## Decision

Edits wait for an editor.

### Limits

Twenty per page.

## Alternatives

Branches.

## Consequences

Editors get a new kind of item.
"""
TWICE = "# A\n\n## Limits\n\nx\n\n# B\n\n## Limits\n\ny\n"


@pytest.mark.parametrize(
    ("body", "given", "canonical"),
    [
        (BODY, [DeleteSection("## Alternatives")], [DeleteSection("Alternatives")]),
        (
            BODY,
            [DeleteSection("Suggested changes > Alternatives")],
            [DeleteSection("Alternatives")],
        ),
        (BODY, [DeleteSection("Decision > ### Limits")], [DeleteSection("Limits")]),
        (
            BODY,
            [ReplaceSection("## Alternatives", "\n\nNone.\n\n")],
            [ReplaceSection("Alternatives", "None.")],
        ),
        (TWICE, [DeleteSection("# B > ## Limits")], [DeleteSection("B > Limits")]),
        (TWICE, [DeleteSection("A > Limits")], [DeleteSection("A > Limits")]),
        (
            "# **Bold** heading\n",
            [DeleteSection("# Bold heading")],
            [DeleteSection("Bold heading")],
        ),
        # Not on the page: its text alone, without level or parents.
        (BODY, [DeleteSection("Decision > ## Gone")], [DeleteSection("Gone")]),
        # Naming none or several of the headings with its text: as given.
        (BODY, [DeleteSection("Alternatives > Limits")], [DeleteSection("Alternatives > Limits")]),
        (TWICE, [DeleteSection(" ## Limits ")], [DeleteSection("## Limits")]),
        # Each heading as the edits before it left the page.
        (
            BODY,
            [Replace("## Alternatives", "## Options"), DeleteSection("## Options")],
            [Replace("## Alternatives", "## Options"), DeleteSection("Options")],
        ),
        (
            BODY,
            [
                Append("# Other\n\n## Alternatives\n"),
                DeleteSection("Suggested changes > Alternatives"),
            ],
            [
                Append("# Other\n\n## Alternatives\n"),
                DeleteSection("Suggested changes > Alternatives"),
            ],
        ),
        # Past an edit that does not apply, headings by their text.
        (
            BODY,
            [Replace("not on the page", "x"), DeleteSection("## Alternatives")],
            [Replace("not on the page", "x"), DeleteSection("Alternatives")],
        ),
    ],
)
def test_the_canonical_form_names_each_heading_as_the_page_resolves_it(
    body: str, given: list[Edit], canonical: list[Edit]
) -> None:
    assert canonical_edits(body, given) == canonical


@st.composite
def _section_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A page, and section edits naming its headings by text, level or parent."""
    body = draw(generated_pages)
    headings = scan_headings(body)
    names = ["Nothing", "Nothing > H", "H > Nothing"]
    for heading in headings:
        names += [heading.text, f"{'#' * heading.level} {heading.text}"]
        parents = [
            h for h in headings if h.start < heading.start < h.end and h.level < heading.level
        ]
        if parents:
            names.append(f"{parents[-1].text} > {'#' * heading.level} {heading.text}")
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        if draw(st.booleans()):
            edits.append(ReplaceSection(name, draw(st.sampled_from(["", "x", "\nx\n\n", "## H"]))))
        else:
            edits.append(DeleteSection(name))
    return body, edits


@settings(max_examples=300, deadline=None)
@given(_section_edits())
def test_edits_in_canonical_form_do_what_the_edits_do_and_are_their_own_canonical_form(
    case: tuple[str, list[Edit]],
) -> None:
    body, edits = case
    canonical = canonical_edits(body, edits)
    assert canonical_edits(body, canonical) == canonical
    try:
        expected = apply_edits(body, edits)
    except InvalidEdit:
        return
    assert apply_edits(body, canonical) == expected


# --- the checks ------------------------------------------------------------------------------


@pytest.fixture
def page(team: Team) -> Team:
    pages.create_page(team.writer, address=PAGE, title="0024 Suggested changes", body=BODY)
    return team


def suggest(who: Member, edits: list[dict[str, str]], address: str = PAGE) -> int:
    made = changes.suggest_edit(who, address=address, edits=parse_edits(edits), reason="r")
    assert made.suggestion is not None
    return made.suggestion.id


def delete(heading: str) -> list[dict[str, str]]:
    return [{"op": "delete_section", "heading": heading}]


def replace(heading: str, body: str) -> list[dict[str, str]]:
    return [{"op": "replace_section", "heading": heading, "body": body}]


def test_a_rejected_section_edit_spelled_another_way_is_refused_as_rejected(page: Team) -> None:
    first = suggest(page.agent, delete("## Alternatives"))
    changes.decide_edit_suggestion(page.writer, suggestion_id=first, decision="reject")
    for spelling in ("Alternatives", "## Alternatives", "Suggested changes > Alternatives"):
        for who in (page.agent, page.reader):
            with pytest.raises(RejectedBefore):
                suggest(who, delete(spelling))
    other = suggest(page.agent, replace("# Suggested changes > ## Alternatives", "None."))
    changes.decide_edit_suggestion(page.writer, suggestion_id=other, decision="reject")
    with pytest.raises(RejectedBefore):
        suggest(page.reader, replace("Alternatives", "\nNone.\n\n"))


def test_a_pending_section_edit_spelled_another_way_is_a_duplicate(page: Team) -> None:
    suggest(page.agent, replace("Alternatives", "None worth keeping."))
    with pytest.raises(Duplicate):
        suggest(page.reader, replace("## Alternatives", "None worth keeping."))
    with pytest.raises(Duplicate):  # a dry run says so too
        changes.suggest_edit(
            page.reader,
            address=PAGE,
            edits=parse_edits(replace("Suggested changes > Alternatives", "None worth keeping.")),
            reason="r",
            dry_run=True,
        )


def test_headings_of_one_text_under_different_parents_are_different_edits(team: Team) -> None:
    address = "wiki:decisions/twice"
    pages.create_page(team.writer, address=address, title="Twice", body=TWICE)
    suggest(team.agent, delete("A > Limits"), address)
    suggest(team.agent, delete("B > Limits"), address)  # not the same edit
    with pytest.raises(Duplicate):
        suggest(team.reader, delete("# A > ## Limits"), address)


def test_a_rejection_spelled_another_way_lasts_after_its_heading_is_gone(page: Team) -> None:
    first = suggest(page.agent, delete("## Alternatives"))
    changes.decide_edit_suggestion(page.writer, suggestion_id=first, decision="reject")
    gone = parse_edits(delete("Alternatives"))
    editing.edit_page(page.writer, address=PAGE, edits=gone)
    with pytest.raises(RejectedBefore):
        suggest(page.agent, delete("Suggested changes > Alternatives"))


def test_the_refusals_name_the_other_suggestion_only_to_its_suggester_and_the_editors(
    page: Team,
) -> None:
    rejected = suggest(page.agent, delete("## Alternatives"))
    changes.decide_edit_suggestion(
        page.writer, suggestion_id=rejected, decision="reject", reason="We keep them."
    )
    pending = suggest(page.agent, replace("Consequences", "Fewer copies."))
    secrets = (str(rejected), str(pending), "We keep them.", page.agent.name)

    def refusal(who: Member, edits: list[dict[str, str]]) -> CodnaError:
        with pytest.raises((RejectedBefore, Duplicate)) as refused:
            suggest(who, edits)
        return refused.value

    # A third member learns only that the same change was rejected or waits.
    for edits in (delete("Alternatives"), replace("## Consequences", "Fewer copies.")):
        said = refusal(page.reader, edits)
        assert said.fields == {}
        assert not any(secret in said.message for secret in secrets), said.message
    # Its suggester and an editor of the page learn which one, and why it was rejected.
    for who in (page.agent, page.writer, page.admin):
        said = refusal(who, delete("Alternatives"))
        assert said.fields == {"suggestion_id": rejected, "decision_reason": "We keep them."}
        assert f"suggestion {rejected}" in said.message and "We keep them." in said.message
        said = refusal(who, replace("## Consequences", "Fewer copies."))
        assert said.fields == {"suggestion_id": pending}
        assert f"suggestion {pending}" in said.message
    # One who could decide once, but not now, is a third member again.
    access.share(page.admin, address="wiki", member=page.writer.email or "", level="read")
    said = refusal(page.writer, delete("Alternatives"))
    assert said.fields == {} and str(rejected) not in said.message


# --- migration 0008 --------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A database migrated from empty, for the services to use."""
    with empty_database(request.param, tmp_path, request) as db:
        db.migrate()
        use_database(db)
        try:
            yield db
        finally:
            use_database(None)


def _team() -> Team:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    writer = members.add_person(admin, email="wanda@example.com", name="Wanda")
    reader = members.add_person(admin, email="rita@example.com", name="Rita")
    stranger = members.add_person(admin, email="sam@example.com", name="Sam")
    agent = members.add_agent(admin, name="checker", responsible=["wanda@example.com"])
    for who in (writer.email or "", reader.email or ""):
        access.share(
            admin, address="wiki", member=who, level="write" if who == writer.email else "read"
        )
    access.share(admin, address="wiki", member="checker", level="read")
    return Team(admin, writer, reader, stranger, agent)


def _old_hash(row: SuggestionRow) -> str:
    """The hash as it was made before 0008: the edits as given."""
    canonical = {
        "edits": list(row.edits),
        "title": row.title,
        "tags_add": sorted(row.tags_add),
        "tags_remove": sorted(row.tags_remove),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _rows(db: Database) -> dict[int, SuggestionRow]:
    with db.read() as conn:
        found = conn.execute(sa.select(edit_suggestions)).mappings()
        return {r["id"]: SuggestionRow.of(r) for r in found}


def _made_the_old_way(db: Database, suggestion_id: int) -> None:
    row = _rows(db)[suggestion_id]
    with db.write() as conn:
        conn.execute(
            edit_suggestions.update()
            .where(edit_suggestions.c.id == suggestion_id)
            .values(edits_hash=_old_hash(row))
        )


def _as_made_now(reader: Member, row: SuggestionRow) -> str:
    """The hash the running code makes of the suggestion, against its base version."""
    base = page_revisions.read_revision(reader, address=PAGE, version=row.base_version).body
    assert base is not None
    change = change_of(row)
    return edits_hash(
        base,
        change.edits,
        title=change.title,
        tags_add=change.tags_add,
        tags_remove=change.tags_remove,
    )


def test_hashes_0008_marks_are_worked_out_again_as_the_services_make_them(
    migrated: Database,
) -> None:
    """A workspace saved before 0008 (its hashes of the edits as given), migrated: 0008 marks
    the hash of each suggestion with a section edit, and the running code works each out."""
    db = migrated
    team = _team()
    pages.create_page(team.writer, address=PAGE, title="0024", body=BODY)
    made = {
        "rejected": suggest(team.agent, delete("## Alternatives")),
        "plain": suggest(team.agent, [{"op": "replace", "old": "Branches.", "new": "Forks."}]),
        "accepted": suggest(team.reader, replace("Decision > Limits", "Ten per page.")),
    }
    changes.decide_edit_suggestion(team.writer, suggestion_id=made["rejected"], decision="reject")
    changes.decide_edit_suggestion(team.writer, suggestion_id=made["accepted"], decision="accept")
    for suggestion_id in made.values():
        _made_the_old_way(db, suggestion_id)
    # Made before 0008, the same change spelled another way was not refused.
    made["pending"] = suggest(team.reader, delete("Suggested changes > Alternatives"))
    _made_the_old_way(db, made["pending"])
    made["later"] = suggest(
        team.agent, replace("# Suggested changes > Consequences", "More items.")
    )
    _made_the_old_way(db, made["later"])
    before = _rows(db)
    rejected = before[made["rejected"]]
    assert rejected.edits_hash != _as_made_now(team.reader, rejected)

    downgrade(db, "0007")  # as the workspace was before 0008
    assert _rows(db) == before
    db.migrate("0008")
    marked = _rows(db)
    for key, suggestion_id in made.items():
        old = before[suggestion_id].edits_hash
        assert marked[suggestion_id].edits_hash == (old if key == "plain" else old.upper()), key
    downgrade(db, "0007")  # and back: the marks taken off
    assert _rows(db) == before

    db.migrate()
    after = _rows(db)
    for key in ("rejected", "plain", "accepted", "later"):
        row = after[made[key]]
        assert row.edits_hash == _as_made_now(team.reader, row), key
    # Two open suggestions that are now one change: the rejected one took the hash; the
    # pending one keeps its own, and both block the change however it is spelled.
    assert after[made["pending"]].edits_hash == before[made["pending"]].edits_hash
    for spelling in ("## Alternatives", "Alternatives", "Suggested changes > Alternatives"):
        with pytest.raises(RejectedBefore):
            suggest(team.reader, delete(spelling))
    with pytest.raises(Duplicate):
        suggest(team.reader, replace("## Consequences", "More items."))
