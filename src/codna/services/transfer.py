"""Import documents into `raw`, and export pages as Markdown documents with front matter.

Documents are names and texts: reading and writing files is the command line's part. An
export holds pages only: suggestions are not part of a page until accepted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import sqlalchemy as sa
import yaml

from codna.errors import CodnaError, InvalidRequest, ReadOnly
from codna.markdown.limits import check_body, normalise_newlines
from codna.services.access import rights
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.members import Member
from codna.services.pages import Page, address_clause, check_tags, check_title, insert_page
from codna.storage.schema import pages

_FRONT_MATTER = re.compile(r"\A---\n(.*?\n)---\n", re.DOTALL)
_FIRST_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class Document:
    """A file to import: its name relative to where the import started, and its text."""

    name: str
    text: str


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter of a Markdown file (or {}) and the body after it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}, text
    return (meta if isinstance(meta, dict) else {}), text[match.end() :]


def _path_for(name: str) -> str:
    parts = [
        p
        for p in PurePosixPath(name.replace("\\", "/")).with_suffix("").parts
        if p not in ("", ".", "..", "/")
    ]
    clean = [_UNSAFE.sub("-", p.lower()).strip("-.") for p in parts]
    clean = [c for c in clean if c]
    if not clean:
        raise InvalidRequest("The name holds no letter or digit to name a page by.", field="name")
    return "/".join(clean)


def import_folder(folder: str) -> Address:
    """The folder of `raw` an import goes into (`raw`, or a folder such as `raw:sources/`).
    Raises InvalidRequest."""
    target = parse_address(folder)
    if target.space != "raw" or target.kind == "page":
        raise InvalidRequest(
            "Imports go into raw or a folder of it, such as raw:sources/.", field="folder"
        )
    return target


@dataclass(frozen=True)
class ParsedDocument:
    """A document as it would be imported: where, its title and tags, and its body."""

    name: str
    address: Address
    title: str
    tags: tuple[str, ...]
    body: str


def _tags_of(value: Any) -> list[str]:
    # `tags: research` is one tag; `tags: [a, b]` (or a YAML list) are several.
    if value is None:
        return []
    if isinstance(value, str | int | float):
        return [str(value)]
    if isinstance(value, list | tuple) and all(isinstance(t, str | int | float) for t in value):
        return [str(t) for t in value]
    raise InvalidRequest("The front matter's tags are a word or a list of words.", field="tags")


def parse_document(document: Document, *, folder: str = "raw") -> ParsedDocument:
    """What importing `document` into `folder` would make, checked as the import checks it.

    A title comes from the front matter, else the first heading, else the file's name. Each
    refusal starts with the document's name. Raises InvalidRequest, TooLarge (document).
    """
    target = import_folder(folder)
    try:
        meta, body = split_front_matter(normalise_newlines(document.text))
        check_body(body)
        where = parse_address(f"raw:{target.path}{_path_for(document.name)}", want="page")
        heading = _FIRST_HEADING.search(body)
        title = meta.get("title") or (
            heading.group(1) if heading else PurePosixPath(document.name).stem
        )
        tags = check_tags(_tags_of(meta.get("tags")))
        return ParsedDocument(document.name, where, check_title(str(title)), tags, body)
    except CodnaError as error:
        raise type(error)(
            f"{document.name}: {error.message}", **error.fields, document=document.name
        ) from None


def import_documents(
    actor: Member, *, documents: Sequence[Document], folder: str = "raw"
) -> list[Page]:
    """Import documents into `raw` (under `folder`, e.g. `raw:sources/`), all or none, as
    `parse_document` reads each.

    Raises InvalidRequest, TooLarge, ReadOnly, Duplicate (a page at that address exists).
    """
    import_folder(folder)
    if not documents:
        raise InvalidRequest("There is nothing to import.", field="documents")
    prepared = [parse_document(doc, folder=folder) for doc in documents]
    with database().write() as conn:
        mine = rights(conn, actor)
        made = []
        for doc in prepared:
            where = doc.address
            if not mine.can_import(where.path):
                raise ReadOnly(f"You cannot import into {where}.", address=str(where))
            made.append(
                insert_page(
                    conn, actor, mine, where, doc.title, doc.tags, doc.body, "Imported", "import"
                )
            )
        return made


@dataclass(frozen=True)
class ExportedFile:
    """One page as a Markdown file: `path` is `SPACE/PATH.md`."""

    address: str
    path: str
    text: str


def export_documents(actor: Member, *, address: str | None = None) -> list[ExportedFile]:
    """Every page the actor can read (in a space, folder or page) as Markdown with front
    matter, ordered by address. Pages in the trash and suggestions are left out."""
    where = parse_address(address) if address else None
    with database().read() as conn:
        query = sa.select(pages).where(rights(conn, actor).readable(), pages.c.trashed_at.is_(None))
        if where is not None:
            query = query.where(address_clause(where))
        rows = conn.execute(query.order_by(pages.c.space, pages.c.path)).mappings().all()
    files = []
    for row in rows:
        address_text = str(Address(row["space"], row["path"]))
        meta = {
            "title": row["title"],
            "tags": list(row["tags"]),
            "address": address_text,
            "version": row["version"],
            "created_at": row["created_at"].isoformat(),
            "updated_at": row["updated_at"].isoformat(),
        }
        front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
        files.append(
            ExportedFile(
                address_text, f"{row['space']}/{row['path']}.md", f"---\n{front}---\n{row['body']}"
            )
        )
    return files
