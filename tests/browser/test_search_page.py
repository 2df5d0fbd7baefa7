"""Search in a real browser at desktop and phone widths: each hit's snippet is plain text with
the words found in <mark>, its section links to the heading on the page, the space, folder and
tag filters each narrow the hits and can be removed, and axe finds nothing on the page of
results. Nothing is wider than the screen.

The search is played once per engine at phone width; each page of results checked there is
resized to desktop width and checked there too, then back."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.axe import assert_accessible, with_axe
from tests.browser.conftest import Visitors, screenshot, sign_in
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375
# Markdown a snippet must never show: emphasis, links, code, tables, lists, headings, entities.
SYNTAX = re.compile(r"\*\*|\]\(|`|\||^\s*[-#>]|&amp;|&lt;")

RECORD = """\
**Status:** Accepted · 2026-11-02

# Record

## Context

Teams lose what they decided in chat.

### Options weighed

| Option | Cost |
|--------|------|
| *Chat* | none |

- [x] The **{word}** keeps its [history](wiki:home) & every `revision`.
- Nobody can tell which version is current.

## Consequences

Pages are read by people and agents alike.
"""


def make_pages(server: Server, word: str, folder: str) -> None:
    """Three records with `word`: two in the wiki (one tagged decision), one in output."""
    made = (
        (f"wiki:{folder}/decisions/0001-record", ["decision"]),
        (f"wiki:{folder}/notes/chat", ["note"]),
        (f"output:{folder}/draft", ["decision"]),
    )
    with server.api("writer") as client:
        for address, tags in made:
            answer = client.post(
                "/api/v1/pages",
                json={
                    "address": address,
                    "title": address.rsplit("/", 1)[1].title(),
                    "body": RECORD.format(word=word),
                    "tags": tags,
                },
            )
            assert answer.status_code == 201, answer.text


def _fits(page: Page, width: int) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{page.url} is {wide} px wide at {width} px"


def _at_both_widths(page: Page, where: str, *, shot: Path | None = None) -> None:
    """axe and the width checked at desktop width (with a screenshot into `shot` if given),
    then at phone width, where the page stays."""
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        if shot is not None and width == DESKTOP:
            screenshot(page, shot, "search")
        assert_accessible(page, f"{where} at {width} px")
        _fits(page, width)


def _hits(page: Page) -> int:
    return page.locator(".search-hits > li").count()


def _search(page: Page, **fields: str) -> None:
    """Fill the search form's fields by their labels and send it."""
    form = page.get_by_role("search", name="Search pages")
    for label, value in fields.items():
        field = form.get_by_label(label.title(), exact=True)
        if label == "space":
            field.select_option(value)
        else:
            field.fill(value)
    with page.expect_navigation():
        form.get_by_role("button", name="Search").click()


def test_search_marks_hits_in_plain_text_links_sections_and_filters_at_both_widths(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    word, folder = f"quokka{uuid.uuid4().hex[:6]}", f"s{uuid.uuid4().hex[:6]}"
    make_pages(server, word, folder)
    page = with_axe(visitors.open(width=PHONE, height=900).page)
    sign_in(page, server, "reader", then="/search")
    _search(page, words=word)
    expect(page.locator(".search-summary [role=status]")).to_have_text("3 pages found.")
    first = page.locator(".search-hits > li").first
    expect(first.locator("mark")).to_have_text(word)
    snippet = first.locator(".snippet").inner_text()
    assert word in snippet and SYNTAX.search(snippet) is None, snippet
    path = first.locator(".search-path a")
    expect(path).to_have_text(["Record", "Context", "Options weighed"])
    _at_both_widths(page, "/search with results")

    # Each filter narrows the hits; the filters that apply are listed and each removed.
    _search(page, space="wiki")
    assert _hits(page) == 2
    _search(page, folder=f"wiki:{folder}/decisions/")
    assert _hits(page) == 1
    _search(page, folder="", tag="note")
    assert _hits(page) == 1
    expect(page.locator(".search-hits code")).to_have_text(f"wiki:{folder}/notes/chat")
    applied = page.get_by_role("list", name="Filters that apply")
    expect(applied.locator("li")).to_have_count(2)
    _at_both_widths(page, "/search with filters", shot=tmp_path)
    with page.expect_navigation():
        applied.get_by_role("link", name="Remove the filter tag note").click()
    assert _hits(page) == 2
    expect(page.get_by_label("Tag", exact=True)).to_have_value("")

    # The section's link opens the page at its heading.
    with page.expect_navigation():
        page.locator(".search-path a", has_text="Options weighed").first.click()
    assert page.url.endswith("#options-weighed"), page.url
    expect(page.locator("#options-weighed")).to_be_in_viewport()
