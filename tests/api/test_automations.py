"""Automations through the JSON API: added by a member for a folder they can read, listed by
their makers (all by an admin), disabled by their maker or an admin and not there for anyone
else; refusals as every refusal is answered."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from codna.services.events import automations
from tests.conftest import InProcessServer, error_body, unique

ROUTINE = "api-check"


@pytest.fixture(autouse=True)
def known_routine() -> None:
    automations.register_routine(ROUTINE)


def add(app: InProcessServer, role: str, **body: str) -> httpx.Response:
    given = {"event": "document.created", "folder": unique("wiki:auto-") + "/", **body}
    given.setdefault("routine", ROUTINE)
    with app.api(role) as client:
        return client.post("/api/v1/automations", json=given)


def listed(app: InProcessServer, role: str) -> list[dict[str, Any]]:
    with app.api(role) as client:
        answer = client.get("/api/v1/automations")
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def disable(app: InProcessServer, role: str, automation_id: int) -> httpx.Response:
    with app.api(role) as client:
        return client.post(f"/api/v1/automations/{automation_id}/disable")


def test_an_automation_is_added_listed_and_disabled_over_the_api(app: InProcessServer) -> None:
    made = add(app, "writer", folder="wiki:decisions/")
    assert made.status_code == 201, made.text
    body = made.json()
    assert {k: body[k] for k in ("event", "folder", "routine", "member", "disabled_at")} == {
        "event": "document.created",
        "folder": "wiki:decisions/",
        "routine": ROUTINE,
        "member": "wanda@example.com",
        "disabled_at": None,
    }
    assert body["id"] in [a["id"] for a in listed(app, "writer")]
    assert body["id"] in [a["id"] for a in listed(app, "admin")]
    assert body["id"] not in [a["id"] for a in listed(app, "reader")]

    off = disable(app, "writer", body["id"])
    assert off.status_code == 200, off.text
    assert off.json()["disabled_at"] is not None


def test_someone_elses_automation_is_not_found_to_others_but_an_admin_disables_it(
    app: InProcessServer,
) -> None:
    made = add(app, "writer").json()
    for role in ("reader", "stranger", "agent"):
        error_body(disable(app, role, made["id"]), 404, "not_found")
    assert disable(app, "admin", made["id"]).status_code == 200
    error_body(disable(app, "admin", 2**40), 404, "not_found")


# One case per status: every refusal of the rules is tested in
# tests/services/events/test_automations.py; here, how the API answers each kind.
@pytest.mark.parametrize(
    ("role", "body", "status", "code"),
    [
        ("writer", {"routine": "not-installed"}, 422, "invalid_request"),
        ("stranger", {}, 404, "not_found"),
        ("agent", {}, 403, "read_only"),
    ],
    ids=["an unknown routine", "unreadable", "an agent"],
)
def test_a_refused_automation_is_answered_with_its_code_and_sentence(
    app: InProcessServer, role: str, body: dict[str, str], status: int, code: str
) -> None:
    error_body(add(app, role, **body), status, code)


def test_automations_need_a_token(app: InProcessServer) -> None:
    with app.api() as client:
        error_body(client.get("/api/v1/automations"), 401, "unauthenticated")
        error_body(client.post("/api/v1/automations/1/disable"), 401, "unauthenticated")
