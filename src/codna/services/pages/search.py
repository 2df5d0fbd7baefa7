"""Full-text search over what the member can read, section by section: FTS5 on SQLite, a
tsvector column on PostgreSQL.

The index holds a row per section of each page and one for its title and tags
(markdown/search_sections.py); a hit is a page with a row that matches every term, named by
its best section and the headings it is under. search_index.py keeps the rows in step
with the pages.

Each engine marks the hits in a window of the hit's section around the first one (FTS5's
highlight, PostgreSQL's ts_headline), and markdown/plain_text.py makes of it the plain text a
reader sees, cut around the first hit, as pieces: the same pieces on both engines.
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
from codna.markdown.plain_text import START, STOP, Piece, bracketed, snippet
from codna.markdown.search_sections import TITLE_ORDINAL, path_ordinals
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.limits import SEARCH, SEARCH_BUDGET, check_limit
from codna.services.members.access import rights, under
from codna.services.members.members import Member
from codna.services.pages.nearest import listing_address
from codna.services.pages.tags import check_tag, tagged
from codna.storage.schema import page_sections, pages
from codna.vocabulary import SPACES

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
class PathHeading:
    """A heading on the way to a hit's section: its plain text, and its anchor on the page."""

    heading: str
    anchor: str


@dataclass(frozen=True)
class SearchHit:
    """A page that matches, with its best section: `section` is the section's heading (None
    for the text before the first heading, or where only the title matched) and `anchor` the
    heading's id on the rendered page, to link to `address#anchor`.

    `pieces` are the section's plain text around the first hit (markdown/plain_text.py), the
    words matched as pieces of their own; `snippet` is the same as one line, hits
    [in brackets]. Where only the title matched, both are the page's opening words.

    `path` is the headings the section is under, outermost first, and its own last (the
    section's heading and anchor): `Guide › Rollback › When`; empty without a section."""

    address: str
    title: str
    snippet: str
    version: int
    section: str | None = None
    anchor: str | None = None
    pieces: tuple[Piece, ...] = ()
    path: tuple[PathHeading, ...] = ()


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
    tag: str | None = None,
    limit: int = SEARCH.default,
) -> list[SearchHit]:
    """Pages the actor can read with a section that matches every term of `query` (words,
    "phrases" and prefix*es; see `terms`), or whose title and tags do; in `space`, or under
    `folder` (a folder's address, `wiki:decisions/`, its slash forgiven as list_pages forgives
    it; a space's is the space), and with `tag` among their tags. Each page comes once, with
    its best section; pages whose title matches come first, then by how well their best row
    matches. The filters are the query's own, applied before the LIMIT.

    The work is bounded (SEARCH_BUDGET): the terms are checked first, then the sections of
    readable pages that match are counted, at most the budget's candidates for its number of
    words and one more, before any is scored; a search that matches more is refused, not cut
    short.

    Raises InvalidRequest (no words, a query beyond SEARCH_BUDGET or matching more sections
    than it, a query that is not text or the index cannot read, an unknown space, a folder
    that is not a folder's address or not in `space`, a tag no page could have, a limit
    beyond SEARCH), NotFound (a folder with no page the actor can read: with `nearest`, as
    list_pages says).
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
    wanted = check_tag(tag) if tag is not None else None
    check_limit(limit, SEARCH)
    try:
        with database().read() as conn:
            mine = rights(conn, actor)
            where = [mine.readable(), pages.c.trashed_at.is_(None)]
            if space:
                where.append(pages.c.space == space)
            if under is not None:
                where.append(_under(listing_address(conn, mine, under)))
            if wanted is not None:
                where.append(tagged(conn, wanted))
            index = _SqliteIndex(found) if conn.dialect.name == "sqlite" else _PostgresIndex(found)
            _check_candidates(conn, index, where, found)
            best = conn.execute(_best_pages(index, where, limit), index.params).all()
            snippets = _snippets(conn, index, best)
            paths = _paths(conn, best)
    except sa.exc.DBAPIError as error:
        if not index_refused(error):
            raise
        raise InvalidRequest(
            "The search index cannot read this query; search for words, "
            '"phrases" in quotes and prefix*es.',
            field="query",
        ) from None
    hits = []
    for r in best:
        pieces = snippets.get(r.row_id if r.ordinal != TITLE_ORDINAL else r.first_id, ())
        hits.append(
            SearchHit(
                str(Address(r.space, r.path)),
                r.title,
                bracketed(pieces),
                r.version,
                section=r.heading if r.ordinal != TITLE_ORDINAL else None,
                anchor=r.anchor if r.ordinal != TITLE_ORDINAL else None,
                pieces=pieces,
                path=paths.get(r.row_id, ()),
            )
        )
    return hits


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

    def marked(self, ids: list[int]) -> sa.Select[Any]:
        """The text of each of these rows, its hits between START and STOP."""
        text: sa.ColumnElement[Any] = sa.literal_column(
            "highlight(page_search, 1, char(2), char(3))"
        )
        rowid: sa.ColumnElement[Any] = sa.literal_column("page_search.rowid")
        return (
            sa.select(rowid.label("id"), text.label("text"))
            .select_from(sa.table("page_search"))
            .where(sa.text("page_search MATCH :match"), rowid.in_(ids))
        )

    def first_hit(self, text: sa.ColumnElement[Any]) -> sa.ColumnElement[int]:
        found: sa.ColumnElement[int] = sa.func.instr(text, START)
        return found


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

    def marked(self, ids: list[int]) -> sa.Select[Any]:
        """The text of each of these rows (up to MARKED_CHARS), its hits between START and
        STOP."""
        headline = sa.func.ts_headline(
            sa.literal_column("'english'::regconfig"),
            sa.func.left(page_sections.c.text, MARKED_CHARS),
            self.query,
            f"StartSel={START}, StopSel={STOP}, HighlightAll=true",
        )
        return sa.select(page_sections.c.id, headline.label("text")).where(
            page_sections.c.id.in_(ids)
        )

    def first_hit(self, text: sa.ColumnElement[Any]) -> sa.ColumnElement[int]:
        found: sa.ColumnElement[int] = sa.func.strpos(text, START)
        return found


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


# A snippet is cut from a window of its section's text: WINDOW characters from WINDOW_BEFORE
# before the first hit (markdown/plain_text.py strips the Markdown of this window only); a hit
# past MARKED_CHARS is not looked for, and the window is the section's opening.
WINDOW = 1_200
WINDOW_BEFORE = 400
MARKED_CHARS = 100_000


def _windows(index: _SqliteIndex | _PostgresIndex, ids: list[int]) -> sa.Select[Any]:
    """Each row's window of marked text (`window`), where it begins in the text (`begin`,
    from 1) and the marked text's length (`chars`)."""
    marked = index.marked(ids).cte("marked").prefix_with("MATERIALIZED")
    found = index.first_hit(marked.c.text)
    first = sa.case((found.between(1, MARKED_CHARS), found), else_=0)
    begin = sa.case((first > WINDOW_BEFORE, first - WINDOW_BEFORE), else_=1)
    return sa.select(
        marked.c.id,
        begin.label("begin"),
        sa.func.length(marked.c.text).label("chars"),
        sa.func.substr(marked.c.text, begin, WINDOW).label("window"),
    )


