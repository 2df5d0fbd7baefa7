"""Admin in the web UI, in sections (overview, people, agents, sharing, tokens): adding and
editing members and agents, sharing and tokens, by form, each form saying what it did; refused
to anyone but an admin, as the services refuse them."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest

from codna.services.members import members
from tests.conftest import PASSWORD, ROLES, InProcessServer
from tests.web.conftest import browser, csrf_of, signed_in
from tests.web.test_account import said_on

SECTIONS = ["/admin", "/admin/people", "/admin/agents", "/admin/access", "/admin/tokens"]


def _said(answer: httpx.Response, back: str, client: httpx.Client) -> str:
    """The sentence a form's redirect to its section `back` shows on that page."""
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == back
    return said_on(client.get(back))


def _grant_row(html: str, member: str, address: str) -> str:
    """The row of the sharing table for what `member` has on `address`."""
    found = re.search(
        rf'<tr><td data-label="Member"><code>{re.escape(member)}</code></td>'
        rf'<td data-label="Address"><code>{re.escape(address)}</code>.*?</tr>',
        html,
        re.S,
    )
    assert found, html[:3000]
    return found.group(0)


def _email(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}@example.com"


def test_an_admin_adds_a_person_and_an_agent_and_shares_a_folder(app: InProcessServer) -> None:
    email, agent = _email("pat"), f"tidier-{uuid.uuid4().hex[:6]}"
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin"))
        made = admin.post(
            "/admin/people",
            data={"email": email, "name": "Pat", "password": "long enough pw", "csrf": token},
        )
        assert _said(made, "/admin/people", admin) == f"Pat ({email}) is added."
        added = admin.post(
            "/admin/agents", data={"name": agent, "responsible": email, "csrf": token}
        )
        assert _said(added, "/admin/agents", admin) == f"The agent {agent} is added."
        shared = admin.post(
            "/admin/grants",
            data={"address": "wiki:team/", "handle": agent, "level": "read", "csrf": token},
        )
        assert _said(shared, "/admin/access", admin) == f"{agent} has read on wiki:team/."
        people = admin.get("/admin/people").text
        agents = admin.get("/admin/agents").text
        sharing = admin.get("/admin/access").text
        overview = admin.get("/admin").text
    assert f"Pat ({email}) is added." not in people  # said once, on the page after the form
    assert f"<code>{email}</code>" in people and f"<code>{agent}</code>" in agents
    assert '<option value="read" selected>' in _grant_row(sharing, agent, "wiki:team/")
    assert f"<code>{agent}</code>" in overview and f"<code>{email}</code>" in overview


def test_each_section_has_the_sub_navigation_with_its_own_link_current(
    app: InProcessServer,
) -> None:
    with signed_in(app, "admin") as admin:
        for path in [*SECTIONS, "/automations"]:
            page = admin.get(path)
            assert page.status_code == 200, path
            assert '<nav class="subnav" aria-label="Admin sections">' in page.text
            assert re.findall(r'<a href="([^"]+)" aria-current="page">', page.text) == [path]
            assert '<link rel="stylesheet" href="/static/admin.css">' in page.text
        overview = admin.get("/admin").text
    assert re.search(r"<strong>\d+</strong> people</a>", overview)
    assert 'href="/admin/tokens"' in overview and 'href="/automations"' in overview


def test_someone_not_an_admin_sees_automations_without_the_admin_navigation(
    app: InProcessServer,
) -> None:
    with signed_in(app, "writer") as writer:
        page = writer.get("/automations")
    assert page.status_code == 200 and "Admin sections" not in page.text


def test_an_admin_edits_a_person_and_is_refused_an_e_mail_taken(app: InProcessServer) -> None:
    email, renamed = _email("lee"), _email("lee-new")
    admin_member = members.member_by_handle(ROLES["admin"])
    members.add_person(admin_member, email=email, name="Lee", password=PASSWORD)
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin/people"))
        form = {"handle": email, "name": "Lee Chan", "email": renamed, "csrf": token}
        saved = admin.post("/admin/people/edit", data={**form, "admin": "true"})
        assert _said(saved, "/admin/people", admin) == f"Lee Chan ({renamed}) is saved, an admin."
        shown = admin.get("/admin/people").text
        assert shown.count('<a href="/account#password-h">') == 1  # one's own, on one's account
        assert re.search(
            rf"Lee Chan</strong>\s*<code>{renamed}</code>\s*<span class=\"tag\">admin", shown
        )
        demoted = admin.post("/admin/people/edit", data={**form, "handle": renamed})
        assert (
            _said(demoted, "/admin/people", admin)
            == f"Lee Chan ({renamed}) is saved, not an admin."
        )
        taken = admin.post(
            "/admin/people/edit", data={**form, "handle": renamed, "email": ROLES["reader"]}
        )
    assert taken.status_code == 409
    assert re.search(
        r'<div class="refused" role="alert"><p class="error" id="section-error">'
        rf"A member with the e-mail {ROLES['reader']} already exists.</p>",
        taken.text,
    )
    assert '<a href="/admin/people" aria-current="page">' in taken.text


