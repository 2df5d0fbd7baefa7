"""What a model reads, made small: tool schemas and results without what says nothing.

A model pays for every character of the tool list and of each answer, and reads them again for
the rest of its run. Schemas lose pydantic's generated titles and its `anyOf [X, null]` for an
optional value: a value that may be left out is simply not required. Answers are compact JSON
with nulls left out, the same object as text and as structured content.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not")
_NULL = {"type": "null"}
_LARGEST = 2**31 - 1


def schema(node: Any) -> Any:
    """A JSON Schema without generated titles, with optional values not required."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None) or _no_bound(key, value):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS:
            out[key] = [schema(sub) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = schema(value)
        else:
            out[key] = value
    options = out.get("anyOf")
    if isinstance(options, list) and _NULL in options:
        rest = [o for o in options if o != _NULL]
        del out["anyOf"]
        if len(rest) == 1:
            out = {**rest[0], **out}
        elif rest:
            out["anyOf"] = rest
    if "properties" in out and "required" in out:
        nullable = {n for n, sub in node["properties"].items() if _may_be_null(sub)}
        required = [n for n in out["required"] if n not in nullable]
        if required:
            out["required"] = required
        else:
            del out["required"]
    return out


def result_schema(node: Any) -> Any:
    """A result's schema as `schema` makes it, without what a reader of results need not know
    in advance: which fields are always there, a date's format, what a whole object is for
    (its fields say it)."""
    if isinstance(node, dict):
        return {
            key: result_schema(value)
            for key, value in node.items()
            if key != "required"
            and not (key == "format" and value == "date-time")
            and not (key == "description" and "properties" in node)  # a class's docstring
        }
    if isinstance(node, list):
        return [result_schema(value) for value in node]
    return node


def _no_bound(key: str, value: Any) -> bool:
    """A maximum no one reaches (the database's largest id) says nothing."""
    return key == "maximum" and isinstance(value, int) and value >= _LARGEST


def _may_be_null(node: Any) -> bool:
    return isinstance(node, dict) and _NULL in node.get("anyOf", ())


def without_nulls(value: Any) -> Any:
    """`value` with every null member of an object left out, however deep."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def text(value: Any) -> str:
    """Compact JSON, as a model reads it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def answer(result: Any) -> Any:
    """A tool's answer made small: its structured content without nulls, and the same as text."""
    if not isinstance(result, CallToolResult) or result.is_error:
        return result
    if result.structured_content is None:
        return result
    shaped = without_nulls(result.structured_content)
    return CallToolResult(
        content=[TextContent(type="text", text=text(shaped))], structured_content=shaped
    )
