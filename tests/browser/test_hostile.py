"""The nastiest hostile text in a real Chromium: nothing it holds runs, on any page showing it.

Pages are made through the JSON API of a real `codna serve` with the payloads of
tests/hostile/payloads.py's `nastiest` (each sets `window.__xss` or calls alert if it runs) in
their body, title, tags and summaries, a person named with one, suggestions of that person
whose reasons and edits hold them, and a rejection whose reason does. Each page that shows
them is loaded twice, once as served and once with the Content-Security-Policy bypassed (so
the HTML itself is tested, not just the CSP that would block an inline script): no dialog
opens, nothing erred in the console and `window.__xss` stays unset.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.conftest import WAIT_MS, Watched, sign_in
from tests.conftest import PASSWORD
from tests.hostile.payloads import Payload, nastiest
from tests.server.conftest import Server

QUICK_CHUNK = 25  # payloads per page in the quick form (4 pages); 5 in the long one (20)


@dataclass(frozen=True)
class Made:
    address: str
    path: str  # the page's address as a web path: wiki/…
    suggester: str


def _one_line(text: str, limit: int) -> str:
    return " ".join(text.split())[:limit]


def make(server: Server, chunk: list[Payload]) -> Made:
    """A page holding `chunk` everywhere it can, and a person named for it who suggests."""
    address = f"wiki:hostile/{uuid.uuid4().hex[:10]}"
    body = "\n\n".join(p.text for p in chunk)
    first = chunk[0].text
    email = f"h-{uuid.uuid4().hex[:8]}@example.com"
    with server.api("admin") as admin, server.api("writer") as writer:
        made = admin.post(
            "/api/v1/members",
            json={"email": email, "name": _one_line(first, 200), "password": PASSWORD},
        )
        assert made.status_code == 201, made.text
        page = writer.post(
            "/api/v1/pages",
            json={
                "address": address,
                "title": _one_line(first, 200),
                "body": body,
                "tags": [_one_line(first.replace(",", ";"), 50)],
                "summary": body[:1000],
            },
        )
        assert page.status_code == 201, page.text
        edit = {"op": "append", "text": f"Edited: {first}"}
        edited = writer.post(
            "/api/v1/page/edit",
            json={"address": address, "edits": [edit], "summary": body[:1000]},
        )
        assert edited.status_code == 200, edited.text
        shared = admin.post(
            "/api/v1/grants", json={"address": address, "member": email, "level": "read"}
        )
        assert shared.status_code in (200, 201), shared.text
        secret = admin.post("/api/v1/tokens", json={"member": email, "name": "hostile"})
        assert secret.status_code == 201, secret.text
        token = secret.json()["secret"]
    ids = []
    with server.api() as suggester:
        suggester.headers["Authorization"] = f"Bearer {token}"
        for letter in "AB":
            answer = suggester.post(
                "/api/v1/suggestions",
                json={
                    "address": address,
                    "edits": [{"op": "append", "text": f"{letter}: {body}"}],
                    "reason": _one_line(body, 500),
                },
            )
            assert answer.status_code == 201, answer.text
            ids.append(answer.json()["suggestion"]["id"])
    with server.api("writer") as writer:
        decided = writer.post(
            f"/api/v1/suggestions/{ids[0]}/decide",
            json={"decision": "reject", "reason": _one_line(body, 500)},
        )
        assert decided.status_code == 200, decided.text
    return Made(address, address.replace(":", "/", 1), email)


def nothing_ran(page: Page) -> list[str]:
    """What shows that a payload ran on the open page."""
    ran = page.evaluate("() => typeof window.__xss === 'undefined' ? null : String(window.__xss)")
    return [] if ran is None else [f"window.__xss was set to {ran} on {page.url}"]


@pytest.fixture
def hostile_pages(server: Server, long_form: bool) -> list[Made]:
    payloads = nastiest()
    size = 5 if long_form else QUICK_CHUNK
    return [make(server, payloads[i : i + size]) for i in range(0, len(payloads), size)]


def _visit(page: Page, server: Server, made: Made, ran: list[str]) -> None:
    """The pages that show `made`'s page: its own, its history, diffs, revision, suggestions
    and editor."""
    for path in (
        f"/p/{made.path}",
        f"/history/{made.path}",
        f"/diff/{made.path}",
        f"/diff/{made.path}?from=0&to=1",
        f"/revision/{made.path}?version=1",
        f"/suggestions/{made.path}",
        f"/edit/{made.path}",
    ):
        page.goto(f"{server.base}{path}", wait_until="load")
        ran.extend(nothing_ran(page))


# The pages that show every hostile page at once. Everything is made before the first visit,
# so each shows the same whatever page was visited before it: once per context is enough.
SHOWING_ALL = ("/search?q=script", "/inbox", "/admin")


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[Watched]]:
    """Two watched pages signed in later: one under the CSP as served, one bypassing it."""
    opened = []
    watched = []
    for bypass in (False, True):
        context = browser.new_context(bypass_csp=bypass)
        context.set_default_timeout(WAIT_MS)
        opened.append(context)
        seen = Watched(context.new_page())
        seen.page.on("dialog", seen.on_dialog)
        seen.page.on("console", seen.on_console)
        seen.page.on("pageerror", seen.on_page_error)
        watched.append(seen)
    try:
        yield watched
    finally:
        for context in opened:
            context.close()


@pytest.mark.parametrize("server", ["sqlite"], indirect=True)
def test_no_hostile_text_runs_in_chromium_on_any_page_that_shows_it(
    server: Server, hostile_pages: list[Made], contexts: list[Watched]
) -> None:
    ran: list[str] = []
    for seen in contexts:
        sign_in(seen.page, server, "admin")
        for made in hostile_pages:
            _visit(seen.page, server, made, ran)
        for path in SHOWING_ALL:
            seen.page.goto(f"{server.base}{path}", wait_until="load")
            ran.extend(nothing_ran(seen.page))
    assert not ran, ran
    for seen in contexts:
        assert not seen.dialogs, f"a dialog opened: {seen.dialogs}"
        assert not seen.errors, f"errors in the console: {seen.errors}"
