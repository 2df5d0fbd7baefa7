"""The permission matrix's dimension of spaces, on the service: every page operation × admin,
writer (write on every space), reader (read on every space), stranger (no grant), agent
(shared read on every space) and agent_own (the agent on a page it created, which it can only
have in its own folder in `output`; elsewhere it acts on a shared page like `agent`) × wiki,
raw and output. Each operation acts on pages of its own, each cell on a page of its own, so
one cell's success cannot change another's answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from codna.errors import CodnaError
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.members import access
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions, search
from codna.services.suggestions import reverts
from tests.services.conftest import Team

ROLES = ["admin", "writer", "reader", "stranger", "agent", "agent_own"]
SPACES = ["wiki", "raw", "output"]

Operation = Callable[[Member, str, str, str], object]
OK, NOT_FOUND = "ok", "not_found"


class Cells:
    """One page per (role, space), made by the admin (or, for agent_own in output, the agent),
    under a folder of the operation's own so that no operation meets another's pages."""

    def __init__(self, team: Team, folder: str) -> None:
        self.team = team
        self.folder = folder
        for space in SPACES:
            for role in ROLES:
                self._make(space, role)

    def actor(self, role: str) -> Member:
        return self.team.agent if role == "agent_own" else getattr(self.team, role)

    def address(self, space: str, role: str) -> str:
        if role == "agent_own" and space == "output":  # an agent writes in its own folder
            return f"output:{self.team.agent.name}/{self.folder}/{role}"
        return f"{space}:{self.folder}/{role}"

    def word(self, space: str, role: str) -> str:
        return f"{self.folder}{space}{role.replace('_', '')}"

    def _make(self, space: str, role: str) -> None:
        address = self.address(space, role)
        body = f"# Cell\n\nThe word {self.word(space, role)} marks it.\n"
        if space == "raw":
            transfer.import_documents(
                self.team.admin,
                documents=[transfer.Document(f"{role}.md", body)],
                folder=f"raw:{self.folder}/",
            )
            return
        owner = self.team.agent if (role == "agent_own" and space == "output") else self.team.admin
        pages.create_page(owner, address=address, title="Cell", body=body)
        editing.edit_page(
            owner, address=address, edits=parse_edits([{"op": "append", "text": "Version two."}])
        )


def outcome(run: Operation, actor: Member, address: str, space: str, role: str) -> str:
    try:
        result = run(actor, address, space, role)
    except CodnaError as error:
        return error.code
    return NOT_FOUND if result is False else OK


def _edit(actor: Member, address: str, space: str, role: str) -> object:
    return editing.edit_page(
        actor, address=address, edits=parse_edits([{"op": "append", "text": "More."}])
    )


def _listed(actor: Member, address: str, space: str, role: str) -> bool:
    return address in [p.address for p in pages.list_pages(actor, address=space)]


def _found(cells: Cells) -> Operation:
    def run(actor: Member, address: str, space: str, role: str) -> bool:
        word = cells.word(space, role)
        return address in [h.address for h in search.search(actor, query=word)]

    return run


def _trash(actor: Member, address: str, space: str, role: str) -> object:
    return pages.trash_page(actor, address=address)


def _restore(cells: Cells) -> Operation:
    def run(actor: Member, address: str, space: str, role: str) -> object:
        pages.trash_page(cells.team.admin, address=address)
        return pages.restore_page(actor, address=address)

    return run


def _purge(cells: Cells) -> Operation:
    def run(actor: Member, address: str, space: str, role: str) -> object:
        pages.trash_page(cells.team.admin, address=address)
        return pages.purge_page(actor, address=address)

    return run


def _create(cells: Cells) -> Operation:
    def run(actor: Member, address: str, space: str, role: str) -> object:
        folder = f"{actor.name}/" if role == "agent_own" else ""
        at = f"{space}:{folder}{cells.folder}-new/{role}"
        return pages.create_page(actor, address=at, title="New")

    return run


def _import(actor: Member, address: str, space: str, role: str) -> object:
    doc = transfer.Document(f"{role}.md", "Imported.\n")
    folder = f"{space}:imports-{uuid.uuid4().hex[:8]}/"
    return transfer.import_documents(actor, documents=[doc], folder=folder)


def _share(actor: Member, address: str, space: str, role: str) -> object:
    return access.share(actor, address=address, member="sam@example.com", level="read")


def _revert(actor: Member, address: str, space: str, role: str) -> object:
    return reverts.revert_revision(actor, address=address, version=2 if space != "raw" else 1)


def _restore_version(actor: Member, address: str, space: str, role: str) -> object:
    return reverts.restore_version(actor, address=address, version=1)


def _exported(actor: Member, address: str, space: str, role: str) -> bool:
    documents = transfer.export_documents(actor, address=space)
    return address in [document.address for document in documents]


OPERATIONS: dict[str, Callable[[Cells], Operation]] = {
    "read": lambda c: lambda a, address, s, r: pages.read_page(a, address=address),
    "history": lambda c: lambda a, address, s, r: revisions.history(a, address=address),
    "revision": lambda c: (
        lambda a, address, s, r: revisions.read_revision(a, address=address, version=1)
    ),
    "list": lambda c: _listed,
    "search": _found,
    "export": lambda c: _exported,
    "edit": lambda c: _edit,
    "revert": lambda c: _revert,
    "restore_version": lambda c: _restore_version,
    "trash": lambda c: _trash,
    "restore": _restore,
    "purge": _purge,
    "create": _create,
    "import": lambda c: _import,
    "share": lambda c: _share,
}


def seen_in_every_space(team: Team) -> dict[str, dict[str, dict[str, str]]]:
    """Each operation's outcome per space and role, each on pages of its own."""
    seen = {}
    for name, make in OPERATIONS.items():
        cells = Cells(team, f"cells-{name.replace('_', '-')}")
        seen[name] = {
            space: {
                role: outcome(
                    make(cells), cells.actor(role), cells.address(space, role), space, role
                )
                for role in ROLES
            }
            for space in SPACES
        }
    return seen
