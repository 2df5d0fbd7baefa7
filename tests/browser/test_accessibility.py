"""The pages of the suggestion loop meet WCAG 2.1 A and AA as axe-core checks them, at desktop
and at phone width, filled with what they show in use: a word changed in a paragraph, a new
title, a suggestion whose text was edited since (stale), and a suggested link.

Each page is loaded once and checked at each width in turn, the same page resized (the layout
is CSS's, by the width alone), so a width costs an axe run, not a sign-in and a page load."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import assert_accessible, describe, violations, with_axe
from tests.browser.conftest import Visitors, sign_in
from tests.conftest import unique
from tests.server.conftest import Server

# (width, height) in CSS pixels: a desktop window and a phone.
SIZES = [(1280, 800), (375, 740)]
SUGGESTER = "reader"  # a person, so their own suggestions can be seen in the browser


@dataclass(frozen=True)
class Waiting:
    """Suggestions waiting on the writer, all made by the suggester."""

    plan: str  # the page with the word change and the suggested link
    word: int  # "Friday" becomes "Monday" in a paragraph of `plan`
    title: int  # a new title for another page, its text untouched
    stale: int  # its text was edited since, so it no longer applies
    link: int  # a link from `plan` to the renamed page
    reasons: tuple[str, ...]


def _post(server: Server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    with server.api(SUGGESTER) as api:
        made = api.post(path, json=body)
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


def _suggest(server: Server, address: str, reason: str, **change: Any) -> int:
    made = _post(server, "/api/v1/suggestions", {"address": address, "reason": reason, **change})
    suggestion_id: int = made["suggestion"]["id"]
    return suggestion_id


@pytest.fixture(scope="module")
def waiting(server: Server) -> Iterator[Waiting]:
    plan = unique("wiki:a11y/plan-")
    names = unique("wiki:a11y/names-")
    backups = unique("wiki:a11y/backups-")
    server.create_page(
        plan,
        "# Plan\n\nWe ship on Friday, after the review.\n\nSee the release checklist first.\n",
        title="Release plan",
    )
    server.create_page(names, "# Names\n\nWhat we call things.\n", title="Namez")
    server.create_page(backups, "# Backups\n\nBackups run nightly.\n", title="Backups")
    reasons = (
        "Friday is a holiday.",
        "The title is misspelt.",
        "Nightly loses a day of work.",
        "The checklist lives there.",
    )
    word = _suggest(
        server, plan, reasons[0], edits=[{"op": "replace", "old": "Friday", "new": "Monday"}]
    )
    title = _suggest(server, names, reasons[1], title="Names")
    stale = _suggest(
        server, backups, reasons[2], edits=[{"op": "replace", "old": "nightly", "new": "hourly"}]
    )
    server.edit_page(backups, [{"op": "replace", "old": "run nightly", "new": "run weekly"}])
    link = _post(
        server,
        "/api/v1/links",
        {"address": plan, "target": names, "reason": reasons[3], "anchor": "release checklist"},
    )["id"]
    yield Waiting(plan, word, title, stale, link, reasons)


def _visitor(visitors: Visitors, server: Server, role: str) -> Page:
    """A signed-in page of `role`'s at desktop size with axe loaded in every document it
    opens."""
    width, height = SIZES[0]
    page = with_axe(visitors.open(width=width, height=height).page)
    sign_in(page, server, role, then="/inbox")
    return page


def _sizes(page: Page) -> Iterator[int]:
    """Resize the page to each size in turn, giving its width; it is left at the last."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        yield width


def _visit(page: Page, url: str) -> None:
    answer = page.goto(url)
    assert answer is not None and answer.status == 200, (
        f"{url} answered {answer.status if answer else 'nothing'}"
    )


def _page_url(server: Server, address: str) -> str:
    return f"{server.base}/p/{address.replace(':', '/', 1)}"


def test_the_inbox_with_changes_waiting(
    server: Server, visitors: Visitors, waiting: Waiting
) -> None:
    page = _visitor(visitors, server, "writer")
    _visit(page, f"{server.base}/inbox")
    for width in _sizes(page):
        for made in (waiting.word, waiting.title, waiting.stale):
            expect(page.locator(f"#change-{made}")).to_be_visible()
        expect(page.locator(f"#change-{waiting.stale} .stale")).to_contain_text("No longer applies")
        expect(page.locator(f"#link-{waiting.link}")).to_be_visible()
        assert_accessible(page, f"/inbox at {width} px")


def test_a_cards_rendered_view_open_in_the_inbox(
    server: Server, visitors: Visitors, waiting: Waiting
) -> None:
    page = _visitor(visitors, server, "writer")
    _visit(page, f"{server.base}/inbox")
    card = page.locator(f"#change-{waiting.word}")
    card.get_by_role("link", name="As the page will read").click()
    for width in _sizes(page):
        expect(card.locator(".view-rendered ins")).to_contain_text("Monday")
        assert_accessible(page, f"/inbox with a card's rendered view open at {width} px")


def test_a_suggestions_preview(server: Server, visitors: Visitors, waiting: Waiting) -> None:
    page = _visitor(visitors, server, "writer")
    _visit(page, f"{server.base}/inbox/changes/{waiting.word}/preview")
    for width in _sizes(page):
        expect(page.locator("article.page .body")).to_contain_text("Monday")
        assert_accessible(page, f"/inbox/changes/{waiting.word}/preview at {width} px")


def test_a_pages_suggestions_reached_from_its_note(
    server: Server, visitors: Visitors, waiting: Waiting
) -> None:
    """The page with its note, and the page its note leads to, at each width; the note
    followed at the last (the phone's)."""
    page = _visitor(visitors, server, "writer")
    _visit(page, _page_url(server, waiting.plan))
    on_the_page = {width: violations(page) for width in _sizes(page)}  # checked on the way
    note = page.locator("article.page .note a")
    expect(note).to_contain_text("suggested change")
    with page.expect_navigation():
        note.click()
    on_its_suggestions = {}
    for width in _sizes(page):
        expect(page.locator(f"#change-{waiting.word}")).to_be_visible()
        on_its_suggestions[width] = violations(page)
    assert not any([*on_the_page.values(), *on_its_suggestions.values()]), "\n".join(
        describe(found, f"{url} at {width} px")
        for seen, url in (
            (on_the_page, _page_url(server, waiting.plan)),
            (on_its_suggestions, page.url),
        )
        for width, found in seen.items()
        if found
    )


def test_the_suggesters_own_suggestions(
    server: Server, visitors: Visitors, waiting: Waiting
) -> None:
    page = _visitor(visitors, server, SUGGESTER)
    _visit(page, f"{server.base}/inbox/mine")
    for width in _sizes(page):
        for reason in waiting.reasons:
            expect(page.locator("main")).to_contain_text(reason)
        assert_accessible(page, f"/inbox/mine at {width} px")


def test_the_check_finds_a_violation_and_says_what_to_fix(
    server: Server, visitors: Visitors, waiting: Waiting
) -> None:
    page = _visitor(visitors, server, "writer")
    _visit(page, f"{server.base}/inbox/changes/{waiting.word}/preview")
    page.evaluate(
        """() => {
        const image = document.createElement("img");
        image.src = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==";
        image.className = "unlabelled";
        document.querySelector("main").append(image);
    }"""
    )
    found = violations(page)
    assert [rule["id"] for rule in found] == ["image-alt"], found
    said = describe(found, "the preview")
    assert "image-alt (critical)" in said, said
    assert 'class="unlabelled"' in said and "alt" in said, said
