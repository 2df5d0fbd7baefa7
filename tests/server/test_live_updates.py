"""Live updates across processes: two `codna serve` on one PostgreSQL database; a link
suggested through the first reaches an SSE client of the second within a second, and an editor
of another page receives nothing. On SQLite (one process) the in-process bus does the same."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.services.pages import pages
from codna.storage.database import Database
from tests.conftest import ENGINES, PASSWORD, fresh_database, seed, unique
from tests.server.conftest import STOP_DEADLINE, Server, running_server

SECOND = 1.0


class EventStream:
    """An SSE client on a thread: `ready` once subscribed, then each `inbox` event's data."""

    def __init__(
        self, base: str, token: str, *, path: str = "/api/v1/inbox/events", cookie: str = ""
    ) -> None:
        self.events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.ready = threading.Event()
        self.said_ended = threading.Event()  # the web's stream says so before it ends
        self._stop = threading.Event()
        self._response: httpx.Response | None = None
        headers = {"Cookie": cookie} if cookie else {"Authorization": f"Bearer {token}"}
        self._thread = threading.Thread(target=self._run, args=(base + path, headers), daemon=True)
        self._thread.start()
        assert self.ready.wait(15), "the event stream never said it was ready"

    def _run(self, url: str, headers: dict[str, str]) -> None:
        timeout = httpx.Timeout(5, read=None)
        try:
            with httpx.stream("GET", url, headers=headers, timeout=timeout) as r:
                self._response = r
                self._read(r)
        except (httpx.HTTPError, OSError, ValueError):
            if not self._stop.is_set():  # closed by us: the socket went from under the read
                raise

    def _read(self, r: httpx.Response) -> None:
        kind = None
        for line in r.iter_lines():
            if self._stop.is_set():
                return
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and kind == "ready":
                self.ready.set()
            elif line.startswith("data:") and kind == "ended":
                self.said_ended.set()
            elif line.startswith("data:") and kind == "inbox":
                data = line.split(":", 1)[1].strip()  # the web's events carry none
                self.events.put((time.monotonic(), json.loads(data) if data else {}))

    def next(self, within: float) -> tuple[float, dict[str, Any]] | None:
        try:
            return self.events.get(timeout=within)
        except queue.Empty:
            return None

    def close(self) -> None:
        """Hang up now, as a closed tab does: the server sees the connection go."""
        self._stop.set()
        if self._response is not None:  # a blocked read wakes only when its socket shuts
            network = self._response.extensions["network_stream"]
            with contextlib.suppress(OSError):
                network.get_extra_info("socket").shutdown(socket.SHUT_RDWR)
        self._thread.join(5)

    def ended(self, within: float) -> bool:
        """Whether the server ended the stream within `within` seconds."""
        self._thread.join(within)
        return not self._thread.is_alive()


@contextmanager
def stream(base: str, token: str, *, path: str = "", cookie: str = "") -> Iterator[EventStream]:
    events = EventStream(base, token, path=path or "/api/v1/inbox/events", cookie=cookie)
    try:
        yield events
    finally:
        events.close()


def add_page_editor(url: str, page: str) -> str:
    """Olga, who can edit one other page only; her token."""
    db = Database(url)
    use_database(db)
    try:
        admin = members.member_by_handle("ada@example.com")
        members.add_person(admin, email="olga@example.com", name="Olga")
        access.share(admin, address=page, member="olga@example.com", level="write")
        return tokens.create_token(admin, member="olga@example.com").secret
    finally:
        use_database(None)
        db.dispose()


def make_pages(url: str) -> tuple[str, str, str]:
    db = Database(url)
    use_database(db)
    try:
        admin = members.member_by_handle("ada@example.com")
        a, b, other = unique("wiki:live/"), unique("wiki:live/"), unique("wiki:elsewhere/")
        for address in (a, b, other):
            pages.create_page(admin, address=address, title=address, body="Text.\n")
        return a, b, other
    finally:
        use_database(None)
        db.dispose()


def suggest_link(server: Server, a: str, b: str) -> float:
    with server.api("agent") as client:
        sent = time.monotonic()
        made = client.post("/api/v1/links", json={"address": a, "target": b, "reason": "Related."})
    assert made.status_code == 201, made.text
    return sent


def signed_in_cookie(server: Server, email: str) -> str:
    """The session cookie of `email` (the seeded team's password), signed in by the form."""
    with httpx.Client(base_url=server.base, timeout=30) as browser:
        form = browser.get("/")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert csrf, form.text[:300]
        answer = browser.post(
            "/sign-in", data={"email": email, "password": PASSWORD, "csrf": csrf.group(1)}
        )
        assert answer.status_code == 303, answer.text[:300]
        return f"codna_session={browser.cookies['codna_session']}"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_suggested_link_wakes_the_editors_stream_and_web_page_and_no_one_else(
    engine: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """One link suggested through the first server, heard on the second (on PostgreSQL
    another process; SQLite serves one): the editor's stream of the API has it within a
    second, with its table and op; the editor's web page (the same editor, signed in by the
    form, on its own stream) hears it; and an editor of another page hears nothing. One
    workspace and one pair of servers for the three, where each once had its own."""
    with fresh_database(engine, request, tmp_path_factory) as url:
        workspace = seed(url, spare=())
        a, b, other = make_pages(url)
        olga = add_page_editor(url, other)
        logs: Path = tmp_path_factory.mktemp("live")
        with ExitStack() as servers:
            first = servers.enter_context(running_server(workspace, engine, logs))
            # On PostgreSQL a second process on the same database; SQLite serves one process.
            second = (
                servers.enter_context(running_server(workspace, engine, logs))
                if engine == "postgresql"
                else first
            )
            cookie = signed_in_cookie(second, "wanda@example.com")
            with (
                stream(second.base, workspace.tokens["writer"]) as editor,
                stream(second.base, "", path="/inbox/events", cookie=cookie) as page,
                stream(second.base, olga) as bystander,
            ):
                sent = suggest_link(first, a, b)
                got = editor.next(within=5)
                assert got is not None, "the editor's stream heard nothing"
                arrived, data = got
                assert data["table"] == "link_suggestions" and data["op"] == "insert"
                assert arrived - sent < SECOND, f"took {arrived - sent:.3f} s"
                assert page.next(within=5) is not None, "the web page's stream heard nothing"
                assert bystander.next(within=1.5) is None


def test_ctrl_c_stops_a_server_whose_inbox_streams_are_open_and_says_nothing_went_wrong(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with fresh_database("sqlite", request, tmp_path_factory) as url:
        workspace = seed(url, spare=())
        logs: Path = tmp_path_factory.mktemp("ctrl-c")
        with running_server(workspace, "sqlite", logs) as server:
            cookie = signed_in_cookie(server, "wanda@example.com")
            token = server.workspace.tokens["writer"]
            with (
                stream(server.base, "", path="/inbox/events", cookie=cookie),
                stream(server.base, token),
            ):
                server.process.send_signal(signal.SIGINT)
                # The graceful shutdown gives open streams 5 s, then the server ends them.
                assert server.process.wait(timeout=STOP_DEADLINE) == 0
        log = next(logs.glob("serve-*.log")).read_text()
        assert "Traceback" not in log, log
