"""Applying edits: each one a splice of the page, in order, all or none; and the canonical
form of edits, which names each heading as the page resolves it (for the durable rejection and
the duplicate check). How each op changes the page is said in edits.py."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from codna.errors import InvalidEdit
from codna.markdown.delta import Splice
from codna.markdown.edits import (
    Append,
    DeleteSection,
    Edit,
    InsertAfter,
    InsertBefore,
    Replace,
    ReplaceSection,
)
from codna.markdown.headings import parse_name, trim
from codna.markdown.limits import (
    check_body,
    check_body_size,
    check_plain_text,
    normalise_newlines,
)
from codna.markdown.pieces import PieceTable
from codna.markdown.sections import SectionAmbiguous, SectionNotFound, Sections
from codna.markdown.spacing import keep_apart

# A section: where its heading starts, where its content starts and where it ends.
_Bounds = tuple[int, int, int]


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


def _loosely(body: str, text: str) -> list[str]:
    """The texts on the page, the first two, that read as `text` but for their spaces, line
    breaks and letter case, as written there. Its words are matched as they are, with any run
    of white space between them: linear in the page."""
    words = text.split()
    if not words:
        return []
    found = re.finditer(r"\s+".join(map(re.escape, words)), body, re.IGNORECASE)
    return [match.group(0) for match, _ in zip(found, range(2), strict=False)]


# The nearest text to one not found is sought in a bounded part of the page: lines that hold
# one of its words, until _NEAREST_WORK characters of them were compared (difflib is Python).
_NEAREST_WORK = 20_000
_NEAREST_CHARS = 300  # a text longer than this is not compared
_NEAREST_SCORE = 0.5  # how alike the nearest must be, above: 1 is the same text


def _nearest(body: str, text: str) -> str | None:
    """The text on one line of the page most like `text` (one line of at most
    _NEAREST_CHARS), in whole words, as many as it has; None when nothing is alike enough."""
    wanted = text.strip()
    words = set(re.findall(r"\w{3,}", wanted))
    if not words or "\n" in wanted or len(wanted) > _NEAREST_CHARS:
        return None
    best, found, work = _NEAREST_SCORE, None, 0
    for line in (line for line in body.splitlines() if any(w in line for w in words)):
        work += len(line)
        if work > _NEAREST_WORK:
            break
        matcher = SequenceMatcher(None, line, wanted, autojunk=False)
        # Runs of three characters or more: shorter ones match anything.
        runs = [(b.a, b.size) for b in matcher.get_matching_blocks() if b.size >= 3][:20]
        for first in range(len(runs)):
            for last in range(first, len(runs)):
                span = _words(line, runs[first][0], sum(runs[last]), wanted)
                shared = sum(size for _, size in runs[first : last + 1])
                score = 2 * shared / (len(span) + len(wanted))
                if score > best:
                    best, found = score, span
    return found


def _words(line: str, start: int, end: int, wanted: str) -> str:
    """line[start:end] widened to whole words, then on to as many words as `wanted` has, and
    on to the stop that ends `wanted` when it ends with one."""
    while start > 0 and line[start - 1].isalnum():
        start -= 1
    count = len(wanted.split())
    while end < len(line) and (line[end].isalnum() or len(line[start:end].split()) < count):
        end += 1
    stop = line.find(wanted[-1], end) if wanted[-1] in ".,;:!?" else -1
    if 0 <= stop < end + 40:  # on to its sentence's end, as `wanted` ends
        end = stop + 1
    return line[start:end].strip()


def _not_once(body: str, text: str, edit: Edit, index: int) -> InvalidEdit:
    """The refusal for `text`, which does not occur in `body` exactly once."""
    if body.find(text) < 0:
        # The one text that reads the same, or else the nearest; none where two read the same.
        loose = _loosely(body, text)
        near = loose[0] if len(loose) == 1 else None if loose else _nearest(body, text)
        hint = f" Did you mean {_shown(near)}?" if near else ""
        return _refusal(
            edit,
            index,
            "text_not_found",
            f"the text {_shown(text)} is not on the page.{hint} Copy it exactly from the page "
            "as it is now.",
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
    made the page's Sections, each change joins the pieces again for it to read. It keeps the
    splices too, in order: the delta a revision stores (delta.py).
    """

    __slots__ = ("_finder", "_names", "_pieces", "splices")

    def __init__(self, body: str, edits: Sequence[Edit]) -> None:
        self._pieces = PieceTable(body)
        self.splices: list[Splice] = []
        self._names = [
            normalise_newlines(edit.heading)
            for edit in edits
            if isinstance(edit, ReplaceSection | DeleteSection)
        ]
        self._finder: Sections | None = None  # made by the first section edit

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

    def _sections(self) -> Sections:
        if self._finder is None:
            self._finder = Sections(self._pieces.after_newline(), self._names)
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
        if start == stop and not new:
            return
        self._pieces.splice(start, stop, new)
        self.splices.append((start, stop, new))
        if self._finder is not None:
            self._finder.update(self._pieces.after_newline(), start, stop, len(new))

    def name_of(self, start: int) -> str | None:
        """The shortest name that picks out the heading at `start` (sections.heading_name)."""
        return self._sections().name_of(start)

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
    return editing.name_of(start) or trim(name)


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
    return apply_edits_with_splices(body, edits)[0]


def apply_edits_with_splices(body: str, edits: Sequence[Edit]) -> tuple[str, list[Splice]]:
    """The body after the edits, as apply_edits makes it, and the splices that made it of
    `body`, in order, each over the text the ones before it left (delta.py's form).

    Raises as apply_edits does.
    """
    normalised = normalise_newlines(body)
    editing = _Body(normalised, edits)
    for index, edit in enumerate(edits):
        _apply(editing, edit, index)
    result = editing.whole()
    if normalised is not body:  # the edits' offsets are those of the text with its newlines
        check_body(result)
        return result, [(0, len(body), result)] if result != body else []
    # What the edits put in is checked, not the whole page again: the rest is the body as it
    # was saved, checked then, and joining texts makes no character that was not in them.
    for _, _, text in editing.splices:
        check_plain_text(text, field="body", markdown=True)
    check_body_size(result)
    return result, editing.splices
