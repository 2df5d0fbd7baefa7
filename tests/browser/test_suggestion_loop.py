"""The loop of ADR 0024 in a real browser: an agent suggests a change over MCP, the page's
writer sees it arrive in the open inbox, previews, accepts or rejects it; a stale one offers
only Reject; a reader sees nothing of it; hostile text stays text."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.conftest import WAIT_MS, call_tool, sign_in, wait_until_live
from tests.conftest import unique
from tests.server.conftest import Server


def suggest(server: Server, address: str, old: str, new: str, reason: str) -> int:
    """The agent suggests replacing `old` by `new` on `address`, over MCP; the suggestion's id."""
    edits = [{"op": "replace", "old": old, "new": new}]
    made = call_tool(
        server, "agent", "suggest_edit", {"address": address, "edits": edits, "reason": reason}
    )
    assert made["saved"], made
    suggestion_id: int = made["suggestion"]["id"]
    return suggestion_id


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
