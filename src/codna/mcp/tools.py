"""The tools of pages: finding, reading, creating, editing, reverting and trashing them."""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from codna.errors import InvalidRequest
from codna.mcp import arguments as a
from codna.mcp import budget
from codna.mcp.answers import (
    Changed,
    History,
    Hit,
    Hits,
    PageAnswer,
    PageItem,
    PageList,
    PagesAnswer,
    RevisionAnswer,
    RevisionRead,
    Trashed,
)
from codna.mcp.server import CodnaMCP
from codna.schemas import JsonVersion, edits_of
from codna.services.limits import HISTORY, PAGES, READ_MANY, SEARCH
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions, search
from codna.services.suggestions import reverts
from codna.vocabulary import SPACES

READ = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(destructive_hint=False)
UNDO = ToolAnnotations(destructive_hint=True)


READ_PAGES = (
    "One page or several: Markdown body, version (your base_version next), editable. At most"
    f" {budget.ANSWER_CHARS:,} characters in all; a cut body's more says what to pass next."
)
READ_REVISION = (
    "One revision, who made it and why (such as a suggestion's accepted_version). At most"
    f" {budget.ANSWER_CHARS:,} characters; more says what to pass next."
)


def more(count: int, limit: int, offset: int) -> str | None:
    """The note of a list that may go on."""
    return f"There may be more: pass offset={offset + limit}." if count == limit else None


