"""Tokens on the JSON API and on MCP's HTTP endpoint: a missing, wrong or misplaced token gets
401, every described operation refuses a call without one, and a revoked token is refused on
the very next request."""

from __future__ import annotations

import re

from tests.conftest import InProcessServer, error_body

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def test_a_missing_a_wrong_or_a_query_string_token_gets_401(app: InProcessServer) -> None:
    good = app.token("reader")
    attempts = {
        "no token": ({}, {}),
        "a wrong token": ({"Authorization": "Bearer codna_wrong-wrong-wrong"}, {}),
        "a token without our prefix": ({"Authorization": "Bearer abc"}, {}),
        "a good token as Basic": ({"Authorization": f"Basic {good}"}, {}),
        "a good token in the query string": ({}, {"token": good, "access_token": good}),
    }
    with app.api() as client:
        for what, (headers, params) in attempts.items():
            for method, path in (("GET", "/api/v1/me"), ("POST", "/api/v1/page/edit")):
                answer = client.request(method, path, headers=headers, params=params, json={})
                body = error_body(answer, 401, "unauthenticated")
                assert answer.headers["www-authenticate"].lower().startswith("bearer"), what
                assert good not in body["message"], what
        assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {good}"}).is_success


def test_a_wrong_token_gets_401_before_anything_is_said_of_a_malformed_request(
    app: InProcessServer,
) -> None:
    wrong = {"Authorization": "Bearer codna_wrong-wrong-wrong"}
    with app.api() as client:
        malformed = {
            "a query without its address": client.get("/api/v1/page", headers=wrong),
            "a body that is not JSON": client.post(
                "/api/v1/page/edit",
                headers={**wrong, "Content-Type": "application/json"},
                content=b"{not json",
            ),
            "a body of the wrong shape": client.post(
                "/api/v1/pages", headers=wrong, json={"address": 7, "extra": True}
            ),
        }
        for what, answer in malformed.items():
            body = error_body(answer, 401, "unauthenticated")
            assert "address" not in body["message"], what
        good = {"Authorization": f"Bearer {app.token('reader')}"}
        error_body(client.get("/api/v1/page", headers=good), 422, "invalid_request")


def test_every_operation_in_the_description_refuses_a_call_without_a_token_with_401(
    app: InProcessServer,
) -> None:
    with app.api() as anonymous:
        described = anonymous.get("/api/openapi.json").json()
        assert len(described["paths"]) >= 25
        refused = []
        for path, operations in described["paths"].items():
            for method in operations:
                url = re.sub(r"\{[^}]+\}", "1", path)
                answer = anonymous.request(
                    method.upper(), url, json={} if method == "post" else None
                )
                if answer.status_code != 401 or answer.json()["code"] != "unauthenticated":
                    refused.append(f"{method.upper()} {path}: {answer.status_code} {answer.text}")
    assert not refused, "\n".join(refused)


def test_mcp_without_a_valid_token_is_refused_with_401(app: InProcessServer) -> None:
    with app.api() as client:
        for auth in ({}, {"Authorization": "Bearer codna_not-a-real-token"}):
            answer = client.post("/mcp", json=TOOLS_LIST, headers=MCP_HEADERS | auth)
            assert answer.status_code == 401, answer.text
            assert answer.headers["www-authenticate"].lower().startswith("bearer")


def revoke(app: InProcessServer, name: str) -> None:
    """Revoke the spare token `name` as the admin, through the API."""
    with app.api("admin") as admin:
        token_id = app.workspace.token_ids[name]
        revoked = admin.post("/api/v1/tokens/revoke", json={"token_id": token_id})
        assert revoked.status_code == 200, revoked.text
        listed = admin.get("/api/v1/tokens", params={"owner": "wanda@example.com"}).json()
    assert [t["revoked"] for t in listed if t["name"] == name] == [True]


def test_a_revoked_token_is_refused_on_the_very_next_api_request(app: InProcessServer) -> None:
    with app.api("revoke-api") as client:
        assert client.get("/api/v1/me").status_code == 200
        revoke(app, "revoke-api")
        error_body(client.get("/api/v1/me"), 401, "unauthenticated")
        error_body(client.post("/api/v1/page/edit", json={}), 401, "unauthenticated")


def test_a_revoked_token_is_refused_on_the_very_next_mcp_request(app: InProcessServer) -> None:
    with app.api("revoke-mcp") as client:
        listed = client.post("/mcp", json=TOOLS_LIST, headers=MCP_HEADERS)
        assert listed.status_code == 200 and "read_document" in listed.text, listed.text
        revoke(app, "revoke-mcp")
        refused = client.post("/mcp", json=TOOLS_LIST, headers=MCP_HEADERS)
        assert refused.status_code == 401, refused.text
        assert refused.headers["www-authenticate"].lower().startswith("bearer")
