"""How the JSON API (/api/v1) and MCP (/mcp) answer hostile transports, in process: a request
without an Origin, a token in the query string, several Host or Origin headers, another
member's token; the default bind, password hashing and session cookies.

Already tested elsewhere: a Host not answered (421) and a bad or `null` Origin (403) on both
endpoints (tests/api/test_guards.py); a missing, wrong or query-string token on the API and a
revoked token on both (tests/api/test_tokens.py); HttpOnly and SameSite=Lax on the session
cookie (tests/web/test_signin.py).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from codna.cli.server import serve
from codna.settings import Settings
from tests.conftest import PASSWORD, ROLES, InProcessServer, error_body, unique
from tests.web.conftest import csrf_of

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
BODY = "# Kept\n\nWhat only those with a grant may read.\n"


def read_document(address: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read_document", "arguments": {"address": address}},
    }


def mcp_result(answer: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC result of a stateless MCP call answered as JSON."""
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def post_mcp(
    client: httpx.Client, payload: dict[str, Any], headers: Any = None, **kwargs: Any
) -> httpx.Response:
    sent = httpx.Headers(MCP_HEADERS)
    sent.update(headers or {})
    return client.post("/mcp", json=payload, headers=sent, **kwargs)


# Origin ---------------------------------------------------------------------------------------


def test_a_request_without_an_origin_is_served_as_a_non_browser_client_on_its_token_alone(
    app: InProcessServer,
) -> None:
    # Scripts and agents send no Origin: the guard lets them through, and the token decides.
    with app.api("reader") as reader, app.api() as anonymous:
        assert "origin" not in reader.build_request("GET", "/api/v1/me").headers
        assert reader.get("/api/v1/me").json()["email"] == ROLES["reader"]
        tools = mcp_result(post_mcp(reader, TOOLS_LIST))["tools"]
        assert "read_document" in {tool["name"] for tool in tools}
        error_body(anonymous.get("/api/v1/me"), 401, "unauthenticated")
        assert post_mcp(anonymous, TOOLS_LIST).status_code == 401


def test_several_origins_are_refused_if_any_is_not_allowed(app: InProcessServer) -> None:
    good = f"http://127.0.0.1:{app.port}"
    for path, send in (
        ("/api/v1/me", lambda c, h: c.get("/api/v1/me", headers=h)),
        ("/mcp", lambda c, h: post_mcp(c, TOOLS_LIST, headers=h)),
    ):
        with app.api("reader") as client:
            for origins in ([good, "http://evil.example"], ["http://evil.example", good]):
                headers = [("Origin", origin) for origin in origins]
                error_body(send(client, headers), 403, "bad_origin")
            assert send(client, [("Origin", good)]).status_code == 200, path


# Host -----------------------------------------------------------------------------------------


def test_a_request_with_several_host_headers_is_refused_whichever_comes_first(
    app: InProcessServer,
) -> None:
    good = f"127.0.0.1:{app.port}"
    with app.api("reader") as client:
        for hosts in ([good, "evil.example"], ["evil.example", good], [good, good]):
            headers = [("Host", host) for host in hosts]
            error_body(client.get("/api/v1/me", headers=headers), 400, "bad_host")
            error_body(post_mcp(client, TOOLS_LIST, headers=headers), 400, "bad_host")


def test_a_rebinding_host_is_never_served_whatever_the_method_or_path(
    app: InProcessServer,
) -> None:
    with app.api("reader") as client:
        for method, path in (
            ("GET", "/api/v1/me"),
            ("GET", "/api/openapi.json"),
            ("DELETE", "/mcp"),
            ("GET", "/mcp"),
            ("OPTIONS", "/mcp"),
            ("GET", "/"),
            ("GET", "/static/htmx.min.js"),
        ):
            answer = client.request(method, path, headers={"Host": "evil.example:8080"})
            error_body(answer, 421, "bad_host")


# Tokens ---------------------------------------------------------------------------------------


def test_a_token_in_the_query_string_never_authenticates_mcp(app: InProcessServer) -> None:
    good = app.token("reader")
    with app.api() as client:
        for name in ("token", "access_token", "auth", "bearer"):
            answer = post_mcp(client, TOOLS_LIST, params={name: good})
            assert answer.status_code == 401, (name, answer.text)
            assert answer.headers["www-authenticate"].lower().startswith("bearer")
            assert good not in answer.text
        # Nor beside a wrong token in the header.
        wrong = {"Authorization": "Bearer codna_wrong-wrong-wrong"}
        assert (
            post_mcp(client, TOOLS_LIST, headers=wrong, params={"token": good}).status_code == 401
        )


