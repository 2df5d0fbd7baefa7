"""The JSON API on a real server: every refusal of SPEC 2's table with its status and body,
tokens, and the guards in front of the API and MCP (Host, Origin, body cap, rate limit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server.conftest import (
    TIGHT_BODY_BYTES,
    TIGHT_RATE_LIMIT,
    Server,
    mcp_over_http,
    refusal,
    structured,
    text_of,
    unique,
)

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n\n## Notes\n\nSee the limits.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def error_body(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The answer's JSON error body, checked for its status, code and sentence."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"].endswith("."), body
    return body


def once(server: Server, method: str, path: str, **options: Any) -> httpx.Response:
    """One request as the writer on a connection of its own: a server error may close it."""
    with server.api("writer") as client:
        return client.request(method, path, **options)


@pytest.fixture
def pages(server: Server) -> Iterator[dict[str, str]]:
    """A wiki page and a raw page of this test's own, by role."""
    wiki = unique()
    server.create_page(wiki, BODY)
    raw = server.import_raw(f"{unique('')}.md", BODY)["address"]
    yield {"wiki": wiki, "raw": raw, "missing": unique()}


# (role, method, path, payload, status, the body's code and fields). WIKI, RAW and MISSING
# stand for the test's pages; every row leaves them as they were.
REFUSALS = {
    "a page one cannot read": (
        "stranger",
        "GET",
        "/api/v1/page",
        {"address": "WIKI"},
        404,
        {"code": "not_found", "address": "WIKI"},
    ),
    "a read without an address": (
        "writer",
        "GET",
        "/api/v1/page",
        {"version": "1"},
        422,
        {"code": "invalid_request", "field": "address"},
    ),
    "a read at a version that is not a number": (
        "writer",
        "GET",
        "/api/v1/page",
        {"address": "WIKI", "version": "1_0"},
        422,
        {"code": "invalid_request", "field": "version"},
    ),
    "a read at a version the page never had": (
        "writer",
        "GET",
        "/api/v1/page",
        {"address": "WIKI", "version": "99999999999999"},
        404,
        {"code": "not_found", "field": "version"},
    ),
    "a missing page": (
        "writer",
        "GET",
        "/api/v1/page/history",
        {"address": "MISSING"},
        404,
        {"code": "not_found", "address": "MISSING"},
    ),
    "a reader's edit": (
        "reader",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": TWELVE},
        403,
        {"code": "read_only", "address": "WIKI"},
    ),
    "an agent's edit of a page shared with it": (
        "agent",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": TWELVE},
        403,
        {"code": "read_only"},
    ),
    "an edit in raw": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "RAW", "edits": TWELVE},
        403,
        {"code": "read_only", "address": "RAW"},
    ),
    "a revert in raw": (
        "writer",
        "POST",
        "/api/v1/page/revert",
        {"address": "RAW", "version": 1},
        403,
        {"code": "read_only"},
    ),
    "a missing field": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"edits": TWELVE},
        422,
        {"code": "invalid_request", "field": "address"},
    ),
    "an unknown edit op": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": [{"op": "rewrite", "body": "All new."}]},
        422,
        {"code": "invalid_request"},
    ),
    "an edit whose text is missing": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": [*TWELVE, {"op": "replace", "old": "Gone.", "new": "x"}]},
        422,
        {"code": "invalid_edit", "edit_index": 1, "op": "replace", "reason": "text_not_found"},
    ),
    "an edit whose text is ambiguous": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": [{"op": "insert_before", "anchor": "## ", "text": "x"}]},
        422,
        {
            "code": "invalid_edit",
            "edit_index": 0,
            "op": "insert_before",
            "reason": "ambiguous",
            "count": 2,
        },
    ),
    "an edit's text over 256 KiB": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": [{"op": "append", "text": "x" * (256 * 1024 + 1)}]},
        413,
        {"code": "too_large", "limit": 256 * 1024},
    ),
    "a page body past 1 MiB": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": [{"op": "append", "text": "y" * (250 * 1024)}] * 5},
        413,
        {"code": "too_large", "limit": 1024 * 1024},
    ),
    "a stale base version": (
        "writer",
        "POST",
        "/api/v1/page/edit",
        {"address": "WIKI", "edits": TWELVE, "base_version": 7},
        409,
        {"code": "conflict", "current_version": 1},
    ),
    "a page that exists already": (
        "writer",
        "POST",
        "/api/v1/pages",
        {"address": "WIKI", "title": "Again"},
        409,
        {"code": "duplicate"},
    ),
}


