"""The edit language: one row per op and per refusal, and properties of applying edits."""

from __future__ import annotations

import difflib
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codna.errors import InvalidEdit, InvalidRequest, TooLarge
from codna.markdown.apply import apply_edits
from codna.markdown.diff import split_lines, unified_diff
from codna.markdown.edits import (
    Append,
    DeleteSection,
    Edit,
    InsertAfter,
    InsertBefore,
    Replace,
    ReplaceSection,
    edits_to_wire,
    parse_edits,
)
from codna.markdown.limits import MAX_BODY_BYTES, MAX_EDITS, MAX_TEXT_BYTES
from codna.markdown.sections import scan_headings
from tests.markdown.test_sections import busy_pages
from tests.markdown.test_sections import generated_pages as pages

PAGE = """# Decision

We keep it small.

## Limits

At most 100 edits.

### Details

Bytes, not characters.

## Notes

Nothing yet.
"""


@pytest.mark.parametrize(
    ("body", "edit", "expected"),
    [
        pytest.param("a cat sat\n", Replace("cat", "dog"), "a dog sat\n", id="replace"),
        pytest.param("a cat sat\n", Replace("cat ", ""), "a sat\n", id="replace-with-nothing"),
        pytest.param("a cat\n", InsertAfter("cat", " and dog"), "a cat and dog\n", id="after"),
        pytest.param("a cat\n", InsertBefore("cat", "big "), "a big cat\n", id="before"),
        pytest.param("one\n", Append("two"), "one\n\ntwo\n", id="append"),
        pytest.param("one", Append("two\n"), "one\n\ntwo\n", id="append-after-no-newline"),
        pytest.param("", Append("two"), "two\n", id="append-to-empty"),
        pytest.param("one\n", Append(""), "one\n", id="append-nothing"),
        pytest.param(
            PAGE,
            ReplaceSection("Limits", "\n\nAt most 50 edits.\n\n\n"),
            "# Decision\n\nWe keep it small.\n\n## Limits\n\nAt most 50 edits.\n\n"
            "## Notes\n\nNothing yet.\n",
            id="replace-section-with-subsections",
        ),
        pytest.param(
            PAGE,
            ReplaceSection("Notes", "Later."),
            PAGE.replace("Nothing yet.", "Later."),
            id="replace-last-section",
        ),
        pytest.param(
            PAGE,
            ReplaceSection("Limits", ""),
            "# Decision\n\nWe keep it small.\n\n## Limits\n\n## Notes\n\nNothing yet.\n",
            id="replace-section-with-nothing",
        ),
        pytest.param(
            "Title\n=====\nold\n",
            ReplaceSection("Title", "new"),
            "Title\n=====\n\nnew\n",
            id="setext",
        ),
        pytest.param("## End", ReplaceSection("End", "x"), "## End\n\nx\n", id="heading-at-eof"),
        pytest.param(
            PAGE,
            DeleteSection("Limits"),
            "# Decision\n\nWe keep it small.\n\n## Notes\n\nNothing yet.\n",
            id="delete-section",
        ),
        pytest.param(
            PAGE,
            DeleteSection("Notes"),
            PAGE.replace("\n## Notes\n\nNothing yet.\n", ""),
            id="delete-last-section",
        ),
        pytest.param(
            "text\n## Gone\nx\n\nNext\n====\n",
            DeleteSection("Gone"),
            "text\n\nNext\n====\n",
            id="delete-keeps-setext-apart",
        ),
        pytest.param("# Only\nx\n", DeleteSection("Only"), "", id="delete-everything"),
        pytest.param(
            "x" + "\n" * 300 + "# Last\ny\n",
            DeleteSection("Last"),
            "x\n",
            id="delete-last-section-after-many-blank-lines",
        ),
        pytest.param(
            "# A\n##\nx\n# B\n",
            ReplaceSection("A > ", "y"),
            "# A\n##\n\ny\n\n# B\n",
            id="replace-section-without-text-named-by-its-parent",
        ),
        pytest.param(
            PAGE,
            DeleteSection("Decision > Limits > Details"),
            PAGE.replace("### Details\n\nBytes, not characters.\n\n", ""),
            id="delete-by-path",
        ),
    ],
)
def test_each_op_changes_the_page_as_documented(body: str, edit: Edit, expected: str) -> None:
    assert apply_edits(body, [edit]) == expected