def test_a_token_acts_as_its_member_only_over_the_api(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY)
    with app.api("reader") as reader, app.api("stranger") as stranger:
        assert reader.get("/api/v1/page", params={"address": address}).status_code == 200
        # Whatever else the request says of who sends it, the stranger's token is the stranger.
        claims: list[tuple[dict[str, str], dict[str, str]]] = [
            ({}, {}),
            ({"X-Codna-As": ROLES["reader"], "X-Forwarded-User": ROLES["reader"]}, {}),
            ({}, {"as": ROLES["reader"], "member": ROLES["reader"]}),
            ({"Cookie": f"codna_session=x; codna_as={ROLES['reader']}"}, {}),
        ]
        for headers, params in claims:
            seen = stranger.get(
                "/api/v1/page", params={"address": address, **params}, headers=headers
            )
            body = error_body(seen, 404, "not_found")
            assert body["message"] == f"There is no page {address}.", body
            assert stranger.get("/api/v1/me", headers=headers).json()["email"] == ROLES["stranger"]
        edit = {"address": address, "edits": [{"op": "append", "text": "Mine."}]}
        error_body(stranger.post("/api/v1/page/edit", json=edit), 404, "not_found")
        error_body(reader.post("/api/v1/page/edit", json=edit), 403, "read_only")
        hits = stranger.get("/api/v1/search", params={"q": "grant"}).json()
        assert address not in json.dumps(hits)


def test_a_token_acts_as_its_member_only_over_mcp(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY)
    with app.api("reader") as reader, app.api("stranger") as stranger:
        read = mcp_result(post_mcp(reader, read_document(address)))
        assert not read.get("isError") and read["structuredContent"]["pages"][0]["body"] == BODY
        for headers in ({}, {"X-Codna-As": ROLES["reader"], "Mcp-Session-Id": "reader"}):
            refused = mcp_result(post_mcp(stranger, read_document(address), headers=headers))
            assert refused["isError"] is True
            assert refused["structuredContent"]["code"] == "not_found"
            assert "only those" not in json.dumps(refused)


def test_two_tokens_in_one_request_are_never_taken_for_either(app: InProcessServer) -> None:
    reader, stranger = app.token("reader"), app.token("stranger")
    with app.api() as client:
        combined = {"Authorization": f"Bearer {stranger}, Bearer {reader}"}
        error_body(client.get("/api/v1/me", headers=combined), 401, "unauthenticated")
        assert post_mcp(client, TOOLS_LIST, headers=combined).status_code == 401
        for first, second in ((stranger, reader), (reader, stranger)):
            headers = [("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")]
            error_body(client.get("/api/v1/me", headers=headers), 400, "invalid_request")
            error_body(post_mcp(client, TOOLS_LIST, headers=headers), 400, "invalid_request")


# The default bind -----------------------------------------------------------------------------


def test_codna_serve_binds_to_loopback_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve.make_context("serve", []) as context:
        assert context.params["host"] == "127.0.0.1"
    for name in ("CODNA_ALLOWED_HOSTS", "CODNA_ALLOWED_ORIGINS", "CODNA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.allowed_hosts == ("127.0.0.1:*", "localhost:*", "[::1]:*")
    assert settings.allowed_origins == (
        "http://127.0.0.1:*",
        "http://localhost:*",
        "http://[::1]:*",
    )
    assert settings.base_url == "http://127.0.0.1:8080"


# Passwords ------------------------------------------------------------------------------------

ARGON2 = re.compile(r"\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$")


def test_passwords_are_stored_as_argon2id_with_at_least_19_mib_two_passes_and_one_lane(
    tmp_path: Path,
) -> None:
    # A process of its own: the tests' process swaps in argon2's cheapest parameters.
    database = tmp_path / "codna.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
    env["CODNA_DATABASE_URL"] = f"sqlite:///{database}"
    init = ["init", "--admin-email", "ada@example.com", "--admin-password", PASSWORD]
    codna = str(Path(sys.executable).parent / "codna")
    done = subprocess.run([codna, *init], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(database)) as conn:
        (stored,) = conn.execute("SELECT password_hash FROM members").fetchone()
    found = ARGON2.match(stored)
    assert found, stored
    memory, passes, lanes = map(int, found.groups())
    assert memory >= 19456 and passes >= 2 and lanes >= 1, stored


# Session cookies ------------------------------------------------------------------------------


def cookie(answer: httpx.Response, name: str) -> str:
    found = [c for c in answer.headers.get_list("set-cookie") if c.startswith(f"{name}=")]
    assert len(found) == 1, answer.headers.get_list("set-cookie")
    return found[0]


def attributes(cookie: str) -> set[str]:
    return {part.strip().lower() for part in cookie.split(";")[1:]}


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_web_cookies_are_httponly_and_lax_and_secure_exactly_under_https(
    app: InProcessServer, scheme: str
) -> None:
    base = f"{scheme}://127.0.0.1:{app.port}"
    with app.api() as client:
        client.base_url = httpx.URL(base)
        form = client.get("/")
        visit = attributes(cookie(form, "codna_visit"))
        answer = client.post(
            "/sign-in",
            data={"email": ROLES["reader"], "password": PASSWORD, "csrf": csrf_of(form)},
        )
        assert answer.status_code == 303, answer.text
        session = attributes(cookie(answer, "codna_session"))
    for made in (visit, session):
        assert {"httponly", "samesite=lax", "path=/"} <= made, made
        assert ("secure" in made) is (scheme == "https"), made
        assert not any(a.startswith("domain=") for a in made), made
