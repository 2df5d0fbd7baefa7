"""The review screen in a real browser: a suggestion's card in the inbox, on a page's list of
suggestions and in "my suggestions"; what it shows (the change where it is, as the page will
read, who suggested it), what keeps while it is open (a live update, a decision made elsewhere,
a page that moved on), and deciding with the mouse, the keyboard and without JavaScript.

A card is checked at desktop and phone widths on one page, resized between them (the layout
is CSS's, by the width alone), and worked at the width it was last checked at.

Each test has members of its own (an editor of its own pages, a suggester), so no inbox holds
what another test left there. What must reach an open page live is done through the JSON API
of the running server (its events reach the page); the rest is set up through the services.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Locator, Page, Route, expect

from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.services.members.members import Member
from codna.services.suggestions import changes
from codna.storage.database import Database
from tests.browser.conftest import Visitors, Watched, screenshot, wait_until_live
from tests.conftest import PASSWORD, ROLES, unique
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375


# The team of one test -----------------------------------------------------------------------


@dataclass(frozen=True)
class Who:
    """A member made for one test: how to sign in (a person) and its API token."""

    handle: str  # a person's e-mail, an agent's name
    name: str
    token: str


@contextmanager
def services(server: Server) -> Iterator[Member]:
    """The services on the server's own database, as its first admin."""
    database = Database(server.workspace.url)
    use_database(database)
    try:
        yield members.member_by_handle(ROLES["admin"])
    finally:
        use_database(None)
        database.dispose()


def person(server: Server, name: str, *, write: Sequence[str] = ()) -> Who:
    """A person who reads the wiki and edits the pages in `write`."""
    email = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.com"
    with services(server) as admin:
        members.add_person(admin, email=email, name=name, password=PASSWORD)
        access.share(admin, address="wiki", member=email, level="read")
        for address in write:
            access.share(admin, address=address, member=email, level="write")
        token = tokens.create_token(admin, member=email, name="browser").secret
    return Who(email, name, token)


def agent(server: Server, responsible: Sequence[Who]) -> Who:
    """An agent that reads the wiki, the people in `responsible` answering for it."""
    name = f"scribe-{uuid.uuid4().hex[:6]}"
    with services(server) as admin:
        members.add_agent(admin, name=name, responsible=[p.handle for p in responsible])
        access.share(admin, address="wiki", member=name, level="read")
        token = tokens.create_token(admin, member=name, name="browser").secret
    return Who(name, name, token)


def admin(server: Server) -> Who:
    """The workspace's first admin, "Admin": another editor of every page."""
    return Who(ROLES["admin"], "Admin", server.token("admin"))


def api(server: Server, who: Who) -> httpx.Client:
    headers = {"Authorization": f"Bearer {who.token}"}
    return httpx.Client(base_url=server.base, headers=headers, timeout=30)


def call(server: Server, who: Who, path: str, body: dict[str, Any], status: int = 200) -> Any:
    with api(server, who) as client:
        answer = client.post(path, json=body)
    assert answer.status_code == status, answer.text
    return answer.json()


def make_page(server: Server, body: str, *, title: str) -> str:
    """A new page, made by the admin; its address."""
    address = unique("wiki:review/")
    call(
        server,
        admin(server),
        "/api/v1/pages",
        {"address": address, "title": title, "body": body},
        201,
    )
    return address


def suggest(
    server: Server,
    who: Who,
    address: str,
    edits: list[dict[str, str]],
    reason: str,
    **more: Any,
) -> int:
    """`who` suggests `edits` on `address` through the API; the suggestion's id."""
    made = call(
        server,
        who,
        "/api/v1/suggestions",
        {"address": address, "edits": edits, "reason": reason, **more},
        201,
    )
    assert made["saved"], made
    suggestion_id: int = made["suggestion"]["id"]
    return suggestion_id


def replace(old: str, new: str) -> list[dict[str, str]]:
    return [{"op": "replace", "old": old, "new": new}]


