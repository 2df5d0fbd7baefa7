"""Fixtures: fresh databases on SQLite and PostgreSQL, a seeded team, and the app in process.

Both engines are migrated once per test run (per xdist worker) into a template. SQLite's is a
file each test gets a copy of. PostgreSQL's is copied once per worker (`CREATE DATABASE …
TEMPLATE`), and the copy is emptied before each test that uses `db`: every row deleted and
every sequence restarted, which takes a twentieth of a copy's time. A test that changed the
schema (a downgrade, a trigger) leaves a fingerprint that differs, and the worker's database
is then copied again. A test that runs a server on its own database gets a copy of its own
(`fresh_database`). A missing PostgreSQL fails the run; set CODNA_TEST_POSTGRES=skip to run
on SQLite alone (never in CI).

`app` is the whole ASGI app of `codna.app.create_app`, run in this process with its lifespan,
reached by HTTP and MCP clients through the ASGI interface (no socket): what the API and MCP
tests use. tests/server/ runs a real `codna serve` for what only a real server shows.
"""

from __future__ import annotations

import os
import shutil
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import httpx
import httpx2
import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher, profiles
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from starlette.types import ASGIApp, Message

from codna.app import create_app
from codna.errors import CodnaError
from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.settings import Settings
from codna.storage.database import Database

