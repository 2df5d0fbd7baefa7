"""Oversized and malformed input over the JSON API, MCP and the web forms: each refused with a
clear 4xx and an error code (over MCP, a refusal whose text starts with its code), never a
5xx, and the worst of them within a bounded amount of memory.

What other tests already hold is not repeated here: a body over the cap by its length or
streamed (tests/server/test_body_cap.py), a lone surrogate and ids past the database's
integers on a few routes (tests/api/test_refusals.py), control characters in every field of
the services (tests/services/test_text_fields.py), the diff's bounds on the text itself
(tests/markdown/test_diff_bounds.py). Here: JSON nested 100,000 deep, a million edits, NUL and
control characters in every text field and huge or negative numbers in every numeric field
the API description and the MCP tool list name, invalid UTF-8, a 100,000-character heading,
and two versions whose diff is the worst case (250 KB each in the quick form, 1 MB with
`--long`), each over every interface that takes it.
"""

from __future__ import annotations

import resource
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.conftest import InProcessServer, unique
from tests.hostile.fields import (
    MCP_HEADERS,
    api_fields,
    api_request,
    mcp_call,
    mcp_tools,
    tool_arguments,
)
from tests.web.conftest import csrf_of, signed_in

HUGE = (10**30, -1, 2**63)
CONTROLS = ("a\x00b", "\x07bell", "x\x1b[31m", "\x7f")
MEMORY_BOUND = 500 * 1024 * 1024  # bytes the process's peak memory may grow by in a worst case
DEEP = 100_000
EDIT = {"base_version": "1", "title": "T", "body": "b", "summary": "", "tags": ""}


def refused(answer: httpx.Response) -> str | None:
    """Why the answer is not a clear refusal (a 4xx with a JSON code), or None if it is."""
    if not 400 <= answer.status_code < 500:
        return f"answered {answer.status_code}: {answer.text[:200]}"
    try:
        code = answer.json().get("code")
    except ValueError:
        return f"answered {answer.status_code} without JSON: {answer.text[:200]}"
    return None if isinstance(code, str) and code else f"no code: {answer.text[:200]}"


def mcp_refused(answer: httpx.Response) -> str | None:
    """Why an MCP answer is not a clear refusal: a tool error starting with its code, or a
    JSON-RPC error (a request the protocol itself cannot take), with a status under 500."""
    if answer.status_code >= 500:
        return f"answered {answer.status_code}: {answer.text[:200]}"
    try:
        message = answer.json()
    except ValueError:
        return f"answered {answer.status_code} without JSON: {answer.text[:200]}"
    if "error" in message:
        return None if message["error"].get("code") != -32603 else f"internal: {message}"
    result = message.get("result", {})
    text = (result.get("content") or [{}])[0].get("text", "")
    if result.get("isError") and text.split(":", 1)[0].isidentifier():
        return None if not text.startswith("internal") else f"internal: {text[:200]}"
    return f"not refused: {str(message)[:300]}"


@pytest.fixture
def page(app: InProcessServer) -> Iterator[str]:
    address = unique()
    app.create_page(address, "# Page\n\nSome text.\n\n## Part\n\nMore text.\n")
    yield address


def peak_rss() -> int:
    """The process's peak resident memory so far, in bytes (Linux gives kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.fixture
def memory() -> Iterator[Callable[[str], None]]:
    """A check that the process's peak resident memory grew less than MEMORY_BOUND since the
    test began, printing the growth (`pytest -s` shows the figures docs/reliability.md
    reports). The growth is at most what the test's worst moment added to the process."""
    before = peak_rss()

    def within_bound(what: str) -> None:
        grown = peak_rss() - before
        print(f"{what}: peak RSS grew by {grown / 2**20:.1f} MiB")
        assert grown < MEMORY_BOUND, f"{what}: {grown / 2**20:.0f} MiB more at the peak"

    yield within_bound


# Deep JSON, a million edits, invalid UTF-8 -----------------------------------------------


def test_json_nested_a_hundred_thousand_deep_is_refused_by_the_api_and_mcp(
    app: InProcessServer, page: str
) -> None:
    deep = "[" * DEEP + "]" * DEEP
    bodies = {
        "/api/v1/page/edit whole": deep,
        "/api/v1/page/edit edits": f'{{"address": "{page}", "edits": {deep}}}',
        "/api/v1/suggestions edits": f'{{"address": "{page}", "reason": "r", "edits": {deep}}}',
        "/api/v1/pages tags": f'{{"address": "{unique()}", "title": "T", "tags": {deep}}}',
    }
    found = {}
    with app.api("writer") as client:
        for what, body in bodies.items():
            answer = client.post(
                what.split()[0], content=body, headers={"Content-Type": "application/json"}
            )
            found[what] = refused(answer)
        for tool, field in (("edit_document", "edits"), ("suggest_edit", "edits")):
            arguments = f'{{"address": "{page}", "reason": "r", "{field}": {deep}}}'
            call = (
                '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
                f'"params": {{"name": "{tool}", "arguments": {arguments}}}}}'
            )
            answer = client.post(
                "/mcp", content=call, headers={**MCP_HEADERS, "Content-Type": "application/json"}
            )
            found[f"mcp {tool}"] = mcp_refused(answer)
        answer = client.post(
            "/mcp", content=deep, headers={**MCP_HEADERS, "Content-Type": "application/json"}
        )
        found["mcp whole"] = mcp_refused(answer)
    assert not {k: v for k, v in found.items() if v}, found


