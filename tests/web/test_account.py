"""The account page: a person's name, password, tokens and sessions, each changed by a form
that says what it did on the page it goes back to, or shows the refusal beside the form."""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from codna.services.members import members, tokens
from codna.storage.schema import sign_in_failures
from tests.conftest import PASSWORD, ROLES, InProcessServer
from tests.web.conftest import browser, csrf_of


def _person(app: InProcessServer, name: str = "Pat") -> str:
    """A new person with PASSWORD, made by the admin; their e-mail."""
    email = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.com"
    admin = members.member_by_handle(ROLES["admin"])
    members.add_person(admin, email=email, name=name, password=PASSWORD)
    return email


@contextmanager
def signed_in_as(
    app: InProcessServer, email: str, password: str = PASSWORD
) -> Iterator[httpx.Client]:
    with browser(app) as client:
        answer = client.post(
            "/sign-in",
            data={"email": email, "password": password, "csrf": csrf_of(client.get("/"))},
        )
        assert answer.status_code == 303, answer.text
        yield client


def said_on(page: httpx.Response) -> str:
    """The sentence a page says after a form, as a person reads it."""
    found = re.search(r'<p class="said" role="status">(.*?)</p>', page.text)
    assert found, page.text[:2000]
    return html.unescape(found.group(1))


def _said(answer: httpx.Response, client: httpx.Client) -> str:
    """The sentence a form's redirect back to the page shows on it."""
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/account"
    return said_on(client.get("/account"))


def test_the_page_shows_who_one_is_and_is_never_cached(app: InProcessServer) -> None:
    email = _person(app, "Quinn")
    with signed_in_as(app, email) as client:
        page = client.get("/account")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert "<dd>Quinn</dd>" in page.text and f"<code>{email}</code>" in page.text
    assert "<dd>person</dd>" in page.text


def test_a_person_changes_their_name_and_is_told_so(app: InProcessServer) -> None:
    email = _person(app)
    with signed_in_as(app, email) as client:
        token = csrf_of(client.get("/account"))
        done = client.post("/account/name", data={"name": "Pat Lee", "csrf": token})
        assert _said(done, client) == "Your name is now Pat Lee."
        page = client.get("/account").text
        assert 'class="said"' not in page  # said once
        assert "<dd>Pat Lee</dd>" in page
        refused = client.post("/account/name", data={"name": " ", "csrf": token})
    assert refused.status_code == 422
    assert 'id="name-error">A name has 1 to 200 characters.' in refused.text
    assert 'aria-describedby="name-error"' in refused.text


def test_changing_the_password_keeps_this_session_and_ends_the_others(
    app: InProcessServer,
) -> None:
    email = _person(app)
    with signed_in_as(app, email) as here, signed_in_as(app, email) as elsewhere:
        token = csrf_of(here.get("/account"))
        form = {"current": PASSWORD, "password": "a new secret", "again": "a new secret"}
        done = here.post("/account/password", data={**form, "csrf": token})
        assert (
            _said(done, here)
            == "Your password is changed; 1 other session ended, and this one stays."
        )
        assert here.get("/account").status_code == 200
        assert elsewhere.get("/account").status_code == 303  # to sign in again
    with signed_in_as(app, email, "a new secret") as again:
        assert again.get("/account").status_code == 200
    with browser(app) as stranger:
        old = stranger.post(
            "/sign-in",
            data={"email": email, "password": PASSWORD, "csrf": csrf_of(stranger.get("/"))},
        )
    assert old.status_code == 401


def test_a_wrong_current_password_is_refused_beside_the_form_then_throttled(
    app: InProcessServer,
) -> None:
    email = _person(app)
    try:
        _refused_then_throttled(app, email)
    finally:  # the failures counted against this client's address go, for the other tests
        with app.database.write() as conn:
            conn.execute(sign_in_failures.delete().where(sign_in_failures.c.email == email))


def _refused_then_throttled(app: InProcessServer, email: str) -> None:
    with signed_in_as(app, email) as client:
        token = csrf_of(client.get("/account"))
        form = {"current": "a guess", "password": "a new secret", "again": "a new secret"}
        refused = client.post("/account/password", data={**form, "csrf": token})
        assert refused.status_code == 422
        assert 'id="password-error">The current password is wrong; nothing was changed.' in (
            refused.text
        )
        for _ in range(4):  # the free failures of an e-mail, as signing in counts them
            client.post("/account/password", data={**form, "csrf": token})
        throttled = client.post(
            "/account/password", data={**form, "current": PASSWORD, "csrf": token}
        )
        assert throttled.status_code == 429
        assert re.search(r"Too many wrong passwords; retry in \d+ s\.", throttled.text)
        mismatch = client.post(
            "/account/password",
            data={
                "current": PASSWORD,
                "password": "a new secret",
                "again": "another",
                "csrf": token,
            },
        )
    assert mismatch.status_code == 422 and "type the same one twice" in mismatch.text


def test_a_person_revokes_their_own_token_and_no_one_elses(app: InProcessServer) -> None:
    email = _person(app)
    admin = members.member_by_handle(ROLES["admin"])
    mine = tokens.create_token(admin, member=email, name="laptop")
    theirs = tokens.create_token(admin, member=ROLES["reader"], name="not-yours")
    with signed_in_as(app, email) as client:
        page = client.get("/account").text
        assert "laptop" in page and "not-yours" not in page and mine.secret not in page
        token = csrf_of(client.get("/account"))
        other = client.post(
            "/account/tokens/revoke", data={"token_id": theirs.token.id, "csrf": token}
        )
        assert other.status_code == 404
        assert f"There is no token {theirs.token.id}." in other.text
        done = client.post(
            "/account/tokens/revoke", data={"token_id": mine.token.id, "csrf": token}
        )
        assert _said(done, client) == "The token is revoked; the next request with it is refused."
        assert re.search(
            rf'id="token-{mine.token.id}">.*?revoked <time', client.get("/account").text, re.S
        )
    with app.api() as api:
        assert (
            api.get("/api/v1/me", headers={"Authorization": f"Bearer {mine.secret}"}).status_code
            == 401
        )
        assert (
            api.get("/api/v1/me", headers={"Authorization": f"Bearer {theirs.secret}"}).status_code
            == 200
        )


def test_signing_out_everywhere_else_keeps_only_this_browser(app: InProcessServer) -> None:
    email = _person(app)
    with (
        signed_in_as(app, email) as here,
        signed_in_as(app, email) as phone,
        signed_in_as(app, email) as laptop,
    ):
        token = csrf_of(here.get("/account"))
        done = here.post("/account/sessions/end", data={"csrf": token})
        assert (
            _said(done, here)
            == "Signed out everywhere else: 2 other sessions ended; this one stays."
        )
        assert here.get("/account").status_code == 200
        assert phone.get("/account").status_code == 303
        assert laptop.get("/account").status_code == 303


def test_a_form_without_its_token_changes_nothing(app: InProcessServer) -> None:
    email = _person(app, "Robin")
    with signed_in_as(app, email) as client:
        refused = client.post("/account/name", data={"name": "Mallory", "csrf": "forged"})
        assert refused.status_code == 422
        assert "<dd>Robin</dd>" in client.get("/account").text


def test_the_page_needs_signing_in(app: InProcessServer) -> None:
    with browser(app) as client:
        answer = client.get("/account")
    assert answer.status_code == 303 and answer.headers["location"] == "/?next=/account"
