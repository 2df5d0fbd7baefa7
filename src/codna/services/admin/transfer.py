"""Import documents into `raw`, and export pages as Markdown documents with front matter.

Documents are names and texts: reading and writing files is the command line's part. An
export holds pages only: suggestions are not part of a page until accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import Any

import sqlalchemy as sa
import yaml

from codna.errors import CodnaError, InvalidRequest, ReadOnly, TooLarge
from codna.markdown.front_matter import split_front_matter
from codna.markdown.limits import MAX_TITLE_CHARS, check_body, normalise_newlines
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.limits import (
    EXPORT,
    EXPORT_BYTES,
    IMPORT_DOCUMENTS,
    check_limit,
    check_offset,
)
from codna.services.members.access import Rights, rights
from codna.services.members.members import Member
from codna.services.pages.pages import (
    MAX_TAG_CHARS,
    Page,
    address_clause,
    check_tags,
    check_title,
    insert_page,
)
from codna.storage.schema import pages

# A heading's line, its closing `#`s stripped after the match: a pattern that stripped them
# itself backtracked over a long line of ` #` in quadratic time.
_HEADING_LINE = re.compile(r"^#[ \t]+([^\n]*)", re.MULTILINE)
_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class Document:
    """A file to import: its name relative to where the import started, and its text."""

    name: str
    text: str


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


def _word(value: Any, *, field: str, longest: int) -> str | None:
    """A front matter value that reads as one word or line (text, a number, a date), or None
    for any other kind. Raises TooLarge for a number of more than `longest` digits, which is
    never turned into text (one of 5,000 digits cannot be)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return None  # `yes`, `no`, `true`: almost always a word YAML did not keep as text
    if isinstance(value, int) and abs(value) >= 10**longest:
        raise TooLarge(
            f"The front matter's {field} is a number of more than {longest} digits; at most "
            f"{longest} characters are allowed.",
            limit=longest,
            field=field,
        )
    if isinstance(value, int | float | date):
        return str(value)
    return None


def _title_of(value: Any) -> str | None:
    if value is None or value == "":
        return None
    title = _word(value, field="title", longest=MAX_TITLE_CHARS)
    if title is None:
        raise InvalidRequest(
            "The front matter's title is a line of text, not a list, a mapping or true/false; "
            "quote it if it is text.",
            field="title",
        )
    return title


def _tags_of(value: Any) -> list[str]:
    # `tags: research` is one tag; `tags: [a, b]` (or a YAML list) are several.
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    words = [_word(v, field="tags", longest=MAX_TAG_CHARS) for v in values]
    if any(w is None for w in words):
        raise InvalidRequest("The front matter's tags are a word or a list of words.", field="tags")
    return [w for w in words if w is not None]


@contextmanager
def _named(document: Document) -> Iterator[None]:
    """Start each refusal about `document` with its name, and carry the name as a field."""
    try:
        yield
    except CodnaError as error:
        raise type(error)(
            f"{document.name}: {error.message}", **error.fields, document=document.name
        ) from None


def _address_of(document: Document, target: Address) -> Address:
    """Where `document` goes under the folder `target`: from its name only, so access can be
    checked before any of its text is parsed."""
    with _named(document):
        return parse_address(f"raw:{target.path}{_path_for(document.name)}", want="page")


def _first_heading(body: str) -> str | None:
    for match in _HEADING_LINE.finditer(body):
        text = match.group(1).rstrip(" \t#")
        if text:
            return text
    return None


def _parse(document: Document, where: Address) -> ParsedDocument:
    with _named(document):
        meta, body = split_front_matter(normalise_newlines(document.text))
        check_body(body)
        title = _title_of(meta.get("title"))
        if title is None:
            title = _first_heading(body) or PurePosixPath(document.name).stem
        tags = check_tags(_tags_of(meta.get("tags")))
        return ParsedDocument(document.name, where, check_title(title), tags, body)


