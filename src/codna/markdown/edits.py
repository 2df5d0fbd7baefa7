"""The edit language: edits that name their text, applied in order, all or none (SPEC 2).

An edit never carries a new body. It names the text it changes: a `replace` names the old
text, an insert its anchor, a section edit its heading. A name that is missing from the page
or names more than one place is refused, not guessed at.

How each op changes the page, exactly:

- `replace`: `old` must occur exactly once; it becomes `new`.
- `insert_after` / `insert_before`: `text` goes right after / right before the one occurrence
  of `anchor`, as it is, except that text that starts a block (a heading, a list item, a
  fence, a quote, a table row, a thematic break, or whole lines: it ends with a newline) is
  made a block of its own, a blank line apart from what it meets, wherever the anchor ends.
  Where the anchor ends a line, the text goes after that line; where it ends inside a line,
  the line is split, and its rest follows as a block of its own. Never inside fenced code,
  never a blank line between the items of one list, the rows of one table or the lines of one
  quote (spacing.py says exactly when). Other text, like `" more words"`, and one line put
  inside a line, are put in byte for byte.
- `append`: `text` goes at the end of the page. If the page is not empty and does not end
  with a newline, one is put first; if `text` does not end with a newline, one is added; a
  new block is kept apart from the last one by a blank line, as for an insert. An empty
  `text` changes nothing.
- `replace_section`: everything under the heading, from the line after it (after the
  underline of a setext heading) down to the next heading of the same or a higher level
  (so subsections too), becomes `body`. The heading line stays. The result is tidy: the
  heading, a blank line, `body` without blank lines before or after it, a newline, and a
  blank line before the heading that follows, if one does. An empty (or blank) `body` leaves
  the heading alone, with a blank line before the next heading.
- `delete_section`: the heading and everything under it (subsections too) go. A blank line
  is kept between the text before it and the heading that follows, if there is text before
  it; a page that ended with the section ends with a single newline.

Line endings in the page and in every field are normalised to `\\n` first. Applying them is
apply.py's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, Literal

from codna.errors import CodnaError, InvalidRequest, TooLarge
from codna.markdown.limits import MAX_EDITS, check_text, normalise_newlines


@dataclass(frozen=True, slots=True)
class Replace:
    """`old` must occur exactly once on the page; it becomes `new`."""

    old: str
    new: str
    op: ClassVar[Literal["replace"]] = "replace"


@dataclass(frozen=True, slots=True)
class InsertAfter:
    """`text` goes right after the one occurrence of `anchor`. Text that starts a block (a
    heading, list, fence, quote, table row, rule, or lines ending in a newline) becomes a block
    of its own, a blank line apart (none within one list, table or quote); where the anchor
    ends mid-line, text with a newline splits the line. Other text goes in exactly there."""

    anchor: str
    text: str
    op: ClassVar[Literal["insert_after"]] = "insert_after"


@dataclass(frozen=True, slots=True)
class InsertBefore:
    """`text` goes right before the one occurrence of `anchor`. Text that starts a block (a
    heading, list, fence, quote, table row, rule, or lines ending in a newline) becomes a block
    of its own, a blank line apart (none within one list, table or quote); where the anchor
    starts mid-line, text with a newline splits the line. Other text goes in exactly there."""

    anchor: str
    text: str
    op: ClassVar[Literal["insert_before"]] = "insert_before"


@dataclass(frozen=True, slots=True)
class Append:
    """`text` goes at the end of the page, on a line of its own. Text that starts a block (a
    heading, list, fence, quote, table row, rule or paragraph) is a blank line apart from the
    last one."""

    text: str
    op: ClassVar[Literal["append"]] = "append"


@dataclass(frozen=True, slots=True)
class ReplaceSection:
    """The content under `heading` (subsections too) becomes `body`; the heading stays.
    Name a heading by its plain text, optionally with its level ("### Limits") or parents
    ("Decision > Limits")."""

    heading: str
    body: str
    op: ClassVar[Literal["replace_section"]] = "replace_section"


@dataclass(frozen=True, slots=True)
class DeleteSection:
    """`heading` and everything under it (subsections too) go."""

    heading: str
    op: ClassVar[Literal["delete_section"]] = "delete_section"


Edit = Replace | InsertAfter | InsertBefore | Append | ReplaceSection | DeleteSection

OPS: dict[str, type[Edit]] = {
    kind.op: kind
    for kind in (Replace, InsertAfter, InsertBefore, Append, ReplaceSection, DeleteSection)
}
_FIELDS: dict[str, tuple[str, ...]] = {
    op: tuple(field.name for field in fields(kind)) for op, kind in OPS.items()
}
_OP_LIST = ", ".join(OPS)


# --- the wire form ---------------------------------------------------------------------------


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _quote_names(names: Sequence[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _refuse(message: str, index: int, op: str | None = None) -> InvalidRequest:
    if op is None:
        return InvalidRequest(message, field="edits", edit_index=index)
    return InvalidRequest(message, field="edits", edit_index=index, op=op)


def _parse_one(item: object, index: int) -> Edit:
    if not isinstance(item, dict):
        raise _refuse(
            f"Edit {index} must be an object with an 'op' and its fields, not {_kind_of(item)}.",
            index,
        )
    op = item.get("op")
    if op is None:
        raise _refuse(f"Edit {index} has no 'op'; use one of {_OP_LIST}.", index)
    if not isinstance(op, str) or op not in OPS:
        shown = json.dumps(op, ensure_ascii=False) if isinstance(op, str) else _kind_of(op)
        raise _refuse(f"Edit {index} has the unknown op {shown}; use one of {_OP_LIST}.", index)
    names = _FIELDS[op]
    extra = [str(key) for key in item if key != "op" and key not in names]
    if extra:
        raise _refuse(
            f"Edit {index} ({op}) has the unknown field{'s' if len(extra) > 1 else ''} "
            f"{_quote_names(extra)}; {'an' if op[0] in 'ai' else 'a'} {op} takes "
            f"{_quote_names(names)}.",
            index,
            op,
        )
    values: dict[str, str] = {}
    for name in names:
        if name not in item:
            raise _refuse(f"Edit {index} ({op}) is missing the field '{name}'.", index, op)
        value = item[name]
        if not isinstance(value, str):
            raise _refuse(
                f"Edit {index} ({op}): the field '{name}' must be a string, not {_kind_of(value)}.",
                index,
                op,
            )
        value = normalise_newlines(value)
        try:
            check_text(value, field=name, edit_index=index)
        except CodnaError as error:
            error.fields["op"] = op  # every refusal of an edit names its op
            raise
        values[name] = value
    return OPS[op](**values)


def parse_edits(raw: object, *, allow_empty: bool = False) -> list[Edit]:
    """The edits from their wire form: a list of objects like `{"op": "replace", ...}`.

    Every field has its line endings normalised to `\\n`.

    Raises InvalidRequest (field="edits", and edit_index for a bad edit) for anything but a
    list of well-formed edits, non-empty unless `allow_empty`; TooLarge for more than
    MAX_EDITS edits (field="edits") or a text field over MAX_TEXT_BYTES (field=<its name>,
    edit_index).
    """
    if not isinstance(raw, list):
        raise InvalidRequest(
            "The edits must be a list of objects, each with an 'op' and its fields, not "
            f"{_kind_of(raw)}.",
            field="edits",
        )
    if not raw and not allow_empty:
        raise InvalidRequest("Give at least one edit.", field="edits")
    if len(raw) > MAX_EDITS:
        raise TooLarge(
            f"There are {len(raw)} edits; at most {MAX_EDITS} can be given at once.",
            limit=MAX_EDITS,
            field="edits",
        )
    return [_parse_one(item, index) for index, item in enumerate(raw)]


def edits_schema() -> dict[str, object]:
    """The JSON Schema of the wire form, made from the ops above: what the API and MCP show.
    It describes; parse_edits decides (and refuses what the schema would, in its own words)."""
    variants = []
    for op, kind in OPS.items():
        properties: dict[str, object] = {"op": {"const": op}}
        properties.update({name: {"type": "string"} for name in _FIELDS[op]})
        variants.append(
            {
                "title": op,
                "description": " ".join((kind.__doc__ or "").split()),
                "type": "object",
                "properties": properties,
                "required": ["op", *_FIELDS[op]],
                "additionalProperties": False,
            }
        )
    return {
        "type": "array",
        "description": "Edits that name their text, applied in order, all or none; at most "
        f"{MAX_EDITS}. Never a whole body: quote the exact text to change or insert beside.",
        "items": {"oneOf": variants},
        "maxItems": MAX_EDITS,
    }


def edits_to_wire(edits: Sequence[Edit]) -> list[dict[str, str]]:
    """The wire form of the edits (the inverse of parse_edits), each with "op" first."""
    wire: list[dict[str, str]] = []
    for edit in edits:
        item: dict[str, str] = {"op": edit.op}
        for name in _FIELDS[edit.op]:
            item[name] = getattr(edit, name)
        wire.append(item)
    return wire