def _fill(value: Any, pages: dict[str, str]) -> Any:
    if isinstance(value, str):
        return pages.get(value.lower(), value) if value.isupper() else value
    if isinstance(value, list | tuple):
        return type(value)(_fill(v, pages) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, pages) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", list(REFUSALS), ids=list(REFUSALS))
def test_each_refusal_has_the_status_and_the_body_of_spec_2(
    server: Server, pages: dict[str, str], case: str
) -> None:
    role, method, path, payload, status, expected = _fill(REFUSALS[case], pages)
    with server.api(role) as client:
        if method == "GET":
            answer = client.get(path, params=payload)
        else:
            answer = client.post(path, json=payload)
        body = error_body(answer, status, expected.get("code", "not_found"))
        assert expected.items() <= body.items(), body
        for address in (pages["wiki"], pages["raw"]):
            with server.api("writer") as writer:
                page = writer.get("/api/v1/page", params={"address": address}).json()
            assert (page["body"], page["version"]) == (BODY, 1)


def test_an_unknown_endpoint_or_method_under_the_api_gets_a_json_error(server: Server) -> None:
    with server.api("writer") as client:
        error_body(client.get("/api/v1/nowhere"), 404, "not_found")
        error_body(client.delete("/api/v1/me"), 405, "invalid_request")


def test_a_page_one_cannot_read_gets_the_very_answer_of_a_missing_page(
    server: Server, pages: dict[str, str]
) -> None:
    with server.api("stranger") as client:
        for method, path, payload in (
            ("GET", "/api/v1/page", {}),
            ("GET", "/api/v1/page/history", {}),
            ("GET", "/api/v1/page/revision", {"version": 1}),
            ("POST", "/api/v1/page/edit", {"edits": TWELVE}),
            ("POST", "/api/v1/page/revert", {"version": 1}),
        ):
            answers = []
            for address in (pages["wiki"], pages["missing"]):
                if method == "GET":
                    answer = client.get(path, params={"address": address, **payload})
                else:
                    answer = client.post(path, json={"address": address, **payload})
                answers.append((answer.status_code, answer.text.replace(address, "ADDRESS")))
            assert answers[0] == answers[1], path
            assert answers[0][0] == 404


def test_a_page_is_read_dry_run_edited_and_reverted_over_the_api(
    server: Server, pages: dict[str, str]
) -> None:
    wiki = pages["wiki"]
    with server.api("writer") as client:
        dry = client.post(
            "/api/v1/page/edit", json={"address": wiki, "edits": TWELVE, "dry_run": True}
        ).json()
        assert dry["saved"] is False and "+At most twelve." in dry["diff"]
        assert client.get("/api/v1/page", params={"address": wiki}).json()["version"] == 1
        saved = client.post(
            "/api/v1/page/edit", json={"address": wiki, "edits": TWELVE, "base_version": 1}
        ).json()
        assert saved["saved"] is True and saved["page"]["version"] == 2
        history = client.get("/api/v1/page/history", params={"address": wiki}).json()
        assert [r["version"] for r in history] == [2, 1]
        old = client.get("/api/v1/page", params={"address": wiki, "version": " 1 "}).json()
        assert (old["version"], old["latest_version"], old["body"]) == (1, 2, BODY)
        reverted = client.post("/api/v1/page/revert", json={"address": wiki, "version": 2})
        assert reverted.status_code == 200, reverted.text
        assert reverted.json()["page"]["body"] == BODY


def test_a_missing_a_wrong_or_a_query_string_token_gets_401(server: Server) -> None:
    good = server.token("reader")
    attempts = {
        "no token": ({}, {}),
        "a wrong token": ({"Authorization": "Bearer codna_wrong-wrong-wrong"}, {}),
        "a token without our prefix": ({"Authorization": "Bearer abc"}, {}),
        "a good token as Basic": ({"Authorization": f"Basic {good}"}, {}),
        "a good token in the query string": ({}, {"token": good, "access_token": good}),
    }
    with server.api() as client:
        for what, (headers, params) in attempts.items():
            for method, path in (("GET", "/api/v1/me"), ("POST", "/api/v1/page/edit")):
                answer = client.request(method, path, headers=headers, params=params, json={})
                body = error_body(answer, 401, "unauthenticated")
                assert answer.headers["www-authenticate"].lower().startswith("bearer"), what
                assert good not in body["message"], what
        assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {good}"}).is_success