def test_an_admin_resets_a_password_and_the_persons_sessions_end(app: InProcessServer) -> None:
    email = _email("sky")
    admin_member = members.member_by_handle(ROLES["admin"])
    members.add_person(admin_member, email=email, name="Sky", password=PASSWORD)
    with browser(app) as person:
        signed = person.post(
            "/sign-in",
            data={"email": email, "password": PASSWORD, "csrf": csrf_of(person.get("/"))},
        )
        assert signed.status_code == 303
        assert person.get("/account").status_code == 200
        with signed_in(app, "admin") as admin:
            token = csrf_of(admin.get("/admin/people"))
            form = {"handle": email, "password": "set by the admin", "csrf": token}
            reset = admin.post("/admin/people/password", data=form)
            assert _said(reset, "/admin/people", admin) == (
                f"The password of {email} is set; 1 session of theirs ended."
            )
            short = admin.post("/admin/people/password", data={**form, "password": "short"})
            assert short.status_code == 422 and "at least 8 characters" in short.text
        assert person.get("/account").status_code == 303
        again = person.post(
            "/sign-in",
            data={"email": email, "password": "set by the admin", "csrf": csrf_of(person.get("/"))},
        )
        assert again.status_code == 303


def test_an_admin_renames_an_agent_and_changes_its_people(app: InProcessServer) -> None:
    agent = f"bot-{uuid.uuid4().hex[:6]}"
    admin_member = members.member_by_handle(ROLES["admin"])
    members.add_agent(admin_member, name=agent, responsible=[ROLES["writer"]])
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin/agents"))
        form = {"handle": agent, "name": f"{agent}-2", "csrf": token}
        people = f"{ROLES['reader']}, {ROLES['writer']}"
        saved = admin.post("/admin/agents/edit", data={**form, "responsible": people})
        assert _said(saved, "/admin/agents", admin) == (
            f"The agent {agent}-2 is saved, {people} responsible for it."
        )
        assert f"responsible: {people}" in admin.get("/admin/agents").text
        nobody = admin.post("/admin/agents/edit", data={**form, "handle": f"{agent}-2"})
    assert nobody.status_code == 422
    assert "Name at least one person responsible for the agent." in nobody.text


def test_an_admin_changes_a_grants_level_and_enables_a_member_again(
    app: InProcessServer,
) -> None:
    email = _email("kim")
    admin_member = members.member_by_handle(ROLES["admin"])
    members.add_person(admin_member, email=email, name="Kim", password=PASSWORD)
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin/access"))
        grant = {"address": "wiki:kim/", "handle": email, "csrf": token}
        admin.post("/admin/grants", data={**grant, "level": "read"})
        changed = admin.post("/admin/grants", data={**grant, "level": "write"})
        assert _said(changed, "/admin/access", admin) == f"{email} has write on wiki:kim/."
        sharing = admin.get("/admin/access").text
        assert '<option value="write" selected>' in _grant_row(sharing, email, "wiki:kim/")
        off = {"handle": email, "csrf": token}
        disabled = admin.post("/admin/disabled", data={**off, "disabled": "true"})
        assert _said(disabled, "/admin/people", admin) == (
            f"{email} is disabled: signed out, and their tokens refused."
        )
        assert re.search(
            rf"{re.escape(email)}</code>\s*<span class=\"tag off\">disabled",
            admin.get("/admin/people").text,
        )
        enabled = admin.post("/admin/disabled", data={**off, "back": "/admin/agents"})
        assert _said(enabled, "/admin/agents", admin) == f"{email} is enabled again."
        elsewhere = admin.post("/admin/disabled", data={**off, "back": "https://evil.example/"})
        assert _said(elsewhere, "/admin/people", admin) == f"{email} is enabled again."


def test_a_new_token_is_shown_once_and_can_be_revoked(app: InProcessServer) -> None:
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin/tokens"))
        made = admin.post(
            "/admin/tokens", data={"handle": "checker", "name": "from-the-web", "csrf": token}
        )
        assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
        secret = re.search(r'id="secret" readonly value="([^"]+)"', made.text)
        assert secret
        with app.api() as api:
            bearer = {"Authorization": f"Bearer {secret.group(1)}"}
            assert api.get("/api/v1/me", headers=bearer).status_code == 200
            listing = admin.get("/admin/tokens").text
            assert secret.group(1) not in listing
            [token_id] = re.findall(
                r'from-the-web</td>.*?name="token_id" value="(\d+)"', listing, re.S
            )[:1]
            revoked = admin.post("/admin/tokens/revoke", data={"token_id": token_id, "csrf": token})
            assert _said(revoked, "/admin/tokens", admin) == (
                f"Token {token_id} is revoked; the next request with it is refused."
            )
            assert api.get("/api/v1/me", headers=bearer).status_code == 401
        nobody = admin.post("/admin/tokens", data={"handle": "nobody@example.com", "csrf": token})
    assert nobody.status_code == 404 and "There is no member nobody@example.com." in nobody.text


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/admin/people", {"email": "mallory@example.com", "name": "M"}),
        (
            "/admin/people/edit",
            {"handle": ROLES["admin"], "name": "M", "email": "mallory@example.com"},
        ),
        ("/admin/people/password", {"handle": ROLES["admin"], "password": "taken over!"}),
        (
            "/admin/agents/edit",
            {"handle": "checker", "name": "mine", "responsible": ROLES["writer"]},
        ),
    ],
)
def test_anyone_but_an_admin_is_refused_and_changes_nothing(
    app: InProcessServer, path: str, form: dict[str, str]
) -> None:
    with signed_in(app, "writer") as writer:
        for section in SECTIONS:
            assert writer.get(section).status_code == 403, section
        token = csrf_of(writer.get("/p/wiki/"))
        refused = writer.post(path, data={**form, "csrf": token})
        assert refused.status_code == 403
    with signed_in(app, "admin") as admin:
        assert "mallory@example.com" not in admin.get("/admin/people").text
        assert "checker" in admin.get("/admin/agents").text
