"""The JSON API's refusals: every row of SPEC 2's table with its status and body, a page one
cannot read answered like a missing one, and bad input that is refused, never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import InProcessServer, error_body, unique

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n\n## Notes\n\nSee the limits.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


@pytest.fixture
def pages(app: InProcessServer) -> Iterator[dict[str, str]]:
    """A wiki page and a raw page of this test's own, by role."""
    wiki = unique()
    app.create_page(wiki, BODY)
    raw = app.import_raw(f"{unique('')}.md", BODY)["address"]
    yield {"wiki": wiki, "raw": raw, "missing": unique()}


# (role, method, path, payload, status, the body's code and fields). WIKI, RAW and MISSING
# stand for the test's pages; every row leaves them as they were. One row per way of
# answering: the rules behind each (an agent's edit, raw that is never written, a body grown
# past its limit) are tested in tests/services.
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
    app: InProcessServer, pages: dict[str, str], case: str
) -> None:
    role, method, path, payload, status, expected = _fill(REFUSALS[case], pages)
    with app.api(role) as client:
        if method == "GET":
            answer = client.get(path, params=payload)
        else:
            answer = client.post(path, json=payload)
        body = error_body(answer, status, expected.get("code", "not_found"))
        assert expected.items() <= body.items(), body
        for address in (pages["wiki"], pages["raw"]):
            with app.api("writer") as writer:
                page = writer.get("/api/v1/page", params={"address": address}).json()
            assert (page["body"], page["version"]) == (BODY, 1)


def test_an_unknown_endpoint_or_method_under_the_api_gets_a_json_error(
    app: InProcessServer,
) -> None:
    with app.api("writer") as client:
        error_body(client.get("/api/v1/nowhere"), 404, "not_found")
        error_body(client.delete("/api/v1/me"), 405, "invalid_request")


def test_a_page_one_cannot_read_gets_the_very_answer_of_a_missing_page(
    app: InProcessServer, pages: dict[str, str]
) -> None:
    with app.api("stranger") as client:
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


def once(app: InProcessServer, method: str, path: str, **options: Any) -> httpx.Response:
    """One request as the writer on a client of its own."""
    with app.api("writer") as client:
        return client.request(method, path, **options)


def test_an_id_past_the_databases_integer_range_is_refused_rather_than_a_server_error(
    app: InProcessServer, pages: dict[str, str]
) -> None:
    outcomes = {}
    for huge in (2**31, 2**63):
        for method, path in (
            ("GET", f"/api/v1/links/{huge}"),
            ("POST", f"/api/v1/links/{huge}/withdraw"),
            ("GET", f"/api/v1/page/revision?address={pages['wiki']}&version={huge}"),
        ):
            outcomes[f"{method} {path}"] = once(app, method, path).status_code
    answer = once(app, "POST", "/api/v1/inbox/read", json={"ids": [2**31]})
    outcomes["POST /api/v1/inbox/read 2**31"] = answer.status_code
    assert not {what: status for what, status in outcomes.items() if status >= 500}, outcomes


def test_a_lone_surrogate_in_a_text_is_refused_as_an_invalid_request(app: InProcessServer) -> None:
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
            fields = f'"address": "{app.create_page(unique(), BODY)["address"]}", {fields}'
        answer = once(
            app,
            "POST",
            path,
            content="{" + fields + "}",
            headers={"Content-Type": "application/json"},
        )
        outcomes[what] = (answer.status_code, answer.text)
    assert {what: status for what, (status, _) in outcomes.items()} == dict.fromkeys(bodies, 422)
    for status, text in outcomes.values():
        assert httpx.Response(status, text=text).json()["code"] == "invalid_request"
