"""How fast search is over 1,000 pages of 100 KB, and what a save's indexing costs by the
sections it touches, on SQLite and on PostgreSQL (a throwaway database).

The pages are imported through services.transfer, 50 to a call; each has an opening paragraph
and 50 sections of about 2 KB, their words drawn from a 30,000-word vocabulary with the
Zipf-like frequencies of natural text. Searches are medians over 30 queries of each kind,
drawn from the text: one word of middling frequency (ranks 50 to 5,000), two words found in
one section, a four-letter prefix*, a two-word "phrase"; and, as the worst case, one of the
five commonest words, which is in nearly every section. The one-word and commonest-word
queries run again within one tag (each page has one of ten) and within a space. Then what one
token could ask to stall the server, 20 terms at once (5 queries each): 20 words of one
section, the 20 commonest words, and 20 two-letter prefix*es; a search refused by
SEARCH_BUDGET counts as refused, with its time to be refused. Each search answers 20 hits,
each with its plain-text snippet and its section's heading path. A save's indexing is timed
inside real saves (editing.write_page) of a 100 KB page of 50 sections, changing one section
and then all 50 alternately. Run: .venv/bin/python bench/search.py [--postgres ADMIN_URL]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from codna.errors import InvalidRequest
from codna.services.admin import transfer
from codna.services.context import database, use_database
from codna.services.members import members
from codna.services.pages import editing, pages, search, search_index
from codna.storage.database import Database
from server import throwaway_postgres

POSTGRES_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PAGES = 1_000
SECTIONS = 50
SECTION_CHARS = 1_950  # 50 sections and an opening: a page of about 100 KB
IMPORT_BATCH = 50
QUERIES = 30
HEAVY = 5  # queries of each 20-term kind
SAVES = 21
TAGS = 10  # each page has one tag of ten: a tag filter keeps a tenth of the pages


@dataclass(frozen=True)
class Corpus:
    vocabulary: list[str]  # by frequency, commonest first
    rank: dict[str, int]
    pool: list[str]  # a long run of words drawn by frequency, cut into sections


def make_corpus(seed: int = 14) -> Corpus:
    chance = random.Random(seed)
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["th", "sh", "qu"]
    words: dict[str, None] = {}
    while len(words) < 30_000:
        words["".join(chance.choices(syllables, k=chance.choice((1, 2, 2, 3, 3, 4))))] = None
    # The short words are the common ones, as in English, more or less.
    vocabulary = sorted(words, key=lambda w: len(w) + chance.uniform(0, 6))
    weights = list(itertools.accumulate(1 / (rank + 1) ** 1.05 for rank in range(len(words))))
    pool = chance.choices(vocabulary, cum_weights=weights, k=1_000_000)
    return Corpus(vocabulary, {w: r for r, w in enumerate(vocabulary)}, pool)


def section_words(corpus: Corpus, chance: random.Random) -> list[str]:
    """Words from a random place in the pool, about SECTION_CHARS of them."""
    at = chance.randrange(len(corpus.pool) - SECTION_CHARS)
    words, size = [], 0
    while size < SECTION_CHARS:
        words.append(corpus.pool[at])
        size += len(corpus.pool[at]) + 1
        at += 1
    return words


def paragraphs(words: list[str]) -> str:
    third = len(words) // 3
    parts = [words[:third], words[third : 2 * third], words[2 * third :]]
    return "\n\n".join(" ".join(part).capitalize() + "." for part in parts)


def make_page(corpus: Corpus, chance: random.Random) -> str:
    parts = [paragraphs(section_words(corpus, chance)), ""]
    for n in range(SECTIONS):
        heading = " ".join(chance.sample(corpus.vocabulary[200:3000], 2)).capitalize()
        parts.append(f"## {heading} {n}\n\n{paragraphs(section_words(corpus, chance))}\n")
    return "\n\n".join(parts)


def load(admin: members.Member, corpus: Corpus, count: int) -> tuple[float, int]:
    """Import the pages; the seconds it took and the bytes of their bodies."""
    chance = random.Random(1)
    size, started = 0, time.perf_counter()
    for batch in range(count // IMPORT_BATCH):
        documents = []
        for n in range(IMPORT_BATCH):
            body = make_page(corpus, chance)
            size += len(body.encode())
            title = " ".join(chance.sample(corpus.vocabulary[100:5000], 3)).capitalize()
            tag = f"team-{n % TAGS}"
            text = f"---\ntitle: {title}\ntags: [{tag}]\n---\n{body}"
            documents.append(transfer.Document(f"page-{batch}-{n}.md", text))
        transfer.import_documents(admin, documents=documents, folder="raw:bench/")
    return time.perf_counter() - started, size


def queries(corpus: Corpus) -> dict[str, list[str]]:
    chance = random.Random(2)
    middling = [w for w in corpus.vocabulary[50:5000] if len(w) >= 6]

    def two_from_a_section() -> list[str]:
        words = [w for w in section_words(corpus, chance) if corpus.rank[w] >= 50]
        return chance.sample(words, 2)

    def adjacent() -> list[str]:
        words = section_words(corpus, chance)
        pairs = [words[i : i + 2] for i in range(len(words) - 1)]
        return next(p for p in pairs if min(corpus.rank[w] for w in p) >= 20)

    def twenty_from_a_section() -> list[str]:
        words = list(dict.fromkeys(w for w in section_words(corpus, chance)))
        return chance.sample(words, 20)

    return {
        "one word": [chance.choice(corpus.vocabulary[50:5000]) for _ in range(QUERIES)],
        "two words": [" ".join(two_from_a_section()) for _ in range(QUERIES)],
        "prefix*": [chance.choice(middling)[:4] + "*" for _ in range(QUERIES)],
        '"phrase"': ['"' + " ".join(adjacent()) + '"' for _ in range(QUERIES)],
        "commonest word": [corpus.vocabulary[n % 5] for n in range(QUERIES)],
        "20 words": [" ".join(twenty_from_a_section()) for _ in range(HEAVY)],
        "20 commonest": [" ".join(corpus.vocabulary[n : n + 20]) for n in range(HEAVY)],
        "20 prefix*es": [
            " ".join(w[:2] + "*" for w in chance.sample(corpus.vocabulary[:300], 20))
            for _ in range(HEAVY)
        ],
    }


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = run()
    return (time.perf_counter() - started) * 1000, result


def bench_search(admin: members.Member, corpus: Corpus) -> None:
    print(f"{'query':16} {'median ms':>9} {'max ms':>7} {'hits (median)':>14} {'refused':>8}  e.g.")
    asked_for = queries(corpus)
    # The filters are the query's own: a tag keeps a tenth of the pages, a space all of them.
    filtered = {
        "one word, tag": (asked_for["one word"], {"tag": "team-3"}),
        "commonest, tag": (asked_for["commonest word"], {"tag": "team-3"}),
        "one word, space": (asked_for["one word"], {"space": "raw"}),
    }
    runs = {kind: (asked, {}) for kind, asked in asked_for.items()} | filtered
    for kind, (asked, filters) in runs.items():
        times, counts, refused = [], [], 0
        for query in asked:
            ms, hits = timed(lambda q=query, f=filters: refusing(admin, q, **f))
            times.append(ms)
            if hits is None:
                refused += 1
            else:
                counts.append(len(hits))
        hit = f"{statistics.median(counts):14.0f}" if counts else f"{'-':>14}"
        print(
            f"{kind:16} {statistics.median(times):9.1f} {max(times):7.1f} {hit} "
            f"{refused:8}  {asked[0][:60]}"
        )


def refusing(admin: members.Member, query: str, **filters: str) -> list[search.SearchHit] | None:
    """The hits, or None for a search refused as beyond what one search may cost."""
    try:
        return search.search(admin, query=query, **filters)
    except InvalidRequest:
        return None


def bench_saves(admin: members.Member, corpus: Corpus) -> None:
    """Saves of one page that change one section, then all 50, alternately: the time of each
    save, and of the indexing inside it."""
    chance = random.Random(3)
    body = make_page(corpus, chance)
    address = "wiki:bench/edited"
    pages.create_page(admin, address=address, title="Edited", body=body)
    heads = [body.index(f" {n}\n\n") for n in range(SECTIONS)]
    spent: list[float] = []
    real = search_index.index_page

    def index_page(*args: Any, **kwargs: Any) -> None:
        started = time.perf_counter()
        real(*args, **kwargs)
        spent.append((time.perf_counter() - started) * 1000)

    search_index.index_page = index_page  # type: ignore[assignment]
    version = 1
    print(
        f"\n{'save of a 100 KB page':24} {'save ms':>8} {'indexing ms':>12} {'rows replaced':>14}"
    )
    kinds = (("1 section changed", [SECTIONS // 2]), ("50 sections changed", range(SECTIONS)))
    try:
        for label, touched in kinds:
            saves, indexing = [], []
            for n in range(SAVES):
                edited = body
                for at in sorted(touched, reverse=True):  # a word more after each heading
                    cut = heads[at] + len(f" {at}\n\n")
                    edited = edited[:cut] + f"Edited{n} " + edited[cut:]
                before = row_ids(address)
                spent.clear()
                ms, _ = timed(
                    lambda e=edited, v=version: editing.write_page(
                        admin, address=address, body=e, base_version=v
                    )
                )
                version += 1
                saves.append(ms)
                indexing.extend(spent)
            rows = len(row_ids(address) - before)
            print(
                f"{label:24} {statistics.median(saves):8.2f} "
                f"{statistics.median(indexing):12.2f} {rows:14}"
            )
    finally:
        search_index.index_page = real  # type: ignore[assignment]


def row_ids(address: str) -> set[tuple[int, str]]:
    """The page's rows in the index, by id and digest (a replaced row has another digest; on
    SQLite it may have the id of the row it replaced)."""
    with database().read() as conn:
        found = conn.execute(
            sa.text(
                "SELECT s.id, s.digest FROM page_sections s JOIN pages p ON p.id = s.page_id "
                "WHERE p.space = 'wiki' AND p.path = :path"
            ),
            {"path": address.split(":", 1)[1]},
        )
        return {(row_id, digest) for row_id, digest in found}


def sizes(db: Database, bodies: int) -> str:
    with db.read() as conn:
        rows = conn.execute(sa.text("SELECT count(*) FROM page_sections")).scalar()
        if db.dialect == "sqlite":
            found = conn.execute(
                sa.text(
                    "SELECT sum(pgsize) FROM dbstat WHERE name = 'page_sections' "
                    "OR name LIKE 'page_search%' OR name LIKE '%page_sections%'"
                )
            ).scalar()
        else:
            found = conn.execute(sa.text("SELECT pg_total_relation_size('page_sections')")).scalar()
    return (
        f"{rows:,} rows in the index; the index takes {found / 1e6:,.0f} MB beside "
        f"{bodies / 1e6:,.0f} MB of bodies"
    )


def bench(name: str, db: Database, corpus: Corpus, count: int) -> None:
    use_database(db)
    admin = members.init_workspace(
        admin_email=f"{uuid.uuid4().hex}@example.com", admin_password="bench-password"
    )
    seconds, size = load(admin, corpus, count)
    if db.dialect != "sqlite":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("VACUUM ANALYZE"))  # as autovacuum would after a bulk load
    print(f"\n{name}: {count:,} pages of {size / count / 1000:.0f} KB imported in {seconds:.1f} s")
    print(sizes(db, size))
    bench_search(admin, corpus)
    bench_saves(admin, corpus)
    db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=POSTGRES_ADMIN, metavar="ADMIN_URL")
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--pages", type=int, default=PAGES, help="a multiple of 50")
    options = parser.parse_args()
    corpus = make_corpus()
    print("Targets: the median search under 50 ms; a save's indexing by the sections it touched.")
    if options.only != "postgresql":
        with tempfile.TemporaryDirectory() as folder:
            db = Database(f"sqlite:///{Path(folder) / 'search.db'}")
            db.migrate()
            bench("SQLite", db, corpus, options.pages)
    if options.only != "sqlite":
        with throwaway_postgres(options.postgres) as url:
            db = Database(url, statement_timeout=0)  # to show what a search costs unbounded
            db.migrate()
            bench("PostgreSQL", db, corpus, options.pages)


if __name__ == "__main__":
    main()
