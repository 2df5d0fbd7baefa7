"""The loop of ADR 0024 in a real browser: an agent suggests a change over MCP, the page's
writer sees it arrive in the open inbox, previews, accepts or rejects it; a stale one offers
only Reject; a reader sees nothing of it; hostile text stays text."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    WAIT_MS,
    Visitors,
    Watched,
    call_tool,
    screenshot,
    sign_in,
    wait_until_live,
)
from tests.conftest import unique
from tests.server.conftest import Server


def suggest(server: Server, address: str, old: str, new: str, reason: str) -> int:
    """The agent suggests replacing `old` by `new` on `address`, over MCP; the suggestion's id."""
    edits = [{"op": "replace", "old": old, "new": new}]
    made = call_tool(
        server, "agent", "suggest_edit", {"address": address, "edits": edits, "reason": reason}
    )
    assert made["saved"], made
    suggestion_id: int = made["suggestion_id"]
    return suggestion_id


def decided(page: Page, suggestion_id: int) -> None:
    """Wait until the inbox no longer offers a decision on the suggestion: htmx puts what was
    decided in its place, and the live refresh that follows drops it from the list."""
    expect(page.locator(f"#change-{suggestion_id} form")).to_have_count(0)


def history(server: Server, address: str) -> list[dict[str, Any]]:
    with server.api("writer") as api:
        answer = api.get("/api/v1/page/history", params={"address": address})
    assert answer.status_code == 200, answer.text
    revisions: list[dict[str, Any]] = answer.json()
    return revisions


def test_a_suggestion_the_agent_makes_appears_in_the_writers_open_inbox_without_a_reload(
    server: Server, page: Page
) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "# Plan\n\nWe ship on Friday.\n", title="Release plan")
    sign_in(page, server, "writer", then="/inbox")
    wait_until_live(page)
    page.evaluate("window.__stillTheSamePage = true")

    made = suggest(server, address, "on Friday", "on Monday", "Friday is a holiday.")

    item = page.locator(f"#change-{made}")
    expect(item).to_be_visible(timeout=WAIT_MS)
    expect(item).to_contain_text("Friday is a holiday.")
    expect(item).to_contain_text("checker")
    assert page.evaluate("window.__stillTheSamePage") is True, "the inbox was reloaded"


def test_the_writer_previews_then_accepts_and_the_page_and_its_history_show_the_change(
    server: Server, page: Page, tmp_path: Path
) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "# Colours\n\nThe brand colour is grey.\n", title="Colours")
    before = history(server, address)
    made = suggest(server, address, "is grey", "is teal", "The new brand guide says teal.")
    sign_in(page, server, "writer", then="/inbox")

    item = page.locator(f"#change-{made}")
    expect(item.locator(".reason")).to_contain_text("The new brand guide says teal.")
    changed = item.locator(".hunks .changed")
    expect(changed).to_have_text("±The brand colour is greyteal.")
    expect(changed.locator("del")).to_have_text("grey")
    expect(changed.locator("ins")).to_have_text("teal")
    expect(item.locator(".hunks .path")).to_have_text("Colours")
    screenshot(page, tmp_path, "inbox")
    screenshot(page, tmp_path, "diff", selector=f"#change-{made}")

    item.get_by_role("link", name="Whole page").click()
    expect(page).to_have_url(f"{server.base}/inbox/changes/{made}/preview")
    body = page.locator("article.page .body")
    expect(body).to_contain_text("The brand colour is greyteal.")
    expect(body.locator("del")).to_have_text("grey")
    expect(body.locator("ins")).to_have_text("teal")
    page.go_back()
    expect(page).to_have_url(f"{server.base}/inbox")
    assert len(history(server, address)) == len(before), "the preview saved something"

    page.locator(f"#change-{made}").get_by_role("button", name="Accept").click()
    decided(page, made)

    page.goto(f"{server.base}/p/{address.replace(':', '/', 1)}")
    expect(page.locator("article.page .body")).to_contain_text("The brand colour is teal.")
    after = history(server, address)
    assert len(after) == len(before) + 1
    newest = after[0]["summary"]
    assert "checker" in newest and "The new brand guide says teal." in newest, newest


def test_a_rejection_with_a_typed_reason_reaches_the_agents_inbox(
    server: Server, page: Page
) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "Standup is at nine.\n", title="Standup")
    made = suggest(server, address, "at nine", "at ten", "Most of the team starts at ten.")
    sign_in(page, server, "writer", then="/inbox")

    item = page.locator(f"#change-{made}")
    item.get_by_label("Reason (optional)").fill("Nine suits the other time zone.")
    item.get_by_role("button", name="Reject").click()
    decided(page, made)

    inbox = call_tool(server, "agent", "inbox", {})
    [decision] = [
        d for d in inbox["decisions"] if (d["kind"], d.get("suggestion_id")) == ("change", made)
    ]
    assert decision["status"] == "rejected"
    assert decision["reason"] == "Nine suits the other time zone."
    with server.api("writer") as api:
        page_now = api.get("/api/v1/page", params={"address": address}).json()
    assert page_now["body"] == "Standup is at nine.\n"


def test_a_suggestion_whose_text_was_edited_since_says_it_no_longer_applies_and_offers_only_reject(
    server: Server, page: Page
) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "Backups run nightly.\n", title="Backups")
    made = suggest(server, address, "nightly", "hourly", "Nightly loses a day of work.")
    server.edit_page(address, [{"op": "replace", "old": "run nightly", "new": "run weekly"}])
    sign_in(page, server, "writer", then="/inbox")

    item = page.locator(f"#change-{made}")
    expect(item.locator(".stale")).to_contain_text("No longer applies")
    expect(item.get_by_role("button", name="Reject")).to_be_visible()
    expect(item.get_by_role("button", name="Accept")).to_have_count(0)
    expect(item.get_by_role("link", name="Whole page")).to_have_count(0)