def revoke(server: Server, name: str) -> None:
    """Revoke the spare token `name` as the admin, through the API."""
    with server.api("admin") as admin:
        token_id = server.workspace.token_ids[name]
        revoked = admin.post("/api/v1/tokens/revoke", json={"token_id": token_id})
        assert revoked.status_code == 200, revoked.text
        listed = admin.get("/api/v1/tokens", params={"owner": "wanda@example.com"}).json()
    assert [t["revoked"] for t in listed if t["name"] == name] == [True]


def test_a_revoked_token_is_refused_on_the_very_next_api_request(server: Server) -> None:
    with server.api("revoke-api") as client:
        assert client.get("/api/v1/me").status_code == 200
        revoke(server, "revoke-api")
        error_body(client.get("/api/v1/me"), 401, "unauthenticated")
        error_body(client.post("/api/v1/page/edit", json={}), 401, "unauthenticated")


def test_a_revoked_token_is_refused_on_the_very_next_mcp_request(server: Server) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with server.api("revoke-mcp") as client:
        listed = client.post("/mcp", json=call, headers=MCP_HEADERS)
        assert listed.status_code == 200 and "read_document" in listed.text, listed.text
        revoke(server, "revoke-mcp")
        refused = client.post("/mcp", json=call, headers=MCP_HEADERS)
        assert refused.status_code == 401, refused.text
        assert refused.headers["www-authenticate"].lower().startswith("bearer")


@pytest.mark.parametrize("path", ["/api/v1/me", "/mcp"])
def test_a_host_the_server_does_not_answer_to_gets_421(server: Server, path: str) -> None:
    with server.api("reader") as client:
        hosts = ("evil.example", f"evil.example:{server.port}", "127.0.0.1.evil.example", "1:80")
        for host in hosts:
            answer = client.post(path, json={}, headers={"Host": host} | MCP_HEADERS)
            error_body(answer, 421, "bad_host")
        for host in (f"localhost:{server.port}", f"[::1]:{server.port}"):
            fine = client.get("/api/v1/me", headers={"Host": host})
            assert fine.status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/me", "/mcp"])
def test_a_browser_origin_that_is_not_allowed_gets_403(server: Server, path: str) -> None:
    with server.api("reader") as client:
        for origin in ("http://evil.example", "https://127.0.0.1.evil.example", "null"):
            answer = client.post(path, json={}, headers={"Origin": origin} | MCP_HEADERS)
            error_body(answer, 403, "bad_origin")
        fine = client.get("/api/v1/me", headers={"Origin": f"http://127.0.0.1:{server.port}"})
        assert fine.status_code == 200


def test_the_page_read_served_ahead_of_the_api_passes_the_same_guards(
    server: Server, pages: dict[str, str]
) -> None:
    page = {"address": pages["wiki"]}
    with server.api("reader") as client:
        assert client.get("/api/v1/page", params=page).status_code == 200
        wrong_host = client.get("/api/v1/page", params=page, headers={"Host": "evil.example"})
        error_body(wrong_host, 421, "bad_host")
        origin = {"Origin": "http://evil.example"}
        error_body(client.get("/api/v1/page", params=page, headers=origin), 403, "bad_origin")


@pytest.mark.parametrize("path", ["/api/v1/page/edit", "/mcp"])
def test_a_body_over_the_cap_gets_413_by_its_content_length(
    tight_server: Server, path: str
) -> None:
    big = b'{"address": "wiki:x", "edits": [], "summary": "' + b"x" * TIGHT_BODY_BYTES + b'"}'
    with tight_server.api("writer") as client:
        answer = client.post(
            path, content=big, headers={"Content-Type": "application/json"} | MCP_HEADERS
        )
    error_body(answer, 413, "too_large")


