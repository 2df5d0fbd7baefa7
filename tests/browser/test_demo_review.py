"""The demo as the README tells it, in a browser: `codna demo` on a fresh SQLite file, then
`codna serve`. Ada's inbox holds the two changes the routine decision-check suggested when Ben
ran it: one that applies, one the page has moved past. Ben sees his three suggestions with
their statuses. (The demo is the SQLite default's; the review screen on PostgreSQL is
tested in test_review_screen.py.)"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Visitors, screenshot
from tests.server.conftest import CODNA, free_port, server_env, stop, wait_until_answering

PASSWORD = "demo-password"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo workspace served: its base address."""
    folder = tmp_path_factory.mktemp("demo")
    env = server_env(f"sqlite:///{folder / 'codna.db'}")
    built = subprocess.run(
        [CODNA, "demo"], env=env, cwd=folder, capture_output=True, text=True, timeout=120
    )
    assert built.returncode == 0, built.stdout + built.stderr
    port = free_port()
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [CODNA, "serve", "--port", str(port)],
            env=env,
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base, process, log)
        yield base
    finally:
        stop(process)


def _sign_in(page: Page, base: str, email: str, then: str) -> None:
    page.goto(f"{base}/?next={then}")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()


WIDTHS = (1280, 375)


def _widths(page: Page) -> Iterator[int]:
    """Resize the page to each width in turn (the layout is CSS's, by the width alone)."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        yield width


def test_adas_inbox_holds_what_the_readme_says(
    demo: str, visitors: Visitors, tmp_path: Path
) -> None:
    """Her inbox, loaded once and checked at 1280 and 375 px, the page resized."""
    page = visitors.open(width=WIDTHS[0]).page
    _sign_in(page, demo, "ada@example.com", "/inbox")
    cards = page.locator("[data-cards] > li.card")
    applies = cards.filter(has=page.get_by_role("button", name="Accept"))
    stale = cards.filter(has_text="No longer applies")
    for _ in _widths(page):
        expect(cards).to_have_count(2)
        expect(page.locator("#changes-h .count")).to_have_text("2")
        for at in range(2):
            card = cards.nth(at)
            expect(card.locator(".by")).to_have_text("Ben, through the routine decision-check")
            expect(card.get_by_role("button", name="Withdraw")).to_have_count(0)
        expect(page.get_by_text("To fill in")).to_have_count(0)
        expect(applies).to_have_count(1)
        expect(stale).to_have_count(1)
        expect(stale.get_by_role("button", name="Reject")).to_have_count(1)
        expect(stale).to_contain_text("The page changed after this was suggested")
        expect(applies.locator(".hunks .path")).to_have_text("Decision")
    applies.get_by_role("link", name="As the page will read").click()
    for width in _widths(page):
        expect(applies.locator(".view-rendered ins.block h2")).to_have_text("What changed")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, tmp_path, f"demo-inbox-{width}")


def test_bens_suggestions_show_each_status_and_adas_accept_reaches_him(
    demo: str, visitors: Visitors
) -> None:
    ben = visitors.open().page
    _sign_in(ben, demo, "ben@example.com", "/inbox/mine")
    mine = ben.locator("[data-cards] > li.card")
    expect(mine).to_have_count(3)
    expect(mine.locator(".status", has_text="waiting")).to_have_count(2)
    expect(mine.locator(".status", has_text="rejected by Ada: “")).to_have_count(1)

    ada = visitors.open().page
    _sign_in(ada, demo, "ada@example.com", "/inbox")
    ada.bring_to_front()  # where the keyboard's focus is
    card = ada.locator("[data-cards] > li.card").filter(
        has=ada.get_by_role("button", name="Accept")
    )
    card.get_by_role("button", name="Accept").click()
    expect(ada.locator("#settled")).to_contain_text("is accepted by Ada in version")
    # Focus moved on, to the card that is left.
    expect(ada.locator("[data-cards] > li.card")).to_have_count(1)
    expect(ada.locator("[data-cards] > li.card")).to_be_focused()

    ben.goto(f"{demo}/inbox")  # both decisions on his suggestions are new to him
    expect(ben.locator("ul.decisions > li .new")).to_have_count(2)
    expect(ben.locator("ul.decisions")).to_contain_text("accepted in version")
    expect(ben.locator("ul.decisions")).to_contain_text("rejected by Ada")
    ben.reload()
    expect(ben.locator("ul.decisions > li")).to_have_count(2)
    expect(ben.locator("ul.decisions > li .new")).to_have_count(0)
