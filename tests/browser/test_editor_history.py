"""The editor and a page's history in a real browser, at desktop and phone width: the preview
follows the text as it is typed, leaving unsaved text asks first, saving says which version
it made, a revert and a trash ask before they act and say what they did, and the version diff
keeps its text column wide (it starts with a folded row here, which once collapsed it).
axe finds nothing on the editor, the history and the diff.

The page is worked once per engine at phone width, where the text and its preview take turns;
each page checked there is resized to desktop width and checked again (the layout is CSS's,
by the width alone), where the preview stands beside the text."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.axe import assert_accessible, with_axe
from tests.browser.conftest import Visitors, Watched, screenshot, sign_in
from tests.conftest import unique
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375
TITLE = "Release plan"
# Unchanged lines before the change, so the diff of the save starts with a folded row.
OPENING = """# Release plan

We ship on Monday, after the review.

## Checklist

- Freeze the branch on Friday.
- Run the whole test suite on both databases.
- Write the release notes.
- Tell support what changes.
- Tag the release.
- Watch the error rates for an hour.
"""
LONG_LINE = (
    "The release goes out once the checklist is done, the notes are written, and everyone "
    "who answers the pager that week has read them; until then nothing ships, however "
    "small the change looks from the outside. The notes live at "
    "https://example.com/" + "release-notes-for-the-spring-version-" * 3 + "draft.\n"
)


def _url(view: str, address: str) -> str:
    return f"/{view}/{address.replace(':', '/', 1)}"


def _take_beforeunload(seen: Watched) -> None:
    """The one dialog this test expects to open, the browser's "leave the page?" question,
    taken off what the page records (any other dialog still fails the test)."""
    asked = [d for d in seen.dialogs if d.startswith("beforeunload")]
    assert len(asked) == 1, seen.dialogs
    seen.dialogs.remove(asked[0])


def _said(page: Page, sentence: str) -> None:
    expect(page.locator("p.said[role=status]")).to_have_text(sentence)


def _no_sideways_scroll(page: Page, width: int) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} scrolls sideways: {scroll_width} > {width}"


def _resized(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})


def _checked_at_both_widths(page: Page, what: str) -> None:
    """No sideways scrolling and nothing axe finds, at desktop width, then at phone width,
    where the page stays."""
    for width in (DESKTOP, PHONE):
        _resized(page, width)
        _no_sideways_scroll(page, width)
        assert_accessible(page, f"{what} at {width} px")


def test_editing_with_a_preview_then_revert_and_trash_asking_first(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    """The flow at phone width; the editor, the diff, the history and the trash's question
    checked at desktop width as well, on the same page resized."""
    address = unique("wiki:editor/plan-")
    server.create_page(address, OPENING, title=TITLE)
    seen = visitors.open(width=PHONE, height=900)
    page = with_axe(seen.page)
    sign_in(page, server, "writer", then=_url("edit", address))
    for width in (DESKTOP, PHONE):
        _resized(page, width)
        assert_accessible(page, f"the editor at {width} px")

    # Typing shows the preview: behind its switch on a phone, beside the text on a desktop.
    text = page.get_by_label("Text, in Markdown")
    text.press("Control+End")
    page.keyboard.insert_text("\n## Shipping notes\n\n" + LONG_LINE)
    page.keyboard.type("\n### On the day\n")
    expect(page.locator("#edit-preview")).to_be_hidden()
    page.get_by_role("button", name="Preview").click()
    heading = page.locator("#edit-preview h3", has_text="On the day")
    expect(heading).to_be_visible()
    page.get_by_role("button", name="Text").click()
    expect(text).to_be_visible()
    _resized(page, DESKTOP)
    expect(heading).to_be_visible()
    expect(text).to_be_visible()
    assert_accessible(page, "the editor with its preview")
    screenshot(page, tmp_path, "editor-preview")
    _resized(page, PHONE)

    # Leaving with the text unsaved asks first; staying keeps it.
    with page.expect_event("dialog") as asked:
        page.get_by_role("link", name="Cancel").click(no_wait_after=True)
    assert asked.value.type == "beforeunload"
    _take_beforeunload(seen)
    expect(page).to_have_url(server.base + _url("edit", address))

    # Saving does not ask, and says which version it made.
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(server.base + _url("p", address))
    _said(page, "Saved as version 2.")
    expect(page.locator(".body h2", has_text="Shipping notes")).to_be_visible()

    # The diff of that save starts with a folded row; its text column stays wide.
    page.goto(server.base + _url("diff", address) + "?from=1&to=2")
    expect(page.locator("table.changes tbody tr").first).to_have_class("folded")
    text_cell = page.locator("table.changes tr.added td.text").first
    for width, least in ((DESKTOP, 600), (PHONE, 220)):
        _resized(page, width)
        box = text_cell.bounding_box()
        assert box is not None
        assert box["width"] >= least, (width, box)
    screenshot(page, tmp_path, "diff-phone")
    _checked_at_both_widths(page, "the diff")

    # A revert asks first, then says what it made.
    page.goto(server.base + _url("history", address))
    _checked_at_both_widths(page, "the history")
    page.get_by_role("link", name=re.compile(r"^Revert\s+version 2\b")).click()
    expect(page.locator(".confirm .question")).to_contain_text(
        f"Revert version 2 of '{TITLE}' ({address})?"
    )
    with page.expect_navigation():
        page.get_by_role("button", name="Revert version 2").click()
    _said(page, "Reverted version 2: saved as version 3.")

    # A trash asks first too; Cancel goes back, and saying yes says it was done.
    page.goto(server.base + _url("edit", address))
    page.get_by_role("link", name="Move to the trash…").click()
    question = page.locator(".confirm .question")
    expect(question).to_have_text(
        f"Move '{TITLE}' ({address}) to the trash? People can restore it from the trash."
    )
    _checked_at_both_widths(page, "the question before a trash")
    with page.expect_navigation():
        page.get_by_role("button", name="Move to the trash").click()
    _said(
        page,
        f"Moved '{TITLE}' ({address}) to the trash. It can be restored from the trash.",
    )