def decide(server: Server, who: Who, suggestion_id: int, decision: str, reason: str = "") -> None:
    body = {"decision": decision} | ({"reason": reason} if reason else {})
    call(server, who, f"/api/v1/suggestions/{suggestion_id}/decide", body)


def edit(server: Server, who: Who, address: str, edits: list[dict[str, str]]) -> None:
    call(server, who, "/api/v1/page/edit", {"address": address, "edits": edits})


def suggestion(server: Server, who: Who, suggestion_id: int) -> dict[str, Any]:
    with api(server, who) as client:
        answer = client.get(f"/api/v1/suggestions/{suggestion_id}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def path_of(address: str) -> str:
    return address.replace(":", "/", 1)


# In the browser -----------------------------------------------------------------------------


def sign_in(page: Page, server: Server, who: Who, *, then: str) -> None:
    """Sign in as `who` through the sign-in form, then open `then`."""
    page.goto(f"{server.base}/?next={then}")
    page.get_by_label("E-mail").fill(who.handle)
    page.get_by_label("Password").fill(PASSWORD)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(server.base + then)


def card(within: Page | Locator, suggestion_id: int) -> Locator:
    return within.locator(f"#change-{suggestion_id}")


def cards(page: Page) -> Locator:
    return page.locator("[data-cards] > li.card")


def decided(page: Page, suggestion_id: int) -> None:
    """Wait until the card offers no decision any more."""
    expect(card(page, suggestion_id).locator("form")).to_have_count(0)


def overflowing(where: Locator) -> list[str]:
    """The elements in `where` (and itself) whose content is wider than they are: those that
    scroll, or spill, sideways."""
    found: list[str] = where.evaluate(
        """(root) => [root, ...root.querySelectorAll("*")]
            .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
            .map((e) => `${e.tagName}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`)"""
    )
    return found


def shot(page: Page, folder: Path, name: str, width: int) -> None:
    screenshot(page, folder, name if width == DESKTOP else f"{name}-phone")


def widths(page: Page) -> Iterator[int]:
    """Resize the page to desktop width, then to phone width, giving each; it stays at the
    phone's."""
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 800})
        yield width


def is_focused(locator: Locator) -> bool:
    focused: bool = locator.evaluate("(e) => e === document.activeElement")
    return focused


ABOUT = (
    "# Handbook\n\n## About us\n\nWe are twelve people in three cities.\n\n"
    "We meet once a year.\n\nThis is the team's wiki, where we write down what we know.\n"
)


# 1. A one-word change ------------------------------------------------------------------------


