"""Members suggesting the same thing at once, for either kind, on SQLite and PostgreSQL: one
suggestion is made and every other suggester is refused as a duplicate, never with a server
error; and a kind's limits hold for links as they do for changes.

Both kinds share one lifecycle (services/suggestions/lifecycle.py), so the same rounds run for each.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa

from codna.errors import Duplicate, LimitReached
from codna.markdown.edits import parse_edits
from codna.services import limits
from codna.services.members.members import Member
from codna.services.pages import pages
from codna.services.suggestions import changes, links
from codna.storage.database import Database
from codna.storage.schema import edit_suggestions, link_suggestions
from tests.concurrency import at_once, unexpected
from tests.reliability.test_concurrency import suggesters
from tests.services.conftest import Team

SUGGESTERS = 8


def _change(member: Member, address: str, n: int) -> object:
    return changes.suggest_edit(
        member,
        address=address,
        edits=parse_edits([{"op": "append", "text": f"Round {n}."}]),
        reason="The same line from everyone.",
    )


def _link(member: Member, address: str, n: int) -> object:
    return links.suggest_link(
        member, address=address, target=f"{address}-target", reason="The same link."
    )


KINDS: dict[str, tuple[Callable[[Member, str, int], object], sa.Table]] = {
    "change": (_change, edit_suggestions),
    "link": (_link, link_suggestions),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_members_suggesting_the_same_at_once_make_one_and_the_rest_are_duplicates(
    team: Team, db: Database, long_form: bool, kind: str
) -> None:
    rounds = 40 if long_form else 4
    people = suggesters(team, SUGGESTERS)
    make, table = KINDS[kind]
    for n in range(rounds):
        address = f"wiki:raced/{kind}-{n}"
        for where in (address, f"{address}-target"):
            pages.create_page(team.writer, address=where, title="Raced", body="Text.\n")
        results = at_once([lambda m=member, a=address, n=n: make(m, a, n) for member in people])

        assert unexpected(results, Duplicate) == [], f"round {n}"
        refused = [r for r in results if isinstance(r, Duplicate)]
        assert len(refused) == SUGGESTERS - 1, f"round {n}: {results}"
        with db.engine.connect() as conn:
            made = conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
        assert made == n + 1, f"round {n}"


def test_a_suggesters_links_wait_at_most_twenty_on_a_page(team: Team) -> None:
    address = "wiki:linked-a-lot"
    pages.create_page(team.writer, address=address, title="Many links", body="Text.\n")
    targets = [f"wiki:linked-a-lot/{n}" for n in range(limits.PER_PAGE_LIMIT + 1)]
    for target in targets:
        pages.create_page(team.writer, address=target, title="Target", body="Text.\n")
    for target in targets[:-1]:
        links.suggest_link(team.reader, address=address, target=target, reason="Related.")

    with pytest.raises(LimitReached) as refused:
        links.suggest_link(team.reader, address=address, target=targets[-1], reason="Related.")

    assert refused.value.fields == {"limit": limits.PER_PAGE_LIMIT, "pending": 20}
    # Its changes are counted apart: a change is still taken.
    changes.suggest_edit(
        team.reader,
        address=address,
        edits=parse_edits([{"op": "append", "text": "More."}]),
        reason="One more line.",
    )