def parse_document(document: Document, *, folder: str = "raw") -> ParsedDocument:
    """What importing `document` into `folder` would make, checked as the import checks it.

    A title comes from the front matter, else the first heading, else the file's name; the
    front matter is read within bounds (codna.markdown.front_matter). Each refusal starts
    with the document's name. Raises InvalidRequest, TooLarge (document).
    """
    return _parse(document, _address_of(document, import_folder(folder)))


def _check_can_import(mine: Rights, places: Sequence[Address]) -> None:
    for where in places:
        if not mine.can_import(where.path):
            raise ReadOnly(f"You cannot import into {where}.", address=str(where))


def import_documents(
    actor: Member, *, documents: Sequence[Document], folder: str = "raw"
) -> list[Page]:
    """Import documents into `raw` (under `folder`, e.g. `raw:sources/`), all or none, as
    `parse_document` reads each.

    Whether the actor may import at each document's address (which its name gives) is
    checked before any document's text is parsed, and again as the pages are written.

    Raises InvalidRequest, TooLarge, ReadOnly, Duplicate (a page at that address exists).
    """
    target = import_folder(folder)
    if not documents:
        raise InvalidRequest("There is nothing to import.", field="documents")
    if len(documents) > IMPORT_DOCUMENTS:
        raise TooLarge(
            f"One import holds at most {IMPORT_DOCUMENTS:,} documents, and this one holds "
            f"{len(documents):,}; import them in parts.",
            field="documents",
            limit=IMPORT_DOCUMENTS,
        )
    places = [_address_of(doc, target) for doc in documents]
    with database().read() as conn:
        _check_can_import(rights(conn, actor), places)
    prepared = [_parse(doc, where) for doc, where in zip(documents, places, strict=True)]
    with database().write() as conn:
        mine = rights(conn, actor)
        _check_can_import(mine, places)  # the rights may have changed while it was parsed
        return [
            insert_page(
                conn, actor, mine, doc.address, doc.title, doc.tags, doc.body, "Imported", "import"
            )
            for doc in prepared
        ]


@dataclass(frozen=True)
class ExportedFile:
    """One page as a Markdown file: `path` is `SPACE/PATH.md`."""

    address: str
    path: str
    text: str


@dataclass(frozen=True)
class Export:
    """A window of an export, iterated as its files: `next_offset` is where the next window
    starts while pages are left out (past the window's limit or EXPORT_BYTES), None once the
    last page is in."""

    files: tuple[ExportedFile, ...]
    next_offset: int | None

    def __iter__(self) -> Iterator[ExportedFile]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)


def _exported(row: sa.RowMapping) -> ExportedFile:
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
    return ExportedFile(
        address_text, f"{row['space']}/{row['path']}.md", f"---\n{front}---\n{row['body']}"
    )


def export_documents(
    actor: Member, *, address: str | None = None, limit: int = EXPORT.default, offset: int = 0
) -> Export:
    """The pages the actor can read (in a space, folder or page) as Markdown with front
    matter, ordered by address, a window at a time: `limit` of them (within EXPORT) after the
    first `offset`, and never more than EXPORT_BYTES of text (a window holds at least one
    page). Pages in the trash and suggestions are left out. Raises InvalidRequest (limit,
    offset, address)."""
    check_limit(limit, EXPORT)
    check_offset(offset)
    where = parse_address(address) if address else None
    files: list[ExportedFile] = []
    size = 0
    with database().read() as conn:
        query = sa.select(pages).where(rights(conn, actor).readable(), pages.c.trashed_at.is_(None))
        if where is not None:
            query = query.where(address_clause(where))
        # One row past the window says whether there are more; rows are read a few at a time
        # (a page holds up to a MiB), so a window cut by its bytes reads little more than it
        # answers.
        query = query.order_by(pages.c.space, pages.c.path).limit(limit + 1).offset(offset)
        with conn.execute(query.execution_options(yield_per=16)) as result:
            for row in result.mappings():
                if len(files) == limit:  # the row past the window
                    return Export(tuple(files), offset + len(files))
                file = _exported(row)
                grown = size + len(file.text.encode())
                if files and grown > EXPORT_BYTES:
                    return Export(tuple(files), offset + len(files))
                files.append(file)
                size = grown
    return Export(tuple(files), None)
