"""Every field of the JSON API and of the MCP tools, read from their own descriptions, and a
request that puts one hostile value in one field with the rest filled plainly.

The API's fields come from its OpenAPI description (query and path parameters, and the
top-level properties of a JSON body); the tools' from `tools/list`. A plain value is an
existing page's address for a field about addresses, 1 for a number, "x" for other text, an
empty list, false. Event streams are left out (they never end), as is revoking a token with a
plain id (it could revoke the caller's own).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
LEFT_OUT = ("/events",)


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]
    body: dict[str, Any] | None  # the JSON body's schema, references resolved


@dataclass(frozen=True)
class Field:
    name: str
    where: str  # query, path or body
    required: bool


def _resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = document
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _kind(schema: dict[str, Any], document: dict[str, Any]) -> set[str]:
    """The JSON types a schema allows (anyOf and nullable spelt out)."""
    schema = _resolve(schema, document)
    kinds = {schema["type"]} if isinstance(schema.get("type"), str) else set()
    for option in schema.get("anyOf", []):
        kinds |= _kind(option, document)
    return kinds - {"null"}


def _operations(document: dict[str, Any]) -> Iterator[Operation]:
    for path, methods in document["paths"].items():
        if any(path.endswith(tail) for tail in LEFT_OUT):
            continue
        for method, spec in methods.items():
            content = spec.get("requestBody", {}).get("content", {})
            schema = content.get("application/json", {}).get("schema")
            body = _resolve(schema, document) if schema else None
            yield Operation(method.upper(), path, spec, body)


def _fields(operation: Operation, document: dict[str, Any]) -> Iterator[tuple[Field, set[str]]]:
    for parameter in operation.spec.get("parameters", []):
        where = parameter["in"]
        if where in ("query", "path"):
            field = Field(parameter["name"], where, bool(parameter.get("required")))
            yield field, _kind(parameter.get("schema", {}), document)
    if operation.body:
        required = set(operation.body.get("required", []))
        for name, schema in operation.body.get("properties", {}).items():
            yield Field(name, "body", name in required), _kind(schema, document)


def api_fields(client: httpx.Client, kind: str) -> Iterator[tuple[Operation, Field]]:
    """(operation, field) for every field of the API whose type is `kind`."""
    document = client.get("/api/openapi.json").json()
    for operation in _operations(document):
        for field, kinds in _fields(operation, document):
            if kind in kinds:
                yield operation, field


def _plain(name: str, page: str) -> Any:
    if name == "email":
        return f"{uuid.uuid4().hex[:12]}@example.com"
    if "address" in name or name in ("folder", "page", "target"):
        return page
    if name in ("version", "base_version"):
        return 1
    if name.endswith("id") or name in ("limit", "offset"):
        return 1
    if name == "decision":
        return "reject"
    if name in ("edits", "ids", "documents", "responsible", "addresses"):
        return []
    return "x"


def api_request(
    client: httpx.Client, operation: Operation, field: Field, value: Any, page: str
) -> httpx.Request:
    """A request to `operation` with `value` in `field`, every other required field plain."""
    path = operation.path
    query: dict[str, Any] = {}
    for parameter in operation.spec.get("parameters", []):
        name, where = parameter["name"], parameter["in"]
        given = value if name == field.name and where == field.where else _plain(name, page)
        if where == "path":
            path = path.replace(f"{{{name}}}", str(given))
        elif where == "query" and (parameter.get("required") or name == field.name):
            query[name] = given
    body = None
    if operation.body is not None:
        required = set(operation.body.get("required", []))
        body = {
            name: _plain(name, page)
            for name in operation.body.get("properties", {})
            if name in required
        }
        if field.where == "body":
            body[field.name] = value
    return client.build_request(
        operation.method,
        path,
        params=query,
        content=None if body is None else json.dumps(body),
        headers={"Content-Type": "application/json"} if body is not None else None,
    )


def mcp_tools(client: httpx.Client) -> list[dict[str, Any]]:
    listed = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = client.post("/mcp", json=listed, headers=MCP_HEADERS)
    assert answer.status_code == 200, answer.text
    tools: list[dict[str, Any]] = answer.json()["result"]["tools"]
    return tools


def tool_arguments(tool: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(name, "integer" or "string") for each argument of a tool of either type."""
    schema = tool["inputSchema"]
    for name, prop in schema.get("properties", {}).items():
        kinds = _kind(prop, schema)
        for kind in ("integer", "string"):
            if kind in kinds:
                yield name, kind
                break


def mcp_call(
    client: httpx.Client, tool: dict[str, Any], name: str, value: Any, page: str
) -> httpx.Response:
    """A tools/call of `tool` with `value` as the argument `name`, the required rest plain."""
    schema = tool["inputSchema"]
    arguments = {key: _plain(key, page) for key in schema.get("required", [])}
    arguments[name] = value
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": tool["name"], "arguments": arguments},
    }
    return client.post("/mcp", json=call, headers=MCP_HEADERS)