def test_edits_apply_in_order_each_seeing_the_ones_before() -> None:
    edits: list[Edit] = [Replace("cat", "dog"), InsertAfter("dog", "gy"), Replace("doggy", "pup")]
    assert apply_edits("a cat\n", edits) == "a pup\n"
    sections: list[Edit] = [
        ReplaceSection("Limits", "## Later\n\nSoon."),
        InsertBefore("Soon", "Very "),
        DeleteSection("Notes"),
        ReplaceSection("Later", "Never."),
        Append("```\n## Code\n```"),
        ReplaceSection("Decision", "All gone."),
    ]
    assert apply_edits(PAGE, sections) == "# Decision\n\nAll gone.\n"


DUPLICATED = "# A\n## Limits\nx\n# B\n## Limits\ny\n"


@pytest.mark.parametrize(
    ("body", "edits", "index", "op", "reason", "count"),
    [
        ("a b\n", [Replace("c", "d")], 0, "replace", "text_not_found", None),
        ("a b a\n", [Replace("a", "c")], 0, "replace", "ambiguous", 2),
        ("aaa\n", [Replace("aa", "b")], 0, "replace", "ambiguous", 2),
        (
            "x x x\n",
            [Replace("b", "c"), InsertAfter("x", "y")],
            0,
            "replace",
            "text_not_found",
            None,
        ),
        (
            "x x x\n",
            [Replace("x x x", "z"), InsertAfter("x", "y")],
            1,
            "insert_after",
            "text_not_found",
            None,
        ),
        ("x x x\n", [InsertAfter("x", "y")], 0, "insert_after", "ambiguous", 3),
        ("x x\n", [InsertBefore("z", "y")], 0, "insert_before", "text_not_found", None),
        ("x x\n", [InsertBefore("x", "y")], 0, "insert_before", "ambiguous", 2),
        (PAGE, [ReplaceSection("Limitz", "x")], 0, "replace_section", "section_not_found", None),
        (DUPLICATED, [ReplaceSection("Limits", "z")], 0, "replace_section", "section_ambiguous", 2),
        (PAGE, [DeleteSection("Notes > Limits")], 0, "delete_section", "section_not_found", None),
        (DUPLICATED, [DeleteSection("## Limits")], 0, "delete_section", "section_ambiguous", 2),
        ("x\n", [Replace("", "y")], 0, "replace", "empty_anchor", None),
        ("x\n", [InsertAfter("", "y")], 0, "insert_after", "empty_anchor", None),
        ("x\n", [InsertBefore("", "y")], 0, "insert_before", "empty_anchor", None),
        (PAGE, [ReplaceSection("", "y")], 0, "replace_section", "empty_anchor", None),
        (PAGE, [DeleteSection("  ")], 0, "delete_section", "empty_anchor", None),
        (
            "```\n# Code\n```\n",
            [DeleteSection("Code")],
            0,
            "delete_section",
            "section_not_found",
            None,
        ),
        ("    # Code\n", [DeleteSection("Code")], 0, "delete_section", "section_not_found", None),
        ("ab\n", [InsertAfter("a", "b"), Replace("b", "c")], 1, "replace", "ambiguous", 2),
        (
            "ab\n",
            [InsertAfter("b", "a"), InsertAfter("ba", "b"), Replace("ab", "c")],
            2,
            "replace",
            "ambiguous",
            2,
        ),
        (
            "ab\n",
            [Replace("b", "c"), InsertAfter("b", "c")],
            1,
            "insert_after",
            "text_not_found",
            None,
        ),
        (
            PAGE,
            [ReplaceSection("Limits", "## Notes\n\nMore."), DeleteSection("Notes")],
            1,
            "delete_section",
            "section_ambiguous",
            2,
        ),
        (
            PAGE,
            [Append("```\n## Notes\n"), DeleteSection("Notes"), DeleteSection("Notes")],
            2,
            "delete_section",
            "section_not_found",
            None,
        ),
    ],
)
def test_an_edit_that_does_not_apply_is_refused_with_its_index_op_and_reason(
    body: str, edits: list[Edit], index: int, op: str, reason: str, count: int | None
) -> None:
    with pytest.raises(InvalidEdit) as refused:
        apply_edits(body, edits)
    expected: dict[str, Any] = {"edit_index": index, "op": op, "reason": reason}
    if count is not None:
        expected["count"] = count
    assert refused.value.fields == expected
    assert refused.value.message.startswith(f"Edit {index} ({op}): ")


