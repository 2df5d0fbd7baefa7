"""The wire shapes that the JSON API and MCP share, described from the services' own rules.

A shape here describes; the one definition decides. Edits are described by the edit
language's own definition (`edits_schema`) and parsed by it (`edits_of`), so every interface
refuses a bad edit with the same code, field, edit index and op. A list's `limit` is
described from the services' windows and refused by them, never clamped or checked twice.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, WithJsonSchema

from codna.markdown.edits import Edit, edits_schema, parse_edits
from codna.services.limits import MAX_ID, Window

_WHOLE_NUMBER = re.compile(r"\s*\+?[0-9]+\s*")


def _whole_number(value: object) -> object:
    """A number in a query string is digits only (Python's int() would take '1_0' as 10)."""
    if isinstance(value, str) and not _WHOLE_NUMBER.fullmatch(value):
        raise ValueError("a whole number, such as 3")
    return value


# A whole number in JSON (a body, a tool's arguments): an integer and nothing else. Lax
# parsing would read `true`, "1" and 1.0 as 1; a caller that sends one has misread the schema
# and is told so, naming the field.
Number = Annotated[int, Strict()]
# A whole number in a query string, where every value is text: digits only.
UrlNumber = Annotated[int, BeforeValidator(_whole_number)]

# A version or an id as a caller sends it, in a query string (Version) or in JSON
# (JsonVersion). One beyond what the database holds names nothing: the services answer
# not_found for it, as for any other that does not exist.
_VERSION_SCHEMA = WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_ID})
Version = Annotated[int, BeforeValidator(_whole_number), _VERSION_SCHEMA]
JsonVersion = Annotated[int, Strict(), _VERSION_SCHEMA]

# Edits in their wire form, as the edit language defines them; `edits_of` parses them.
Edits = Annotated[Any, WithJsonSchema(edits_schema())]


def edits_of(raw: object) -> list[Edit]:
    """The edits a caller sent, parsed by the edit language's one definition (none sent: none;
    the service refuses a change that changes nothing). Raises InvalidRequest, TooLarge."""
    return parse_edits([] if raw is None else raw, allow_empty=True)


def window(bounds: Window, what: str) -> dict[str, Any]:
    """The description and JSON Schema bounds of a `limit` over `bounds`, for Field or Query:
    `Field(**window(PAGES, "pages"))`."""
    return {
        "description": f"How many {what} at most, 1 to {bounds.most}.",
        "json_schema_extra": {"minimum": 1, "maximum": bounds.most},
    }


OFFSET: dict[str, Any] = {
    "description": "How many to skip, for the next page of results.",
    "json_schema_extra": {"minimum": 0, "maximum": MAX_ID},
}


class TagChanges(BaseModel):
    """Tags to add to the page and tags to remove from it."""

    model_config = ConfigDict(extra="forbid")

    add: list[str] = Field(default_factory=list, description="Tags to add, such as ['perf'].")
    remove: list[str] = Field(default_factory=list, description="Tags to remove.")
