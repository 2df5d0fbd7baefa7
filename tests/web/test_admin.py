"""Admin in the web UI: members and agents, sharing and tokens, by form; refused to anyone
but an admin, as the services refuse them."""

from __future__ import annotations

import re

from tests.conftest import InProcessServer
from tests.web.conftest import csrf_of, signed_in


def test_an_admin_adds_a_person_and_an_agent_and_shares_a_folder(app: InProcessServer) -> None:
    with signed_in(app, "admin") as admin:
        page = admin.get("/admin")
        token = csrf_of(page)
        made = admin.post(
            "/admin/people",
            data={
                "email": "pat@example.com",
                "name": "Pat",
                "password": "long enough pw",
                "csrf": token,
            },
        )
        assert made.status_code == 303, made.text
        agent = admin.post(
            "/admin/agents",
            data={"name": "tidier", "responsible": "pat@example.com", "csrf": token},
        )
        assert agent.status_code == 303, agent.text
        shared = admin.post(
            "/admin/grants",
            data={"address": "wiki:team/", "handle": "tidier", "level": "read", "csrf": token},
        )
        assert shared.status_code == 303, shared.text
        after = admin.get("/admin").text
    assert "pat@example.com" in after and "tidier" in after
    assert re.search(r"<code>tidier</code></td><td><code>wiki:team/</code></td><td>read", after)


def test_a_new_token_is_shown_once_and_can_be_revoked(app: InProcessServer) -> None:
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin"))
        made = admin.post(
            "/admin/tokens", data={"handle": "checker", "name": "from-the-web", "csrf": token}
        )
        assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
        secret = re.search(r'id="secret" readonly value="([^"]+)"', made.text)
        assert secret
        with app.api() as api:
            bearer = {"Authorization": f"Bearer {secret.group(1)}"}
            assert api.get("/api/v1/me", headers=bearer).status_code == 200
            listing = admin.get("/admin").text
            assert secret.group(1) not in listing
            [token_id] = re.findall(
                r'from-the-web</td>.*?name="token_id" value="(\d+)"', listing, re.S
            )[:1]
            revoked = admin.post("/admin/tokens/revoke", data={"token_id": token_id, "csrf": token})
            assert revoked.status_code == 303
            assert api.get("/api/v1/me", headers=bearer).status_code == 401


def test_anyone_but_an_admin_is_refused_and_changes_nothing(app: InProcessServer) -> None:
    with signed_in(app, "writer") as writer:
        assert writer.get("/admin").status_code == 403
        token = csrf_of(writer.get("/p/wiki/"))
        refused = writer.post(
            "/admin/people", data={"email": "mallory@example.com", "name": "M", "csrf": token}
        )
        assert refused.status_code == 403
    with signed_in(app, "admin") as admin:
        assert "mallory@example.com" not in admin.get("/admin").text