def test_refusals_say_what_to_do_about_it() -> None:
    with pytest.raises(InvalidEdit) as missing:
        apply_edits(PAGE, [DeleteSection("limits")])
    assert missing.value.message == (
        'Edit 0 (delete_section): there is no heading "limits" on the page. Did you mean "Limits"?'
    )
    with pytest.raises(InvalidEdit) as ambiguous:
        apply_edits(DUPLICATED, [DeleteSection("Limits")])
    assert ambiguous.value.message.endswith('Say which: "A > Limits", "B > Limits".')
    with pytest.raises(InvalidEdit) as repeated:
        apply_edits("x x x\n", [Replace("x", "y")])
    assert "occurs 3 times" in repeated.value.message


def test_line_endings_are_normalised_in_the_body_and_every_field() -> None:
    body = "# Title\r\n\r\nold line\r\nnext\rlast\r\n"
    raw = [
        {"op": "replace", "old": "old line\r\nnext", "new": "new line\r\nnext"},
        {"op": "insert_after", "anchor": "last\r\n", "text": "more\r\n"},
    ]
    edits = parse_edits(raw)
    assert edits[0] == Replace("old line\nnext", "new line\nnext")
    assert apply_edits(body, edits) == "# Title\n\nnew line\nnext\nlast\n\nmore\n"
    # Edits made in code rather than parsed are normalised too.
    assert apply_edits(body, [Replace("next\r\n", "x\r\n")]) == "# Title\n\nold line\nx\nlast\n"