POSTGRES_URL = os.environ.get(
    "CODNA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
ENGINES = ["sqlite", "postgresql"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="run the long forms of the reliability tests (hundreds of kills, thousands of "
        "payloads) instead of their quick forms",
    )


@pytest.fixture(scope="session")
def long_form(request: pytest.FixtureRequest) -> bool:
    """Whether the run asked for the long forms (`pytest --long`): a test scales its rounds
    by it, the quick form for every run, the long one for the figures docs/reliability.md
    reports."""
    return bool(request.config.getoption("--long"))


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashing() -> Iterator[None]:
    """Passwords hashed with argon2's cheapest parameters in the tests' own process: the same
    code, a thousandth of the work (a real `codna serve` the tests start keeps the real ones)."""
    real = members._hasher
    members._hasher = PasswordHasher.from_parameters(profiles.CHEAPEST)
    yield
    members._hasher = real


# Databases ---------------------------------------------------------------------------------


def _admin_engine() -> sa.Engine:
    return sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file to copy per test; its path."""
    path = tmp_path_factory.mktemp("sqlite-template") / "codna.db"
    database = Database(f"sqlite:///{path}")
    database.migrate()
    # In WAL mode the file is whole only once the last connection has closed (SQLite then
    # checkpoints the log into it and removes it), so the engine goes before any copy.
    database.dispose()
    left = sorted(p.name for p in path.parent.iterdir() if p != path)
    assert not left, f"the SQLite template is not one file after closing: {left}"
    return path


def sqlite_copy(template: Path, folder: Path) -> str:
    """A copy of the migrated SQLite template in `folder`; its URL."""
    path = folder / "codna.db"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """A migrated PostgreSQL database to copy per test; its name."""
    if os.environ.get("CODNA_TEST_POSTGRES") == "skip" and not os.environ.get("CI"):
        pytest.skip("PostgreSQL skipped by CODNA_TEST_POSTGRES=skip")
    name = f"codna_tpl_{uuid.uuid4().hex[:10]}"
    admin = _admin_engine()
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as error:
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_URL}: {error}")
    db = Database(sa.make_url(POSTGRES_URL).set(database=name).render_as_string(False))
    db.migrate()
    db.dispose()
    yield name
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def postgres_copy(template: str) -> tuple[Database, str]:
    name = f"codna_t_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    url = sa.make_url(POSTGRES_URL).set(database=name).render_as_string(False)
    return Database(url), name


def drop_postgres(name: str) -> None:
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@contextmanager
def fresh_database(
    engine: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The URL of a new, migrated database on `engine`; dropped afterwards."""
    if engine == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        yield sqlite_copy(template, tmp_path_factory.mktemp("db"))
        return
    database, name = postgres_copy(request.getfixturevalue("postgres_template"))
    url = database.url.render_as_string(hide_password=False)
    database.dispose()
    try:
        yield url
    finally:
        drop_postgres(name)


# What the schema of a database is, as one hash: its columns, indexes, constraints, triggers,
# functions and migration. Rows and sequences are not in it: emptying resets those.
_FINGERPRINT = """
SELECT md5(string_agg(item, ',' ORDER BY item)) FROM (
  SELECT 'c ' || table_name || '.' || column_name || ' ' || data_type || ' '
         || coalesce(column_default, '') || ' ' || is_nullable AS item
    FROM information_schema.columns WHERE table_schema = 'public'
  UNION ALL SELECT 'i ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT 'k ' || conname || ' ' || pg_get_constraintdef(k.oid)
    FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace
    WHERE n.nspname = 'public'
  UNION ALL SELECT 't ' || tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT tgisinternal
  UNION ALL SELECT 'f ' || proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public'
  UNION ALL SELECT 'v ' || version_num FROM alembic_version
) AS schema
"""


class _Emptied:
    """This worker's PostgreSQL database for `db`: copied from the template once, emptied
    before each test, copied again when a test left its schema changed."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.name: str | None = None
        self.engine: sa.Engine | None = None
        self.fingerprint = ""
        self.empty = ""

    def url(self) -> str:
        """The URL of the database, migrated and holding no row."""
        if self.name is not None and not self._emptied():
            self.drop()
        if self.name is None:
            self._copy()
        assert self.name is not None
        return sa.make_url(POSTGRES_URL).set(database=self.name).render_as_string(False)

    def _copy(self) -> None:
        database, self.name = postgres_copy(self.template)
        database.dispose()
        # A commit need not wait for the disk here: no test of `db` stops PostgreSQL.
        admin = _admin_engine()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'ALTER DATABASE "{self.name}" SET synchronous_commit = off')
        admin.dispose()
        url = sa.make_url(POSTGRES_URL).set(database=self.name)
        self.engine = sa.create_engine(url, poolclass=sa.NullPool)
        with self.engine.connect() as conn:
            self.fingerprint = conn.exec_driver_sql(_FINGERPRINT).scalar_one()
            tables = conn.exec_driver_sql(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                "AND tablename <> 'alembic_version'"
            ).scalars()
            sequences = conn.exec_driver_sql(
                "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
            ).scalars()
            # Rows go with no foreign key checked (each table is emptied whole).
            self.empty = (
                "SET LOCAL session_replication_role = replica; "
                "SET LOCAL lock_timeout = '2s'; "
                + "".join(f'DELETE FROM "{table}"; ' for table in tables)
                + "".join(f'ALTER SEQUENCE "{name}" RESTART; ' for name in sequences)
            )

    def _emptied(self) -> bool:
        assert self.engine is not None
        try:
            with self.engine.begin() as conn:
                if conn.exec_driver_sql(_FINGERPRINT).scalar_one() != self.fingerprint:
                    return False
                conn.exec_driver_sql(self.empty)
        except sa.exc.DBAPIError:
            return False  # a lock held past the timeout by what a test left running
        return True

    def drop(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
        if self.name is not None:
            drop_postgres(self.name)
        self.name, self.engine = None, None


@pytest.fixture(scope="session")
def postgres_emptied(postgres_template: str) -> Iterator[_Emptied]:
    emptied = _Emptied(postgres_template)
    yield emptied
    emptied.drop()


@pytest.fixture(params=ENGINES)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """A migrated database holding nothing, which the services use for this test: SQLite,
    then PostgreSQL."""
    if request.param == "sqlite":
        url = sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path_factory.mktemp("db"))
    else:
        url = request.getfixturevalue("postgres_emptied").url()
    database = Database(url)
    use_database(database)
    try:
        yield database
    finally:
        use_database(None)
        database.dispose()


# A team ------------------------------------------------------------------------------------

# Every workspace has a token per role and these spare writer tokens, for tests that use one
# up (revoke it, flood with it).
ROLES = {
    "admin": "ada@example.com",
    "writer": "wanda@example.com",  # write on wiki, raw and output
    "reader": "rita@example.com",  # read on wiki, raw and output
    "stranger": "sam@example.com",  # no grant at all
    "agent": "checker",  # read on wiki, raw and output
}
PASSWORD = "correct horse"  # every person's, for signing in to the web UI
SPARE = (
    "flood-api",
    "flood-mcp",
    "revoke-api",
    "revoke-mcp",
    "revoke-stdio",
    "schemathesis",
    "body-cap",
)


@dataclass(frozen=True)
class Workspace:
    """A seeded database: its URL and a token secret per role (and per spare name)."""

    url: str
    tokens: Mapping[str, str]
    token_ids: Mapping[str, int]


def seed(url: str, *, spare: Sequence[str] = SPARE) -> Workspace:
    """Make the team and its tokens through the services, on the migrated database at `url`."""
    database = Database(url)
    use_database(database)
    try:
        admin = members.init_workspace(admin_email=ROLES["admin"], admin_password=PASSWORD)
        members.add_person(admin, email=ROLES["writer"], name="Wanda", password=PASSWORD)
        members.add_person(admin, email=ROLES["reader"], name="Rita", password=PASSWORD)
        members.add_person(admin, email=ROLES["stranger"], name="Sam", password=PASSWORD)
        members.add_agent(admin, name=ROLES["agent"], responsible=[ROLES["writer"]])
        for space in ("wiki", "raw", "output"):
            access.share(admin, address=space, member=ROLES["writer"], level="write")
            access.share(admin, address=space, member=ROLES["reader"], level="read")
            access.share(admin, address=space, member=ROLES["agent"], level="read")
        made = {
            role: tokens.create_token(admin, member=who, name=role) for role, who in ROLES.items()
        }
        for name in spare:
            made[name] = tokens.create_token(admin, member=ROLES["writer"], name=name)
    finally:
        use_database(None)
        database.dispose()
    return Workspace(
        url=url,
        tokens={name: new.secret for name, new in made.items()},
        token_ids={name: new.token.id for name, new in made.items()},
    )


def unique(prefix: str = "wiki:server/") -> str:
    """A fresh page address, so tests on a shared workspace never meet."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


class Served(ABC):
    """CoDNA as the tests reach it, a real `codna serve` or the app in process: an HTTP
    client and an MCP client per role, and the writer's shortcuts to make pages."""

    workspace: Workspace
    engine: str
    base: str

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def token(self, role: str) -> str:
        return self.workspace.tokens[role]

    def headers(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(role)}"}

    @abstractmethod
    def api(self, role: str | None = None) -> httpx.Client:
        """An HTTP client with `role`'s token (none if not given)."""

    @abstractmethod
    def mcp(self, role: str) -> AbstractAsyncContextManager[Client]:
        """The SDK's own client over Streamable HTTP, with `role`'s bearer token."""

    def create_page(self, address: str, body: str, *, title: str = "A page") -> dict[str, Any]:
        """Make a page as the writer, through the JSON API."""
        with self.api("writer") as client:
            made = client.post(
                "/api/v1/pages", json={"address": address, "title": title, "body": body}
            )
        assert made.status_code == 201, made.text
        page: dict[str, Any] = made.json()
        return page

    def edit_page(self, address: str, edits: list[dict[str, str]]) -> dict[str, Any]:
        """Edit a page as the writer, through the JSON API."""
        with self.api("writer") as client:
            done = client.post("/api/v1/page/edit", json={"address": address, "edits": edits})
        assert done.status_code == 200, done.text
        result: dict[str, Any] = done.json()
        return result

    def import_raw(self, name: str, text: str) -> dict[str, Any]:
        """Import a file into raw as the writer (who has write on raw), through the API."""
        with self.api("writer") as client:
            made = client.post(
                "/api/v1/import",
                json={"folder": "raw:sources/", "documents": [{"name": name, "text": text}]},
            )
        assert made.status_code == 201, made.text
        page: dict[str, Any] = made.json()[0]
        return page


# The app in process ------------------------------------------------------------------------

BASE = "http://127.0.0.1:8080"  # a Host the app answers to by default
Exchange = tuple[int, list[tuple[bytes, bytes]], bytes]


@asynccontextmanager
async def lifespan(app: ASGIApp) -> AsyncIterator[None]:
    """Run `app`'s ASGI lifespan as a server does: startup on entry, shutdown on exit."""
    to_app, app_receives = anyio.create_memory_object_stream[Message](1)
    app_sends, from_app = anyio.create_memory_object_stream[Message](1)
    async with to_app, app_receives, app_sends, from_app, anyio.create_task_group() as tasks:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        tasks.start_soon(app, scope, app_receives.receive, app_sends.send)
        await to_app.send({"type": "lifespan.startup"})
        started = await from_app.receive()
        assert started["type"] == "lifespan.startup.complete", started
        try:
            yield
        finally:
            await to_app.send({"type": "lifespan.shutdown"})
            stopped = await from_app.receive()
            assert stopped["type"] == "lifespan.shutdown.complete", stopped


class _ToApp(httpx.BaseTransport):
    """A synchronous HTTP client's requests, carried to the app."""

    def __init__(self, server: InProcessServer) -> None:
        self.server = server

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        status, headers, body = self.server.exchange(
            request.method, str(request.url), request.headers.raw, request.read()
        )
        return httpx.Response(status, headers=headers, content=body)


class _AsyncToApp(httpx2.AsyncBaseTransport):
    """The MCP client's requests (httpx2), carried to the app."""

    def __init__(self, server: InProcessServer) -> None:
        self.server = server

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        status, headers, content = await anyio.to_thread.run_sync(
            self.server.exchange, request.method, str(request.url), request.headers.raw, body
        )
        return httpx2.Response(status, headers=headers, content=content)


class InProcessServer(Served):
    """The app of `create_app`, its lifespan running on an event loop of its own (a blocking
    portal's thread), as under a real server. Every request, from a synchronous client, an
    async one or many threads at once, is answered on that loop through the whole ASGI stack
    (guards, API, MCP with its auth) by `httpx.ASGITransport`: no socket, no subprocess."""

    def __init__(
        self,
        app: ASGIApp,
        portal: anyio.from_thread.BlockingPortal,
        database: Database,
        workspace: Workspace,
        engine: str,
    ) -> None:
        self.transport = httpx.ASGITransport(app=app)
        self.portal = portal
        self.database = database
        self.workspace = workspace
        self.engine = engine
        self.base = BASE
        self.port = httpx.URL(BASE).port

    def exchange(
        self, method: str, url: str, headers: Sequence[tuple[bytes, bytes]], body: bytes
    ) -> Exchange:
        """One request answered by the app on its own loop: status, raw headers, raw body."""
        return self.portal.call(self._exchange, method, url, list(headers), body)

    async def _exchange(
        self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> Exchange:
        request = httpx.Request(method, url, headers=headers, content=body)
        response = await self.transport.handle_async_request(request)
        content = b"".join([chunk async for chunk in response.aiter_raw()])
        await response.aclose()
        return response.status_code, response.headers.raw, content

    def api(self, role: str | None = None) -> httpx.Client:
        headers = self.headers(role) if role else {}
        return httpx.Client(transport=_ToApp(self), base_url=self.base, headers=headers)

    @asynccontextmanager
    async def mcp(self, role: str) -> AsyncIterator[Client]:
        http = httpx2.AsyncClient(transport=_AsyncToApp(self), headers=self.headers(role))
        async with http, Client(streamable_http_client(self.mcp_url, http_client=http)) as client:
            yield client

    @contextmanager
    def active(self) -> Iterator[InProcessServer]:
        """Point the services at this app's database for one test (others switch it)."""
        use_database(self.database)
        try:
            yield self
        finally:
            use_database(None)


@contextmanager
def in_process(
    engine: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    **settings: Any,
) -> Iterator[InProcessServer]:
    """The app with `settings` on a fresh seeded database, its lifespan running."""
    with fresh_database(engine, request, tmp_path_factory) as url:
        workspace = seed(url)
        database = Database(url)
        use_database(database)  # the lifespan's listener opens on the database in use
        try:
            # No worker: the tests switch the services' database under a session's app, and
            # a worker would take the events of whichever test runs (tests/server/ runs one).
            app = create_app(Settings(base_url=BASE, **settings), worker=False)
            with (
                anyio.from_thread.start_blocking_portal() as portal,
                portal.wrap_async_context_manager(lifespan(app)),
            ):
                yield InProcessServer(app, portal, database, workspace, engine)
        finally:
            use_database(None)
            database.dispose()


# Limits generous enough that no test meets them, but for the ones on `tight_app`.
GENEROUS = {"rate_limit": 100_000, "rate_window": 60.0, "max_body_bytes": 8 * 1024 * 1024}
# Tight limits: a small body cap and a small rate limit that does not refill during the run.
# Each test on it floods with a token of its own. Both limits live in the app (middleware,
# an in-memory window), not in the database, so SQLite suffices.
TIGHT_BODY_BYTES = 4096
TIGHT_RATE_LIMIT = 5
TIGHT = {"rate_limit": TIGHT_RATE_LIMIT, "rate_window": 3600.0, "max_body_bytes": TIGHT_BODY_BYTES}


@pytest.fixture(scope="session", params=ENGINES)
def running_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessServer]:
    with in_process(request.param, request, tmp_path_factory, **GENEROUS) as server:
        yield server


@pytest.fixture(scope="session")
def running_tight_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessServer]:
    with in_process("sqlite", request, tmp_path_factory, **TIGHT) as server:
        yield server


