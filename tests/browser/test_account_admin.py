"""The account page and the admin's sections in a real browser, at desktop and phone widths: a
person changes their name and password (and signs in with the new one), revokes a token and
signs out everywhere else; an admin edits that person and sets their password, which ends their
session. Each form says what it did; axe finds nothing on the account page or any admin section,
and no page is wider than the screen.

The forms are worked once per engine, at phone width (the narrower screen, where a control is
likelier to be out of reach); at each point where a page is checked, the same page is resized to
desktop width and checked there too, then back. Each round has a person of its own, made
through the services, so nothing another test made is changed.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from codna.services.context import use_database
from codna.services.members import members, tokens
from codna.storage.database import Database
from tests.browser.axe import assert_accessible, with_axe
from tests.browser.conftest import Visitors, screenshot, sign_in
from tests.conftest import PASSWORD, ROLES
from tests.server.conftest import Server

DESKTOP = 1280
PHONE = 375
SECTIONS = ("/admin", "/admin/people", "/admin/agents", "/admin/access", "/admin/tokens")


def _person(server: Server, name: str) -> tuple[str, int]:
    """A new person with PASSWORD and a token named "laptop": their e-mail and its id."""
    email = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.com"
    database = Database(server.workspace.url)
    use_database(database)
    try:
        admin = members.member_by_handle(ROLES["admin"])
        members.add_person(admin, email=email, name=name, password=PASSWORD)
        made = tokens.create_token(admin, member=email, name="laptop")
    finally:
        use_database(None)
        database.dispose()
    return email, made.token.id


def _sign_in_as(page: Page, server: Server, email: str, password: str) -> None:
    page.goto(f"{server.base}/?next=/account")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url == f"{server.base}/account", page.url


def _said(page: Page, sentence: str | re.Pattern[str]) -> None:
    expect(page.locator("p.said[role=status]")).to_have_text(sentence)


def _fits(page: Page, width: int) -> None:
    """Nothing on the page is wider than the screen: no sideways scrolling."""
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{page.url} is {wide} px wide at {width} px"


def _at_both_widths(page: Page, where: str, *, axe: bool = True, fits: bool = True) -> None:
    """Check the page as it is at desktop width, then at phone width, where it stays."""
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 800})
        if axe:
            assert_accessible(page, f"{where} at {width} px")
        if fits:
            _fits(page, width)


def _desktop_screenshot(page: Page, folder: Path, name: str) -> None:
    page.set_viewport_size({"width": DESKTOP, "height": 800})
    screenshot(page, folder, name)
    page.set_viewport_size({"width": PHONE, "height": 800})


def test_a_person_and_an_admin_manage_accounts_at_desktop_and_phone(
    server: Server, visitors: Visitors, tmp_path: Path
) -> None:
    """Each form worked at phone width; each check made at desktop and phone widths."""
    email, token_id = _person(server, "Noor")
    watched = visitors.open(width=PHONE, height=800)
    person = with_axe(watched.page)
    elsewhere = visitors.open(width=PHONE, height=800).page
    _sign_in_as(person, server, email, PASSWORD)
    _sign_in_as(elsewhere, server, email, PASSWORD)
    expect(person.get_by_role("heading", level=1)).to_have_text("Your account")
    _at_both_widths(person, "/account")

    person.get_by_label("Name, as others see it").fill("Noor Haddad")
    person.get_by_role("button", name="Save the name").click()
    _said(person, "Your name is now Noor Haddad.")
    expect(person.locator(".facts dd").first).to_have_text("Noor Haddad")

    person.get_by_label("Current password").fill("not my password")
    person.get_by_label("New password", exact=True).fill("brand new secret")
    person.get_by_label("New password again").fill("brand new secret")
    person.get_by_role("button", name="Change the password").click()
    expect(person.get_by_role("alert")).to_have_text(
        "The current password is wrong; nothing was changed."
    )
    _at_both_widths(person, "/account with a refusal", fits=False)
    # The refusal's page comes with its status, which Chromium logs; only that is expected.
    refused = [e for e in watched.errors if "status of 422" in e and "/account/password" in e]
    assert len(refused) == 1, watched.errors
    watched.errors.remove(refused[0])
    person.get_by_label("Current password").fill(PASSWORD)
    person.get_by_label("New password", exact=True).fill("brand new secret")
    person.get_by_label("New password again").fill("brand new secret")
    person.get_by_role("button", name="Change the password").click()
    _said(person, "Your password is changed; 1 other session ended, and this one stays.")
    elsewhere.reload()
    assert "/?next=" in elsewhere.url, elsewhere.url  # the other session has ended

    row = person.locator(f"#token-{token_id}")
    row.get_by_role("button", name=re.compile("^Revoke the token laptop")).click()
    _said(person, "The token is revoked; the next request with it is refused.")
    expect(person.locator(f"#token-{token_id}")).to_contain_text("revoked")

    _sign_in_as(elsewhere, server, email, "brand new secret")  # the new one works
    person.get_by_role("button", name="Sign out everywhere else").click()
    _said(person, "Signed out everywhere else: 1 other session ended; this one stays.")
    elsewhere.reload()
    assert "/?next=" in elsewhere.url, elsewhere.url
    _at_both_widths(person, "/account, everything done", axe=False)
    _desktop_screenshot(person, tmp_path, "account")

    admin = with_axe(visitors.open(width=PHONE, height=800).page)
    sign_in(admin, server, "admin")
    for section in SECTIONS:
        admin.goto(f"{server.base}{section}")
        expect(admin.locator('.subnav a[aria-current="page"]')).to_have_attribute("href", section)
        _at_both_widths(admin, section)

    admin.goto(f"{server.base}/admin/people")
    card = admin.locator(".member", has=admin.locator(f"code:text-is('{email}')"))
    card.locator("summary", has_text="Edit").click()
    card.get_by_label("Name", exact=True).fill("Noor H.")
    _at_both_widths(admin, "/admin/people with a form open")
    card.get_by_role("button", name="Save Noor Haddad").click()
    _said(admin, f"Noor H. ({email}) is saved, not an admin.")

    card = admin.locator(".member", has=admin.locator(f"code:text-is('{email}')"))
    card.locator("summary", has_text="Set a password").click()
    card.get_by_label("New password for Noor H.").fill("set by the admin")
    _desktop_screenshot(admin, tmp_path, "admin")
    card.get_by_role("button", name="Set the password").click()
    _said(admin, f"The password of {email} is set; 1 session of theirs ended.")
    person.reload()
    assert "/?next=" in person.url, person.url  # the reset ended the person's session
    _sign_in_as(person, server, email, "set by the admin")
    expect(person.locator(".facts dd").first).to_have_text("Noor H.")