# --- the wire form and the limits ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "index", "message"),
    [
        ({"op": "append"}, None, "The edits must be a list of objects"),
        ([], None, "Give at least one edit."),
        (["append"], 0, "Edit 0 must be an object with an 'op' and its fields, not a string."),
        ([{"text": "x"}], 0, "Edit 0 has no 'op'; use one of replace, insert_after"),
        ([{"op": "move"}], 0, 'Edit 0 has the unknown op "move"; use one of replace'),
        ([{"op": 3}], 0, "Edit 0 has the unknown op a number"),
        (
            [{"op": "append", "text": "x"}, {"op": "replace", "new": "y"}],
            1,
            "Edit 1 (replace) is missing the field 'old'.",
        ),
        (
            [{"op": "replace", "old": 1, "new": "y"}],
            0,
            "Edit 0 (replace): the field 'old' must be a string, not a number.",
        ),
        (
            [{"op": "append", "text": "x", "anchor": "y"}],
            0,
            "Edit 0 (append) has the unknown field 'anchor'; an append takes 'text'.",
        ),
        (
            [{"op": "replace", "old": "x", "new": "y", "a": 1, "b": 2}],
            0,
            "Edit 0 (replace) has the unknown fields 'a' and 'b'; a replace takes 'old' and 'new'.",
        ),
        (
            [{"op": "append", "text": "\ud800"}],
            0,
            "Edit 0: the field 'text' holds a lone surrogate",
        ),
    ],
)
def test_malformed_edits_are_refused_saying_what_is_wrong(
    raw: object, index: int | None, message: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_edits(raw)
    assert refused.value.message.startswith(message)
    assert refused.value.fields.get("edit_index") == index
    assert refused.value.fields["field"] in ("edits", "text")


def test_more_than_the_most_edits_is_too_large() -> None:
    raw = [{"op": "append", "text": "x"}] * (MAX_EDITS + 1)
    with pytest.raises(TooLarge) as refused:
        parse_edits(raw)
    assert refused.value.fields == {"limit": MAX_EDITS, "field": "edits"}
    assert len(parse_edits(raw[:MAX_EDITS])) == MAX_EDITS


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ("x" * MAX_TEXT_BYTES, True),
        ("x" * (MAX_TEXT_BYTES + 1), False),
        ("é" * (MAX_TEXT_BYTES // 2), True),
        ("é" * (MAX_TEXT_BYTES // 2 + 1), False),  # two bytes each
    ],
)
def test_a_text_field_over_the_limit_is_too_large_in_utf8_bytes(text: str, fits: bool) -> None:
    raw = [{"op": "append", "text": "x"}, {"op": "replace", "old": "x", "new": text}]
    if fits:
        assert parse_edits(raw)[1] == Replace("x", text)
        return
    with pytest.raises(TooLarge) as refused:
        parse_edits(raw)
    assert refused.value.fields == {
        "limit": MAX_TEXT_BYTES,
        "field": "new",
        "edit_index": 1,
        "op": "replace",
    }


def test_a_body_over_the_limit_after_the_edits_is_too_large() -> None:
    body = "x" * (MAX_BODY_BYTES - 1)
    assert len(apply_edits(body, [Append("")])) == MAX_BODY_BYTES - 1
    assert len(apply_edits(body, [Replace(body, body + "y")])) == MAX_BODY_BYTES
    with pytest.raises(TooLarge) as refused:
        apply_edits(body, [Replace(body, body + "é")])
    assert refused.value.fields == {"limit": MAX_BODY_BYTES, "field": "body"}


def test_edits_go_to_the_wire_and_back_unchanged() -> None:
    edits: list[Edit] = [
        Replace("a", "b"),
        InsertAfter("c", "d"),
        InsertBefore("e", "f"),
        Append("g"),
        ReplaceSection("h", "i"),
        DeleteSection("j"),
    ]
    wire = edits_to_wire(edits)
    assert wire[0] == {"op": "replace", "old": "a", "new": "b"}
    assert all(next(iter(item)) == "op" for item in wire)
    assert parse_edits(wire) == edits


# --- properties ------------------------------------------------------------------------------

_words = st.sampled_from(["cat", "dog", "a", "b", " ", "\n", "# H", "## I", "x\n", "---\n"])
_bodies = st.lists(_words, max_size=40).map("".join)
_fragments = st.lists(_words, min_size=0, max_size=3).map("".join)
_edits: st.SearchStrategy[Edit] = st.one_of(
    st.builds(Replace, _fragments, _fragments),
    st.builds(InsertAfter, _fragments, _fragments),
    st.builds(InsertBefore, _fragments, _fragments),
    st.builds(Append, _fragments),
    st.builds(ReplaceSection, st.sampled_from(["H", "I", "# H", "H > I", "J", ""]), _fragments),
    st.builds(DeleteSection, st.sampled_from(["H", "I", "## I", "H > I", "J", " "])),
)


@settings(max_examples=200, deadline=None)
@given(_bodies, st.lists(_edits, min_size=1, max_size=5))
def test_a_refused_apply_edits_call_leaves_the_body_byte_for_byte_unchanged(
    body: str, edits: list[Edit]
) -> None:
    copy = (body + ".")[:-1]  # an equal string that is not the same object
    result: str | None = None
    try:
        result = apply_edits(body, edits)
    except InvalidEdit as refused:
        assert result is None
        assert body == copy
        # The refusal is the one that edit meets on the page the edits before it made.
        index = refused.fields["edit_index"]
        before = apply_edits(body, edits[:index])
        with pytest.raises(InvalidEdit) as alone:
            apply_edits(before, [edits[index]])
        assert alone.value.fields["reason"] == refused.fields["reason"]
    else:
        assert body == copy


def _difflib_diff(old: str, new: str) -> str:
    out = difflib.unified_diff(split_lines(old), split_lines(new), "before", "after")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out
    )


@st.composite
def _pages_and_line_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A page of distinct lines and edits that each touch whole lines with new text."""
    numbers = draw(st.lists(st.integers(0, 500), unique=True, min_size=1, max_size=60))
    lines = [f"line {n}\n" for n in numbers]
    fresh = iter(range(1000, 2000))
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 4))):
        target = draw(st.sampled_from(lines))
        kind = draw(st.sampled_from(["replace", "after", "before", "append"]))
        new = "".join(f"new {next(fresh)}\n" for _ in range(draw(st.integers(0, 3))))
        if kind == "replace":
            edits.append(Replace(target, new))
            lines.remove(target)
        elif kind == "after":
            edits.append(InsertAfter(target, new))
        elif kind == "before":
            edits.append(InsertBefore(target, new))
        else:
            edits.append(Append(new))
        if not lines:
            break
    return "".join(f"line {n}\n" for n in numbers), edits


@settings(max_examples=200, deadline=None)
@given(_pages_and_line_edits())
def test_the_dry_run_diff_of_a_body_and_its_edited_version_is_deterministic_and_difflibs(
    case: tuple[str, list[Edit]],
) -> None:
    body, edits = case
    result = apply_edits(body, edits)
    dry_run = unified_diff(body, result)
    assert dry_run == unified_diff(body, apply_edits(body, edits))
    assert dry_run == _difflib_diff(body, result)


@settings(max_examples=200, deadline=None)
@given(st.text("abcdefgh \n", min_size=1, max_size=60), st.data())
def test_a_replace_followed_by_its_inverse_restores_the_body(
    body: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(body) - 1))
    stop = data.draw(st.integers(start + 1, min(len(body), start + 8)))
    old = body[start:stop]
    assume(body.find(old, body.find(old) + 1) < 0)
    new = data.draw(st.text("abcxyz\n", max_size=8))
    result = apply_edits(body, [Replace(old, new)])
    if new and result.find(new, result.find(new) + 1) < 0:
        assert apply_edits(result, [Replace(new, old)]) == body


def _outline(body: str) -> list[tuple[int, str]]:
    return [(heading.level, heading.text) for heading in scan_headings(body)]


@settings(max_examples=200, deadline=None)
@given(pages, st.data())
def test_a_section_edit_changes_that_section_and_keeps_every_other_heading(
    body: str, data: st.DataObject
) -> None:
    headings = scan_headings(body)
    assume(headings)
    index = data.draw(st.integers(0, len(headings) - 1))
    target = headings[index]
    name = f"{'#' * target.level} {target.text}"
    assume(target.text and [h for h in headings if h.text == target.text] == [target])
    inside = [i for i, h in enumerate(headings) if target.start <= h.start < target.end]
    kept_before, kept_after = headings[:index], headings[inside[-1] + 1 :]

    replaced = apply_edits(body, [ReplaceSection(name, "New words.")])
    assert _outline(replaced) == [(h.level, h.text) for h in [*kept_before, target, *kept_after]]
    (section,) = [h for h in scan_headings(replaced) if h.start == target.start]
    assert replaced[section.content_start : section.end].strip("\n") == "New words."

    deleted = apply_edits(body, [DeleteSection(name)])
    assert _outline(deleted) == [(h.level, h.text) for h in [*kept_before, *kept_after]]


# --- applying edits together is applying them one at a time ----------------------------------

# What edits put in: words, lines, and lines that make headings or fences.
_put_in = st.lists(
    st.sampled_from(
        [
            "x",
            "cat",
            " ",
            "\n",
            "\n\n",
            "H\n",
            "text\n",
            "**H**",
            "===\n",
            "---\n",
            "# H\n",
            "## I\n",
            "  # H\n",
            "```\n",
            "~~~\n",
        ]
    ),
    max_size=3,
).map("".join)


@st.composite
def _edit_for(draw: st.DrawFn, body: str) -> Edit:
    """An edit for `body`: its anchor cut from it (often across what an earlier edit put in)
    or made up, its heading one of its own (by text, level or path) or made up."""
    op = draw(st.sampled_from(["replace", "after", "before", "append", "replace_section"]))
    op = draw(st.sampled_from([op, "delete_section"]))
    if op in ("replace", "after", "before"):
        if body and draw(st.integers(0, 3)):
            start = draw(st.integers(0, len(body) - 1))
            anchor = body[start : draw(st.integers(start + 1, min(len(body), start + 12)))]
        else:
            anchor = draw(st.sampled_from(["x", "cat", "# H", "\n", "H", ""]))
        kind = {"replace": Replace, "after": InsertAfter, "before": InsertBefore}[op]
        return kind(anchor, draw(_put_in))
    if op == "append":
        return Append(draw(_put_in))
    headings = scan_headings(body)
    names = ["H", "I", "## H", "H > I", "Nothing", ""]
    for heading in headings:
        names += [heading.text, f"{'#' * heading.level} {heading.text}"]
        parents = [
            h for h in headings if h.start < heading.start < h.end and h.level < heading.level
        ]
        if parents:
            names.append(f"{parents[-1].text} > {heading.text}")
    name = draw(st.sampled_from(names))
    if op == "replace_section":
        return ReplaceSection(name, draw(_put_in))
    return DeleteSection(name)


@st.composite
def _edit_runs(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A page, and edits each drawn for the page those before it make."""
    body = draw(st.one_of(pages, busy_pages, _bodies))
    edits: list[Edit] = []
    current = body
    for _ in range(draw(st.integers(1, 10))):
        edit = draw(_edit_for(current))
        edits.append(edit)
        try:
            current = apply_edits(current, [edit])
        except InvalidEdit:
            break
    return body, edits


@settings(max_examples=500, deadline=None)
@given(_edit_runs())
def test_edits_applied_together_do_what_they_do_applied_one_at_a_time(
    run: tuple[str, list[Edit]],
) -> None:
    # One at a time, the page is one string and every section lookup starts afresh; together,
    # the page is kept in pieces and the section finder keeps up with the edits.
    body, edits = run
    expected: str | tuple[dict[str, Any], str] = body
    current = body
    for index, edit in enumerate(edits):
        try:
            current = expected = apply_edits(current, [edit])
        except InvalidEdit as refused:
            fields = {**refused.fields, "edit_index": index}
            expected = fields, refused.message.replace("Edit 0 ", f"Edit {index} ", 1)
            break
    try:
        result: str | tuple[dict[str, Any], str] = apply_edits(body, edits)
    except InvalidEdit as refused:
        result = refused.fields, refused.message
    assert result == expected


@pytest.mark.parametrize(
    ("body", "old", "near"),
    [
        # A word added after it: the text there now, to its sentence's end.
        (
            "# Storage\n\nSQLite by default; tested on both engines.\n",
            "tested on both.",
            '"tested on both engines."',
        ),
        # A word changed within it.
        (
            "# Plan\n\nAt most ten pages a day.\n",
            "At most twelve pages a day.",
            '"At most ten pages a day."',
        ),
        # A word changed: as many words as it has.
        (
            "Agents suggest changes; a person who can edit the page accepts.\n",
            "Agents suggest edits",
            '"Agents suggest changes"',
        ),
        # Nothing alike: no guess.
        ("# Plan\n\nSomething else entirely.\n", "At most twelve.", None),
        # Two texts read the same but for case: no guess, not even the nearest.
        ("Alpha beta.\n\nALPHA  BETA.\n", "alpha beta", None),
    ],
)
def test_a_text_not_found_names_the_nearest_text_on_the_page(
    body: str, old: str, near: str | None
) -> None:
    with pytest.raises(InvalidEdit) as refused:
        apply_edits(body, [Replace(old, "x")])
    hint = f" Did you mean {near}?" if near else ""
    assert refused.value.message == (
        f'Edit 0 (replace): the text "{old}" is not on the page.{hint} Copy it exactly from '
        "the page as it is now."
    )
