"""Who sees a suggestion, said once (Rights.sees_suggestion) and once in SQL
(Rights.seen_suggestions): the two keep the same suggestions of either kind, for every member
of a team with a folder's editor and an agent, on both databases."""

from __future__ import annotations

import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.members import access, members
from codna.services.members.access import rights
from codna.services.pages import pages
from codna.services.suggestions import changes, links
from codna.storage.database import Database
from codna.storage.schema import edit_suggestions, link_suggestions
from codna.storage.schema import pages as pages_table
from tests.services.conftest import Team


def test_the_rule_and_its_sql_keep_the_same_suggestions(db: Database, team: Team) -> None:
    folder = members.add_person(team.admin, email="fay@example.com", name="Fay")
    access.share(team.admin, address="wiki", member="fay@example.com", level="read")
    access.share(team.admin, address="wiki:team/", member="fay@example.com", level="write")
    for address in ("wiki:team/a", "wiki:other/b", *(f"wiki:other/to-{n}" for n in range(4))):
        pages.create_page(team.writer, address=address, title="A page", body="Text.\n")
    for n, (who, address) in enumerate(
        [
            (team.reader, "wiki:team/a"),
            (team.reader, "wiki:other/b"),
            (team.agent, "wiki:team/a"),
            (folder, "wiki:other/b"),
        ]
    ):
        line = [{"op": "append", "text": f"A line from {who.name}."}]
        changes.suggest_edit(who, address=address, edits=parse_edits(line), reason="More.")
        links.suggest_link(who, address=address, target=f"wiki:other/to-{n}", reason="Related.")
    everyone = [team.admin, team.writer, team.reader, team.stranger, team.agent, folder]
    with db.read() as conn:
        for table in (edit_suggestions, link_suggestions):
            rows = conn.execute(
                sa.select(
                    table.c.id,
                    table.c.suggester_id,
                    pages_table.c.space,
                    pages_table.c.path,
                    pages_table.c.created_by,
                ).join(pages_table, pages_table.c.id == table.c.page_id)
            ).all()
            assert len(rows) == 4
            seen_by = {}
            for member in everyone:
                mine = rights(conn, member)
                by_sql = set(
                    conn.execute(sa.select(table.c.id).where(mine.seen_suggestions(table)))
                    .scalars()
                    .all()
                )
                by_rule = {r.id for r in rows if mine.sees_suggestion(*r[1:])}
                assert by_sql == by_rule, (table.name, member.name)
                seen_by[member.name] = len(by_rule)
            # The admin and the writer decide everywhere; Fay on wiki:team/ and her own;
            # the reader and the agent their own; the stranger nothing.
            assert seen_by == {
                "Admin": 4,
                "Wanda": 4,
                "Rita": 2,
                "Sam": 0,
                "checker": 1,
                "Fay": 3,
            }, table.name
