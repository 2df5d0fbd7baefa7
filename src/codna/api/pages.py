"""Pages, revisions, search, import and export."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import (
    OFFSET,
    Edits,
    JsonVersion,
    TagChanges,
    UrlNumber,
    Version,
    edits_of,
    window,
)
from codna.services.admin import transfer
from codna.services.admin.transfer import ExportedFile
from codna.services.limits import EXPORT, EXPORT_BYTES, HISTORY, PAGES, READ_MANY, SEARCH
from codna.services.pages import editing, pages, revisions, search
from codna.services.pages.editing import EditResult
from codna.services.pages.outlines import Outline
from codna.services.pages.pages import Page, PageSummary, ReadMany
from codna.services.pages.revisions import Revision
from codna.services.pages.search import SearchHit
from codna.services.suggestions import reverts

router = APIRouter(tags=["pages"])
ADDRESS_HELP = "A page's address, such as wiki:decisions/0024."
Address = Annotated[str, Query(description=ADDRESS_HELP)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreatePage(_Body):
    address: str
    title: str
    body: str = ""
    tags: list[str] = Field(default_factory=list)
    summary: str | None = None


class EditPage(_Body):
    address: str
    edits: Edits = None
    title: str | None = None
    tags: TagChanges = Field(default_factory=TagChanges)
    summary: str | None = None
    base_version: JsonVersion | None = None
    dry_run: bool = False


class VersionOfPage(_Body):
    address: str
    version: JsonVersion
    summary: str | None = None


class AddressOnly(_Body):
    address: str


class Addresses(_Body):
    addresses: list[str] = Field(
        description=f"The pages to read, 1 to {READ_MANY} addresses such as wiki:decisions/0024.",
        json_schema_extra={"minItems": 1, "maxItems": READ_MANY},
    )


class Purged(BaseModel):
    address: str
    purged: bool


class ImportFile(_Body):
    name: str
    text: str


class ImportFiles(_Body):
    folder: str = "raw"
    documents: list[ImportFile]


@router.get("/page", summary="Read a page, at its latest version or another")
async def read_page(
    caller: Reader,
    address: Address,
    version: Annotated[
        Version | None, Query(description="An older version; default the latest.")
    ] = None,
) -> Page:
    return await caller.run(pages.read_page, address=address, version=version)


@router.get("/page/outline", summary="A page's headings with their sizes, without the body")
async def outline(
    caller: Reader,
    address: Address,
    version: Annotated[
        Version | None, Query(description="An older version; default the latest.")
    ] = None,
) -> Outline:
    return await caller.run(pages.outline, address=address, version=version)


@router.get("/pages", summary="List pages one can read")
async def list_pages(
    caller: Reader,
    address: Annotated[
        str | None,
        Query(
            description="A space (wiki), a folder (wiki:decisions/, the slash may be left "
            "off) or a page; default every page one can read."
        ),
    ] = None,
    trash: bool = False,
    limit: Annotated[UrlNumber, Query(**window(PAGES, "pages"))] = PAGES.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> list[PageSummary]:
    return await caller.run(
        pages.list_pages, address=address, in_trash=trash, limit=limit, offset=offset
    )


@router.post("/pages/read", summary=f"Read several pages at once, up to {READ_MANY}")
async def read_pages(caller: Reader, body: Addresses) -> ReadMany:
    return await caller.run(pages.read_pages, addresses=body.addresses)


@router.post("/pages", status_code=status.HTTP_201_CREATED, summary="Create a page")
async def create_page(caller: Writer, body: CreatePage) -> Page:
    return await caller.run(pages.create_page, **body.model_dump())


@router.post("/page/edit", summary="Apply edits that name their text, all or none")
async def edit_page(caller: Writer, body: EditPage) -> EditResult:
    return await caller.run(
        editing.edit_page,
        address=body.address,
        edits=edits_of(body.edits),
        title=body.title,
        tags_add=body.tags.add,
        tags_remove=body.tags.remove,
        summary=body.summary,
        base_version=body.base_version,
        dry_run=body.dry_run,
    )


@router.get("/page/history", summary="A page's revisions, newest first, a window at a time")
async def history(
    caller: Reader,
    address: Address,
    limit: Annotated[UrlNumber, Query(**window(HISTORY, "revisions"))] = HISTORY.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> list[Revision]:
    return await caller.run(revisions.history, address=address, limit=limit, offset=offset)


@router.get("/page/revision", summary="One revision with its body")
async def read_revision(caller: Reader, address: Address, version: Version) -> Revision:
    return await caller.run(revisions.read_revision, address=address, version=version)


@router.post("/page/revert", summary="Undo one revision as a new revision")
async def revert(caller: Writer, body: VersionOfPage) -> EditResult:
    return await caller.run(reverts.revert_revision, **body.model_dump())


@router.post("/page/restore-version", summary="Make the page as it was at a version")
async def restore_version(caller: Writer, body: VersionOfPage) -> EditResult:
    return await caller.run(reverts.restore_version, **body.model_dump())


@router.post("/page/trash", summary="Move a page to the trash")
async def trash(caller: Writer, body: AddressOnly) -> Page:
    return await caller.run(pages.trash_page, address=body.address)


@router.post("/page/restore", summary="Bring a page back from the trash")
async def restore(caller: Writer, body: AddressOnly) -> Page:
    return await caller.run(pages.restore_page, address=body.address)


@router.post("/page/purge", summary="Delete a page in the trash for good")
async def purge(caller: Writer, body: AddressOnly) -> Purged:
    await caller.run(pages.purge_page, address=body.address)
    return Purged(address=body.address, purged=True)


@router.get("/search", summary="Search the pages one can read")
async def search_pages(
    caller: Reader,
    q: str,
    space: str | None = None,
    folder: Annotated[
        str | None,
        Query(description="Only pages under this folder, such as wiki:decisions/."),
    ] = None,
    tag: Annotated[str | None, Query(description="Only pages with this tag.")] = None,
    limit: Annotated[UrlNumber, Query(**window(SEARCH, "results"))] = SEARCH.default,
) -> list[SearchHit]:
    return await caller.run(
        search.search, query=q, space=space, folder=folder, tag=tag, limit=limit
    )


@router.post("/import", status_code=status.HTTP_201_CREATED, summary="Import files into raw")
async def import_files(caller: Writer, body: ImportFiles) -> list[Page]:
    documents = [transfer.Document(d.name, d.text) for d in body.documents]
    return await caller.run(transfer.import_documents, documents=documents, folder=body.folder)


EXPORT_HELP = (
    "Pages with front matter, by address. A window ends at `limit` pages, or before the page "
    f"that would take its files' text past {EXPORT_BYTES // 2**20} MiB; while pages are left "
    "out, the answer's `Link` header gives the next window's URL (`rel=\"next\"`: the same "
    "with `offset` moved on)."
)


@router.get(
    "/export",
    summary="Pages one can read as Markdown files, a window at a time",
    description=EXPORT_HELP,
)
async def export(
    caller: Reader,
    request: Request,
    response: Response,
    address: Annotated[
        str | None, Query(description="A space, folder or page; default every page.")
    ] = None,
    limit: Annotated[UrlNumber, Query(**window(EXPORT, "pages"))] = EXPORT.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
) -> list[ExportedFile]:
    done = await caller.run(transfer.export_documents, address=address, limit=limit, offset=offset)
    if done.next_offset is not None:
        following = request.url.include_query_params(offset=done.next_offset)
        response.headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'
    return list(done.files)