def _snippets(
    conn: Connection, index: _SqliteIndex | _PostgresIndex, best: Sequence[Any]
) -> dict[int, tuple[Piece, ...]]:
    """By row id: the plain text around the first hit in each hit's section, and the opening
    words of the first section of a page only its title matched."""
    matched = [r.row_id for r in best if r.ordinal != TITLE_ORDINAL]
    openings = [r.first_id for r in best if r.ordinal == TITLE_ORDINAL and r.first_id]
    rows: list[Any] = []
    if matched:
        rows.extend(conn.execute(_windows(index, matched), index.params))
    if openings:
        text = page_sections.c.text
        rows.extend(
            conn.execute(
                sa.select(
                    page_sections.c.id,
                    sa.literal(1).label("begin"),
                    sa.func.length(text).label("chars"),
                    sa.func.substr(text, 1, WINDOW).label("window"),
                ).where(page_sections.c.id.in_(openings))
            )
        )
    return {
        row.id: snippet(
            row.window or "",
            whole_start=row.begin == 1,
            whole_end=row.begin - 1 + WINDOW >= row.chars,
        )
        for row in rows
    }


_before = sa.alias(page_sections, "before")
HEADING_CHARS = 4_096  # of a section's start read for its heading's lines, at most
# How much of a page's text holds the headings down to a section's: the lengths of the sections
# before it (read through ix_page_sections_lengths), and the start of its own.
_HEAD_END = sa.cast(
    sa.func.coalesce(
        sa.select(sa.func.sum(_before.c.chars))
        .where(
            _before.c.page_id == page_sections.c.page_id,
            _before.c.ordinal >= 0,
            _before.c.ordinal < page_sections.c.ordinal,
        )
        .scalar_subquery(),
        0,
    )
    + sa.case((page_sections.c.chars > HEADING_CHARS, HEADING_CHARS), else_=page_sections.c.chars),
    sa.Integer,  # PostgreSQL's sum is a bigint, which its substr does not take
)


