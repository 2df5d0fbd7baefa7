"""The tools of the core: reading, searching, creating, editing and reverting pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from codna.mcp.server import CodnaMCP
from codna.schemas import Edits, TagChanges, Version, edits_of, window
from codna.services import changes, pages, reverts, revisions, search
from codna.services.changes import EditResult
from codna.services.limits import PAGES, SEARCH
from codna.services.members import Member
from codna.services.pages import Page, PageSummary
from codna.services.revisions import Revision
from codna.services.search import SearchHit

AddressArg = Annotated[
    str, Field(description="The page's address, space:path, such as wiki:decisions/0024-x.")
]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


@dataclass(frozen=True)
class Changed:
    """What an edit, a revert or a restore did: the page's address and version after it,
    whether it was saved (not on a dry run), the summary for the history and the diff. The
    body is not repeated: read the page for it."""

    address: str
    version: int
    saved: bool
    summary: str
    diff: str

    @classmethod
    def of(cls, result: EditResult) -> Changed:
        page = result.page
        return cls(page.address, page.version, result.saved, result.summary, result.diff)


def register(server: CodnaMCP) -> None:
    """Add the core's tools to `server`; each calls one service as the caller."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for("read", annotations=READ)
    def search_documents(
        query: Annotated[str, Field(description="Words to find; every word must match.")],
        space: Annotated[str | None, Field(description="Only wiki, raw or output.")] = None,
        limit: Annotated[int, Field(**window(SEARCH, "results"))] = SEARCH.default,
    ) -> list[SearchHit]:
        """Find pages by their words, best first. Use it to find what to read."""
        return search.search(me(), query=query, space=space, limit=limit)

    @server.tool_for("read", annotations=READ)
    def list_documents(
        address: Annotated[
            str | None,
            Field(description="A space (wiki), a folder (wiki:decisions/) or nothing for all."),
        ] = None,
        limit: Annotated[int, Field(**window(PAGES, "pages"))] = PAGES.default,
    ) -> list[PageSummary]:
        """List the pages one can read in a space or folder, by address."""
        return pages.list_pages(me(), address=address, limit=limit)

    @server.tool_for("read", annotations=READ)
    def read_document(
        address: AddressArg,
        version: Annotated[
            Version | None, Field(description="An older version; default the latest.")
        ] = None,
    ) -> Page:
        """Read a page: title, tags, Markdown body and version. Read before you edit, and pass
        its version as base_version to edit_document."""
        return pages.read_page(me(), address=address, version=version)

    @server.tool_for("read", annotations=READ)
    def document_history(address: AddressArg) -> list[Revision]:
        """A page's revisions, newest first: version, author, summary and what made each."""
        return revisions.history(me(), address=address)

    @server.tool_for("read", annotations=READ)
    def read_revision(address: AddressArg, version: Version) -> Revision:
        """One revision of a page with its full body."""
        return revisions.read_revision(me(), address=address, version=version)

    @server.tool_for("create", annotations=WRITE)
    def create_document(
        address: AddressArg,
        title: str,
        body: Annotated[str, Field(description="The Markdown body.")] = "",
        tags: list[str] | None = None,
    ) -> Page:
        """Create a new page. An agent may create pages in output only."""
        return pages.create_page(me(), address=address, title=title, body=body, tags=tags or [])

    @server.tool_for("edit", annotations=WRITE)
    def edit_document(
        address: AddressArg,
        edits: Edits = None,
        title: Annotated[str | None, Field(description="A new title.")] = None,
        tags: Annotated[TagChanges | None, Field(description="Tags to add and remove.")] = None,
        summary: Annotated[str | None, Field(description="Why, for the history.")] = None,
        base_version: Annotated[
            Version | None,
            Field(description="The version you read; refused as conflict if the page moved on."),
        ] = None,
        dry_run: Annotated[bool, Field(description="Return the diff; save nothing.")] = False,
    ) -> Changed:
        """Change a page with edits that name their text. Use dry_run to see the diff first.
        A refused edit (invalid_edit) says which edit and why, and changes nothing."""
        tag_changes = tags or TagChanges()
        edited = changes.edit_page(
            me(),
            address=address,
            edits=edits_of(edits),
            title=title,
            tags_add=tag_changes.add,
            tags_remove=tag_changes.remove,
            summary=summary,
            base_version=base_version,
            dry_run=dry_run,
        )
        return Changed.of(edited)

    @server.tool_for(
        "edit", annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True)
    )
    def revert_document(
        address: AddressArg,
        version: Annotated[Version, Field(description="The revision to undo (or restore).")],
        restore: Annotated[
            bool, Field(description="Make the page as it was at version instead of undoing it.")
        ] = False,
        summary: str | None = None,
    ) -> Changed:
        """Undo one revision as a new revision, keeping what changed since; refused (conflict)
        where the text it changed has changed again. With restore, return to that version."""
        operation = reverts.restore_version if restore else reverts.revert_revision
        return Changed.of(operation(me(), address=address, version=version, summary=summary))
