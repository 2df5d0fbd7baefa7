"""The edit language: edits that name their text, applied in order, all or none (SPEC 2).

An edit never carries a new body. It names the text it changes: a `replace` names the old
text, an insert its anchor, a section edit its heading. A name that is missing from the page
or names more than one place is refused, not guessed at.

How each op changes the page, exactly:

- `replace`: `old` must occur exactly once; it becomes `new`.
- `insert_after` / `insert_before`: `text` goes right after / right before the one occurrence
  of `anchor`, as it is, except that text that starts a new block on lines of its own (a
  heading, a list, a fence, a paragraph) gets the newline that keeps a blank line between it
  and the text it meets, where there is none (spacing.py says exactly when; never inside
  fenced code, never between the items of one list). Text that continues a line is put in
  byte for byte.
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

Line endings in the page and in every field are normalised to `\\n` first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, Literal

from codna.errors import CodnaError, InvalidEdit, InvalidRequest, TooLarge
from codna.markdown.headings import parse_name, trim
from codna.markdown.limits import MAX_EDITS, check_body, check_text, normalise_newlines
from codna.markdown.pieces import PieceTable
from codna.markdown.section_finder import SectionFinder
from codna.markdown.sections import SectionAmbiguous, SectionNotFound, heading_name
from codna.markdown.spacing import keep_apart

# A section: where its heading starts, where its content starts and where it ends.
_Bounds = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Replace:
    """`old` must occur exactly once on the page; it becomes `new`."""

    old: str
    new: str
    op: ClassVar[Literal["replace"]] = "replace"


@dataclass(frozen=True, slots=True)
class InsertAfter:
    """`text` goes right after the one occurrence of `anchor`. Text that starts a block (a
    heading, a list, a fence, a paragraph) is kept apart by a blank line."""

    anchor: str
    text: str
    op: ClassVar[Literal["insert_after"]] = "insert_after"


@dataclass(frozen=True, slots=True)
class InsertBefore:
    """`text` goes right before the one occurrence of `anchor`. Text that starts a block (a
    heading, a list, a fence, a paragraph) is kept apart by a blank line."""

    anchor: str
    text: str
    op: ClassVar[Literal["insert_before"]] = "insert_before"


@dataclass(frozen=True, slots=True)
class Append:
    """`text` goes at the end of the page, on a line of its own. Text that starts a block (a
    heading, a list, a fence, a paragraph) is kept apart by a blank line."""

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


# --- applying --------------------------------------------------------------------------------


def _shown(text: str, limit: int = 80) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _refusal(edit: Edit, index: int, reason: str, message: str, **more: int) -> InvalidEdit:
    return InvalidEdit(
        f"Edit {index} ({edit.op}): {message}", edit_index=index, op=edit.op, reason=reason, **more
    )


def _empty(edit: Edit, index: int, field: str, what: str) -> InvalidEdit:
    return _refusal(edit, index, "empty_anchor", f"the field '{field}' is empty; give {what}.")


def _not_once(body: str, text: str, edit: Edit, index: int) -> InvalidEdit:
    """The refusal for `text`, which does not occur in `body` exactly once."""
    if body.find(text) < 0:
        return _refusal(
            edit,
            index,
            "text_not_found",
            f"the text {_shown(text)} is not on the page. Copy it exactly from the page as "
            "it is now.",
        )
    count = max(body.count(text), 2)  # overlapping occurrences count as at least two
    return _refusal(
        edit,
        index,
        "ambiguous",
        f"the text {_shown(text)} occurs {count} times on the page. Include more of the "
        "text around it, so that it occurs once.",
        count=count,
    )


class _Body:
    """The body being edited: in pieces (see pieces.py), and what section lookups learnt of it.

    Every change goes through `splice`, which keeps the two in step: once a section edit has
    made the section finder, each change joins the pieces again for it to read.
    """

    __slots__ = ("_finder", "_names", "_pieces")

    def __init__(self, body: str, edits: Sequence[Edit]) -> None:
        self._pieces = PieceTable(body)
        self._names = [
            normalise_newlines(edit.heading)
            for edit in edits
            if isinstance(edit, ReplaceSection | DeleteSection)
        ]
        self._finder: SectionFinder | None = None  # made by the first section edit

    def __len__(self) -> int:
        return len(self._pieces)

    def text(self, start: int, stop: int) -> str:
        return self._pieces.slice(start, stop)

    def whole(self) -> str:
        return self._pieces.whole()

    def locate(self, text: str, edit: Edit, index: int) -> int:
        """The offset of the one occurrence of `text`; refuses the edit if there is not one."""
        found = self._pieces.find_once(text)
        if found is None:
            raise _not_once(self._pieces.whole(), text, edit, index)
        return found

    def _sections(self) -> SectionFinder:
        if self._finder is None:
            self._finder = SectionFinder(self._pieces.after_newline(), self._names)
        return self._finder

    def section(self, name: str, edit: Edit, index: int) -> _Bounds:
        """The section `name` names; refuses the edit if it names not one."""
        try:
            return self._sections().bounds(name)
        except SectionNotFound as missing:
            hint = ""
            if missing.suggestions:
                hint = " Did you mean " + " or ".join(_shown(s) for s in missing.suggestions) + "?"
            raise _refusal(
                edit,
                index,
                "section_not_found",
                f"there is no heading {_shown(name)} on the page.{hint}",
            ) from None
        except SectionAmbiguous as ambiguous:
            text = parse_name(name)[-1][1]
            if ambiguous.hints:
                advice = "Say which: " + ", ".join(_shown(h) for h in ambiguous.hints) + "."
            else:
                advice = (
                    f"Add its level (like {_shown('## ' + text)}) or the heading above it "
                    f"(like {_shown('Parent > ' + text)})."
                )
            raise _refusal(
                edit,
                index,
                "section_ambiguous",
                f"{ambiguous.count} headings are named {_shown(name)}. {advice}",
                count=ambiguous.count,
            ) from None

    def splice(self, start: int, stop: int, new: str) -> None:
        """Replaces the body's `start:stop` with `new`."""
        self._pieces.splice(start, stop, new)
        if self._finder is not None:
            self._finder.update(self._pieces.after_newline(), start, stop, len(new))

    def in_fence(self, offset: int) -> bool:
        """Whether a line that starts at `offset` is inside fenced code (its closing fence
        included, its opening one not)."""
        return self._sections().inside_fence(offset)

    def around(self, at: int) -> tuple[str, str]:
        """The body before `at` from the start of its last line that is not blank, and after
        `at` up to the end of its first line that is not blank (or as far as there is)."""
        width = 256
        while True:
            low = max(0, at - width)
            chunk = self.text(low, at)
            newline = chunk.rstrip(" \t\n").rfind("\n")
            if newline >= 0 or low == 0:
                before = chunk[newline + 1 :]
                break
            width *= 2
        width, size = 256, len(self)
        while True:
            high = min(size, at + width)
            chunk = self.text(at, high)
            gap = len(chunk) - len(chunk.lstrip(" \t\n"))
            newline = chunk.find("\n", gap) if gap < len(chunk) else -1
            if newline >= 0 or high == size:
                return before, chunk if newline < 0 else chunk[: newline + 1]
            width *= 2

    def newlines_before(self, offset: int) -> int:
        """Where the run of newlines that ends right before `offset` begins."""
        while offset > 0:
            low = max(0, offset - 256)
            kept = self.text(low, offset).rstrip("\n")
            if kept:
                return low + len(kept)
            offset = low
        return 0


