"""One connection per request: the token or session check and the service's work never hold two
pooled connections at once, for a read, an edit and a decision, over the JSON API, the web UI
and MCP (over HTTP, and in process as over stdio), on SQLite and PostgreSQL.

The pool's checkout and checkin events on the app's engine count the connections out at once
while each request runs; the app runs no worker, so nothing else takes one meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio
import httpx
import pytest
import sqlalchemy as sa
from mcp.client import Client

from codna.mcp import build
from codna.services.members import sessions
from codna.services.members.ratelimit import RateLimiter
from tests.conftest import InProcessServer, structured, unique
from tests.web.conftest import csrf_of, signed_in

BODY = "# Plan\n\nWe ship on Friday.\n\nThe colour is grey.\n"
FRIDAY = [{"op": "replace", "old": "on Friday", "new": "on Monday"}]
GREY = [{"op": "replace", "old": "is grey", "new": "is teal"}]


@dataclass
class Peak:
    """Connections out of the pool now, the most out at once, and how many were taken."""

    now: int = 0
    most: int = 0
    taken: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, step: int) -> None:
        with self.lock:
            self.now += step
            self.most = max(self.most, self.now)
            self.taken += step > 0


@contextmanager
def connections(app: InProcessServer) -> Iterator[Peak]:
    """The most connections out of the app's pool at once while the block runs."""
    peak = Peak()

    def out(*_: Any) -> None:
        peak.add(1)

    def back(*_: Any) -> None:
        peak.add(-1)

    engine = app.database.engine
    sa.event.listen(engine, "checkout", out)
    sa.event.listen(engine, "checkin", back)
    try:
        yield peak
    finally:
        sa.event.remove(engine, "checkout", out)
        sa.event.remove(engine, "checkin", back)


def most_at_once(app: InProcessServer, request: Callable[[], object]) -> int:
    with connections(app) as peak:
        request()
    assert peak.now == 0, "a connection was kept after the request"
    return peak.most


async def most_at_once_async(app: InProcessServer, request: Callable[[], Awaitable[Any]]) -> int:
    with connections(app) as peak:
        await request()
    assert peak.now == 0, "a connection was kept after the request"
    return peak.most


def page_with_a_suggestion(app: InProcessServer) -> tuple[str, int]:
    """A new page of the writer's, and a suggestion of the agent's on it."""
    address = unique()
    app.create_page(address, BODY)
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions",
            json={"address": address, "edits": GREY, "reason": "Teal is the brand's."},
        )
    assert made.status_code == 201, made.text
    return address, int(made.json()["suggestion"]["id"])


def ok(answer: httpx.Response, status: int = 200) -> httpx.Response:
    assert answer.status_code == status, answer.text
    return answer


EACH_ONCE = {"read": 1, "edit": 1, "decide": 1}


def test_a_read_an_edit_and_a_decision_over_the_api_hold_one_connection_at_a_time(
    app: InProcessServer,
) -> None:
    address, suggestion = page_with_a_suggestion(app)
    with app.api("writer") as client:
        most = {
            "read": most_at_once(
                app, lambda: ok(client.get("/api/v1/page", params={"address": address}))
            ),
            "edit": most_at_once(
                app,
                lambda: ok(
                    client.post("/api/v1/page/edit", json={"address": address, "edits": FRIDAY})
                ),
            ),
            "decide": most_at_once(
                app,
                lambda: ok(
                    client.post(
                        f"/api/v1/suggestions/{suggestion}/decide", json={"decision": "accept"}
                    )
                ),
            ),
        }
    assert most == EACH_ONCE


def test_a_read_an_edit_and_a_decision_over_the_web_hold_one_connection_at_a_time(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every request writes its session's time of last use: the check reads, then writes.
    monkeypatch.setattr(sessions, "TOUCH_EVERY", timedelta(0))
    address, suggestion = page_with_a_suggestion(app)
    space, _, path = address.partition(":")
    with signed_in(app, "writer") as browser:
        editor = ok(browser.get(f"/edit/{space}/{path}"))
        inbox = ok(browser.get("/inbox"))
        most = {
            "read": most_at_once(app, lambda: ok(browser.get(f"/p/{space}/{path}"))),
            "edit": most_at_once(
                app,
                lambda: ok(
                    browser.post(
                        f"/edit/{space}/{path}",
                        data={
                            "base_version": "1",
                            "title": "A page",
                            "body": BODY.replace("on Friday", "on Monday"),
                            "csrf": csrf_of(editor),
                        },
                    ),
                    303,
                ),
            ),
            "decide": most_at_once(
                app,
                lambda: ok(
                    browser.post(
                        f"/inbox/changes/{suggestion}/decide",
                        data={"decision": "accept", "csrf": csrf_of(inbox)},
                    ),
                    303,
                ),
            ),
        }
    assert most == EACH_ONCE


async def _over_mcp(app: InProcessServer, client: Client, address: str, suggestion: int) -> None:
    async def read() -> None:
        structured(await client.call_tool("read_document", {"address": address}))

    async def edit() -> None:
        structured(await client.call_tool("edit_document", {"address": address, "edits": FRIDAY}))

    async def decide() -> None:
        arguments = {"suggestion_id": suggestion, "decision": "accept"}
        structured(await client.call_tool("decide_edit_suggestion", arguments))

    most = {
        "read": await most_at_once_async(app, read),
        "edit": await most_at_once_async(app, edit),
        "decide": await most_at_once_async(app, decide),
    }
    assert most == EACH_ONCE


def test_a_read_an_edit_and_a_decision_over_mcp_hold_one_connection_at_a_time(
    app: InProcessServer,
) -> None:
    address, suggestion = page_with_a_suggestion(app)

    async def over_http() -> None:
        async with app.mcp("writer") as client:
            await _over_mcp(app, client, address, suggestion)

    anyio.run(over_http)


def test_mcp_in_process_as_over_stdio_holds_one_connection_at_a_time(
    app: InProcessServer,
) -> None:
    address, suggestion = page_with_a_suggestion(app)
    # The server of `codna mcp --token` and of a built-in routine: the token checked per call.
    server = build.for_token(app.token("writer"), RateLimiter(100_000, 60))

    async def in_memory() -> None:
        async with Client(server) as client:
            await _over_mcp(app, client, address, suggestion)

    anyio.run(in_memory)


def test_a_read_over_the_api_or_the_web_is_one_transaction_with_its_check(
    app: InProcessServer,
) -> None:
    address, _ = page_with_a_suggestion(app)
    space, _, path = address.partition(":")
    with app.api("writer") as client, connections(app) as api:
        ok(client.get("/api/v1/page", params={"address": address}))
    with signed_in(app, "writer") as browser, connections(app) as web:
        ok(browser.get(f"/p/{space}/{path}"))  # signed in just now: no time of use to write
    assert (api.taken, web.taken) == (1, 1)
