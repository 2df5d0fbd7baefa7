"""The web UI for everyone: at phone width nothing needs scrolling sideways, the inbox can be
worked by keyboard alone, and deciding works with JavaScript off (forms post and redirect)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import Visitors, sign_in
from tests.browser.test_suggestion_loop import history, suggest
from tests.conftest import unique
from tests.server.conftest import Server


def _fits(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_at_phone_width_a_page_and_the_inbox_fit_without_scrolling_sideways(
    server: Server, visitors: Visitors
) -> None:
    address = unique("wiki:browser/")
    body = (
        "# Narrow\n\nFirst words.\n\n"
        + "A long line of prose that wraps. " * 40
        + "\n\n```\n"
        + "x" * 300
        + "\n```\n"
    )
    server.create_page(address, body, title="Narrow")
    suggest(server, address, "First words.", "The first words.", "Say more.")
    page = visitors.open(width=375, height=740).page
    sign_in(page, server, "writer", then="/p/" + address.replace(":", "/", 1))
    assert _fits(page), "the page scrolls sideways at 375 px"
    page.goto(f"{server.base}/inbox")
    assert _fits(page), "the inbox scrolls sideways at 375 px"


def test_the_inbox_can_be_worked_by_keyboard_alone(server: Server, page: Page) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "Keys are fine.\n")
    made = suggest(server, address, "fine", "great", "Stronger.")
    sign_in(page, server, "writer", then="/inbox")
    accept = page.locator(f"#change-{made} button", has_text="Accept")
    for _ in range(200):
        page.keyboard.press("Tab")
        if accept.evaluate("button => button === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the Accept button")
    page.keyboard.press("Enter")
    expect(page.locator(f"#change-{made} form")).to_have_count(0)
    assert history(server, address)[0]["version"] == 2


def test_deciding_works_with_javascript_off(server: Server, visitors: Visitors) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "Scripts are optional.\n")
    made = suggest(server, address, "optional", "not needed", "Plainer.")
    page = visitors.open(javascript=False).page
    sign_in(page, server, "writer", then="/inbox")
    with page.expect_navigation():
        page.locator(f"#change-{made} button", has_text="Accept").click()
    assert page.url == f"{server.base}/inbox"
    expect(page.locator(f"#change-{made}")).to_have_count(0)
    assert history(server, address)[0]["version"] == 2
