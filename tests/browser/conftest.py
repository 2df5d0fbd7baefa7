"""A real Chromium (Debian's, at /usr/bin/chromium) driven by Playwright against a real
`codna serve` (the `server` fixture of tests/server/, one per engine).

Each test gets a fresh browser context and a `Watched` page that records what should never
happen: a dialog (an injected `alert` that ran), an error in the console or an uncaught
exception (a script that failed, or one the CSP refused), and an HTML page loaded without the
Content-Security-Policy header. Any of them fails the test.

Screenshots go into the test's own output folder (under pytest's --basetemp). Set
CODNA_SCREENSHOTS to a folder (e.g. `docs`) to copy each one there as well.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Page,
    Response,
    expect,
    sync_playwright,
)

from tests.conftest import PASSWORD, ROLES, structured
from tests.server.conftest import Server, server

__all__ = ["server"]  # the fixture, reused as it is

CHROMIUM = Path("/usr/bin/chromium")
# Without the networking flags Chromium keeps trying to reach the internet.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# How long to wait for something to appear: generous, as a busy CI machine needs.
WAIT_MS = 10_000
expect.set_options(timeout=WAIT_MS)

# Counts the `ready` events of every EventSource the page opens, in an attribute of <html>
# (so waiting for it needs no eval, which the CSP forbids): the server sends one once it has
# subscribed the visitor, so a test knows when a change will reach the open page. An
# observer only; htmx's own listeners are untouched.
_COUNT_READY = """
(() => {
  const Real = window.EventSource;
  let ready = 0;
  function Counted(url, options) {
    const source = new Real(url, options);
    source.addEventListener("ready", () => {
      ready += 1;
      document.documentElement.setAttribute("data-test-ready", String(ready));
    });
    return source;
  }
  Counted.prototype = Real.prototype;
  Object.assign(Counted, {CONNECTING: 0, OPEN: 1, CLOSED: 2});
  window.EventSource = Counted;
})();
"""


# Module-scoped, not session-scoped: Playwright's sync API keeps an event loop running on
# this thread while it is started, which would break the async tests that run after these
# on the same worker; pytest stops it as soon as the next test is from another module.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, for the tests of one module."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium "
            "(apt-get install -y chromium; scripts/test does it when run as root)"
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Watched:
    """A page and what went wrong on it: dialogs, console errors, pages without a CSP."""

    page: Page
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    documents: list[Response] = field(default_factory=list)

    def on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location
            self.errors.append(f"{message.text} (at {where.get('url')}:{where.get('lineNumber')})")

    def on_page_error(self, error: Exception) -> None:
        self.errors.append(f"uncaught: {error}")

    def on_response(self, response: Response) -> None:
        request = response.request
        if request.is_navigation_request() and request.resource_type == "document":
            self.documents.append(response)

    def html_documents(self) -> list[Response]:
        """The HTML pages loaded so far (redirects and other answers left out)."""
        return [
            r for r in self.documents if r.headers.get("content-type", "").startswith("text/html")
        ]

    def check(self) -> None:
        """Fail if a dialog opened, a script erred, or an HTML page came without a CSP."""
        assert not self.dialogs, f"a dialog opened: {self.dialogs}"
        assert not self.errors, f"errors in the console: {self.errors}"
        bare = [r.url for r in self.html_documents() if "content-security-policy" not in r.headers]
        assert not bare, f"HTML pages without a Content-Security-Policy: {bare}"


class Visitors:
    """Pages for one test, each in a browser context of its own (no cookies shared), all
    watched and checked when the test ends."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.watched: list[Watched] = []

    def open(self, *, width: int = 1100, height: int = 800, javascript: bool = True) -> Watched:
        context = self.browser.new_context(
            viewport={"width": width, "height": height}, java_script_enabled=javascript
        )
        self.contexts.append(context)
        context.set_default_timeout(WAIT_MS)
        context.add_init_script(_COUNT_READY)
        page = context.new_page()
        seen = Watched(page)
        page.on("dialog", seen.on_dialog)
        page.on("console", seen.on_console)
        page.on("pageerror", seen.on_page_error)
        page.on("response", seen.on_response)
        self.watched.append(seen)
        return seen

    def check(self) -> None:
        for seen in self.watched:
            seen.check()

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def visitors(browser: Browser) -> Iterator[Visitors]:
    """Opens watched pages for a test; any dialog, console error or HTML page without a CSP
    on one of them fails the test."""
    opened = Visitors(browser)
    try:
        yield opened
        opened.check()
    finally:
        opened.close()


@pytest.fixture
def watched(visitors: Visitors) -> Watched:
    """The test's first page, watched."""
    return visitors.open()


@pytest.fixture
def page(watched: Watched) -> Page:
    return watched.page


def sign_in(page: Page, server: Server, role: str, *, then: str = "/") -> None:
    """Sign in as `role` through the sign-in form, then open `then`."""
    page.goto(f"{server.base}/?next={then}")
    page.get_by_label("E-mail").fill(ROLES[role])
    page.get_by_label("Password").fill(PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url.startswith(server.base + (then if then != "/" else "/p/wiki/")), page.url


def wait_until_live(page: Page) -> None:
    """Wait until the page's event stream has been subscribed (its first `ready`)."""
    expect(page.locator("html")).to_have_attribute("data-test-ready", "1")


def screenshot(page: Page, folder: Path, name: str, *, selector: str | None = None) -> Path:
    """Save the page (or the element at `selector`) as `folder/name.png`; copied to
    CODNA_SCREENSHOTS too when that is set."""
    path = folder / f"{name}.png"
    if selector is None:
        page.screenshot(path=path, full_page=True)
    else:
        page.locator(selector).screenshot(path=path)
    assert path.stat().st_size > 0
    copy_to = os.environ.get("CODNA_SCREENSHOTS")
    if copy_to:
        shutil.copyfile(path, Path(copy_to) / path.name)
    return path


def call_tool(server: Server, role: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call an MCP tool as `role` with the SDK's client over HTTP; its structured answer.

    It runs on a thread of its own: Playwright's sync API keeps an event loop on this one."""
    answer: dict[str, Any] = {}
    failure: list[BaseException] = []

    async def call() -> None:
        async with server.mcp(role) as client:
            answer.update(structured(await client.call_tool(tool, arguments)))

    def run() -> None:
        try:
            anyio.run(call)
        except BaseException as error:  # carried to the test's thread
            failure.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return answer
