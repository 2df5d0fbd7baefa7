"""Finding one's way in a real browser, at desktop and phone widths: signing in lands on the
wiki's home page; a page has its space's tree beside it (folded on a phone, a folder opened on
demand) and the pages that link to it below; recent changes and tag pages; a link to a missing
page offers to make it; the phone header folds into a menu."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import assert_accessible, with_axe
from tests.browser.conftest import Visitors, screenshot, sign_in
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375
WIDTHS = pytest.mark.parametrize("width", [DESKTOP, PHONE], ids=["desktop", "phone"])


def _made(server: Server, pages: dict[str, tuple[str, str, list[str]]]) -> None:
    with server.api("writer") as api:
        for address, (title, body, tags) in pages.items():
            made = api.post(
                "/api/v1/pages",
                json={"address": address, "title": title, "body": body, "tags": tags},
            )
            assert made.status_code == 201, made.text


def _folder(server: Server) -> str:
    """A folder of pages for one test: a guide linking to a plan, an old plan in a folder
    below, a tag they share."""
    folder = f"nav{uuid.uuid4().hex[:8]}"
    _made(
        server,
        {
            f"wiki:{folder}/guide": (
                "The guide",
                "# The guide\n\nRead [the plan](plans/q1) and [the next one](plans/q9).\n",
                [f"{folder}-tag"],
            ),
            f"wiki:{folder}/plans/q1": ("Plan Q1", "Up: [guide](../guide).\n", [f"{folder}-tag"]),
            f"wiki:{folder}/plans/old/q0": ("Plan Q0", "Old.\n", []),
        },
    )
    return folder


def _menu(page: Page, width: int) -> None:
    """Open the header's menu on a phone (on a desktop its links are always there)."""
    if width == PHONE:
        button = page.get_by_role("button", name="Menu")
        expect(button).to_have_attribute("aria-expanded", "false")
        expect(page.get_by_role("link", name="Recent changes", exact=True)).to_be_hidden()
        button.click()
        expect(button).to_have_attribute("aria-expanded", "true")


@WIDTHS
def test_a_page_has_its_tree_and_backlinks(
    server: Server, visitors: Visitors, width: int, tmp_path: Path
) -> None:
    folder = _folder(server)
    page = with_axe(visitors.open(width=width, height=900).page)
    sign_in(page, server, "reader", then=f"/p/wiki/{folder}/plans/q1")
    tree = page.get_by_role("navigation", name="Pages in wiki")
    if width == PHONE:  # folded above the page, opened by a tap
        expect(tree.locator("details.tree-box")).not_to_have_attribute("open", "")
        tree.get_by_text("Pages in wiki").click()
    current = tree.locator("a[aria-current=page]")
    expect(current).to_have_text("Plan Q1")
    # A folder off the way opens on demand, its pages fetched then.
    tree.locator("summary", has_text=re.compile(r"^old")).click()
    expect(tree.get_by_role("link", name="Plan Q0")).to_be_visible()
    backlinks = page.get_by_role("region", name="Pages that link here")
    expect(backlinks.get_by_role("link", name="The guide")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_accessible(page)
    if width == DESKTOP:
        screenshot(page, tmp_path, "page-tree")
    backlinks.get_by_role("link", name="The guide").click()
    expect(page.locator("article.page header h1")).to_have_text("The guide")


@WIDTHS
def test_recent_changes_and_tags_from_the_menu(
    server: Server, visitors: Visitors, width: int, tmp_path: Path
) -> None:
    folder = _folder(server)
    page = with_axe(visitors.open(width=width, height=900).page)
    sign_in(page, server, "reader")
    _menu(page, width)
    page.get_by_role("link", name="Recent changes", exact=True).click()
    expect(page.get_by_role("heading", level=1, name="Recent changes")).to_be_visible()
    q0 = page.locator(f'a[href="/p/wiki/{folder}/plans/old/q0"]')
    expect(q0).to_be_visible()
    expect(page.get_by_text("Wanda").first).to_be_visible()
    assert_accessible(page)
    if width == DESKTOP:
        screenshot(page, tmp_path, "recent-changes")
    page.goto(f"{server.base}/recent/wiki/{folder}/plans/old/")
    expect(q0).to_be_visible()
    expect(page.get_by_role("link", name="Plan Q1")).to_have_count(0)
    page.goto(f"{server.base}/p/wiki/{folder}/guide")
    page.get_by_role("link", name=f"{folder}-tag").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"{folder}-tag")
    expect(page.get_by_role("link", name="Plan Q1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_signing_in_lands_home_and_a_missing_page_offers_to_be_made(
    server: Server, visitors: Visitors
) -> None:
    folder = _folder(server)
    seen = visitors.open(width=PHONE, height=800)
    page = seen.page
    sign_in(page, server, "writer")
    assert page.url.rstrip("/").endswith(("/p/wiki/home", "/p/wiki")), page.url
    page.goto(f"{server.base}/p/wiki/{folder}/guide")
    page.get_by_role("link", name="the next one").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"wiki:{folder}/plans/q9")
    page.get_by_role("link", name=f"Create wiki:{folder}/plans/q9").click()
    expect(page.get_by_label("Address")).to_have_value(f"wiki:{folder}/plans/q9")
    # A refusal keeps the site's frame, with a way on.
    page.goto(f"{server.base}/history/wiki/{folder}/guide?offset=-1")
    expect(page.get_by_role("alert")).to_contain_text("offset")
    expect(page.get_by_role("button", name="Menu")).to_be_visible()
    page.get_by_role("link", name="Back to the start").click()
    assert page.url.rstrip("/").endswith(("/p/wiki/home", "/p/wiki")), page.url
    # The missing page's answer was a 404 and the refusal a 422, which the browser logs.
    expected = [e for e in seen.errors if f"{folder}/plans/q9" in e or "offset=-1" in e]
    assert len(expected) == 2, seen.errors
    for error in expected:
        seen.errors.remove(error)