def test_a_reader_sees_no_note_and_no_suggestion_where_the_writer_sees_them_waiting(
    server: Server, page: Page, visitors: Visitors, tmp_path: Path
) -> None:
    address = unique("wiki:browser/")
    body = "Ask Ada for a laptop.\n\nThe wiki account comes with the e-mail account.\n"
    server.create_page(address, body, title="Onboarding")
    made = suggest(server, address, "Ask Ada", "Ask IT", "Laptops now come from IT.")
    url = f"{server.base}/p/{address.replace(':', '/', 1)}"
    sign_in(page, server, "writer", then="/inbox")
    page.goto(url)
    note = page.locator("article.page .note")
    expect(note).to_contain_text("1 suggested change waiting")
    screenshot(page, tmp_path, "page-note")

    reader = visitors.open().page  # a browser of its own: none of the writer's cookies
    sign_in(reader, server, "reader", then=url.removeprefix(server.base))
    expect(reader.locator("article.page .body")).to_contain_text("Ask Ada for a laptop.")
    expect(reader.locator("article.page .note")).to_have_count(0)
    expect(reader.get_by_text("suggested change")).to_have_count(0)
    reader.goto(f"{server.base}/inbox")
    expect(reader.locator("h1")).to_have_text("Inbox")
    expect(reader.locator(f"#change-{made}")).to_have_count(0)
    reader.goto(f"{server.base}/suggestions/{address.replace(':', '/', 1)}")
    expect(reader.locator("main")).to_contain_text("No suggested change waits here")
    expect(reader.get_by_text("Laptops now come from IT.")).to_have_count(0)


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "<svg onload=alert(3)>",
    "[x](javascript:alert(4))",
    "<ScRiPt>alert(5)</sCrIpT>",
    "<IMG SRC=x OnErRoR=alert(6)>",
    "[y](JaVaScRiPt:alert(7))",
    "&lt;script&gt;alert(8)&lt;/script&gt;",
    "&#60;img src=x onerror=alert(9)&#62;",
    "[z](&#106;avascript:alert(10))",
    '<a href="javascript&colon;alert(11)">a</a>',
    '"><svg/onload=alert(12)>',
]
# What injected markup would leave in the page if it were not shown as text.
INJECTED = (
    "main script, main img, main svg, main iframe, main object, main embed, "
    "main [onerror], main [onload], main a[href^='javascript' i], main a[href*='alert']"
)


def shows_as_text(page: Page, where: str, hostile: list[str]) -> None:
    """Each hostile string is in `where` as the text it is, and nothing it names was made."""
    shown = page.locator(where).first.inner_text()
    missing = [text for text in hostile if text not in shown]
    assert not missing, f"not shown as text in {where}: {missing}"
    expect(page.locator(INJECTED)).to_have_count(0)


def test_hostile_text_in_a_suggestion_shows_as_text_and_runs_nothing(
    server: Server, page: Page, watched: Watched
) -> None:
    address = unique("wiki:browser/")
    server.create_page(address, "# Notes\n\nPlain text.\n", title="Notes")
    reason = "Because " + " ".join(HOSTILE)
    body = "\n\n".join(HOSTILE)
    made = call_tool(
        server,
        "agent",
        "suggest_edit",
        {
            "address": address,
            "edits": [{"op": "replace", "old": "Plain text.", "new": body}],
            "reason": reason,
        },
    )
    suggestion_id = made["suggestion_id"]
    sign_in(page, server, "writer", then="/inbox")

    item = f"#change-{suggestion_id}"
    shows_as_text(page, f"{item} .reason", HOSTILE)
    shows_as_text(page, f"{item} .hunks", HOSTILE)

    page.goto(f"{server.base}/suggestions/{address.replace(':', '/', 1)}")
    shows_as_text(page, f"{item} .reason", HOSTILE)

    page.goto(f"{server.base}/inbox/changes/{suggestion_id}/preview")
    shows_as_text(page, f"{item} .hunks", HOSTILE)
    # Rendered as Markdown, with raw HTML off: tags stay text (entities decoded to the text
    # they stand for), refused links show their text.
    raw_html = [html.unescape(text) for text in HOSTILE if text.startswith(("<", "&"))]
    shows_as_text(page, "article.page .body", raw_html)

    page.goto(f"{server.base}/inbox")
    page.locator(item).get_by_role("button", name="Accept").click()
    decided(page, suggestion_id)
    page.goto(f"{server.base}/p/{address.replace(':', '/', 1)}")
    shows_as_text(page, "article.page .body", raw_html)
    for text in ("x", "y", "z"):  # the javascript: links, as their text and no link
        expect(page.locator("article.page .body").get_by_text(text, exact=True)).to_have_count(1)
    # No link but the headings' own anchors, each to its heading on this page.
    expect(page.locator("article.page .body a:not(.anchor)")).to_have_count(0)
    for anchor in page.locator("article.page .body a.anchor").all():
        assert (anchor.get_attribute("href") or "").startswith("#")

    documents = watched.html_documents()
    assert len(documents) >= 5, [r.url for r in documents]
    for response in documents:
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy, (response.url, policy)
    watched.check()
