"""No database call on the event loop, on any path: the JSON API, the web UI with its sign-in,
MCP over HTTP, MCP in process as over stdio, the inbox's server-sent events, and the worker
running a built-in routine through its in-process MCP client, on SQLite and PostgreSQL.

An engine event records every connection taken and every statement run from a thread where an
asyncio event loop is running (the app's, or the test's own for the MCP server it runs in
memory); the tests drive each path and find nothing recorded. On PostgreSQL a round trip on the
loop would stall every request, stream and session of the process at once.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import anyio.from_thread
import httpx
import pytest
import sqlalchemy as sa
from mcp.client import Client
from mcp.types import TextResourceContents
from starlette.types import ASGIApp, Message

from codna import worker as outbox_worker
from codna.app import create_app
from codna.markdown.edits import parse_edits
from codna.mcp import build
from codna.services.context import close_database, use_database
from codna.services.events import automations, runs
from codna.services.members import members, sessions
from codna.services.members.ratelimit import RateLimiter
from codna.services.suggestions import changes
from codna.settings import Settings
from codna.storage.database import Database
from tests.conftest import (
    BASE,
    ENGINES,
    GENEROUS,
    PASSWORD,
    ROLES,
    InProcessServer,
    fresh_database,
    lifespan,
    seed,
    structured,
    unique,
)
from tests.waiting import eventually
from tests.web.conftest import csrf_of

DEADLINE = 30.0
BODY = "# Plan\n\nWe ship on Friday.\n\nThe colour is grey.\n"
FRIDAY = [{"op": "replace", "old": "on Friday", "new": "on Monday"}]
GREY = [{"op": "replace", "old": "is grey", "new": "is teal"}]
DECISIONS = "wiki:decisions/"
COMMAND = "say-ran"  # a command routine: a program run with the run's token
# A decision record without its status line: decision-check suggests one.
RECORD = "## Context\n\nAgents find gaps.\n\n## Decision\n\nAgents suggest; people decide.\n"


@contextmanager
def database_use_on_the_loop(db: Database | None) -> Iterator[list[str]]:
    """What used `db` (None: any database) from a thread running an event loop while the
    block ran: each connection taken and statement run, with where in codna it came from."""
    found: list[str] = []
    pool: Any = sa.pool.Pool if db is None else db.engine
    engine: Any = sa.engine.Engine if db is None else db.engine

    def where() -> str:
        frames = [f for f in traceback.extract_stack() if "/codna/" in f.filename]
        return " <- ".join(f"{f.filename.rsplit('/codna/', 1)[1]}:{f.lineno}" for f in frames[::-1])

    def checkout(*_: Any) -> None:
        if asyncio._get_running_loop() is not None:
            found.append(f"a connection taken at {where()}")

    def statement(_conn: Any, _cursor: Any, text: str, *_: Any) -> None:
        if asyncio._get_running_loop() is not None:
            found.append(f"{' '.join(text.split())[:80]} at {where()}")

    sa.event.listen(pool, "checkout", checkout)
    sa.event.listen(engine, "before_cursor_execute", statement)
    try:
        yield found
    finally:
        sa.event.remove(pool, "checkout", checkout)
        sa.event.remove(engine, "before_cursor_execute", statement)


@pytest.fixture(params=ENGINES)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessServer]:
    """The whole app with its worker, as `codna serve` runs it, on a fresh workspace where
    decision-check runs as the writer on each new page under wiki:decisions/."""
    with fresh_database(request.param, request, tmp_path_factory) as url:
        workspace = seed(url)
        database = Database(url)
        use_database(database)
        try:
            outbox_worker.load_handlers()  # decision-check, by name
            writer = members.member_by_handle(ROLES["writer"])
            admin = members.member_by_handle(ROLES["admin"])
            runs.add_routine(admin, name=COMMAND, command=f"{sys.executable} -c \"print('ran')\"")
            for routine in ("decision-check", COMMAND):
                automations.add(writer, event="document.created", folder=DECISIONS, routine=routine)
            app = create_app(Settings(base_url=BASE, **GENEROUS), worker=True)
            with (
                anyio.from_thread.start_blocking_portal() as portal,
                portal.wrap_async_context_manager(lifespan(app)),
            ):
                yield InProcessServer(app, portal, database, workspace, request.param)
        finally:
            use_database(None)
            database.dispose()


@pytest.fixture
def on_the_loop(served: InProcessServer) -> Iterator[list[str]]:
    """What used the database on an event loop during the test (the worker's runs too)."""
    with database_use_on_the_loop(served.database) as found:
        yield found


def nothing(found: list[str]) -> None:
    assert found == [], "\n".join(found)


def ok(answer: httpx.Response, status: int = 200) -> httpx.Response:
    assert answer.status_code == status, answer.text
    return answer


def page_with_a_suggestion(app: InProcessServer) -> tuple[str, int]:
    """A new page of the writer's, and a suggestion of the agent's on it, through the API."""
    address = unique()
    app.create_page(address, BODY)
    with app.api("agent") as agent:
        made = ok(
            agent.post(
                "/api/v1/suggestions",
                json={"address": address, "edits": GREY, "reason": "Teal is the brand's."},
            ),
            201,
        )
    return address, int(made.json()["suggestion"]["id"])


def test_the_api_never_uses_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    address, suggestion = page_with_a_suggestion(served)
    with served.api("writer") as client:
        ok(client.get("/api/v1/page", params={"address": address}))
        ok(client.post("/api/v1/page/edit", json={"address": address, "edits": FRIDAY}))
        ok(client.post(f"/api/v1/suggestions/{suggestion}/decide", json={"decision": "accept"}))
        ok(client.get("/api/v1/inbox"))
        ok(client.get("/api/v1/search", params={"q": "Monday"}))
    with served.api() as nobody:
        ok(nobody.get("/api/v1/page", params={"address": address}), 401)
    nothing(on_the_loop)


def test_the_web_and_its_sign_in_never_use_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    address, suggestion = page_with_a_suggestion(served)
    space, _, path = address.partition(":")
    with served.api() as browser:
        form = ok(browser.get("/"))
        wrong = {"email": ROLES["writer"], "password": "wrong", "csrf": csrf_of(form)}
        ok(browser.post("/sign-in", data=wrong), 401)
        right = {"email": ROLES["writer"], "password": PASSWORD, "csrf": csrf_of(form)}
        ok(browser.post("/sign-in", data=right), 303)
        ok(browser.get(f"/p/{space}/{path}"))
        editor = ok(browser.get(f"/edit/{space}/{path}"))
        saved = {
            "base_version": "1",
            "title": "A page",
            "body": BODY.replace("on Friday", "on Monday"),
            "csrf": csrf_of(editor),
        }
        ok(browser.post(f"/edit/{space}/{path}", data=saved), 303)
        inbox = ok(browser.get("/inbox"))
        ok(browser.get("/inbox/count"))
        decided = {"decision": "accept", "csrf": csrf_of(inbox)}
        ok(browser.post(f"/inbox/changes/{suggestion}/decide", data=decided), 303)
        ok(browser.post("/sign-out", data={"csrf": csrf_of(inbox)}), 303)
        ok(browser.get(f"/p/{space}/{path}"), 303)  # to the sign-in form
    nothing(on_the_loop)


async def _every_kind_of_mcp_request(client: Client, address: str, suggestion: int) -> None:
    await client.list_tools()
    structured(await client.call_tool("read_document", {"address": address}))
    structured(await client.call_tool("edit_document", {"address": address, "edits": FRIDAY}))
    arguments = {"suggestion_id": suggestion, "decision": "accept"}
    structured(await client.call_tool("decide_edit_suggestion", arguments))
    structured(await client.call_tool("inbox", {}))
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    uri = f"codna://page/{address.replace(':', '/', 1)}"
    assert uri in listed
    (contents,) = (await client.read_resource(uri)).contents
    assert isinstance(contents, TextResourceContents) and "Monday" in contents.text
    await client.get_prompt("codna-skill")


def test_mcp_over_http_never_uses_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    address, suggestion = page_with_a_suggestion(served)

    async def over_http() -> None:
        async with served.mcp("writer") as client:
            await _every_kind_of_mcp_request(client, address, suggestion)

    anyio.run(over_http)
    nothing(on_the_loop)


def test_mcp_in_process_as_over_stdio_never_uses_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    address, suggestion = page_with_a_suggestion(served)
    # `codna mcp --token` serves this over stdio; a built-in routine's run, in memory.
    server = build.for_token(served.token("writer"), RateLimiter(100_000, 60))

    async def in_memory() -> None:
        async with Client(server) as client:
            await _every_kind_of_mcp_request(client, address, suggestion)

    anyio.run(in_memory)
    nothing(on_the_loop)


async def _until_an_inbox_event(
    app: ASGIApp, path: str, headers: list[tuple[bytes, bytes]], change: Callable[[], object]
) -> None:
    """Open the event stream at `path` as a browser would, make `change` once it is live, and
    hang up once the stream has told of it."""
    asked = False
    live, told, gone = anyio.Event(), anyio.Event(), anyio.Event()

    async def receive() -> Message:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            if b"event: ready" in chunk:
                live.set()
            if b"event: inbox" in chunk:
                told.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8080"), (b"accept", b"text/event-stream"), *headers],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8080),
    }
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(app, scope, receive, send)
            await live.wait()
            await anyio.to_thread.run_sync(change)
            await told.wait()
            gone.set()


