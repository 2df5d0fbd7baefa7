"""Inserted and appended text that starts a new block is kept apart from its neighbours by one
blank line, as a writer means it; text that continues a line, a list, a table, a quote or
fenced code goes in as it is."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codna.markdown.apply import apply_edits
from codna.markdown.diff import unified_diff
from codna.markdown.edits import Append, Edit, InsertAfter, InsertBefore
from codna.markdown.render import render

ENDS_WITH_PARAGRAPH = "# Decision\n\nWe keep it small.\n\nThe last paragraph."


@pytest.mark.parametrize(
    ("body", "edit", "expected"),
    [
        pytest.param(
            ENDS_WITH_PARAGRAPH,
            Append("## Consequences\n\nText"),
            ENDS_WITH_PARAGRAPH + "\n\n## Consequences\n\nText\n",
            id="append-heading-after-paragraph-without-newline",
        ),
        pytest.param(
            ENDS_WITH_PARAGRAPH + "\n",
            Append("## Consequences\n\nText"),
            ENDS_WITH_PARAGRAPH + "\n\n## Consequences\n\nText\n",
            id="append-heading-after-paragraph",
        ),
        pytest.param(
            ENDS_WITH_PARAGRAPH + "\n\n",
            Append("## Consequences\n\nText\n"),
            ENDS_WITH_PARAGRAPH + "\n\n## Consequences\n\nText\n",
            id="append-after-a-blank-line-adds-none",
        ),
        pytest.param(
            ENDS_WITH_PARAGRAPH + "\n",
            Append("\n\n## Consequences\n"),
            ENDS_WITH_PARAGRAPH + "\n\n\n## Consequences\n",
            id="append-keeps-the-blank-lines-it-brings",
        ),
        pytest.param("One.\n", Append("Two."), "One.\n\nTwo.\n", id="append-paragraph"),
        pytest.param("- a\n- b\n", Append("- c"), "- a\n- b\n- c\n", id="append-list-item"),
        pytest.param("Items:\n", Append("- a\n- b"), "Items:\n\n- a\n- b\n", id="append-list"),
        pytest.param("- a\n", Append("After."), "- a\n\nAfter.\n", id="append-after-list"),
        pytest.param(
            "Code:\n", Append("```\nx = 1\n```"), "Code:\n\n```\nx = 1\n```\n", id="append-fence"
        ),
        pytest.param("Said:\n", Append("> so"), "Said:\n\n> so\n", id="append-quote"),
        pytest.param("> one\n", Append("> two"), "> one\n> two\n", id="append-to-a-quote"),
        pytest.param(
            "| a |\n| - |\n| 1 |\n", Append("| 2 |"), "| a |\n| - |\n| 1 |\n| 2 |\n", id="table-row"
        ),
        pytest.param("Text.\n", Append("---"), "Text.\n\n---\n", id="append-thematic-break"),
        pytest.param("Title\n", Append("====="), "Title\n=====\n", id="append-setext-underline"),
        pytest.param("", Append("## First"), "## First\n", id="append-to-an-empty-page"),
        pytest.param(
            "```\ncode\n", Append("more"), "```\ncode\nmore\n", id="append-inside-an-open-fence"
        ),
        pytest.param(
            "- a\n- c\n", InsertAfter("- a", "\n- b"), "- a\n- b\n- c\n", id="item-after-item"
        ),
        pytest.param(
            "- a\n- c\n", InsertBefore("- c", "- b\n"), "- a\n- b\n- c\n", id="item-before-item"
        ),
        pytest.param(
            "- a\n  more\n", Append("- b"), "- a\n  more\n- b\n", id="item-after-an-item's-line"
        ),
        pytest.param(
            "- a\n- b\n", InsertAfter("- a", "\n  - a1"), "- a\n  - a1\n- b\n", id="nested-item"
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "\n## H"),
            "One.\n\n## H\n\nTwo.\n",
            id="heading-between-lines-gets-a-blank-line-each-side",
        ),
        pytest.param(
            "One.\n\nTwo.\n",
            InsertAfter("One.", "\n\nMiddle."),
            "One.\n\nMiddle.\n\nTwo.\n",
            id="paragraph-between-paragraphs",
        ),
        pytest.param(
            "# T\nIntro.\n",
            InsertBefore("# T", "Top.\n"),
            "Top.\n\n# T\nIntro.\n",
            id="before-the-first-line",
        ),
        pytest.param(
            "# T\n\n## Next\n",
            InsertBefore("## Next", "Words.\n"),
            "# T\n\nWords.\n\n## Next\n",
            id="paragraph-before-heading",
        ),
        pytest.param(
            "Hello world.\n", InsertAfter("Hello", " big"), "Hello big world.\n", id="in-a-line"
        ),
        pytest.param(
            "Hello.\nNext.\n",
            InsertAfter("Hello.", " ## Not a heading"),
            "Hello. ## Not a heading\nNext.\n",
            id="continuing-a-line",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertBefore("Two.", "New "),
            "One.\nNew Two.\n",
            id="starting-a-line-that-goes-on",
        ),
        pytest.param(
            "Hello.\nNext.\n",
            InsertAfter("Hello.", " more\n## H"),
            "Hello. more\n## H\n\nNext.\n",
            id="a-heading-after-text-that-continues-a-line",
        ),
        pytest.param(
            "```\ncode\n```\n",
            InsertAfter("code", "\n## not a heading"),
            "```\ncode\n## not a heading\n```\n",
            id="inside-fenced-code",
        ),
        pytest.param(
            "```\ncode\n```\n",
            InsertBefore("code", "more\n"),
            "```\nmore\ncode\n```\n",
            id="at-the-start-of-fenced-code",
        ),
        pytest.param(
            "```\ncode\n```\nAfter.\n",
            InsertAfter("code\n```", "\nText."),
            "```\ncode\n```\n\nText.\n\nAfter.\n",
            id="after-fenced-code",
        ),
        pytest.param(
            "Text.\n```\ncode\n```\n",
            InsertBefore("```\ncode", "More.\n"),
            "Text.\n\nMore.\n\n```\ncode\n```\n",
            id="before-fenced-code",
        ),
        pytest.param("a\n", InsertAfter("a", "\n\n"), "a\n\n\n", id="only-blank-lines"),
    ],
)
def test_text_that_starts_a_block_is_kept_apart_by_one_blank_line(
    body: str, edit: Edit, expected: str
) -> None:
    assert apply_edits(body, [edit]) == expected


def test_an_appended_heading_renders_as_a_heading() -> None:
    body = apply_edits(ENDS_WITH_PARAGRAPH, [Append("## Consequences\n\nWe ship it.")])
    html = render(body, page_url=lambda address: f"/p/{address}")
    assert re.search(r"<h2[^>]*>Consequences</h2>", html)
    assert "<p>The last paragraph.</p>" in html


def test_the_diff_of_an_append_shows_the_blank_line_it_keeps() -> None:
    after = apply_edits("One.", [Append("## Two")])
    assert unified_diff("One.", after) == (
        "--- before\n+++ after\n@@ -1 +1,3 @@\n-One.\n\\ No newline at end of file\n"
        "+One.\n+\n+## Two\n"
    )


# --- properties --------------------------------------------------------------------------------

_LINES = [
    "Words here.",
    "More words.",
    "# Title",
    "## Part",
    "- item",
    "1. first",
    "  - nested",
    "> quoted",
    "| a | b |",
    "---",
    "====",
    "    code",
    "```",
    "",
    "  ",
]
_pages = st.lists(st.sampled_from(_LINES), max_size=12).flatmap(
    lambda lines: st.sampled_from(["", "\n"]).map(lambda end: "\n".join(lines) + end)
)
_texts = st.lists(st.sampled_from([*_LINES, "\n", "\n\n", " tail", "x"]), min_size=1, max_size=4)
_texts_joined = _texts.map("".join)


def _once(body: str, anchor: str) -> bool:
    first = body.find(anchor)
    return first >= 0 and body.find(anchor, first + 1) < 0


def _inserted(body: str, edit: Edit) -> tuple[int, str]:
    """Where the edit puts its text and the text, as put in byte for byte."""
    if isinstance(edit, Append):
        text = edit.text
        if not text:
            return len(body), ""  # an empty append changes nothing
        if body and not body.endswith("\n"):
            text = "\n" + text
        return len(body), text if text.endswith("\n") else text + "\n"
    at = body.find(edit.anchor) + (len(edit.anchor) if isinstance(edit, InsertAfter) else 0)
    return at, edit.text


@st.composite
def _insertions(draw: st.DrawFn) -> tuple[str, Edit]:
    body = draw(_pages)
    text = draw(_texts_joined)
    kind = draw(st.sampled_from(["append", "after", "before"]))
    if kind == "append" or not body:
        return body, Append(text)
    start = draw(st.integers(0, len(body) - 1))
    anchor = body[start : draw(st.integers(start + 1, min(len(body), start + 15)))]
    assume(_once(body, anchor))
    return body, (InsertAfter if kind == "after" else InsertBefore)(anchor, text)


@settings(max_examples=400, deadline=None)
@given(_insertions())
def test_spacing_only_adds_newlines_at_the_edges_of_what_goes_in_never_a_second_blank_line(
    case: tuple[str, Edit],
) -> None:
    body, edit = case
    at, text = _inserted(body, edit)
    plain = body[:at] + text + body[at:]
    result = apply_edits(body, [edit])
    assert result.startswith(body[:at]) and result.endswith(body[at:])
    middle = result[at : len(result) - (len(body) - at)]
    added = len(middle) - len(text)
    # A line split for a block: a newline and a blank line on each side (spacing.py).
    assert 0 <= added <= 4
    # Each newline added is at the edge of the text's whitespace, before its first line or
    # after its last: without them the text is as it was given.
    core = text.strip(" \t\n")
    assert core in middle and middle.replace(core, "\0", 1).replace("\n", "") == (
        text.replace(core, "\0", 1).replace("\n", "")
    )
    # A newline is added only where no blank line was (and where the anchor ends a line, the
    # line's own newline ends a block that goes in after it).
    assert result.count("\n\n\n") <= plain.count("\n\n\n")


@settings(max_examples=200, deadline=None)
@given(_pages, st.sampled_from(["## Fresh heading", "## Fresh heading\n\nWith words."]))
def test_a_heading_appended_to_any_page_without_open_code_renders_as_a_heading(
    body: str, text: str
) -> None:
    assume(body.count("```") % 2 == 0)
    result = apply_edits(body, [Append(text)])
    html = render(result, page_url=lambda address: f"/p/{address}")
    assert re.search(r"<h2[^>]*>Fresh heading</h2>", html)


@settings(max_examples=200, deadline=None)
@given(_pages, st.sampled_from(["cat", " dog", "-x", "# y"]), st.data())
def test_text_without_a_newline_put_in_within_a_line_goes_in_byte_for_byte(
    body: str, text: str, data: st.DataObject
) -> None:
    assume(body.strip())
    start = data.draw(st.integers(0, len(body) - 1))
    anchor = body[start : data.draw(st.integers(start + 1, min(len(body), start + 15)))]
    assume(_once(body, anchor) and not anchor.endswith("\n"))
    at = start + len(anchor)
    assume(at < len(body) and body[at] != "\n")  # the line goes on after it
    assert apply_edits(body, [InsertAfter(anchor, text)]) == body[:at] + text + body[at:]
