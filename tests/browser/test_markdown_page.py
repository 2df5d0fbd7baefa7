"""A page written as teams write Markdown, in a real browser at desktop and phone widths: its
task list's checkboxes, a footnote and the way back, a table, a heading's anchor shown on hover
and on focus, the table of contents, code highlighted by Pygments and a relative link to a
page of another folder, each working; axe finds nothing, and nothing is wider than the screen.

The page is loaded once: what it shows is checked at desktop width (and in the dark), then the
same page is resized to phone width and checked again, and its links are followed there.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.axe import assert_accessible, with_axe
from tests.browser.conftest import Visitors, screenshot, sign_in
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375

GUIDE = """\
How a team starts a guide, with a note on why.[^why]

## Tasks

- [ ] Write the first draft
- [x] Ask the team what is missing

## Who does what

| Step | Owner |
|------|-------|
| Draft | Ada |
| Review | Grace |

## Code

```python
def greet(name: str) -> str:
    \"\"\"Say hello.\"\"\"
    return f"Hello, {name}"  # a comment
```

### Details

The notes are kept in [the other notes](../notes/other.md#open-questions).

## Last words

Nothing more.

[^why]: Because what a team decides is lost in chat.
"""


def make_pages(server: Server, folder: str) -> None:
    pages = {
        f"wiki:{folder}/guides/start": ("Starting a guide", GUIDE),
        f"wiki:{folder}/notes/other": ("Other notes", "## Open questions\n\nNone yet.\n"),
    }
    with server.api("writer") as client:
        for address, (title, body) in pages.items():
            made = client.post(
                "/api/v1/pages", json={"address": address, "title": title, "body": body}
            )
            assert made.status_code == 201, made.text


def _opacity(page: Page, selector: str) -> str:
    return str(page.locator(selector).evaluate("e => getComputedStyle(e).opacity"))


def test_a_markdown_page_shows_and_links_what_teams_write_at_both_widths(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    folder = f"m{uuid.uuid4().hex[:6]}"
    make_pages(server, folder)
    start = f"/p/wiki/{folder}/guides/start"
    page = with_axe(visitors.open(width=DESKTOP, height=900).page)
    sign_in(page, server, "reader", then=start)
    body = page.locator("article .body")
    expect(page.locator('link[href="/static/markdown.css"]')).to_have_count(1)

    # The task list: disabled checkboxes named by their text.
    draft = body.get_by_role("checkbox", name="Write the first draft")
    asked = body.get_by_role("checkbox", name="Ask the team what is missing")
    expect(draft).to_be_disabled()
    expect(draft).not_to_be_checked()
    expect(asked).to_be_checked()
    expect(body.locator("table td")).to_have_text(["Draft", "Ada", "Review", "Grace"])

    # Code highlighted on the server: Pygments' classes, coloured by markdown.css.
    code = body.locator("pre.highlight code.language-python")
    expect(code.locator("span.k").first).to_have_text("def")
    keyword = code.locator("span.k").first.evaluate("e => getComputedStyle(e).color")
    name = code.locator("span.n").first.evaluate("e => getComputedStyle(e).color")
    assert keyword != name

    # The contents: before the first section, nested, each link going to its heading.
    contents = body.get_by_role("navigation", name="Contents")
    expect(contents.locator("a")).to_have_text(
        ["Tasks", "Who does what", "Code", "Details", "Last words"]
    )
    assert contents.evaluate(
        "nav => !!(nav.compareDocumentPosition(document.getElementById('tasks')) & 4)"
    )
    for width in (DESKTOP, PHONE):  # the same page, resized
        page.set_viewport_size({"width": width, "height": 900})
        assert_accessible(page, f"a Markdown page at {width} px")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"the page is {wide} px wide at {width} px"
        screenshot(page, tmp_path, "markdown-page" if width == DESKTOP else "markdown-page-phone")
        if width == DESKTOP:  # the dark colours of code, contents and footnotes, once
            page.emulate_media(color_scheme="dark")
            assert_accessible(page, "a Markdown page in the dark")
            screenshot(page, tmp_path, "markdown-page-dark", selector="article .body")
            page.emulate_media(color_scheme="light")

    # A heading's anchor: hidden until the heading is hovered or the anchor focused.
    anchor = "#code .anchor"
    assert _opacity(page, anchor) == "0"
    page.locator("#code").hover()
    assert _opacity(page, anchor) == "1"
    page.mouse.move(0, 0)
    assert _opacity(page, anchor) == "0"
    page.get_by_role("link", name="Link to this section: Code").focus()
    assert _opacity(page, anchor) == "1"
    page.keyboard.press("Enter")
    assert page.url.endswith(f"{start}#code"), page.url

    contents.get_by_role("link", name="Details").click()
    assert page.url.endswith("#details"), page.url
    expect(page.locator("#details")).to_be_in_viewport()

    # The footnote: its reference jumps to the note, and the note back.
    body.locator(".footnote-ref a").click()
    assert page.url.endswith("#fn:1"), page.url
    note = body.locator(".footnote-item")
    expect(note).to_contain_text("Because what a team decides is lost in chat.")
    expect(note).to_be_in_viewport()
    note.get_by_role("link", name="Back to reference 1").click()
    assert page.url.endswith("#fnref:1"), page.url
    expect(body.locator(".footnote-ref a")).to_be_in_viewport()

    # The relative link: the page of the other folder, at its heading.
    with page.expect_navigation():
        body.get_by_role("link", name="the other notes").click()
    assert page.url == f"{server.base}/p/wiki/{folder}/notes/other#open-questions"
    expect(page.get_by_role("heading", level=1)).to_have_text("Other notes")
