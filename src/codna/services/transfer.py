"""Import into `raw` and export to a folder of Markdown files with front matter.

An export holds pages only: suggestions are not part of a page until accepted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import sqlalchemy as sa
import yaml

from codna.errors import InvalidRequest, ReadOnly
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
        raise InvalidRequest(f"'{name}' does not make a page name.", field="name")
    return "/".join(clean)


def import_documents(
    actor: Member, *, documents: Sequence[Document], folder: str = "raw"
) -> list[Page]:
    """Import files into `raw` (under `folder`, e.g. `raw:sources/`), all or none.

    A title comes from the front matter, else the first heading, else the file's name.
    Raises InvalidRequest, TooLarge, ReadOnly, Duplicate (a page at that address exists).
    """
    target = parse_address(folder)
    if target.space != "raw" or target.kind == "page":
        raise InvalidRequest(
            "Imports go into raw or a folder of it, such as raw:sources/.", field="folder"
        )
    if not documents:
        raise InvalidRequest("There is nothing to import.", field="documents")
    prepared = []
    for doc in documents:
        meta, body = split_front_matter(normalise_newlines(doc.text))
        check_body(body)
        where = parse_address(f"raw:{target.path}{_path_for(doc.name)}", want="page")
        heading = _FIRST_HEADING.search(body)
        title = meta.get("title") or (heading.group(1) if heading else PurePosixPath(doc.name).stem)
        tags = meta.get("tags") or []
        prepared.append(
            (where, check_title(str(title)), list(check_tags([str(t) for t in tags])), body)
        )
    with database().write() as conn:
        mine = rights(conn, actor)
        made = []
        for where, title, tags, body in prepared:
            if not mine.can_import(where.path):
                raise ReadOnly(f"You cannot import into {where}.", address=str(where))
            made.append(
                insert_page(conn, actor, mine, where, title, tags, body, "Imported", "import")
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


def export_pages(actor: Member, *, directory: Path, address: str | None = None) -> list[str]:
    """Write `export_documents` into `directory`; returns the addresses written."""
    files = export_documents(actor, address=address)
    for file in files:
        target = directory / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.text, encoding="utf-8")
    return [file.address for file in files]
