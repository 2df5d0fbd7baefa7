"""The workspace bench/load.py runs on, what its clients were told, and the check of the
database against it after the run.

Made through the services: editors (people who may write under wiki:load/), agents that may
read there (each client has a few of its own, so that the limits of 20 waiting suggestions
per page and 200 in all are never what refuses a suggestion), a token for each, and pages of
open items. The check reads the workspace back through the services too, as an editor.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from codna.services.context import use_database
from codna.services.limits import SUGGESTIONS
from codna.services.members import access, members, tokens
from codna.services.members.members import Member
from codna.services.pages import pages, revisions
from codna.services.suggestions import changes
from codna.storage.database import Database

FOLDER = "wiki:load/"
PAGES = 100
ITEMS = 40  # open items on each page, which suggestions close
EDITORS = 8
PER_PAGE_LIMIT, TOTAL_LIMIT = 20, 200  # services/limits.py's
# Suggestions one agent may have waiting before the bench moves to its next agent: a margin
# under the product's limit, which the bench must never be what meets.
AGENT_BUDGET = TOTAL_LIMIT - 10
# The most suggestions a second the server could take (generous), to size the agents.
MOST_SUGGESTIONS_PER_SECOND = 150


def page_address(n: int) -> str:
    return f"{FOLDER}page-{n:03}"


def item_line(k: int) -> str:
    return f"Item {k} is open."


def page_body(n: int) -> str:
    items = "".join(f"- {item_line(k)}\n" for k in range(ITEMS))
    return f"# Load page {n}\n\nWhat is open on page {n}.\n\n## Items\n\n{items}\n## Notes\n"


@dataclass(frozen=True)
class World:
    """What the clients act as: an editor's token per client (shared round the editors), and
    each client's agents' tokens."""

    url: str
    editor_tokens: list[str]
    agent_tokens: list[list[str]]  # per client


def agents_per_client(clients: int, seconds: float) -> int:
    needed = MOST_SUGGESTIONS_PER_SECOND * seconds / AGENT_BUDGET
    return max(2, math.ceil(needed / clients))


def seed(url: str, clients: int, seconds: float) -> World:
    """The workspace, made through the services on the migrated database at `url`."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        admin = members.init_workspace(
            admin_email="ada@example.com", admin_password="load-password"
        )
        editors = []
        for e in range(EDITORS):
            email = f"editor{e}@example.com"
            members.add_person(admin, email=email, name=f"Editor {e}")
            access.share(admin, address=FOLDER, member=email, level="write")
            editors.append(tokens.create_token(admin, member=email, name="load").secret)
        first = members.member_by_handle("editor0@example.com")
        for n in range(PAGES):
            pages.create_page(
                first, address=page_address(n), title=f"Load page {n}", body=page_body(n)
            )
        per_client = agents_per_client(clients, seconds)
        agents: list[list[str]] = []
        for c in range(clients):
            mine = []
            for k in range(per_client):
                name = f"loader-{c}-{k}"
                members.add_agent(admin, name=name, responsible=["editor0@example.com"])
                access.share(admin, address=FOLDER, member=name, level="read")
                mine.append(tokens.create_token(admin, member=name, name="load").secret)
            agents.append(mine)
    finally:
        use_database(None)
        database.dispose()
    return World(url, [editors[c % EDITORS] for c in range(clients)], agents)


# -- what the clients were told ----------------------------------------------------------------


@dataclass
class Made:
    """A suggestion acknowledged to a client."""

    id: int
    client: int
    agent: int
    page: int
    reason: str
    text: str  # the line it adds to the page, found on it once accepted
    item: int | None  # the item it closes, or None for a note appended


