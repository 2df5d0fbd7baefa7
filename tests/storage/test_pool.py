"""Under load the pool bounds what the database sees: 64 page reads at once on a small pool."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest
import sqlalchemy as sa

from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.services.pages import pages
from codna.storage.database import Database
from tests.conftest import ENGINES, POSTGRES_URL, drop_postgres, postgres_copy

POOL_SIZE = 4
MAX_OVERFLOW = 2
READERS = 64
DEADLINE = 60.0  # seconds a reader waits for the others at the start, or for a connection
PAGE = "wiki:notes/load"
BODY = "# Load\n\nRead by many at once.\n"


@dataclass
class SmallPool:
    """A migrated database behind a pool of POOL_SIZE + MAX_OVERFLOW connections."""

    db: Database
    name: str | None  # the PostgreSQL database's name; None on SQLite


@pytest.fixture(params=ENGINES)
def small_pool(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SmallPool]:
    options = {"pool_size": POOL_SIZE, "max_overflow": MAX_OVERFLOW, "pool_timeout": DEADLINE}
    name = None
    if request.param == "sqlite":
        database = Database(f"sqlite:///{tmp_path_factory.mktemp('db') / 'codna.db'}", **options)
        database.migrate()
    else:
        copy, name = postgres_copy(request.getfixturevalue("postgres_template"))
        copy.dispose()
        database = Database(copy.url.render_as_string(hide_password=False), **options)
    use_database(database)
    try:
        yield SmallPool(database, name)
    finally:
        use_database(None)
        database.dispose()
        if name:
            drop_postgres(name)


@dataclass
class Peak:
    """The most connections seen at once, and how many are out now."""

    now: int = 0
    most: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, step: int) -> None:
        with self.lock:
            self.now += step
            self.most = max(self.most, self.now)


def checked_out_peak(engine: sa.Engine) -> Peak:
    """Follow the pool's checkouts and checkins, to know the most that were out at once."""
    peak = Peak()
    sa.event.listen(engine, "checkout", lambda *_: peak.add(1))
    sa.event.listen(engine, "checkin", lambda *_: peak.add(-1))
    return peak


def reader_with_a_token() -> str:
    """A workspace with a page and a person who may read it; that person's token."""
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    members.add_person(admin, email="rita@example.com", name="Rita")
    access.share(admin, address="wiki", member="rita@example.com", level="read")
    pages.create_page(admin, address=PAGE, title="Load", body=BODY)
    return tokens.create_token(admin, member="rita@example.com", name="load").secret


def read_all_at_once(secret: str) -> list[str]:
    """READERS threads, started together, each checking the token and reading the page."""
    start = threading.Barrier(READERS, timeout=DEADLINE)

    def read(_: int) -> str:
        start.wait()
        caller = tokens.authenticate_token(secret)
        return pages.read_page(caller.member, address=PAGE).body

    with ThreadPoolExecutor(max_workers=READERS) as readers:
        return list(readers.map(read, range(READERS)))  # raises what any reader raised


def test_sixty_four_page_reads_at_once_all_succeed_on_a_small_pool(small_pool: SmallPool) -> None:
    secret = reader_with_a_token()
    peak = checked_out_peak(small_pool.db.engine)
    assert read_all_at_once(secret) == [BODY] * READERS
    assert 1 <= peak.most <= POOL_SIZE + MAX_OVERFLOW


def test_sixty_four_page_reads_at_once_never_open_more_connections_than_the_pool_allows(
    small_pool: SmallPool,
) -> None:
    if small_pool.name is None:
        pytest.skip("what PostgreSQL sees: SQLite has no server to count connections on")
    secret = reader_with_a_token()
    watcher = sa.create_engine(POSTGRES_URL, poolclass=sa.NullPool)
    count = sa.text("SELECT count(*) FROM pg_stat_activity WHERE datname = :name")
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:
        # From a connection of its own, to another database: it never counts itself.
        with watcher.connect() as conn:
            while not done.is_set():
                seen.append(conn.execute(count, {"name": small_pool.name}).scalar_one())
                conn.rollback()  # a fresh snapshot of pg_stat_activity each time
            seen.append(conn.execute(count, {"name": small_pool.name}).scalar_one())

    sampler = threading.Thread(target=watch)
    sampler.start()
    try:
        reads = read_all_at_once(secret)
    finally:
        done.set()
        sampler.join(DEADLINE)
        watcher.dispose()
    assert reads == [BODY] * READERS
    # The last sample, taken after the reads, sees the connections the pool kept: the watcher
    # counts this database's connections.
    assert seen[-1] >= 1, seen
    assert max(seen) <= POOL_SIZE + MAX_OVERFLOW, f"connections seen over time: {seen}"