def _strip_blank_lines(text: str) -> str:
    """`text` without blank lines before or after it, and without its final newline."""
    lines = text.split("\n")
    first, last = 0, len(lines)
    while first < last and not lines[first].strip(" \t"):
        first += 1
    while last > first and not lines[last - 1].strip(" \t"):
        last -= 1
    return "\n".join(lines[first:last])


def _replace_section(body: _Body, heading: _Bounds, content: str) -> None:
    start, content_start, end = heading
    head = body.text(start, content_start)
    if not head.endswith("\n"):
        head += "\n"
    content = _strip_blank_lines(content)
    middle = f"\n{content}\n" if content else ""
    if end < len(body):
        middle += "\n"  # a blank line before the heading that follows
    body.splice(start, end, head + middle)


def _delete_section(body: _Body, heading: _Bounds) -> None:
    start, _, end = heading
    if end == len(body):
        # The page ends with the section: it ends with one newline after what was before.
        kept = body.newlines_before(start)
        body.splice(kept, end, "\n" if kept else "")
    elif start and body.text(max(0, start - 2), start) != "\n\n":
        # Keeps the text before from running into the next heading (a setext one would
        # take it as part of its text).
        body.splice(start, end, "\n")
    else:
        body.splice(start, end, "")


def _insert(body: _Body, at: int, text: str) -> None:
    """Puts `text` in at `at`, kept apart from the blocks it meets (spacing.py), unless it goes
    inside fenced code."""
    before, after = body.around(at)
    spaced = keep_apart(before, text, after)
    if spaced != text:
        # The line it goes in before: the one at `at`, or the one after the line it splits.
        line = at
        if at and not before.endswith("\n"):
            newline = after.find("\n")
            line = at + newline + 1 if newline >= 0 else len(body) + 1
        if body.in_fence(line):
            spaced = text
    body.splice(at, at, spaced)


