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
    """A JSON Schema without generated titles, with optional values not required, and
    without what says nothing (`_says_nothing`)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or _says_nothing(key, value):
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


# A result's schema as clients use it. Every answer is an object, sent as structured content
# and as the same JSON in text: a client checks the object against this, and no client we know
# of shows a result's schema to its model, which reads the answer itself. What each field
# means is said where a model meets it: in the answer (a cut body's `more`, a list's `note`),
# in the tool's description, and in docs/mcp.md for people. tests/mcp/test_tool_list.py
# holds the list to its budget.
RESULT_SCHEMA: dict[str, Any] = {"type": "object"}


def _says_nothing(key: str, value: Any) -> bool:
    """A default a model assumes anyway (none, false, 0, empty), a lower bound of 0 or 1 on a
    count or an id, a maximum no one reaches (the database's largest id). The server checks
    each all the same, and its refusal names the bound."""
    if key == "default":
        return value is None or value is False or value == "" or (type(value) is int and value == 0)
    if key == "minimum":
        return type(value) is int and value in (0, 1)
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
