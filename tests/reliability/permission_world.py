"""The workspace the permission matrix runs over: one per database, made through the services.

Callers (each with a token, and a signed-in browser for the people):
- reader: read on wiki:m/; writer: write on wiki:m/ (and everywhere, from the seed);
- other_editor: write on wiki:other/ only, so wiki:m/ is not there for them;
- admin; agent: the agent `checker`, shared read on wiki:m/ (the seed shares every space);
- agent_own: the same agent on its own pages in output:checker/;
- other_agent: the agent `scout`, shared read on wiki:m/ and output:checker/, acting on
  checker's pages; run and admin_run: a routine's run as the writer and as the admin;
- suggester: a person with read on wiki:m/ and output:checker/, who made every suggestion;
- disabled: a person with write on wiki:m/, a token and a browser session, then disabled;
- anonymous: no token, no session.

Two families of objects: "page" ones in wiki:m/ (made by the admin) and "own" ones in
output:checker/ (made by the agent). agent_own and other_agent act on the own family, every
other caller on the page family. Shared objects serve every cell that changes nothing; a cell
expected to change something gets a fresh object (World.fresh_*).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import httpx

from codna.markdown.edits import parse_edits
from codna.services.events import automations, runs
from codna.services.members import access, grant_changes, members, tokens
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, links
from tests.conftest import PASSWORD, InProcessServer
from tests.web.conftest import csrf_of

STATES = ("pending", "accepted", "rejected", "withdrawn", "stale", "trashed")
OWN_FAMILY = frozenset({"agent_own", "other_agent"})
TARGET = "wiki:m/target"  # every suggested link points here
NOBODY = "nora@example.com"  # whom sharing gives and takes back
ROUTINE = "decision-check"
SUGGESTED = parse_edits([{"op": "replace", "old": "Line one.", "new": "Line one, better."}])
HANDLES = {
    "reader": "rita@example.com",
    "writer": "wanda@example.com",
    "other_editor": "sam@example.com",
    "admin": "ada@example.com",
    "agent": "checker",
    "agent_own": "checker",
    "other_agent": "scout",
    "suggester": "sue@example.com",
    "disabled": "dan@example.com",
}
PEOPLE = ("reader", "writer", "other_editor", "admin", "suggester", "disabled")


def body(word: str) -> str:
    return f"# Page\n\nLine one.\n\nAnchor text here.\n\nThe word {word} marks it.\n"


@dataclass(frozen=True)
class Item:
    """A suggested change and a suggested link on one page, both in one state."""

    address: str
    change: int
    link: int


@dataclass
class World:
    server: InProcessServer
    secrets: dict[str, str]  # caller -> token secret ("" for anonymous)
    actors: dict[str, Member]  # the member each family's owner acts as
    items: dict[tuple[str, str], Item] = field(default_factory=dict)  # (family, state)
    checker_token: int = 0  # a token of the agent's that failing cells try to revoke
    automation: int = 0  # the writer's, that failing cells try to disable
    change: int = 0  # the admin's giving Nora read on wiki:m/page
    browsers: dict[str, httpx.Client] = field(default_factory=dict)
    csrf: dict[str, str] = field(default_factory=dict)
    # The disabled member's session, as a form loaded before they were disabled still sends
    # it (a page view afterwards signs the browser out).
    session: str = ""

    @staticmethod
    def family(caller: str) -> str:
        return "own" if caller in OWN_FAMILY else "page"

    def folder(self, family: str) -> str:
        return "output:checker/" if family == "own" else "wiki:m/"

    def page(self, family: str) -> str:
        return f"{self.folder(family)}page"

    def trashed(self, family: str) -> str:
        return f"{self.folder(family)}trashed"

    def word(self, family: str) -> str:
        return f"{family}matrixword"

    def owner(self, family: str) -> Member:
        return self.actors["agent" if family == "own" else "admin"]

    # -- fresh objects for the cells that change them ------------------------------------

    def fresh_page(self, family: str, *, trashed: bool = False) -> str:
        address = f"{self.folder(family)}f-{uuid.uuid4().hex[:10]}"
        owner = self.owner(family)
        pages.create_page(owner, address=address, title="Fresh", body=body("freshword"))
        more = parse_edits([{"op": "append", "text": "Version two."}])
        editing.edit_page(owner, address=address, edits=more)
        if trashed:
            pages.trash_page(owner, address=address)
        return address

    def fresh_item(self, family: str, state: str) -> Item:
        return self._item(self.fresh_page(family), state)

    def fresh_automation(self) -> int:
        writer = members.member_by_handle(HANDLES["writer"])
        folder = f"wiki:m/a-{uuid.uuid4().hex[:10]}/"
        made = automations.add(writer, event="document.changed", folder=folder, routine=ROUTINE)
        return made.id

    def fresh_person(self) -> str:
        email = f"p-{uuid.uuid4().hex[:10]}@example.com"
        members.add_person(self.actors["admin"], email=email, name="Pat")
        return email

    def fresh_checker_token(self) -> int:
        return tokens.create_token(self.actors["admin"], member="checker", name="spare").token.id

    def _item(self, address: str, state: str) -> Item:
        sue, admin = self.actors["suggester"], self.actors["admin"]
        made = changes.suggest_edit(sue, address=address, edits=SUGGESTED, reason="Better.")
        assert made.suggestion is not None
        change = made.suggestion.id
        link = links.suggest_link(
            sue, address=address, target=TARGET, reason="Related.", anchor="Anchor text"
        ).id
        owner = self.owner("own" if address.startswith("output:") else "page")
        if state in ("accepted", "rejected"):
            decision = "accept" if state == "accepted" else "reject"
            changes.decide_edit_suggestion(admin, suggestion_id=change, decision=decision)
            links.decide_link(admin, suggestion_id=link, decision=decision)
        elif state == "withdrawn":
            changes.withdraw_suggestion(sue, suggestion_id=change)
            links.withdraw_link(sue, suggestion_id=link)
        elif state == "stale":
            gone = parse_edits(
                [
                    {"op": "replace", "old": "Line one.", "new": "Line one moved on."},
                    {"op": "replace", "old": "Anchor text here.", "new": "Moved on too."},
                ]
            )
            editing.edit_page(owner, address=address, edits=gone)
        elif state == "trashed":
            pages.trash_page(owner, address=address)
        return Item(address, change, link)


def build(server: InProcessServer) -> World:
    """Make the callers, the shared objects and the sessions on the seeded workspace."""
    with server.active():
        admin = members.member_by_handle("ada@example.com")
        writer = members.member_by_handle("wanda@example.com")
        for email, name in (
            (NOBODY, "Nora"),
            ("sue@example.com", "Sue"),
            ("dan@example.com", "Dan"),
        ):
            members.add_person(admin, email=email, name=name, password=PASSWORD)
        members.add_agent(admin, name="scout", responsible=["ada@example.com"])
        # The seed shares every space with rita (read), wanda (write) and checker (read); rita
        # keeps wiki:m/ only, and sam becomes an editor of another folder only.
        for space in ("wiki", "raw", "output"):
            access.unshare(admin, address=space, member="rita@example.com")
        access.share(admin, address="wiki:m/", member="rita@example.com", level="read")
        access.share(admin, address="wiki:other/", member="sam@example.com", level="write")
        for place in ("wiki:m/", "output:checker/"):
            access.share(admin, address=place, member="scout", level="read")
            access.share(admin, address=place, member="sue@example.com", level="read")
        access.share(admin, address="wiki:m/", member="dan@example.com", level="write")
        agent = members.member_by_handle("checker")
        secrets = {
            role: server.workspace.tokens[seed]
            for role, seed in (
                ("reader", "reader"),
                ("writer", "writer"),
                ("other_editor", "stranger"),
                ("admin", "admin"),
                ("agent", "agent"),
                ("agent_own", "agent"),
            )
        }
        for role in ("other_agent", "suggester", "disabled"):
            secrets[role] = tokens.create_token(admin, member=HANDLES[role], name="matrix").secret
        secrets["run"] = runs.start_run(
            writer, routine="decision-check", address="wiki:m/page"
        ).secret
        secrets["admin_run"] = runs.start_run(
            admin, routine="decision-check", address="wiki:m/page"
        ).secret
        secrets["anonymous"] = ""
        actors = {
            "admin": admin,
            "agent": agent,
            "suggester": members.member_by_handle("sue@example.com"),
        }
        world = World(server, secrets, actors)
        pages.create_page(admin, address=TARGET, title="Target", body="The target.\n")
        for family in ("page", "own"):
            owner = world.owner(family)
            for address, word in (
                (world.page(family), world.word(family)),
                (world.trashed(family), "trashedword"),
            ):
                pages.create_page(owner, address=address, title="Page", body=body(word))
                more = parse_edits([{"op": "append", "text": "Version two."}])
                editing.edit_page(owner, address=address, edits=more)
            pages.trash_page(owner, address=world.trashed(family))
            access.share(admin, address=world.page(family), member=NOBODY, level="read")
            for state in STATES:
                address = f"{world.folder(family)}s-{state}"
                pages.create_page(owner, address=address, title="State", body=body("stateword"))
                world.items[family, state] = world._item(address, state)
        world.checker_token = world.fresh_checker_token()
        world.automation = world.fresh_automation()
        given = grant_changes.list_grant_changes(admin, limit=500)
        (world.change,) = [
            c.id for c in given if c.member == NOBODY and c.address == world.page("page")
        ]
        for role in PEOPLE:
            world.browsers[role], world.csrf[role] = _sign_in(server, HANDLES[role])
        world.browsers["anonymous"] = anonymous = server.api()
        world.csrf["anonymous"] = csrf_of(anonymous.get("/"))  # its own, of no session
        world.session = world.browsers["disabled"].cookies["codna_session"]
        members.set_disabled(admin, handle="dan@example.com", disabled=True)
    return world


def _sign_in(server: InProcessServer, email: str) -> tuple[httpx.Client, str]:
    client = server.api()
    form = client.get("/")
    answer = client.post(
        "/sign-in", data={"email": email, "password": PASSWORD, "csrf": csrf_of(form), "next": "/"}
    )
    assert answer.status_code == 303, answer.text
    return client, csrf_of(client.get("/inbox"))