def _paths(conn: Connection, best: Sequence[Any]) -> dict[int, tuple[PathHeading, ...]]:
    """By row id: the headings each hit's section is under and its own. The first heading of
    a page is under none; for the others the headings of the page's text down to the
    section's are found for their levels, and the rows of those it is under read for their
    text and anchor."""
    paths: dict[int, tuple[PathHeading, ...]] = {
        r.row_id: (PathHeading(r.heading, r.anchor),)
        for r in best
        if r.ordinal >= 1 and r.heading is not None and r.anchor is not None
    }
    deeper = {r.row_id: r.ordinal for r in best if r.ordinal >= 2 and r.row_id in paths}
    if not deeper:
        return paths
    heads = conn.execute(
        sa.select(
            page_sections.c.id, page_sections.c.page_id, sa.func.substr(pages.c.body, 1, _HEAD_END)
        )
        .select_from(page_sections.join(pages, pages.c.id == page_sections.c.page_id))
        .where(page_sections.c.id.in_(deeper))
    ).all()
    above: dict[int, tuple[int, list[int]]] = {}  # row id: its page, the ordinals above it
    for row_id, page_id, head in heads:
        ordinals = path_ordinals(head or "", deeper[row_id])
        if len(ordinals) > 1 and ordinals[-1] == deeper[row_id]:
            above[row_id] = (page_id, ordinals[:-1])
    if not above:
        return paths
    named = {
        (row.page_id, row.ordinal): PathHeading(row.heading or "", row.anchor or "")
        for row in conn.execute(
            sa.select(
                page_sections.c.page_id,
                page_sections.c.ordinal,
                page_sections.c.heading,
                page_sections.c.anchor,
            ).where(
                sa.or_(
                    *(
                        sa.and_(
                            page_sections.c.page_id == page_id,
                            page_sections.c.ordinal.in_(ordinals),
                        )
                        for page_id, ordinals in above.values()
                    )
                )
            )
        )
    }
    for row_id, (page_id, ordinals) in above.items():
        steps = [named.get((page_id, ordinal)) for ordinal in ordinals]
        if all(steps):
            paths[row_id] = (*(s for s in steps if s), *paths[row_id])
    return paths


# How each engine says its full-text index cannot read a query: FTS5's syntax errors, and
# to_tsquery's ("syntax error in tsquery", "no operand in tsquery", …).
_UNREADABLE = re.compile(
    r"^(fts5: |unterminated string|no such column|unknown special query)|tsquery"
)


def index_refused(error: sa.exc.DBAPIError) -> bool:
    """Whether the database refused a search because its full-text index cannot read the
    query, not for some other fault."""
    return _UNREADABLE.search(str(error.orig)) is not None
