"""Full-text search over what the member can read, section by section: FTS5 on SQLite, a
tsvector column on PostgreSQL.

The index holds a row per section of each page and one for its title and tags
(markdown/search_sections.py); a hit is a page with a row that matches every term, named by
its best section. services/search_index.py keeps the rows in step with the pages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest
from codna.markdown.limits import check_plain_text
from codna.markdown.search_sections import TITLE_ORDINAL
from codna.services.access import rights, under
from codna.services.addresses import SPACES, Address, parse_address
from codna.services.context import database
from codna.services.limits import SEARCH, SEARCH_BUDGET, check_limit
from codna.services.members import Member
from codna.services.nearest import listing_address
from codna.storage.schema import page_sections, pages

MAX_TERMS = SEARCH_BUDGET.words  # words in one query, a phrase's each counted
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


def check_budget(found: list[Term]) -> None:
    """Refuse a query whose terms could cost more than one search may (SEARCH_BUDGET): too
    many words, too many prefixes, or a prefix so short it matches most words. Raises
    InvalidRequest (field, limit)."""
    words = sum(len(term.words) for term in found)
    if words > MAX_TERMS:
        raise InvalidRequest(
            f"A search takes at most {MAX_TERMS} words, each word of a phrase counted; "
            f"this one has {words}.",
            field="query",
            limit=MAX_TERMS,
        )
    prefixes = [term.words[-1] for term in found if term.prefix]
    if len(prefixes) > SEARCH_BUDGET.prefixes:
        raise InvalidRequest(
            f"A search takes at most {SEARCH_BUDGET.prefixes} prefix* terms; this one has "
            f"{len(prefixes)}. Write more of the words out.",
            field="query",
            limit=SEARCH_BUDGET.prefixes,
        )
    short = next((p for p in prefixes if len(p) < SEARCH_BUDGET.prefix_chars), None)
    if short is not None:
        raise InvalidRequest(
            f"A prefix needs at least {SEARCH_BUDGET.prefix_chars} letters before its *; "
            f"{short}* would match too many words.",
            field="query",
            limit=SEARCH_BUDGET.prefix_chars,
        )


def _fts5(found: list[Term]) -> str:
    """For SQLite's FTS5 MATCH: each term a quoted phrase, `*` after a prefix."""
    return " ".join('"' + " ".join(t.words) + '"' + (" *" if t.prefix else "") for t in found)


def _tsquery(found: list[Term]) -> str:
    """For PostgreSQL's to_tsquery: words followed by `<->` in a phrase, `:*` for a prefix."""
    return " & ".join("(" + " <-> ".join(t.words) + (":*" if t.prefix else "") + ")" for t in found)


@dataclass(frozen=True)
class SearchHit:
    """A page that matches, with its best section: `section` is the section's heading (None
    for the text before the first heading, or where only the title matched) and `anchor` the
    heading's id on the rendered page, to link to `address#anchor`."""

    address: str
    title: str
    snippet: str
    version: int
    section: str | None = None
    anchor: str | None = None


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
    return sa.and_(in_space, under(pages.c.path, folder.path))


def search(
    actor: Member,
    *,
    query: str,
    space: str | None = None,
    folder: str | None = None,
    limit: int = SEARCH.default,
) -> list[SearchHit]:
    """Pages the actor can read with a section that matches every term of `query` (words,
    "phrases" and prefix*es; see `terms`), or whose title and tags do; in `space`, or under
    `folder` (a folder's address, `wiki:decisions/`, its slash forgiven as list_pages forgives
    it; a space's is the space). Each page comes once, with its best section; pages whose
    title matches come first, then by how well their best row matches.

    The work is bounded (SEARCH_BUDGET): the terms are checked first, then the sections of
    readable pages that match are counted, at most the budget's candidates for its number of
    words and one more, before any is scored; a search that matches more is refused, not cut
    short.

    Raises InvalidRequest (no words, a query beyond SEARCH_BUDGET or matching more sections
    than it, a query that is not text or the index cannot read, an unknown space, a folder
    that is not a folder's address or not in `space`, a limit beyond SEARCH), NotFound (a
    folder with no page the actor can read: with `nearest`, as list_pages says).
    """
    check_plain_text(query or "", field="query")
    found = terms(query or "")
    if not found:
        raise InvalidRequest("Give at least one word to search for.", field="query")
    check_budget(found)
    if space is not None and space not in SPACES:
        raise InvalidRequest(f"'{space}' is not a space.", field="space")
    under = parse_address(folder, field="folder") if folder is not None else None
    if under is not None and space is not None and under.space != space:
        raise InvalidRequest(f"The folder {under} is not in the space {space}.", field="folder")
    check_limit(limit, SEARCH)
    try:
        with database().read() as conn:
            mine = rights(conn, actor)
            where = [mine.readable(), pages.c.trashed_at.is_(None)]
            if space:
                where.append(pages.c.space == space)
            if under is not None:
                where.append(_under(listing_address(conn, mine, under)))
            index = _SqliteIndex(found) if conn.dialect.name == "sqlite" else _PostgresIndex(found)
            _check_candidates(conn, index, where, found)
            best = conn.execute(_best_pages(index, where, limit), index.params).all()
            snippets = _snippets(conn, index, best)
    except sa.exc.DBAPIError as error:
        if not index_refused(error):
            raise
        raise InvalidRequest(
            "The search index cannot read this query; search for words, "
            '"phrases" in quotes and prefix*es.',
            field="query",
        ) from None
    return [
        SearchHit(
            str(Address(r.space, r.path)),
            r.title,
            snippets.get(r.row_id if r.ordinal != TITLE_ORDINAL else r.first_id, ""),
            r.version,
            section=r.heading if r.ordinal != TITLE_ORDINAL else None,
            anchor=r.anchor if r.ordinal != TITLE_ORDINAL else None,
        )
        for r in best
    ]


