"""Full-text search over what the member can read: FTS5 on SQLite, tsvector on PostgreSQL."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest
from codna.markdown.limits import check_plain_text
from codna.services.access import rights
from codna.services.addresses import SPACES, Address, parse_address
from codna.services.context import database
from codna.services.limits import SEARCH, check_limit
from codna.services.members import Member
from codna.services.nearest import listing_address
from codna.storage.schema import pages

# The same expression as the migration's index, or PostgreSQL cannot use the index.
_PG_VECTOR = "to_tsvector('english', pages.title || ' ' || left(pages.body, 500000))"
_WORD = re.compile(r"\w+", re.UNICODE)
# A query's terms: "a phrase in quotes" (an unclosed quote runs to the end), a word, a prefix*.
_TERM = re.compile(r'"([^"]*)"?|(\w+)(\*?)', re.UNICODE)


@dataclass(frozen=True)
class Term:
    """Words that must appear together, in this order; the last may be a prefix."""

    words: tuple[str, ...]
    prefix: bool = False


def terms(query: str) -> list[Term]:
    """The terms of a query: every word must appear; quoted words as a phrase; `word*`
    (or a phrase ending in `*`) matches any word it begins. Anything else is ignored."""
    found = []
    for phrase, word, star in _TERM.findall(query):
        words = tuple(_WORD.findall(phrase)) if not word else (word,)
        if words:
            found.append(Term(words, prefix=bool(star) or phrase.rstrip().endswith("*")))
    return found


def _fts5(found: list[Term]) -> str:
    """For SQLite's FTS5 MATCH: each term a quoted phrase, `*` after a prefix."""
    return " ".join('"' + " ".join(t.words) + '"' + (" *" if t.prefix else "") for t in found)


def _tsquery(found: list[Term]) -> str:
    """For PostgreSQL's to_tsquery: words followed by `<->` in a phrase, `:*` for a prefix."""
    return " & ".join("(" + " <-> ".join(t.words) + (":*" if t.prefix else "") + ")" for t in found)


@dataclass(frozen=True)
class SearchHit:
    address: str
    title: str
    snippet: str
    version: int


_UNINDEX = sa.text("DELETE FROM page_search WHERE rowid = :id")
_INDEX = sa.text("INSERT INTO page_search (rowid, title, tags, body) VALUES (:id, :t, :g, :b)")


def index_page(conn: Connection, page_id: int, *, title: str, tags: list[str], body: str) -> None:
    """Keep the SQLite index in step with a page, in the page's own transaction."""
    if conn.dialect.name != "sqlite":
        return  # PostgreSQL indexes the page's own columns
    conn.execute(_UNINDEX, {"id": page_id})
    conn.execute(_INDEX, {"id": page_id, "t": title, "g": " ".join(tags), "b": body})


def unindex_page(conn: Connection, page_id: int) -> None:
    if conn.dialect.name == "sqlite":
        conn.execute(_UNINDEX, {"id": page_id})


def _under(folder: Address) -> sa.ColumnElement[bool]:
    """The pages under a folder (or in a space). Raises InvalidRequest (a page's address)."""
    if folder.kind == "page":
        parent, _, _ = folder.path.rpartition("/")
        example = f"{folder.space}:{parent}/" if parent else f"{folder.space}:"
        raise InvalidRequest(
            f"{folder} is a page, not a folder; give a folder's address, such as {example}.",
            field="folder",
        )
    in_space = pages.c.space == folder.space
    if folder.kind == "space":
        return in_space
    return sa.and_(in_space, pages.c.path.startswith(folder.path, autoescape=True))


def search(
    actor: Member,
    *,
    query: str,
    space: str | None = None,
    folder: str | None = None,
    limit: int = SEARCH.default,
) -> list[SearchHit]:
    """Pages the actor can read that match every term of `query` (words, "phrases" and
    prefix*es; see `terms`), best first; in `space`, or under `folder` (a folder's address,
    `wiki:decisions/`, its slash forgiven as list_pages forgives it; a space's is the space).

    Raises InvalidRequest (no words, a query that is not text, an unknown space, a folder that
    is not a folder's address or not in `space`, a limit beyond SEARCH), NotFound (a folder
    with no page the actor can read: with `nearest`, as list_pages says).
    """
    check_plain_text(query or "", field="query")
    found = terms(query or "")
    if not found:
        raise InvalidRequest("Give at least one word to search for.", field="query")
    if space is not None and space not in SPACES:
        raise InvalidRequest(f"'{space}' is not a space.", field="space")
    under = parse_address(folder, field="folder") if folder is not None else None
    if under is not None and space is not None and under.space != space:
        raise InvalidRequest(f"The folder {under} is not in the space {space}.", field="folder")
    check_limit(limit, SEARCH)
    with database().read() as conn:
        mine = rights(conn, actor)
        where = [mine.readable(), pages.c.trashed_at.is_(None)]
        if space:
            where.append(pages.c.space == space)
        if under is not None:
            where.append(_under(listing_address(conn, mine, under)))
        if conn.dialect.name == "sqlite":
            match = _fts5(found)
            fts = sa.table("page_search", sa.column("rowid"))
            stmt = (
                sa.select(
                    pages.c.space,
                    pages.c.path,
                    pages.c.title,
                    pages.c.version,
                    sa.literal_column("snippet(page_search, 2, '[', ']', '…', 16)").label(
                        "snippet"
                    ),
                )
                .select_from(pages.join(fts, fts.c.rowid == pages.c.id))
                .where(sa.text("page_search MATCH :match"), *where)
                .order_by(sa.literal_column("bm25(page_search, 10.0, 5.0, 1.0)"))
                .limit(limit)
            )
            rows = conn.execute(stmt, {"match": match}).all()
        else:
            tsquery = sa.func.to_tsquery("english", _tsquery(found))
            vector: sa.ColumnElement[Any] = sa.literal_column(_PG_VECTOR)
            stmt = (
                sa.select(
                    pages.c.space,
                    pages.c.path,
                    pages.c.title,
                    pages.c.version,
                    sa.func.ts_headline(
                        "english",
                        sa.func.left(pages.c.body, 100000),
                        tsquery,
                        "StartSel=[, StopSel=], MaxWords=16, MinWords=6",
                    ).label("snippet"),
                )
                .where(vector.op("@@")(tsquery), *where)
                .order_by(sa.func.ts_rank(vector, tsquery).desc(), pages.c.id)
                .limit(limit)
            )
            rows = conn.execute(stmt).all()
    return [
        SearchHit(str(Address(r.space, r.path)), r.title, r.snippet or "", r.version) for r in rows
    ]