def test_a_million_edits_in_one_request_are_refused_within_bounded_memory(
    app: InProcessServer, page: str, memory: Callable[[str], None]
) -> None:
    # A million whole edits pass the app's cap on bodies, which refuses them unread; a million
    # empty ones do not, and the limit of 100 edits refuses them once read.
    edits = ",".join(['{"op":"append","text":""}'] * 10**6)
    empty = ",".join(["{}"] * 10**6)
    with app.api("writer") as client:
        edit = client.post(
            "/api/v1/page/edit",
            content=f'{{"address": "{page}", "edits": [{edits}]}}',
            headers={"Content-Type": "application/json"},
        )
        bare = client.post(
            "/api/v1/suggestions",
            content=f'{{"address": "{page}", "reason": "r", "edits": [{empty}]}}',
            headers={"Content-Type": "application/json"},
        )
    assert refused(edit) is None and refused(bare) is None, (edit.text[:300], bare.text[:300])
    assert edit.status_code == bare.status_code == 413, (edit.text, bare.text)
    assert bare.json()["limit"] == 100 and bare.json()["field"] == "edits", bare.text
    memory(f"a million edits ({app.engine})")


def test_invalid_utf8_in_a_body_is_refused_by_the_api_mcp_and_the_forms(
    app: InProcessServer, page: str
) -> None:
    bad = (
        b'{"address": "'
        + page.encode()
        + b'", "edits": [{"op": "append", "text": "\xff\xfe\xc3("}]}'
    )
    found = {}
    with app.api("writer") as client:
        answer = client.post(
            "/api/v1/page/edit", content=bad, headers={"Content-Type": "application/json"}
        )
        found["api"] = refused(answer)
        call = (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
            b'{"name": "search", "arguments": {"query": "\xff\xfe"}}}'
        )
        answer = client.post(
            "/mcp", content=call, headers={**MCP_HEADERS, "Content-Type": "application/json"}
        )
        found["mcp"] = mcp_refused(answer)
    with signed_in(app, "writer") as browser:
        form = browser.get(f"/edit/{page.replace(':', '/', 1)}")
        body = f"csrf={csrf_of(form)}&base_version=1&title=T&body=".encode() + b"\xff\xfe%FF%FE"
        answer = browser.post(
            f"/edit/{page.replace(':', '/', 1)}",
            content=body,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        found["form"] = None if 400 <= answer.status_code < 500 else f"{answer.status_code}"
    assert not {k: v for k, v in found.items() if v}, found
    with app.api("writer") as client:
        assert client.get("/api/v1/page", params={"address": page}).json()["version"] == 1


# Every text and numeric field ---------------------------------------------------------------


def test_every_numeric_field_of_the_api_refuses_huge_and_negative_numbers(
    app: InProcessServer, page: str
) -> None:
    found = {}
    with app.api("writer") as client:
        for operation, field in api_fields(client, "integer"):
            for value in HUGE:
                request = api_request(client, operation, field, value, page)
                why = refused(client.send(request))
                if why:
                    found[f"{operation.method} {operation.path} {field.name}={value}"] = why
    assert not found, found


@pytest.mark.parametrize("role", ["writer", "admin"])
def test_every_text_field_of_the_api_refuses_nul_and_control_characters(
    app: InProcessServer, page: str, role: str
) -> None:
    # As an admin too: the routes only an admin may use refuse anyone else before reading.
    found = {}
    with app.api(role) as client:
        for operation, field in api_fields(client, "string"):
            for value in CONTROLS:
                request = api_request(client, operation, field, value, page)
                why = refused(client.send(request))
                if why:
                    found[f"{operation.method} {operation.path} {field.name}={value!r}"] = why
    assert not found, found


def test_every_numeric_and_text_argument_of_every_mcp_tool_is_refused_when_hostile(
    app: InProcessServer, page: str
) -> None:
    found = {}
    with app.api("writer") as client:
        for tool in mcp_tools(client):
            for name, kind in tool_arguments(tool):
                values = HUGE if kind == "integer" else CONTROLS
                for value in values:
                    why = mcp_refused(mcp_call(client, tool, name, value, page))
                    if why:
                        found[f"{tool['name']} {name}={value!r}"] = why
    assert not found, found


def test_the_web_forms_and_views_refuse_huge_numbers_and_control_characters(
    app: InProcessServer, page: str
) -> None:
    where = page.replace(":", "/", 1)
    found = {}
    with signed_in(app, "writer") as browser:
        csrf = csrf_of(browser.get(f"/edit/{where}"))
        gets = (
            [f"/revision/{where}?version={n}" for n in HUGE]
            + [f"/diff/{where}?from={n}&to=1" for n in HUGE]
            + [f"/diff/{where}?to={n}" for n in HUGE]
            + [
                "/search?q=a%00b",
                f"/inbox/changes/{2**63}/preview",
                f"/inbox/changes/{10**30}/preview",
            ]
        )
        for url in gets:
            answer = browser.get(url)
            if not 400 <= answer.status_code < 500:
                found[url] = answer.status_code
        posts: list[tuple[str, dict[str, str]]] = (
            [(f"/history/{where}/revert", {"version": str(n)}) for n in HUGE]
            + [(f"/history/{where}/restore", {"version": str(n)}) for n in HUGE]
            + [
                (f"/edit/{where}", {"title": "T\x00", "body": "b", "summary": ""}),
                (f"/edit/{where}", {"title": "T", "body": "a\x00b", "summary": ""}),
                (f"/edit/{where}", {"title": "T", "body": "b", "summary": "\x07"}),
                (f"/edit/{where}", {"title": "T", "body": "b", "tags": "a\x00"}),
                ("/new", {"address": f"{unique()}\x00", "title": "T", "body": ""}),
                ("/new", {"address": unique(), "title": "T", "body": "\x00"}),
                (f"/inbox/changes/{2**63}/decide", {"decision": "reject", "reason": "r"}),
                (f"/inbox/changes/{10**30}/withdraw", {}),
                (f"/inbox/links/{-1}/decide", {"decision": "accept"}),
            ]
        )
        for url, data in posts:
            answer = browser.post(url, data={"csrf": csrf, **data})
            if not 400 <= answer.status_code < 500:
                found[f"POST {url} {data}"] = answer.status_code
    assert not found, found


# Huge headings and the worst diff -------------------------------------------------------------


def test_a_heading_a_hundred_thousand_characters_long_is_saved_shown_and_searched(
    app: InProcessServer,
) -> None:
    address = unique()
    heading = "# " + "h" * 100_000 + "\n\nUnder it.\n"
    made = app.create_page(address, heading)
    where = address.replace(":", "/", 1)
    with app.api("writer") as client:
        outline = client.get("/api/v1/page/outline", params={"address": address})
        found = client.get("/api/v1/search", params={"q": "Under"})
    with signed_in(app, "writer") as browser:
        shown = browser.get(f"/p/{where}")
    assert made["version"] == 1
    assert outline.status_code == 200 and shown.status_code == 200, (outline.text[:200],)
    assert found.status_code == 200


def _worst_texts(kind: str, size: int) -> tuple[str, str]:
    """Two texts of `size` bytes whose line diff is the costliest: nothing shared, or every
    other line shared."""
    lines = size // 20
    if kind == "nothing shared":
        return (
            "".join(f"old line {i:010d}\n" for i in range(lines)),
            "".join(f"new line {i:010d}\n" for i in range(lines)),
        )
    return (
        "".join(f"same line {i:09d}\n" if i % 2 else f"old line {i:010d}\n" for i in range(lines)),
        "".join(f"same line {i:09d}\n" if i % 2 else f"new line {i:010d}\n" for i in range(lines)),
    )


# The quick form diffs 250 KB; `--long`, 1 MB (about 10 s a diff page).
@pytest.mark.parametrize("kind", ["nothing shared", "every other line shared"])
def test_the_worst_diff_of_two_megabyte_versions_is_shown_within_bounded_memory(
    app: InProcessServer, kind: str, long_form: bool, memory: Callable[[str], None]
) -> None:
    size = 1_000_000 if long_form else 250_000
    old, new = _worst_texts(kind, size)
    address = unique()
    where = address.replace(":", "/", 1)
    app.create_page(address, old)
    with signed_in(app, "writer") as browser:
        csrf = csrf_of(browser.get(f"/edit/{where}"))
        saved = browser.post(
            f"/edit/{where}",
            data={"csrf": csrf, "base_version": "1", "title": "A page", "body": new},
        )
        assert saved.status_code == 303, saved.text[:300]
        diff = browser.get(f"/diff/{where}")
    with app.api("writer") as client:
        suggested = client.post(
            "/api/v1/suggestions",
            json={
                "address": address,
                "reason": "Back as it was.",
                "edits": [{"op": "replace", "old": new[:200_000], "new": old[:200_000]}],
            },
        )
    assert diff.status_code == 200, diff.text[:300]
    # The page shows the first DIFF_ROWS rows and says how many changed lines it leaves out.
    assert "more changed lines not shown here" in diff.text
    assert len(diff.content) < 2 * 2**20, f"a diff page of {len(diff.content):,} bytes"
    assert suggested.status_code == 201, suggested.text[:300]
    memory(f"the worst diff of {size:,} bytes, {kind} ({app.engine})")