def test_the_inbox_events_never_use_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    agent = members.member_by_handle(ROLES["agent"])
    secret = sessions.sign_in(ROLES["writer"], PASSWORD, address="127.0.0.1").secret
    app = served.transport.app

    def suggest() -> None:
        address = unique()
        served.create_page(address, BODY)
        changes.suggest_edit(agent, address=address, edits=parse_edits(GREY), reason="Teal.")

    web = [(b"cookie", f"codna_session={secret}".encode())]
    served.portal.call(_until_an_inbox_event, app, "/inbox/events", web, suggest)
    api = [(b"authorization", f"Bearer {served.token('writer')}".encode())]
    served.portal.call(_until_an_inbox_event, app, "/api/v1/inbox/events", api, suggest)
    nothing(on_the_loop)


def test_the_worker_runs_routines_without_the_database_on_the_event_loop(
    served: InProcessServer, on_the_loop: list[str]
) -> None:
    writer = members.member_by_handle(ROLES["writer"])
    address = f"{DECISIONS}{unique('')}"
    with served.api("writer") as client:
        page = {"address": address, "title": "0002 · Agents suggest", "body": RECORD}
        ok(client.post("/api/v1/pages", json=page), 201)

    def finished() -> list[runs.Run] | None:
        done = runs.list_runs(writer)
        return done if len(done) >= 2 and all(r.status != "running" for r in done) else None

    done = eventually("both routines' runs", finished, deadline=DEADLINE)
    assert {(r.routine, r.status) for r in done} == {
        ("decision-check", "succeeded"),
        (COMMAND, "succeeded"),
    }
    made = changes.list_suggestions(writer, address=address)
    assert {s.via for s in made} == {"decision-check"} and len(made) == 1
    nothing(on_the_loop)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_server_process_that_has_not_opened_the_database_opens_it_off_the_loop(
    engine: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As in each process of `codna serve --workers N`: the app is made, its lifespan starts.
    with fresh_database(engine, request, tmp_path_factory) as url:
        monkeypatch.setenv("CODNA_DATABASE_URL", url)
        use_database(None)
        app = create_app(Settings(base_url=BASE), worker=False)
        taken: list[object] = []

        def took(*connection: object) -> None:
            taken.append(connection)

        sa.event.listen(sa.pool.Pool, "checkout", took)
        try:
            with (
                database_use_on_the_loop(None) as found,
                anyio.from_thread.start_blocking_portal() as portal,
                portal.wrap_async_context_manager(lifespan(app)),
            ):
                pass
        finally:
            sa.event.remove(sa.pool.Pool, "checkout", took)
            close_database()
    assert taken, "the lifespan opened no database"
    nothing(found)
