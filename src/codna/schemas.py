"""The wire shapes that the JSON API and MCP share: edits and the bodies of writing calls.

Only the shape is checked here; limits and meaning are the services' (one place for a rule).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

_WHOLE_NUMBER = re.compile(r"\s*\+?[0-9]+\s*")


def _whole_number(value: object) -> object:
    """A number in a query string is digits only (Python's int() would take '1_0' as 10)."""
    if isinstance(value, str) and not _WHOLE_NUMBER.fullmatch(value):
        raise ValueError("a whole number, such as 3")
    return value


# A version or an id as a caller sends it. One beyond what the database holds names nothing:
# the services answer not_found for it, as for any other that does not exist.
Version = Annotated[int, BeforeValidator(_whole_number)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReplaceEdit(_Strict):
    """`old` must occur exactly once; it becomes `new`."""

    op: Literal["replace"]
    old: str
    new: str


class InsertAfterEdit(_Strict):
    """`text` goes right after the one occurrence of `anchor`."""

    op: Literal["insert_after"]
    anchor: str
    text: str


class InsertBeforeEdit(_Strict):
    """`text` goes right before the one occurrence of `anchor`."""

    op: Literal["insert_before"]
    anchor: str
    text: str


class AppendEdit(_Strict):
    """`text` goes at the end of the page, on a line of its own."""

    op: Literal["append"]
    text: str


class ReplaceSectionEdit(_Strict):
    """The content under `heading` (subsections too) becomes `body`; the heading stays.
    Name a heading by its plain text, optionally with its level ("### Limits") or parents
    ("Decision > Limits")."""

    op: Literal["replace_section"]
    heading: str
    body: str


class DeleteSectionEdit(_Strict):
    """`heading` and everything under it go."""

    op: Literal["delete_section"]
    heading: str


EditIn = Annotated[
    ReplaceEdit
    | InsertAfterEdit
    | InsertBeforeEdit
    | AppendEdit
    | ReplaceSectionEdit
    | DeleteSectionEdit,
    Field(discriminator="op"),
]


def edits_to_wire(edits: list[EditIn]) -> list[dict[str, Any]]:
    return [edit.model_dump() for edit in edits]


class TagChanges(_Strict):
    """Tags to add to the page and tags to remove from it."""

    add: list[str] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)