def _check_candidates(
    conn: Connection,
    index: _SqliteIndex | _PostgresIndex,
    where: list[sa.ColumnElement[bool]],
    found: list[Term],
) -> None:
    """Refuse a search whose terms match more sections of the pages it looks in than a search
    of as many words ranks; counted with a LIMIT, so the count costs at most that many rows
    past the ones the filters drop. Raises InvalidRequest (field, limit)."""
    words = sum(len(term.words) for term in found)
    most = SEARCH_BUDGET.candidates(words)
    rows = index.matching().subquery("matching")
    kept = (
        sa.select(sa.literal(1))
        .select_from(rows.join(pages, pages.c.id == rows.c.page_id))
        .where(*where)
        .limit(most + 1)
        .subquery("kept")
    )
    count = conn.execute(sa.select(sa.func.count()).select_from(kept), index.params).scalar_one()
    if count > most:
        raise InvalidRequest(
            f"This search matches more than {most:,} sections, more than a search of "
            f"{words} word{'s' if words > 1 else ''} ranks; add a rarer word, or search within "
            "a space or a folder.",
            field="query",
            limit=most,
        )


# A title row sorts after every section row of its page, so that a hit names a section
# wherever one matches; scores are far smaller than this.
_TITLE_LAST = 1e9
# FTS5's rows matching the query, with their page and ordinal read through the narrow index
# ix_page_sections_search rather than the rows themselves, which hold the sections' text.
_SQLITE_MATCHED = (
    "SELECT s.page_id, s.id, s.ordinal, bm25(page_search, 4.0, 1.0) AS score "
    "FROM page_search JOIN page_sections AS s INDEXED BY ix_page_sections_search "
    "ON s.id = page_search.rowid WHERE page_search MATCH :match"
)


def _sort_key(matched: Any) -> sa.ColumnElement[float]:
    """A row's place within its page: sections by score, the title row after them."""
    is_title = matched.c.ordinal == TITLE_ORDINAL
    key: sa.ColumnElement[float] = sa.case((is_title, _TITLE_LAST), else_=0.0) + matched.c.score
    return key


_SQLITE_MATCHING = (
    "SELECT s.page_id FROM page_search JOIN page_sections AS s "
    "INDEXED BY ix_page_sections_search ON s.id = page_search.rowid "
    "WHERE page_search MATCH :match"
)


class _SqliteIndex:
    """FTS5's table page_search: bm25 (lower is better), the heading weighing four times the
    text, and its snippet of a row's text."""

    def __init__(self, found: list[Term]) -> None:
        self.params = {"match": _fts5(found)}

    def matching(self) -> sa.Select[Any]:
        """The page of each matching row, unscored."""
        rows = sa.text(_SQLITE_MATCHING).columns(page_id=sa.Integer).subquery("matched")
        return sa.select(rows.c.page_id)

    def best_rows(self, where: list[sa.ColumnElement[bool]]) -> sa.Select[Any]:
        # bm25 is FTS5's, cheap, and only in the full-text query itself; the filters are the
        # outer query's (_best_pages).
        del where
        matched = (
            sa.text(_SQLITE_MATCHED)
            .columns(page_id=sa.Integer, id=sa.Integer, ordinal=sa.Integer, score=sa.Float)
            .cte("matched")
            .prefix_with("MATERIALIZED")  # bm25 is computed in the full-text query itself
        )
        # With one min(), SQLite gives the other bare columns from the row it found.
        titled = sa.func.total(sa.case((matched.c.ordinal == TITLE_ORDINAL, 1), else_=0)) > 0
        return sa.select(
            matched.c.page_id,
            matched.c.id,
            matched.c.ordinal,
            titled.label("titled"),
            sa.func.min(_sort_key(matched)).label("best"),
        ).group_by(matched.c.page_id)

    def snippets(self, ids: list[int]) -> sa.Select[Any]:
        snippet: sa.ColumnElement[Any] = sa.literal_column(
            "snippet(page_search, 1, '[', ']', '…', 16)"
        )
        rowid: sa.ColumnElement[Any] = sa.literal_column("page_search.rowid")
        return (
            sa.select(rowid.label("id"), snippet.label("snippet"))
            .select_from(sa.table("page_search"))
            .where(sa.text("page_search MATCH :match"), rowid.in_(ids))
        )