@dataclass
class Ledger:
    """Every write acknowledged to a client, shared by all of them (one event loop), and the
    suggestions still waiting as far as the clients know, for the editors to decide."""

    made: dict[int, Made] = field(default_factory=dict)
    decided: dict[int, tuple[str, int | None]] = field(default_factory=dict)  # status, version
    waiting: list[int] = field(default_factory=list)
    _where: dict[int, int] = field(default_factory=dict)
    pending: Counter[tuple[int, int, int]] = field(default_factory=Counter)  # client, agent, page
    pending_of: Counter[tuple[int, int]] = field(default_factory=Counter)  # client, agent
    closed: set[tuple[int, int]] = field(default_factory=set)  # page, item: accepted
    stale_refusals: list[tuple[int, int]] = field(default_factory=list)  # page, item

    def add(self, made: Made) -> None:
        self.made[made.id] = made
        self._where[made.id] = len(self.waiting)
        self.waiting.append(made.id)
        self.pending[made.client, made.agent, made.page] += 1
        self.pending_of[made.client, made.agent] += 1

    def pick(self, rng: random.Random) -> Made | None:
        return self.made[rng.choice(self.waiting)] if self.waiting else None

    def settle(self, made: Made, status: str | None, version: int | None = None) -> None:
        """It is decided: by this client (`status`), or by another (None)."""
        if status is not None:
            self.decided[made.id] = (status, version)
            if status == "accepted" and made.item is not None:
                self.closed.add((made.page, made.item))
        at = self._where.pop(made.id, None)
        if at is None:
            return
        last = self.waiting.pop()
        if last != made.id:
            self.waiting[at] = last
            self._where[last] = at
        self.pending[made.client, made.agent, made.page] -= 1
        self.pending_of[made.client, made.agent] -= 1

    def agent_for(self, client: int, agents: int, page: int) -> int | None:
        """One of the client's agents whose suggestions stay under both limits on `page`."""
        for agent in range(agents):
            if (
                self.pending_of[client, agent] < AGENT_BUDGET
                and self.pending[client, agent, page] < PER_PAGE_LIMIT
            ):
                return agent
        return None


# -- the check after the run ----------------------------------------------------------------------


def check(url: str, ledger: Ledger) -> tuple[list[str], dict[str, int]]:
    """The database against what the clients were told: the problems found (none is the
    target), and what was counted."""
    database = Database(url)
    use_database(database)
    try:
        return _check(ledger, members.member_by_handle("editor0@example.com"))
    finally:
        use_database(None)
        database.dispose()


def _all_suggestions(editor: Member, address: str) -> list[changes.Suggestion]:
    found: list[changes.Suggestion] = []
    while True:
        batch = changes.list_suggestions(
            editor, address=address, limit=SUGGESTIONS.most, offset=len(found)
        )
        found += batch
        if len(batch) < SUGGESTIONS.most:
            return found


def _check(ledger: Ledger, editor: Member) -> tuple[list[str], dict[str, int]]:
    problems: list[str] = []
    seen: dict[int, changes.Suggestion] = {}
    counts: Counter[str] = Counter()
    for n in range(PAGES):
        address = page_address(n)
        body = pages.read_page(editor, address=address).body
        on_page = _all_suggestions(editor, address)
        seen |= {s.id: s for s in on_page}
        kinds = {r.version: r for r in revisions.history(editor, address=address)}
        accepted = [s for s in on_page if s.status == "accepted"]
        counts["accepted"] += len(accepted)
        made_by_accept = [r for r in kinds.values() if r.kind == "accept_suggestion"]
        counts["accept revisions"] += len(made_by_accept)
        if len(made_by_accept) != len(accepted):
            problems.append(
                f"{address}: {len(made_by_accept)} revisions accept a suggestion, "
                f"{len(accepted)} suggestions are accepted"
            )
        versions = Counter(s.accepted_version for s in accepted)
        for version, times in versions.items():
            if times > 1:
                problems.append(f"{address}: version {version} is named by {times} acceptances")
        for s in accepted:
            made = kinds.get(s.accepted_version or 0)
            if made is None or made.kind != "accept_suggestion":
                problems.append(f"suggestion {s.id} is accepted without its revision")
            elif not made.summary.endswith(s.reason):
                problems.append(f"suggestion {s.id}'s revision does not name it: {made.summary}")
        for s in on_page:
            mine = ledger.made.get(s.id)
            if mine is None:
                continue
            times = body.count(mine.text)
            if times != (1 if s.status == "accepted" else 0):
                problems.append(
                    f"suggestion {s.id} ({s.status}): its text is on the page {times} times"
                )
        for page, item in ledger.stale_refusals:
            if page == n and f"- {item_line(item)}\n" in body:
                problems.append(
                    f"{address}: a suggestion on item {item} was refused as stale, "
                    "but the item is still open"
                )
    counts["suggestions in the database"] = len(seen)
    counts["suggestions acknowledged"] = len(ledger.made)
    counts["decisions acknowledged"] = len(ledger.decided)
    for made in ledger.made.values():
        found = seen.get(made.id)
        if found is None:
            problems.append(f"lost: suggestion {made.id}, acknowledged, is not in the database")
        elif found.reason != made.reason or found.page != page_address(made.page):
            problems.append(f"suggestion {made.id} is not what was acknowledged")
    for item_id, (status, version) in ledger.decided.items():
        found = seen.get(item_id)
        if found is not None and (found.status, found.accepted_version) != (status, version):
            problems.append(
                f"lost: suggestion {item_id} was acknowledged {status} (version {version}), "
                f"the database has it {found.status} (version {found.accepted_version})"
            )
    counts["in the database, never acknowledged"] = len(set(seen) - set(ledger.made))
    return problems, dict(counts)
