"""The record of grant changes over the JSON API and on the admin web page, in process on both
databases: who changed which grant and when, read as the services allow; taking a grant back
refused as the services refuse it."""

from __future__ import annotations

from typing import Any

from tests.conftest import InProcessServer, error_body, unique
from tests.web.conftest import csrf_of, signed_in


def changes(app: InProcessServer, role: str, **params: Any) -> list[dict[str, Any]]:
    with app.api(role) as client:
        answer = client.get("/api/v1/grants/changes", params=params)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def test_each_change_of_a_grant_is_listed_newest_first_with_who_and_when(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:shared-") + "/"
    given = {"address": folder, "member": "sam@example.com"}
    with app.api("writer") as client:
        for level in ("read", "write"):
            made = client.post("/api/v1/grants", json={**given, "level": level})
            assert made.status_code == 200, made.text
        taken = client.post("/api/v1/grants/delete", json=given)
        assert taken.status_code == 200, taken.text
    mine = [c for c in changes(app, "writer") if c["address"] == folder]
    assert [(c["change"], c["before"], c["after"]) for c in mine] == [
        ("taken_back", "write", None),
        ("changed", "read", "write"),
        ("given", None, "read"),
    ]
    assert {(c["changed_by"], c["member"]) for c in mine} == {
        ("wanda@example.com", "sam@example.com")
    }
    assert all(c["changed_at"].endswith(("Z", "+00:00")) for c in mine)
    assert mine == [c for c in changes(app, "admin", limit=500) if c["address"] == folder]
    assert not [c for c in changes(app, "reader") if c["address"] == folder]


def test_taking_back_a_grant_one_could_not_give_is_refused_with_its_code(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:shared-") + "/"
    with app.api("writer") as client:
        client.post(
            "/api/v1/grants", json={"address": folder, "member": "sam@example.com", "level": "read"}
        ).raise_for_status()
    try:
        with app.api("reader") as client:
            refused = client.post(
                "/api/v1/grants/delete", json={"address": folder, "member": "sam@example.com"}
            )
        error_body(refused, 403, "read_only")
        with app.api("stranger") as client:
            hidden = client.post(
                "/api/v1/grants/delete",
                json={"address": unique("wiki:page-"), "member": "sam@example.com"},
            )
        error_body(hidden, 404, "not_found")
    finally:
        with app.api("writer") as client:
            client.post(
                "/api/v1/grants/delete", json={"address": folder, "member": "sam@example.com"}
            ).raise_for_status()


def test_the_changes_need_a_token_and_a_limit_within_bounds(app: InProcessServer) -> None:
    with app.api() as anonymous:
        error_body(anonymous.get("/api/v1/grants/changes"), 401, "unauthenticated")
    with app.api("admin") as client:
        for limit in (0, 501):
            answer = client.get("/api/v1/grants/changes", params={"limit": limit})
            error_body(answer, 422, "invalid_request")


def test_the_admin_page_shows_the_changes_of_grants(app: InProcessServer) -> None:
    folder = unique("wiki:shared-") + "/"
    with signed_in(app, "admin") as admin:
        token = csrf_of(admin.get("/admin"))
        form = {"address": folder, "handle": "checker", "csrf": token}
        assert admin.post("/admin/grants", data={**form, "level": "read"}).status_code == 303
        assert admin.post("/admin/grants/delete", data=form).status_code == 303
        shown = admin.get("/admin").text
    table = shown[shown.index('id="changes-h"') :]
    rows = [row for row in table.split("<tr>") if f"<code>{folder}</code>" in row]
    assert len(rows) == 2
    assert "taken back" in rows[0] and "<td>write</td>" not in rows[0]
    assert "given" in rows[1] and "<code>ada@example.com</code>" in rows[1]