class _PostgresIndex:
    """The tsvector column page_sections.search: ts_rank, negated so that lower is better like
    bm25, and ts_headline of a row's text."""

    def __init__(self, found: list[Term]) -> None:
        self.params: dict[str, str] = {}
        self.query = sa.func.to_tsquery(sa.literal_column("'english'::regconfig"), _tsquery(found))
        self.most = SEARCH_BUDGET.candidates(sum(len(term.words) for term in found))
        self.vector: sa.ColumnElement[Any] = sa.literal_column("page_sections.search")

    def matching(self) -> sa.Select[Any]:
        """The page of each matching row, unscored."""
        return sa.select(page_sections.c.page_id).where(self.vector.op("@@")(self.query))

    def best_rows(self, where: list[sa.ColumnElement[bool]]) -> sa.Select[Any]:
        # Only rows of the pages the filters keep are scored: ts_rank reads the whole vector,
        # and the candidates' count has bounded how many they are.
        matched = (
            sa.select(
                page_sections.c.page_id,
                page_sections.c.id,
                page_sections.c.ordinal,
                (-sa.func.ts_rank(self.vector, self.query)).label("score"),
            )
            .select_from(page_sections.join(pages, pages.c.id == page_sections.c.page_id))
            .where(self.vector.op("@@")(self.query), *where)
            .limit(self.most + 1)
            .cte("matched")
        )
        by_page = matched.c.page_id
        titled = sa.func.bool_or(matched.c.ordinal == TITLE_ORDINAL).over(partition_by=by_page)
        key = _sort_key(matched)
        return (
            sa.select(
                by_page, matched.c.id, matched.c.ordinal, titled.label("titled"), key.label("best")
            )
            .ext(distinct_on(by_page))
            .order_by(by_page, key, matched.c.ordinal)
        )

    def snippets(self, ids: list[int]) -> sa.Select[Any]:
        headline = sa.func.ts_headline(
            sa.literal_column("'english'::regconfig"),
            sa.func.left(page_sections.c.text, 100000),
            self.query,
            "StartSel=[, StopSel=], MaxWords=16, MinWords=6",
        )
        return sa.select(page_sections.c.id, headline.label("snippet")).where(
            page_sections.c.id.in_(ids)
        )


def _best_pages(
    index: _SqliteIndex | _PostgresIndex, where: list[sa.ColumnElement[bool]], limit: int
) -> sa.Select[Any]:
    """The matching pages the filters keep, best first (those whose title matches, then by
    their best row's score), each with its best row (a section's before the title's) and the
    id of its first section (for the snippet of a page only its title matched)."""
    best = index.best_rows(where).subquery("best")
    first = sa.alias(page_sections, "first_section")
    first_id = (
        sa.select(first.c.id)
        .where(first.c.page_id == pages.c.id, first.c.ordinal != TITLE_ORDINAL)
        .order_by(first.c.ordinal)
        .limit(1)
        .scalar_subquery()
    )
    return (
        sa.select(
            pages.c.space,
            pages.c.path,
            pages.c.title,
            pages.c.version,
            best.c.id.label("row_id"),
            best.c.ordinal,
            page_sections.c.heading,
            page_sections.c.anchor,
            first_id.label("first_id"),
        )
        .select_from(
            best.join(pages, pages.c.id == best.c.page_id).join(
                page_sections, page_sections.c.id == best.c.id
            )
        )
        .where(*where)
        .order_by(best.c.titled.desc(), best.c.best, pages.c.id)
        .limit(limit)
    )


def _snippets(
    conn: Connection, index: _SqliteIndex | _PostgresIndex, best: Sequence[Any]
) -> dict[int, str]:
    """By row id: the matching words in context for each hit's section, and the opening words
    of the first section of a page only its title matched."""
    matched = [r.row_id for r in best if r.ordinal != TITLE_ORDINAL]
    openings = [r.first_id for r in best if r.ordinal == TITLE_ORDINAL and r.first_id]
    found: dict[int, str] = {}
    if matched:
        for row_id, snippet in conn.execute(index.snippets(matched), index.params):
            found[row_id] = snippet or ""
    if openings:
        opening = sa.func.substr(page_sections.c.text, 1, 400)
        rows = conn.execute(
            sa.select(page_sections.c.id, opening).where(page_sections.c.id.in_(openings))
        )
        found.update((row_id, _opening(text)) for row_id, text in rows)
    return found


def _opening(text: str, words: int = 16) -> str:
    kept = text.split()
    return " ".join(kept[:words]) + ("…" if len(kept) > words else "")


# How each engine says its full-text index cannot read a query: FTS5's syntax errors, and
# to_tsquery's ("syntax error in tsquery", "no operand in tsquery", …).
_UNREADABLE = re.compile(
    r"^(fts5: |unterminated string|no such column|unknown special query)|tsquery"
)


def index_refused(error: sa.exc.DBAPIError) -> bool:
    """Whether the database refused a search because its full-text index cannot read the
    query, not for some other fault."""
    return _UNREADABLE.search(str(error.orig)) is not None
