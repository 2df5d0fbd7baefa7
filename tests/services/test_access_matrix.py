"""Every service operation × every kind of member × every space, each cell asserted.

Each cell acts on a page of its own, so one cell's success cannot change another's answer.
The roles: admin, writer (write on every space), reader (read on every space), stranger (no
grant), agent (shared read on every space) and agent_own (the agent on a page it created,
which it can only have in `output`; elsewhere it acts on a shared page like `agent`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from codna.errors import CodnaError
from codna.markdown.edits import parse_edits
from codna.services import access, changes, pages, reverts, revisions, search, transfer
from codna.services.members import Member
from tests.services.conftest import Team

ROLES = ["admin", "writer", "reader", "stranger", "agent", "agent_own"]
SPACES = ["wiki", "raw", "output"]

Operation = Callable[[Member, str, str, str], object]
OK, NOT_FOUND, READ_ONLY, INVALID = "ok", "not_found", "read_only", "invalid_request"


def _row(
    admin: str, writer: str, reader: str, stranger: str, agent: str, own: str
) -> dict[str, str]:
    return dict(zip(ROLES, [admin, writer, reader, stranger, agent, own], strict=True))


def _same(*cells: str) -> dict[str, dict[str, str]]:
    return {space: _row(*cells) for space in SPACES}


READ = _same(OK, OK, OK, NOT_FOUND, OK, OK)
EDIT = {
    "wiki": _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, READ_ONLY),
    "raw": _row(READ_ONLY, READ_ONLY, READ_ONLY, NOT_FOUND, READ_ONLY, READ_ONLY),
    "output": _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, OK),
}
MANAGE = {
    "wiki": _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, READ_ONLY),
    "raw": _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, READ_ONLY),
    "output": _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, OK),
}
CREATE = {
    "wiki": _row(OK, OK, READ_ONLY, READ_ONLY, READ_ONLY, READ_ONLY),
    "raw": _row(READ_ONLY, READ_ONLY, READ_ONLY, READ_ONLY, READ_ONLY, READ_ONLY),
    # An agent creates only under its own folder, output:<agent>/ (agent_own does).
    "output": _row(OK, OK, READ_ONLY, READ_ONLY, READ_ONLY, OK),
}
IMPORT = {
    "wiki": _row(INVALID, INVALID, INVALID, INVALID, INVALID, INVALID),
    "raw": _row(OK, OK, READ_ONLY, READ_ONLY, READ_ONLY, READ_ONLY),
    "output": _row(INVALID, INVALID, INVALID, INVALID, INVALID, INVALID),
}
SHARE = {space: _row(OK, OK, READ_ONLY, NOT_FOUND, READ_ONLY, READ_ONLY) for space in SPACES}


class Cells:
    """One page per (role, space), made by the admin (or, for agent_own in output, the agent)."""

    def __init__(self, team: Team) -> None:
        self.team = team
        for space in SPACES:
            for role in ROLES:
                self._make(space, role)

    def actor(self, role: str) -> Member:
        return self.team.agent if role == "agent_own" else getattr(self.team, role)

    def address(self, space: str, role: str) -> str:
        if role == "agent_own" and space == "output":  # an agent writes in its own folder
            return f"output:{self.team.agent.name}/cells/{role}"
        return f"{space}:cells/{role}"

    def _make(self, space: str, role: str) -> None:
        address = self.address(space, role)
        body = f"# Cell\n\nThe word cell{space}{role.replace('_', '')} marks it.\n"
        if space == "raw":
            transfer.import_documents(
                self.team.admin,
                documents=[transfer.Document(f"{role}.md", body)],
                folder="raw:cells/",
            )
            return
        owner = self.team.agent if (role == "agent_own" and space == "output") else self.team.admin
        pages.create_page(owner, address=address, title="Cell", body=body)
        changes.edit_page(
            owner, address=address, edits=parse_edits([{"op": "append", "text": "Version two."}])
        )


def outcome(run: Operation, actor: Member, address: str, space: str, role: str) -> str:
    try:
        result = run(actor, address, space, role)
    except CodnaError as error:
        return error.code
    return NOT_FOUND if result is False else OK


def check(cells: Cells, expected: dict[str, dict[str, str]], run: Operation) -> None:
    seen = {
        space: {
            role: outcome(run, cells.actor(role), cells.address(space, role), space, role)
            for role in ROLES
        }
        for space in SPACES
    }
    assert seen == expected


def _edit(actor: Member, address: str, space: str, role: str) -> object:
    return changes.edit_page(
        actor, address=address, edits=parse_edits([{"op": "append", "text": "More."}])
    )


def _listed(actor: Member, address: str, space: str, role: str) -> bool:
    return address in [p.address for p in pages.list_pages(actor, address=space)]


def _found(actor: Member, address: str, space: str, role: str) -> bool:
    word = f"cell{space}{role.replace('_', '')}"
    return address in [h.address for h in search.search(actor, query=word)]


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


def _create(actor: Member, address: str, space: str, role: str) -> object:
    folder = f"{actor.name}/" if role == "agent_own" else ""
    return pages.create_page(actor, address=f"{space}:{folder}new/{role}", title="New")


def _import(actor: Member, address: str, space: str, role: str) -> object:
    doc = transfer.Document(f"{role}.md", "Imported.\n")
    return transfer.import_documents(actor, documents=[doc], folder=f"{space}:imports/")


def _share(actor: Member, address: str, space: str, role: str) -> object:
    return access.share(actor, address=address, member="sam@example.com", level="read")


def _revert(actor: Member, address: str, space: str, role: str) -> object:
    return reverts.revert_revision(actor, address=address, version=2 if space != "raw" else 1)


def _restore_version(actor: Member, address: str, space: str, role: str) -> object:
    return reverts.restore_version(actor, address=address, version=1)


@pytest.fixture
def cells(team: Team) -> Cells:
    return Cells(team)


def test_reading_a_page(cells: Cells) -> None:
    check(cells, READ, lambda a, address, s, r: pages.read_page(a, address=address))


def test_reading_its_history(cells: Cells) -> None:
    check(cells, READ, lambda a, address, s, r: revisions.history(a, address=address))


def test_reading_a_revision(cells: Cells) -> None:
    check(
        cells, READ, lambda a, address, s, r: revisions.read_revision(a, address=address, version=1)
    )


def test_listing_shows_only_what_one_can_read(cells: Cells) -> None:
    check(cells, READ, _listed)


def test_search_finds_only_what_one_can_read(cells: Cells) -> None:
    check(cells, READ, _found)


def test_export_holds_only_what_one_can_read(cells: Cells) -> None:
    def exported(actor: Member, address: str, space: str, role: str) -> bool:
        documents = transfer.export_documents(actor, address=space)
        return address in [document.address for document in documents]

    check(cells, READ, exported)


def test_editing(cells: Cells) -> None:
    check(cells, EDIT, _edit)


def test_reverting(cells: Cells) -> None:
    check(cells, EDIT, _revert)


def test_restoring_a_version(cells: Cells) -> None:
    check(cells, EDIT, _restore_version)


def test_trashing(cells: Cells) -> None:
    check(cells, MANAGE, _trash)


def test_restoring_from_the_trash(cells: Cells) -> None:
    check(cells, MANAGE, _restore(cells))


def test_deleting_for_good(cells: Cells) -> None:
    check(cells, MANAGE, _purge(cells))


def test_creating(cells: Cells) -> None:
    check(cells, CREATE, _create)


def test_importing(cells: Cells) -> None:
    check(cells, IMPORT, _import)


def test_sharing(cells: Cells) -> None:
    check(cells, SHARE, _share)