def _append(body: _Body, text: str) -> None:
    if not text:
        return
    size = len(body)
    if size and body.text(size - 1, size) != "\n":
        text = "\n" + text
    if not text.endswith("\n"):
        text += "\n"
    _insert(body, size, text)


def _apply(body: _Body, edit: Edit, index: int) -> None:
    match edit:
        case Replace(old=old, new=new):
            if not old:
                raise _empty(edit, index, "old", "the exact text to replace")
            old, new = normalise_newlines(old), normalise_newlines(new)
            at = body.locate(old, edit, index)
            body.splice(at, at + len(old), new)
        case InsertAfter(anchor=anchor, text=text) | InsertBefore(anchor=anchor, text=text):
            if not anchor:
                raise _empty(edit, index, "anchor", "the exact text to insert next to")
            anchor, text = normalise_newlines(anchor), normalise_newlines(text)
            at = body.locate(anchor, edit, index)
            if isinstance(edit, InsertAfter):
                at += len(anchor)
            _insert(body, at, text)
        case Append(text=text):
            _append(body, normalise_newlines(text))
        case ReplaceSection(heading=name, body=content):
            name = normalise_newlines(name)
            if not trim(name):
                raise _empty(edit, index, "heading", "the heading's text")
            heading = body.section(name, edit, index)
            _replace_section(body, heading, normalise_newlines(content))
        case DeleteSection(heading=name):
            name = normalise_newlines(name)
            if not trim(name):
                raise _empty(edit, index, "heading", "the heading's text")
            _delete_section(body, body.section(name, edit, index))
        case _:  # pragma: no cover - the type says otherwise
            raise TypeError(f"not an edit: {edit!r}")


def _named(editing: _Body | None, edit: ReplaceSection | DeleteSection, index: int) -> str:
    """The heading a section edit names, named as the page has it: the shortest name that
    picks it out (heading_name). Where no heading has its text (it has gone, or the page is not
    known), its text alone; where its name picks out none or several of those that have it,
    the name as given."""
    name = normalise_newlines(edit.heading)
    text = parse_name(name)[-1][1]
    if editing is None or not trim(name):
        return text
    try:
        start, _, _ = editing.section(name, edit, index)
    except InvalidEdit:
        if text:
            try:
                editing.section(text, edit, index)
            except InvalidEdit as refused:
                if refused.fields.get("reason") == "section_not_found":
                    return text
        return trim(name)
    return heading_name(editing.whole(), start) or trim(name)


def canonical_edits(body: str, edits: Sequence[Edit]) -> list[Edit]:
    """The edits in the form that says when two are the same edit to `body`: each heading named
    as the page resolves it (the shortest name that picks out the heading the edit finds there,
    after the edits before it: `## Alternatives` and `Alternatives` are one edit where they
    name one heading), and a section's new body without the blank lines around it, which
    replace_section drops anyway.

    A heading no longer on the page (or named after an edit that does not apply) is named by
    its text alone, without level or parents, so that the same edits compare equal once their
    heading has gone; a name that picks out none or several of the headings with its text is
    kept as given. Nothing is refused; line endings are normalised.
    """
    editing: _Body | None = _Body(normalise_newlines(body), edits)
    canonical: list[Edit] = []
    for index, edit in enumerate(edits):
        if isinstance(edit, ReplaceSection):
            content = _strip_blank_lines(normalise_newlines(edit.body))
            canonical.append(ReplaceSection(heading=_named(editing, edit, index), body=content))
        elif isinstance(edit, DeleteSection):
            canonical.append(DeleteSection(heading=_named(editing, edit, index)))
        else:
            canonical.append(edit)
        if editing is not None:
            try:
                _apply(editing, edit, index)
            except InvalidEdit:
                editing = None  # the page is not known past an edit that does not apply
    return canonical


def apply_edits(body: str, edits: Sequence[Edit]) -> str:
    """The body after the edits, applied in order (each sees the result of those before).

    All or none: a refusal returns nothing, and there is never a half-edited body.

    Raises InvalidEdit (edit_index, op, reason: text_not_found, ambiguous with count,
    section_not_found, section_ambiguous with count, or empty_anchor) when an edit does not
    apply; TooLarge (limit=MAX_BODY_BYTES, field="body") when the result is too big.
    """
    editing = _Body(normalise_newlines(body), edits)
    for index, edit in enumerate(edits):
        _apply(editing, edit, index)
    result = editing.whole()
    check_body(result)
    return result