@pytest.fixture
def app(running_app: InProcessServer) -> Iterator[InProcessServer]:
    """The app in process on a seeded workspace, one per engine, shared by the tests of a run
    (each makes pages of its own, at `unique()` addresses)."""
    with running_app.active() as server:
        yield server


@pytest.fixture
def tight_app(running_tight_app: InProcessServer) -> Iterator[InProcessServer]:
    """The app in process with TIGHT limits, on SQLite."""
    with running_tight_app.active() as server:
        yield server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# Answers -----------------------------------------------------------------------------------


def refusal(result: CallToolResult) -> dict[str, Any]:
    """A tool error's structured content, checked against its text: `code: sentence`."""
    assert result.is_error, result
    error = result.structured_content
    assert error is not None, result
    assert text_of(result) == f"{error['code']}: {error['message']}"
    return error


def text_of(result: CallToolResult) -> str:
    """The text a tool's answer starts with."""
    first = result.content[0]
    assert isinstance(first, TextContent), result
    return first.text


def structured(result: CallToolResult) -> dict[str, Any]:
    """A successful tool call's structured content."""
    assert not result.is_error, result
    assert result.structured_content is not None, result
    return result.structured_content


def one_page(result: CallToolResult) -> dict[str, Any]:
    """The one page a read_document call of one address answers."""
    (page,) = structured(result)["pages"]
    return page


def error_body(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The answer's JSON error body, checked for its status, code and sentence."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"].endswith("."), body
    return body


def domain_errors() -> list[type[CodnaError]]:
    """Every error class of the domain: each subclass of CodnaError, however deep."""
    found: list[type[CodnaError]] = []
    todo = list(CodnaError.__subclasses__())
    while todo:
        kind = todo.pop(0)
        found.append(kind)
        todo.extend(kind.__subclasses__())
    return found
