"""A number field takes a number only. Every field of the JSON API and of the MCP tools that
takes a whole number refuses `true`, "1" and 1.0 as invalid_request naming the field, rather
than reading each as 1: a caller that sends one has misread the schema.

The fields are read from what each interface publishes (the OpenAPI document, the tool list),
so a field added later is held to the rule without a line here. In a URL (a query string or a
path) every value is text, so there the three are spelled `true`, `"1"` and `1.0`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import InProcessServer, refusal, unique

pytestmark = pytest.mark.anyio

NOT_NUMBERS: list[Any] = [True, "1", 1.0]
NOT_NUMBERS_IN_A_URL = ["true", '"1"', "1.0"]


def _is_integer(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "integer":
        return True
    return any(_is_integer(one) for one in schema.get("anyOf", []))


def _integer_items(schema: dict[str, Any]) -> bool:
    arrays = [schema, *schema.get("anyOf", [])]
    return any(a.get("type") == "array" and _is_integer(a.get("items", {})) for a in arrays)


def _placeholder(schema: dict[str, Any]) -> Any:
    """A value of the right type for a field that is not the one tried."""
    if "enum" in schema:
        return schema["enum"][0]
    if _is_integer(schema):
        return 1
    kinds = {one.get("type") for one in [schema, *schema.get("anyOf", [])]}
    if "array" in kinds:
        return []
    if "boolean" in kinds:
        return False
    if "object" in kinds:
        return {}
    return "wiki:somewhere"


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return dict(document["components"]["schemas"][name])
    return schema


def _api_fields(document: dict[str, Any]) -> Iterator[tuple[str, str, str, str, list[Any]]]:
    """(method, path, where: path, query or body, field, the values to send) for every field of
    the API that takes a whole number."""
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if _is_integer(parameter["schema"]):
                    yield method, path, parameter["in"], parameter["name"], NOT_NUMBERS_IN_A_URL
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            body = _resolve(content["application/json"]["schema"], document)
            for name, schema in body.get("properties", {}).items():
                if _is_integer(schema):
                    yield method, path, "body", name, NOT_NUMBERS
                elif _integer_items(schema):
                    yield method, path, "body", name, [[value] for value in NOT_NUMBERS]


def _request(
    document: dict[str, Any], method: str, path: str, where: str, field: str, value: Any
) -> dict[str, Any]:
    """The request that sends `value` as `field` and a placeholder in every other required
    field, so the one refusal is for `field`."""
    operation = document["paths"][path][method]
    url, params = path, {}
    for parameter in operation.get("parameters", []):
        name = parameter["name"]
        given = value if name == field else _placeholder(parameter["schema"])
        if parameter["in"] == "path":
            url = url.replace(f"{{{name}}}", str(given))
        elif name == field or parameter.get("required"):
            params[name] = given
    request: dict[str, Any] = {"method": method.upper(), "url": url, "params": params}
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        body = _resolve(content["application/json"]["schema"], document)
        properties = body.get("properties", {})
        request["json"] = {
            name: value if name == field else _placeholder(properties[name])
            for name in properties
            if name == field or name in body.get("required", [])
        }
    return request


def test_every_whole_number_field_of_the_api_refuses_true_a_string_and_a_float(
    app: InProcessServer,
) -> None:
    with app.api("admin") as api:
        document = api.get("/api/openapi.json").json()
        fields = list(_api_fields(document))
        tried = {f"{where} {field}" for _, _, where, field, _ in fields}
        # The fields the rule is known to cover: a missing one means the walk lost them.
        assert {"body base_version", "body version", "body ids", "body token_id"} <= tried
        assert {"query limit", "query offset", "query version", "query after"} <= tried
        assert "path suggestion_id" in tried and "path automation_id" in tried
        for method, path, where, field, values in fields:
            for value in values:
                request = _request(document, method, path, where, field, value)
                answer = api.request(**request)
                said = f"{method} {path} {where} {field}={value!r}: {answer.text}"
                assert answer.status_code == 422, said
                body = answer.json()
                assert body["code"] == "invalid_request", said
                assert body["field"].split(".")[0] == field, said
                assert body["message"].startswith(field), said


async def test_every_whole_number_argument_of_a_tool_refuses_true_a_string_and_a_float(
    app: InProcessServer,
) -> None:
    async with app.mcp("admin") as mcp:
        tools = (await mcp.list_tools()).tools
        tried: set[str] = set()
        for tool in tools:
            schema = tool.input_schema
            properties = schema.get("properties", {})
            for field, property_schema in properties.items():
                if _is_integer(property_schema):
                    values = NOT_NUMBERS
                elif _integer_items(property_schema):
                    values = [[value] for value in NOT_NUMBERS]
                else:
                    continue
                tried.add(field)
                for value in values:
                    arguments = {
                        name: _placeholder(properties[name]) for name in schema.get("required", [])
                    }
                    arguments[field] = value
                    refused = refusal(await mcp.call_tool(tool.name, arguments))
                    said = f"{tool.name} {field}={value!r}: {refused}"
                    assert refused["code"] == "invalid_request", said
                    assert refused["field"].split(".")[0] == field, said
                    assert f": {field}" in refused["message"], said
    known = {"limit", "offset", "version", "base_version", "after", "ids", "suggestion_id"}
    assert known <= tried


def test_a_whole_number_is_still_taken_where_a_number_is_asked_for(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "# Notes\n\nOne line.\n")
    with app.api("writer") as api:
        edited = api.post(
            "/api/v1/page/edit",
            json={
                "address": address,
                "edits": [{"op": "append", "text": "Two."}],
                "base_version": 1,
            },
        )
        assert edited.status_code == 200, edited.text
        listed = api.get("/api/v1/pages", params={"limit": "1", "offset": " 0 "})
        assert listed.status_code == 200 and len(listed.json()) == 1
        read = api.get("/api/v1/page", params={"address": address, "version": "1"})
        assert read.status_code == 200 and read.json()["version"] == 1