def register(server: CodnaMCP) -> None:
    """Add the tools of pages to `server`; each calls one service as the caller."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for("read", title="Search pages", annotations=READ)
    def search_documents(
        query: Annotated[
            str,
            Field(
                description='All must match; "a phrase", a prefix*, such as: '
                'suggested "edit language" mark*'
            ),
        ],
        within: a.Place = None,
        tag: Annotated[str | None, Field(description="Only pages with it, such as 'perf'.")] = None,
        limit: a.HitsLimit = SEARCH.to_model,
    ) -> Hits:
        """Find pages by their words, best first."""
        space, folder = None, within
        if within is not None and within.rstrip(":") in SPACES and not within.endswith("/"):
            space, folder = within.rstrip(":"), None
        found = search.search(me(), query=query, space=space, folder=folder, tag=tag, limit=limit)
        tagged = f" tagged {tag}" if tag else ""
        note = None if found else f"No page you can read{tagged} matches {query}."
        hits = budget.fit([Hit.of(hit) for hit in found])
        if len(hits) < len(found):
            note = f"The best {len(hits)}, to stay within {budget.ANSWER_CHARS:,} characters."
        return Hits(hits=hits, note=note)

    @server.tool_for("read", title="List pages", annotations=READ)
    def list_documents(
        address: a.Place = None,
        limit: a.PagesLimit = PAGES.to_model,
        offset: a.Offset = 0,
    ) -> PageList:
        """The pages you can read in a space or folder, by address."""
        found = pages.list_pages(me(), address=address, limit=limit, offset=offset)
        if not found:
            where = f" in {address}" if address else ""
            return PageList(pages=[], note=f"No pages you can read{where}.")
        shown = budget.fit([PageItem.of(p) for p in found])
        note = budget.cut_short(len(shown), len(found), offset) or more(len(found), limit, offset)
        return PageList(pages=shown, note=note)

    @server.tool_for("read", title="Read pages", annotations=READ, description=READ_PAGES)
    def read_document(
        address: Annotated[
            str | list[str],
            Field(
                description=f"A page's, or up to {READ_MANY}, such as ['wiki:team/plan', 'wiki:x']."
            ),
        ],
        version: a.OlderVersion = None,
        outline: Annotated[
            bool,
            Field(description="true: headings, sizes and the text above them."),
        ] = False,
        section: Annotated[str | None, Field(description="One, named as edits name it.")] = None,
        start: a.Start = 0,
    ) -> PagesAnswer:
        if isinstance(address, str):
            found = [pages.read_page(me(), address=address, version=version)]
            missing: tuple[str, ...] = ()
        elif version is not None or section is not None or start:
            raise InvalidRequest(
                "version, section and start read one page: give one address.",
                field="version" if version is not None else "section" if section else "start",
            )
        else:
            read = pages.read_pages(me(), addresses=address)
            found, missing = list(read.pages), read.missing
        shown = [
            PageAnswer.of(
                page,
                outline=outline,
                part=None
                if outline
                else budget.window(page.body, pages=len(found), section=section, start=start),
            )
            for page in found
        ]
        return PagesAnswer(pages=shown, missing=list(missing) or None)

    @server.tool_for("read", title="A page's history", annotations=READ)
    def document_history(
        address: a.Address, limit: a.HistoryLimit = HISTORY.to_model, offset: a.Offset = 0
    ) -> History:
        """A page's revisions, newest first: who, why, how."""
        found = revisions.history(me(), address=address, limit=limit, offset=offset)
        shown = budget.fit([RevisionAnswer.of(r) for r in found])
        # Version 1 is the first revision: until it is listed, older ones are left out.
        older = bool(shown) and shown[-1].version > 1
        note = f"Older ones are left out: pass offset={offset + len(shown)}." if older else None
        return History(revisions=shown, note=note)

    @server.tool_for("read", title="Read a revision", annotations=READ, description=READ_REVISION)
    def read_revision(address: a.Address, version: a.AtVersion, start: a.Start = 0) -> RevisionRead:
        read = revisions.read_revision(me(), address=address, version=version)
        return RevisionRead.window(read, budget.window(read.body or "", start=start))

    @server.tool_for("create", title="Create a page", annotations=WRITE)
    def create_document(
        address: a.Address,
        title: Annotated[str, Field(description="Such as 'Run of 4 May'.")],
        body: Annotated[str, Field(description="Markdown.")] = "",
        tags: a.Tags = None,
    ) -> Changed:
        """Create a page; an agent, under output:<its name>/, such as
        output:checker/runs/2026-05-04."""
        made = pages.create_page(me(), address=address, title=title, body=body, tags=tags or [])
        return Changed.made(made)

    @server.tool_for("edit", title="Edit a page", annotations=WRITE)
    def edit_document(
        address: a.Address,
        edits: a.Edits = None,
        title: a.Title = None,
        tags: a.NewTags = None,
        tags_add: a.TagsAdd = None,
        tags_remove: a.TagsRemove = None,
        summary: a.Summary = None,
        base_version: a.BaseVersion = None,
        dry_run: a.DryRun = False,
    ) -> Changed:
        """Change a page you may edit (editable true). A refusal says which edit and why, and
        changes nothing."""
        edited = editing.edit_page(
            me(),
            address=address,
            edits=edits_of(edits),
            title=title,
            tags_add=tags_add or [],
            tags_remove=tags_remove or [],
            tags=tags,
            summary=summary,
            base_version=base_version,
            dry_run=dry_run,
        )
        return Changed.of(edited)

    @server.tool_for("edit", title="Revert or restore", annotations=UNDO)
    def revert_document(
        address: a.Address,
        version: Annotated[JsonVersion, Field(description="To undo, such as 4.")],
        restore: Annotated[
            bool, Field(description="true: make the page as it was at version.")
        ] = False,
        summary: a.Summary = None,
    ) -> Changed:
        """Undo one revision, keeping later changes (conflict where they touch its text); or
        restore a version."""
        operation = reverts.restore_version if restore else reverts.revert_revision
        return Changed.of(operation(me(), address=address, version=version, summary=summary))

    @server.tool_for("manage", title="Trash a page", annotations=UNDO)
    def trash_document(
        address: a.Address,
        restore: Annotated[bool, Field(description="true: bring it back.")] = False,
    ) -> Trashed:
        """Trash a page you manage (an agent: its own, under output:<its name>/)."""
        operation = pages.restore_page if restore else pages.trash_page
        page = operation(me(), address=address)
        return Trashed(address=page.address, in_trash=page.in_trash)
