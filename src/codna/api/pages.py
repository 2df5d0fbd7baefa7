"""Pages, revisions, search, import and export."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import Edits, TagChanges, Version, edits_of, window
from codna.services import changes, pages, reverts, revisions, search, transfer
from codna.services.changes import EditResult
from codna.services.limits import PAGES, SEARCH
from codna.services.pages import Page, PageSummary
from codna.services.revisions import Revision
from codna.services.search import SearchHit
from codna.services.transfer import ExportedFile

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
    base_version: int | None = None
    dry_run: bool = False


class VersionOfPage(_Body):
    address: str
    version: Version
    summary: str | None = None


class AddressOnly(_Body):
    address: str


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
def read_page(
    member: Reader,
    address: Address,
    version: Annotated[
        Version | None, Query(description="An older version; default the latest.")
    ] = None,
) -> Page:
    return pages.read_page(member, address=address, version=version)


@router.get("/pages", summary="List pages one can read")
def list_pages(
    member: Reader,
    address: str | None = None,
    trash: bool = False,
    limit: Annotated[int, Query(**window(PAGES, "pages"))] = PAGES.default,
) -> list[PageSummary]:
    return pages.list_pages(member, address=address, in_trash=trash, limit=limit)


@router.post("/pages", status_code=status.HTTP_201_CREATED, summary="Create a page")
def create_page(member: Writer, body: CreatePage) -> Page:
    return pages.create_page(member, **body.model_dump())


@router.post("/page/edit", summary="Apply edits that name their text, all or none")
def edit_page(member: Writer, body: EditPage) -> EditResult:
    return changes.edit_page(
        member,
        address=body.address,
        edits=edits_of(body.edits),
        title=body.title,
        tags_add=body.tags.add,
        tags_remove=body.tags.remove,
        summary=body.summary,
        base_version=body.base_version,
        dry_run=body.dry_run,
    )


@router.get("/page/history", summary="A page's revisions, newest first")
def history(member: Reader, address: Address) -> list[Revision]:
    return revisions.history(member, address=address)


@router.get("/page/revision", summary="One revision with its body")
def read_revision(member: Reader, address: Address, version: Version) -> Revision:
    return revisions.read_revision(member, address=address, version=version)


@router.post("/page/revert", summary="Undo one revision as a new revision")
def revert(member: Writer, body: VersionOfPage) -> EditResult:
    return reverts.revert_revision(member, **body.model_dump())


@router.post("/page/restore-version", summary="Make the page as it was at a version")
def restore_version(member: Writer, body: VersionOfPage) -> EditResult:
    return reverts.restore_version(member, **body.model_dump())


@router.post("/page/trash", summary="Move a page to the trash")
def trash(member: Writer, body: AddressOnly) -> Page:
    return pages.trash_page(member, address=body.address)


@router.post("/page/restore", summary="Bring a page back from the trash")
def restore(member: Writer, body: AddressOnly) -> Page:
    return pages.restore_page(member, address=body.address)


@router.post("/page/purge", summary="Delete a page in the trash for good")
def purge(member: Writer, body: AddressOnly) -> Purged:
    pages.purge_page(member, address=body.address)
    return Purged(address=body.address, purged=True)


@router.get("/search", summary="Search the pages one can read")
def search_pages(
    member: Reader,
    q: str,
    space: str | None = None,
    limit: Annotated[int, Query(**window(SEARCH, "results"))] = SEARCH.default,
) -> list[SearchHit]:
    return search.search(member, query=q, space=space, limit=limit)


@router.post("/import", status_code=status.HTTP_201_CREATED, summary="Import files into raw")
def import_files(member: Writer, body: ImportFiles) -> list[Page]:
    documents = [transfer.Document(d.name, d.text) for d in body.documents]
    return transfer.import_documents(member, documents=documents, folder=body.folder)


@router.get("/export", summary="Pages one can read as Markdown files with front matter")
def export(member: Reader, address: str | None = None) -> list[ExportedFile]:
    return transfer.export_documents(member, address=address)