def test_a_one_word_change_shows_its_heading_path_and_the_inserted_word_and_fits_the_card(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    address = make_page(server, ABOUT, title="Handbook")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(
        server,
        scribe,
        address,
        replace("the team's wiki", "the team's shared wiki"),
        "It is shared by every team.",
    )
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")

    item = card(page, made)
    for width in widths(page):
        hunk = item.locator(".view-source .hunks .hunk")
        expect(hunk).to_have_count(1)
        path = hunk.locator(".where .path")
        expect(path).to_be_visible()
        expect(path).to_have_text("Handbook > About us")
        changed = hunk.locator(".line.changed")
        expect(changed).to_have_count(1)
        expect(changed.locator(".text")).to_have_text(
            "This is the team's shared wiki, where we write down what we know."
        )
        expect(changed.locator("ins")).to_have_text("shared")
        expect(changed.locator("del")).to_have_count(0)
        for raw in ("@@", "---", "+++"):
            expect(item).not_to_contain_text(raw)

        assert overflowing(item) == [], "something in the card is wider than the card"
        box = item.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        shot(page, tmp_path, "review-one-word", width)


# 2. A title-only change ----------------------------------------------------------------------


def test_a_title_only_suggestion_reads_title_old_to_new_and_shows_no_empty_diff(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    address = make_page(server, "Who to call when the build breaks.\n", title="On call")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(server, scribe, address, [], "The rota has a name.", title="On-call rota")
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")

    item = card(page, made)
    for width in widths(page):
        title = item.locator(".field-change")
        expect(title).to_have_text(re.compile(r"^\s*Title:\s*On call\s*→\s*On-call rota\s*$"))
        expect(title.locator(".label")).to_have_text("Title:")
        expect(title.locator("del")).to_have_text("On call")
        expect(title.locator("ins")).to_have_text("On-call rota")
        expect(item.locator(".hunks")).to_have_count(0)
        expect(item.locator(".view-source")).to_have_count(0)
        expect(item.get_by_role("button", name="Accept")).to_be_visible()
        assert overflowing(item) == []
        shot(page, tmp_path, "review-title", width)


# 3. As the page will read --------------------------------------------------------------------

GUIDE = (
    "# Guide\n\nThe team's wiki holds our notes.\n\n"
    "Fax your questions to the front desk.\n\nAsk in the chat.\n"
)


def guide_change(server: Server) -> tuple[Who, int]:
    address = make_page(server, GUIDE, title="Guide")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    edits = [
        *replace("holds our notes", "holds our shared notes"),
        *replace("Fax your questions to the front desk.\n\n", ""),
    ]
    made = suggest(server, scribe, address, edits, "No one faxes; the notes are shared.")
    return editor, made


def test_the_rendered_view_marks_what_changes_and_source_switches_back(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    editor, made = guide_change(server)
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")

    item = card(page, made)
    source = item.locator(".view-source")
    rendered = item.locator(".view-rendered")
    for _ in widths(page):
        expect(source).to_be_visible()
        expect(rendered).to_be_hidden()
    item.get_by_role("link", name="As the page will read").click()
    for width in widths(page):
        expect(rendered).to_be_visible()
        expect(source).to_be_hidden()
        expect(rendered.locator("ins")).to_have_text("shared")
        expect(rendered.locator("del")).to_contain_text("Fax your questions to the front desk.")
        expect(rendered).to_contain_text("The team's wiki holds our shared notes.")
        expect(item.get_by_role("link", name="As the page will read")).to_have_attribute(
            "aria-current", "true"
        )
        assert overflowing(item) == []
        shot(page, tmp_path, "review-rendered", width)

    item.get_by_role("link", name="Source").click()
    expect(source).to_be_visible()
    expect(rendered).to_be_hidden()
    expect(source.locator(".hunks ins").first).to_have_text("shared")
    assert page.url == f"{server.base}/inbox"


def test_without_javascript_the_rendered_view_link_leads_to_the_whole_page_marked(
    server: Server, visitors: Visitors
) -> None:
    editor, made = guide_change(server)
    page = visitors.open(width=DESKTOP, javascript=False).page
    sign_in(page, server, editor, then="/inbox")

    card(page, made).get_by_role("link", name="As the page will read").click()
    expect(page).to_have_url(f"{server.base}/inbox/changes/{made}/preview")
    body = page.locator("article.page .body")
    expect(page.locator("article.page > h1")).to_have_text("Guide")
    expect(body).to_contain_text("The team's wiki holds our shared notes.")
    expect(body).to_contain_text("Ask in the chat.")  # the whole page, not only what changed
    expect(body.locator("ins")).to_have_text("shared")
    expect(body.locator("del")).to_contain_text("Fax your questions to the front desk.")


# 4. The page moved on ------------------------------------------------------------------------


def test_when_the_page_moved_on_the_card_shows_what_accepting_does_now_and_the_old_diff_closed(
    server: Server, visitors: Visitors
) -> None:
    body = "# Plan\n\nWe ship on Friday.\n\nThe demo is at noon.\n"
    address = make_page(server, body, title="Plan")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(server, scribe, address, replace("on Friday", "on Monday"), "Friday is off.")
    edit(server, admin(server), address, replace("at noon", "at two"))  # version 2
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")

    item = card(page, made)
    source = item.locator(".view-source")
    first = source.locator(":scope > *").first
    expect(first).to_have_class("diff-title")
    expect(first).to_contain_text("What accepting does to version 2")
    now = source.locator(":scope > .hunks .line.changed")
    expect(now.locator("del")).to_have_text("Friday")
    expect(now.locator("ins")).to_have_text("Monday")
    expect(source.locator(":scope > .hunks")).to_contain_text("The demo is at two.")
    then = source.locator("details.diff-then")
    expect(then).not_to_have_attribute("open", "")
    expect(then.locator(".hunks")).to_be_hidden()
    then.locator("summary").click()
    expect(then).to_have_attribute("open", "")
    expect(then.locator(".hunks")).to_be_visible()
    expect(then.locator("summary")).to_contain_text("against version 1")
    expect(item.get_by_role("button", name="Accept")).to_be_visible()


# 5. Who suggested it -------------------------------------------------------------------------


def test_the_card_names_who_suggested_it_and_only_the_suggesters_own_card_offers_withdraw(
    server: Server, visitors: Visitors
) -> None:
    address = make_page(server, "Lunch is at twelve.\n\nCoffee is free.\n", title="Office")
    editor = person(server, "Edna", write=[address])
    other = person(server, "Otto")
    scribe = agent(server, [editor, other])
    by_agent = suggest(server, scribe, address, replace("at twelve", "at one"), "Later lunch.")
    suggester = person(server, "Pat")
    with services(server):
        pat = members.member_by_handle(suggester.handle)
        made = changes.suggest_edit(
            pat,
            address=address,
            edits=[],
            title="Office life",
            reason="A clearer title.",
            via="decision-check",
        )
    assert made.suggestion is not None
    by_routine = made.suggestion.id

    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    expect(card(page, by_agent).locator(".by")).to_have_text(
        f"{scribe.name} (agent), for Edna and Otto"
    )
    expect(card(page, by_routine).locator(".by")).to_have_text(
        "Pat, through the routine decision-check"
    )
    for shown in (by_agent, by_routine):
        expect(card(page, shown).get_by_role("button", name="Accept")).to_be_visible()
        expect(card(page, shown).get_by_role("button", name="Withdraw")).to_have_count(0)

    own = visitors.open(width=DESKTOP).page
    sign_in(own, server, suggester, then="/inbox/mine")
    mine = card(own, by_routine)
    expect(mine.locator(".by")).to_have_text("Pat, through the routine decision-check")
    expect(mine.get_by_role("button", name="Withdraw")).to_be_visible()
    expect(mine.get_by_role("button", name="Accept")).to_have_count(0)
    expect(card(own, by_agent)).to_have_count(0)


# 6. Stale while open -------------------------------------------------------------------------


def test_a_card_that_goes_stale_while_open_says_so_and_offers_reject_only(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    address = make_page(server, "Backups run nightly.\n", title="Backups")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(server, scribe, address, replace("nightly", "hourly"), "Nightly loses a day.")
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    item = card(page, made)
    expect(item.get_by_role("button", name="Accept")).to_be_visible()
    wait_until_live(page)
    page.evaluate("window.__stillTheSamePage = true")

    edit(server, admin(server), address, replace("run nightly", "run weekly"))

    stale = item.locator(".stale")
    for width in widths(page):
        expect(stale).to_contain_text("No longer applies.")
        expect(stale).to_contain_text("The page changed after this was suggested")
        expect(item.get_by_role("button", name="Reject")).to_be_visible()
        expect(item.get_by_role("button", name="Accept")).to_have_count(0)
        assert page.evaluate("window.__stillTheSamePage") is True, "the inbox was reloaded"
        assert overflowing(item) == []
        shot(page, tmp_path, "review-stale", width)


# 7. Typing survives a live update ------------------------------------------------------------


def test_a_half_typed_reason_and_its_focus_survive_a_new_suggestion_arriving(
    server: Server, visitors: Visitors
) -> None:
    address = make_page(server, "Standup is at nine.\n\nRetro is on Friday.\n", title="Meetings")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    first = suggest(server, scribe, address, replace("at nine", "at ten"), "Later standup.")
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    wait_until_live(page)
    page.evaluate("window.__stillTheSamePage = true")
    reason = card(page, first).get_by_label("Reason (optional)")
    reason.click()
    reason.press_sequentially("Nine suits the other ti")

    second = suggest(server, scribe, address, replace("on Friday", "on Thursday"), "Fridays off.")

    expect(card(page, second)).to_be_visible()
    expect(card(page, second)).to_contain_text("Fridays off.")
    expect(reason).to_have_value("Nine suits the other ti")
    expect(reason).to_be_focused()
    assert page.evaluate("window.__stillTheSamePage") is True, "the inbox was reloaded"
    reason.press_sequentially("me zone.")
    expect(reason).to_have_value("Nine suits the other time zone.")


# 8. Decided elsewhere ------------------------------------------------------------------------


def test_a_suggestion_accepted_elsewhere_shows_as_accepted_and_by_whom_without_a_reload(
    server: Server, visitors: Visitors
) -> None:
    address = make_page(server, "The office opens at eight.\n", title="Office hours")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(server, scribe, address, replace("at eight", "at nine"), "It opens later.")
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    expect(card(page, made).get_by_role("button", name="Accept")).to_be_visible()
    wait_until_live(page)
    page.evaluate("window.__stillTheSamePage = true")

    decide(server, admin(server), made, "accept")

    status = card(page, made).locator(".status")
    expect(status).to_contain_text("accepted by Admin in version 2")
    expect(card(page, made).get_by_role("button", name="Accept")).to_have_count(0)
    expect(card(page, made).get_by_role("button", name="Reject")).to_have_count(0)
    assert page.evaluate("window.__stillTheSamePage") is True, "the inbox was reloaded"


# 9. An Accept that fails says why ------------------------------------------------------------


def refused_setup(server: Server) -> tuple[str, Who, int]:
    address = make_page(server, "Deploys happen on Tuesday.\n", title="Deploys")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    made = suggest(
        server, scribe, address, replace("on Tuesday", "on Wednesday"), "Tuesday is busy."
    )
    return address, editor, made


def refused_page_loaded(seen: Watched, suggestion_id: int) -> None:
    """The refused decision's page comes with the refusal's HTTP status (409), which Chromium
    notes in the console as a resource that failed to load: that note is expected, not a
    script's error, and is the only one forgiven."""
    where = f"/inbox/changes/{suggestion_id}/decide"
    noted = [
        e
        for e in seen.errors
        if e.startswith("Failed to load resource") and "status of 409" in e and where in e
    ]
    assert noted, seen.errors
    seen.errors[:] = [e for e in seen.errors if e not in noted]


def no_live_events(route: Route) -> None:
    """Leave the event stream unanswered: the page hears of no change."""


def test_an_accept_refused_because_the_page_changed_says_why_in_the_card(
    server: Server, visitors: Visitors
) -> None:
    address, editor, made = refused_setup(server)
    page = visitors.open(width=DESKTOP).page
    page.route("**/inbox/events", no_live_events)
    sign_in(page, server, editor, then="/inbox")
    item = card(page, made)
    expect(item.get_by_role("button", name="Accept")).to_be_visible()

    edit(server, admin(server), address, replace("on Tuesday", "on Thursday"))
    item.get_by_role("button", name="Accept").click()

    expect(item.locator(".refusal")).to_contain_text("Not accepted: the page changed")
    expect(item.locator(".stale")).to_contain_text("The page changed after this was suggested")
    expect(item.get_by_role("button", name="Accept")).to_have_count(0)
    expect(item.get_by_role("button", name="Reject")).to_be_visible()
    expect(item).not_to_contain_text("Copy it exactly")
    expect(page).to_have_url(f"{server.base}/inbox")
    assert suggestion(server, editor, made)["status"] == "pending"


def test_without_javascript_a_refused_accept_ends_on_the_cards_own_page_saying_why(
    server: Server, visitors: Visitors
) -> None:
    address, editor, made = refused_setup(server)
    seen = visitors.open(width=DESKTOP, javascript=False)
    page = seen.page
    sign_in(page, server, editor, then="/inbox")
    accept = card(page, made).get_by_role("button", name="Accept")
    expect(accept).to_be_visible()

    edit(server, admin(server), address, replace("on Tuesday", "on Thursday"))
    accept.click()

    expect(page.locator("h1")).to_have_text(f"Suggested change {made}")
    expect(page.locator("header.top")).to_be_visible()
    item = card(page, made)
    expect(item.locator(".refusal")).to_contain_text("Not accepted: the page changed")
    expect(item.locator(".stale")).to_contain_text("The page changed after this was suggested")
    expect(item.get_by_role("button", name="Accept")).to_have_count(0)
    expect(item.get_by_role("button", name="Reject")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("Copy it exactly")
    refused_page_loaded(seen, made)
    back = page.get_by_role("link", name="Back to the inbox")
    expect(back).to_have_attribute("href", "/inbox")
    back.click()
    expect(page).to_have_url(f"{server.base}/inbox")


# 10. Focus after a decision ------------------------------------------------------------------


def two_waiting(server: Server) -> tuple[Who, list[int]]:
    """Two suggestions on two pages of one editor, the newer first (as the inbox lists them)."""
    one = make_page(server, "Tea is in the left cupboard.\n", title="Kitchen")
    two = make_page(server, "Parking is behind the office.\n", title="Parking")
    editor = person(server, "Edna", write=[one, two])
    scribe = agent(server, [editor])
    older = suggest(server, scribe, one, replace("left", "right"), "It moved.")
    newer = suggest(server, scribe, two, replace("behind", "beside"), "It moved too.")
    return editor, [newer, older]


def test_after_a_decision_focus_moves_to_the_next_card_and_a_accepts_it(
    server: Server, visitors: Visitors
) -> None:
    editor, (top, below) = two_waiting(server)
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    expect(cards(page)).to_have_count(2)
    expect(cards(page).first).to_have_id(f"change-{top}")

    card(page, top).get_by_role("button", name="Accept").click()
    decided(page, top)
    expect(card(page, below)).to_be_focused()

    page.keyboard.press("a")
    decided(page, below)
    assert suggestion(server, editor, top)["status"] == "accepted"
    assert suggestion(server, editor, below)["status"] == "accepted"


# 11. The keyboard ----------------------------------------------------------------------------


def test_j_k_r_v_and_question_mark_review_from_the_keyboard(
    server: Server, visitors: Visitors
) -> None:
    editor, (top, below) = two_waiting(server)
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    expect(cards(page)).to_have_count(2)

    page.keyboard.press("j")
    expect(card(page, top)).to_be_focused()
    page.keyboard.press("j")
    expect(card(page, below)).to_be_focused()
    page.keyboard.press("k")
    expect(card(page, top)).to_be_focused()

    keys = page.locator("#keys")
    expect(keys).to_be_hidden()
    page.keyboard.press("?")
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("next card")

    page.keyboard.press("v")
    expect(card(page, top).locator(".view-rendered")).to_be_visible()
    expect(card(page, top).locator(".view-rendered ins")).to_have_text("beside")
    expect(card(page, top).locator(".view-source")).to_be_hidden()
    page.keyboard.press("v")
    expect(card(page, top).locator(".view-source")).to_be_visible()

    page.keyboard.press("r")
    reason = card(page, top).get_by_label("Reason (optional)")
    expect(reason).to_be_focused()
    page.keyboard.type("It is still behind.")
    page.keyboard.press("Enter")
    decided(page, top)
    expect(card(page, below)).to_be_focused()
    rejected = suggestion(server, editor, top)
    assert (rejected["status"], rejected["decision_reason"]) == ("rejected", "It is still behind.")
    assert suggestion(server, editor, below)["status"] == "pending"


def test_a_keyboard_only_walk_tabs_to_the_first_accept_and_decides_without_the_mouse(
    server: Server, visitors: Visitors
) -> None:
    editor, (top, below) = two_waiting(server)
    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then="/inbox")
    accept = card(page, top).get_by_role("button", name="Accept")
    expect(accept).to_be_visible()

    for _ in range(60):
        page.keyboard.press("Tab")
        if is_focused(accept):
            break
    expect(accept).to_be_focused()
    page.keyboard.press("Enter")
    decided(page, top)
    expect(card(page, below)).to_be_focused()

    reason = card(page, below).get_by_label("Reason (optional)")
    for _ in range(20):
        page.keyboard.press("Tab")
        if is_focused(reason):
            break
    expect(reason).to_be_focused()
    page.keyboard.type("Parking stays behind.")
    page.keyboard.press("Enter")
    decided(page, below)
    assert suggestion(server, editor, top)["status"] == "accepted"
    assert suggestion(server, editor, below)["status"] == "rejected"


# 12. The page's note and its list ------------------------------------------------------------


def test_the_pages_note_opens_its_suggestions_and_deciding_one_there_leaves_the_others(
    server: Server, visitors: Visitors
) -> None:
    body = "Red is for errors.\n\nGreen is for success.\n\nBlue is for links.\n"
    address = make_page(server, body, title="Colours")
    editor = person(server, "Edna", write=[address])
    scribe = agent(server, [editor])
    red = suggest(server, scribe, address, replace("for errors", "for failures"), "Plainer.")
    green = suggest(server, scribe, address, replace("for success", "for done"), "Shorter.")
    blue = suggest(server, scribe, address, replace("for links", "for anchors"), "Precise.")
    listed = f"/suggestions/{path_of(address)}"

    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, editor, then=f"/p/{path_of(address)}")
    note = page.get_by_role("link", name="Review 3 suggested changes waiting on this page")
    note.click()
    expect(page).to_have_url(server.base + listed)
    for each in (red, green, blue):
        expect(card(page, each).get_by_role("button", name="Accept")).to_be_visible()

    card(page, red).get_by_label("Reason (optional)").fill("Errors is the word we use.")
    card(page, red).get_by_role("button", name="Reject").click()
    decided(page, red)
    expect(page).to_have_url(server.base + listed)
    for each in (green, blue):
        expect(card(page, each).get_by_role("button", name="Accept")).to_be_visible()

    bare = visitors.open(width=DESKTOP, javascript=False).page
    sign_in(bare, server, editor, then=listed)
    expect(bare.locator("#waiting-h .count")).to_have_text("2")
    card(bare, green).get_by_role("button", name="Accept").click()
    expect(bare).to_have_url(server.base + listed)
    expect(bare.locator("#waiting-h .count")).to_have_text("1")
    waiting = bare.locator("section[aria-labelledby='waiting-h']")
    expect(card(waiting, blue).get_by_role("button", name="Accept")).to_be_visible()
    expect(card(waiting, green)).to_have_count(0)
    done = bare.locator("section[aria-labelledby='decided-h']")
    expect(card(done, green).locator(".status")).to_contain_text("accepted")
    expect(card(done, red).locator(".status")).to_contain_text("rejected")
    assert suggestion(server, editor, blue)["status"] == "pending"


# 13. My suggestions --------------------------------------------------------------------------


def test_my_suggestions_shows_each_status_and_withdraws(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    ada = admin(server)
    body = "One.\n\nTwo.\n\nThree.\n\nFour.\n\nFive.\n\nSix.\n"
    address = make_page(server, body, title="Numbers")
    suggester = person(server, "Pat")
    pending = suggest(server, suggester, address, replace("One.", "Uno."), "Spanish one.")
    accepted = suggest(server, suggester, address, replace("Two.", "Dos."), "Spanish two.")
    rejected = suggest(server, suggester, address, replace("Three.", "Tres."), "Spanish three.")
    withdrawn = suggest(server, suggester, address, replace("Four.", "Cuatro."), "Spanish four.")
    reverted = suggest(server, suggester, address, replace("Five.", "Cinco."), "Spanish five.")
    to_withdraw = suggest(server, suggester, address, replace("Six.", "Seis."), "Spanish six.")
    decide(server, ada, accepted, "accept")  # version 2
    decide(server, ada, rejected, "reject", "We write in English.")
    call(server, suggester, f"/api/v1/suggestions/{withdrawn}/withdraw", {})
    decide(server, ada, reverted, "accept")  # version 3
    call(server, ada, "/api/v1/page/revert", {"address": address, "version": 3})  # version 4

    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, suggester, then="/inbox/mine")
    for width in widths(page):
        expect(page.locator("h1")).to_have_text("My suggestions")
        expect(card(page, pending).locator(".status")).to_have_text("Status: waiting")
        expect(card(page, pending).get_by_role("button", name="Withdraw")).to_be_visible()
        expect(card(page, accepted).locator(".status")).to_have_text(
            "Status: accepted by Admin in version 2"
        )
        expect(card(page, rejected).locator(".status")).to_have_text(
            "Status: rejected by Admin: “We write in English.”"
        )
        expect(card(page, withdrawn).locator(".status")).to_have_text("Status: withdrawn")
        expect(card(page, reverted).locator(".status")).to_have_text(
            "Status: accepted by Admin in version 3, reverted in version 4"
        )
        for settled in (accepted, rejected, withdrawn, reverted):
            expect(card(page, settled).get_by_role("button", name="Withdraw")).to_have_count(0)
        assert overflowing(page.locator("main")) == []
        shot(page, tmp_path, "my-suggestions", width)

    card(page, pending).get_by_role("button", name="Withdraw").click()
    decided(page, pending)
    expect(card(page, pending)).to_contain_text("is withdrawn")
    expect(page).to_have_url(f"{server.base}/inbox/mine")
    assert suggestion(server, suggester, pending)["status"] == "withdrawn"

    bare = visitors.open(width=PHONE, javascript=False).page
    sign_in(bare, server, suggester, then="/inbox/mine")
    card(bare, to_withdraw).get_by_role("button", name="Withdraw").click()
    expect(bare).to_have_url(f"{server.base}/inbox/mine")
    expect(card(bare, to_withdraw).locator(".status")).to_have_text("Status: withdrawn")
    expect(card(bare, to_withdraw).get_by_role("button", name="Withdraw")).to_have_count(0)


# 14. A decision names the suggestion ---------------------------------------------------------


def test_a_decision_names_the_suggestion_and_is_new_the_first_time_the_inbox_shows_it(
    server: Server, visitors: Visitors
) -> None:
    address = make_page(server, "We ship on Friday.\n", title="Release")
    editor = person(server, "Edna", write=[address])
    suggester = person(server, "Pat")
    made = suggest(server, suggester, address, replace("on Friday", "on Monday"), "A holiday.")
    decide(server, editor, made, "reject", "We ship before the holiday.")

    page = visitors.open(width=DESKTOP).page
    sign_in(page, server, suggester, then=f"/p/{path_of(address)}")
    badge = page.locator("#inbox-count")
    expect(badge).to_have_text("1")

    page.goto(f"{server.base}/inbox")
    decision = page.locator("ul.decisions > li")
    expect(decision).to_have_count(1)
    expect(decision).to_contain_text(
        f"Your suggested change on {address}, “A holiday.”: "
        "rejected by Edna: “We ship before the holiday.”"
    )
    expect(decision.locator(".new")).to_have_text("New")
    expect(badge).to_have_text("")  # shown now: the badge no longer counts it

    page.reload()
    expect(decision).to_have_count(1)
    expect(decision).to_contain_text("rejected by Edna: “We ship before the holiday.”")
    expect(decision.locator(".new")).to_have_count(0)
    expect(page.get_by_text("New", exact=True)).to_have_count(0)
    expect(badge).to_have_text("")
