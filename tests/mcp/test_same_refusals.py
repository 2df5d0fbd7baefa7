"""One definition of an edit and of each limit: the JSON API and MCP refuse the same bad input
with the same code and fields, because both hand it to the same service check."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from codna.services.limits import PAGES, SEARCH, SUGGESTIONS
from tests.conftest import InProcessServer, refusal, unique

pytestmark = pytest.mark.anyio

BODY = "# Guide\n\nAt most ten.\n"

# Bad edits, each refused before the page is looked at for what it says.
BAD_EDITS: dict[str, Any] = {
    "not a list": "replace it",
    "an empty list": [],
    "an item that is not an object": ["append"],
    "no op": [{"text": "x"}],
    "an unknown op": [{"op": "rewrite", "text": "x"}],
    "an unknown field": [{"op": "append", "text": "x", "where": "end"}],
    "a missing field": [{"op": "replace", "old": "At most ten."}],
    "a field that is not a string": [{"op": "append", "text": 3}],
    "a second bad edit": [{"op": "append", "text": "x"}, {"op": "insert_after", "text": "y"}],
    "a field over its size": [{"op": "append", "text": "x" * (256 * 1024 + 1)}],
    "too many edits": [{"op": "append", "text": "x"}] * 101,
}


def _fields(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key != "message"}


@pytest.mark.parametrize("case", BAD_EDITS)
async def test_a_bad_edit_is_refused_alike_over_the_api_and_mcp(
    app: InProcessServer, case: str
) -> None:
    address = unique()
    app.create_page(address, BODY)
    edits = BAD_EDITS[case]
    with app.api("writer") as writer, app.api("reader") as reader:
        over_api = writer.post("/api/v1/page/edit", json={"address": address, "edits": edits})
        suggested_over_api = reader.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": "r"}
        )
        version = writer.get("/api/v1/page", params={"address": address}).json()["version"]
    async with app.mcp("writer") as mcp:
        over_mcp = refusal(
            await mcp.call_tool("edit_document", {"address": address, "edits": edits})
        )
    async with app.mcp("reader") as mcp:
        suggested_over_mcp = refusal(
            await mcp.call_tool("suggest_edit", {"address": address, "edits": edits, "reason": "r"})
        )
    answers = [over_api.json(), suggested_over_api.json(), over_mcp, suggested_over_mcp]
    assert {over_api.status_code, suggested_over_api.status_code} <= {422, 413}
    assert all(_fields(answer) == _fields(answers[0]) for answer in answers), answers
    assert answers[0]["code"] in {"invalid_request", "too_large"}
    assert answers[0]["field"] in {"edits", "text", "new"}
    if "edit_index" in answers[0] and case not in (
        "an item that is not an object",
        "no op",
        "an unknown op",
    ):
        assert "op" in answers[0]
    assert version == 1


LIMITS = [
    ("/api/v1/pages", "list_documents", {}, PAGES.most),
    ("/api/v1/search", "search_documents", {"q": "guide", "query": "guide"}, SEARCH.most),
    ("/api/v1/suggestions", "list_suggestions", {}, SUGGESTIONS.most),
]


@pytest.mark.parametrize(("path", "tool", "extra", "most"), LIMITS)
async def test_a_limit_beyond_its_window_gets_the_same_refusal_over_the_api_and_mcp(
    app: InProcessServer, path: str, tool: str, extra: dict[str, str], most: int
) -> None:
    query = {"q": extra["q"]} if "q" in extra else {}
    arguments = {"query": extra["query"]} if "query" in extra else {}
    async with app.mcp("writer") as mcp:
        with app.api("writer") as api:
            for limit in (0, most + 1, 2**63):
                over_api = api.get(path, params={**query, "limit": limit})
                over_mcp = refusal(await mcp.call_tool(tool, {**arguments, "limit": limit}))
                assert over_api.status_code == 422, over_api.text
                assert over_api.json() == over_mcp
                assert over_mcp["code"] == "invalid_request" and over_mcp["field"] == "limit"
            assert api.get(path, params={**query, "limit": most}).status_code == 200


async def test_the_edit_schema_each_interface_shows_is_the_edit_languages_own(
    app: InProcessServer,
) -> None:
    from codna.markdown.edits import OPS, edits_schema

    schema = edits_schema()
    assert [variant["title"] for variant in schema["items"]["oneOf"]] == list(OPS)
    fields = {"op"} | {field.name for kind in OPS.values() for field in dataclasses.fields(kind)}
    async with app.mcp("writer") as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    # MCP says the same ops and fields as one object with an op, each op described once.
    for name in ("edit_document", "suggest_edit"):
        shown = tools[name].input_schema["properties"]["edits"]
        assert shown["items"]["properties"]["op"]["enum"] == list(OPS), name
        assert set(shown["items"]["properties"]) == fields, name
        assert shown["maxItems"] == schema["maxItems"], name
    described = tools["edit_document"].input_schema["properties"]["edits"]["description"]
    assert all(f"{op} {{" in described for op in OPS)
    with app.api() as api:
        openapi = api.get("/api/openapi.json").json()
    body = openapi["components"]["schemas"]["EditPage"]["properties"]["edits"]
    assert body["items"] == schema["items"]