def _chunks(size: int) -> Iterator[bytes]:
    yield b'{"address": "wiki:server/none", "edits": [{"op": "append", "text": "'
    for _ in range(size // 1024):
        yield b"x" * 1024
    yield b'"}]}'


@pytest.mark.parametrize("path", ["/api/v1/page/edit", "/mcp"])
def test_a_chunked_body_that_streams_past_the_cap_gets_413(tight_server: Server, path: str) -> None:
    headers = {"Content-Type": "application/json"} | MCP_HEADERS
    with tight_server.api("writer") as client:
        answer = client.post(path, content=_chunks(3 * TIGHT_BODY_BYTES), headers=headers)
        assert answer.request.headers.get("transfer-encoding") == "chunked"
        assert "content-length" not in answer.request.headers
        error_body(answer, 413, "too_large")


def test_a_chunked_body_under_the_cap_reaches_the_api(tight_server: Server) -> None:
    with tight_server.api("body-cap") as client:
        answer = client.post(
            "/api/v1/page/edit",
            content=_chunks(TIGHT_BODY_BYTES // 2),
            headers={"Content-Type": "application/json"},
        )
        assert answer.request.headers.get("transfer-encoding") == "chunked"
        error_body(answer, 404, "not_found")


def test_a_flood_of_api_writes_past_the_rate_limit_gets_429_with_retry_after(
    tight_server: Server,
) -> None:
    edit = {"address": "wiki:server/none", "edits": TWELVE}
    with tight_server.api("flood-api") as client:
        for _ in range(TIGHT_RATE_LIMIT):
            error_body(client.post("/api/v1/page/edit", json=edit), 404, "not_found")
        answer = client.post("/api/v1/page/edit", json=edit)
        body = error_body(answer, 429, "rate_limited")
        assert int(answer.headers["retry-after"]) == body["retry_after"] >= 1
        # Reads are not counted: the limit is on tool calls and writes.
        assert client.get("/api/v1/me").status_code == 200
    with tight_server.api("reader") as other:
        assert other.post("/api/v1/page/edit", json=edit).status_code == 404


@pytest.mark.anyio
async def test_a_flood_of_tool_calls_past_the_rate_limit_is_a_rate_limited_tool_error(
    tight_server: Server,
) -> None:
    async with mcp_over_http(tight_server, "flood-mcp") as mcp:
        for _ in range(TIGHT_RATE_LIMIT):
            refused = refusal(await mcp.call_tool("read_document", {"address": "wiki:none"}))
            assert refused["code"] == "not_found"
        limited = await mcp.call_tool("read_document", {"address": "wiki:none"})
        error = refusal(limited)
        assert text_of(limited).startswith("rate_limited: ")
        assert error["code"] == "rate_limited" and error["retry_after"] >= 1
    async with mcp_over_http(tight_server, "reader") as other:
        assert refusal(await other.call_tool("read_document", {"address": "wiki:none"}))[
            "code"
        ] == ("not_found")
        structured(await other.call_tool("list_documents", {}))


def test_an_id_past_the_databases_integer_range_is_refused_rather_than_a_server_error(
    server: Server, pages: dict[str, str]
) -> None:
    outcomes = {}
    for huge in (2**31, 2**63):
        for method, path in (
            ("GET", f"/api/v1/links/{huge}"),
            ("POST", f"/api/v1/links/{huge}/withdraw"),
            ("GET", f"/api/v1/page/revision?address={pages['wiki']}&version={huge}"),
        ):
            outcomes[f"{method} {path}"] = once(server, method, path).status_code
    answer = once(server, "POST", "/api/v1/inbox/read", json={"ids": [2**31]})
    outcomes["POST /api/v1/inbox/read 2**31"] = answer.status_code
    assert not {what: status for what, status in outcomes.items() if status >= 500}, outcomes


def test_a_lone_surrogate_in_a_text_is_refused_as_an_invalid_request(server: Server) -> None:
    # JSON may spell half of a UTF-16 pair; it is not text and cannot be stored as UTF-8.
    bodies = {
        "an edit's text": ("/api/v1/page/edit", r'"edits": [{"op": "append", "text": "\ud886"}]'),
        "an imported text": (
            "/api/v1/import",
            r'"folder": "raw:sources/", "documents": [{"name": "a.md", "text": "\ud886"}]',
        ),
        "a title": ("/api/v1/pages", r'"address": "wiki:server/surrogate", "title": "\ud886"'),
        "an address": ("/api/v1/pages", r'"address": "wiki:server/\ud886", "title": "T"'),
    }
    outcomes = {}
    for what, (path, fields) in bodies.items():
        if path == "/api/v1/page/edit":
            fields = f'"address": "{server.create_page(unique(), BODY)["address"]}", {fields}'
        answer = once(
            server,
            "POST",
            path,
            content="{" + fields + "}",
            headers={"Content-Type": "application/json"},
        )
        outcomes[what] = (answer.status_code, answer.text)
    assert {what: status for what, (status, _) in outcomes.items()} == dict.fromkeys(bodies, 422)
    for status, text in outcomes.values():
        assert httpx.Response(status, text=text).json()["code"] == "invalid_request"
