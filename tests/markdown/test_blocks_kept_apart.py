"""Text that starts a block is kept apart as a block of its own wherever an insert puts it:
where the anchor ends a line, inside a line or before a blank line; text that does not start a
block goes in exactly where it is asked to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codna.markdown.apply import apply_edits
from codna.markdown.edits import OPS, Append, Edit, InsertAfter, InsertBefore

DECISION = "# Decision\n\nWe use X for each one.\n\n## Other\n"
ANCHOR = "We use X for each one."


@pytest.mark.parametrize(
    ("body", "edit", "expected"),
    [
        pytest.param(
            DECISION,
            InsertAfter(ANCHOR, "## Consequences\n\n- one\n"),
            "# Decision\n\nWe use X for each one.\n\n## Consequences\n\n- one\n\n## Other\n",
            id="heading-after-a-paragraph-before-a-blank-line",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "## H\n"),
            "One.\n\n## H\n\nTwo.\n",
            id="heading-at-a-line's-end",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "## H"),
            "One.\n\n## H\n\nTwo.\n",
            id="one-heading-line-without-a-newline-at-a-line's-end",
        ),
        pytest.param(
            "One.", InsertAfter("One.", "## H\n"), "One.\n\n## H\n", id="at-the-page's-end"
        ),
        pytest.param(
            "Hello world.\n",
            InsertAfter("Hello", "## H\n"),
            "Hello\n\n## H\n\n world.\n",
            id="heading-mid-line-splits-it",
        ),
        pytest.param(
            "Hello world.\n",
            InsertAfter("Hello ", "## H"),
            "Hello ## Hworld.\n",
            id="one-heading-line-mid-line-joins-it",
        ),
        pytest.param(
            "Items:\nDone.\n",
            InsertAfter("Items:", "- a\n- b\n"),
            "Items:\n\n- a\n- b\n\nDone.\n",
            id="list",
        ),
        pytest.param(
            "- a\n- c\n", InsertAfter("- a", "- b"), "- a\n- b\n- c\n", id="item-joins-its-list"
        ),
        pytest.param(
            "Code:\nDone.\n",
            InsertAfter("Code:", "```\nx = 1\n```\n"),
            "Code:\n\n```\nx = 1\n```\n\nDone.\n",
            id="fence",
        ),
        pytest.param(
            "Said:\nDone.\n",
            InsertAfter("Said:", "> so\n"),
            "Said:\n\n> so\n\nDone.\n",
            id="quote",
        ),
        pytest.param(
            "Table:\nDone.\n",
            InsertAfter("Table:", "| a |\n| - |\n"),
            "Table:\n\n| a |\n| - |\n\nDone.\n",
            id="table",
        ),
        pytest.param(
            "| a |\n| - |\n| 1 |\n",
            InsertAfter("| 1 |", "| 2 |"),
            "| a |\n| - |\n| 1 |\n| 2 |\n",
            id="row-joins-its-table",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "---\n"),
            "One.\n\n---\n\nTwo.\n",
            id="thematic-break",
        ),
        pytest.param(
            "One.\n\nTwo.\n",
            InsertAfter("One.", "Middle.\n"),
            "One.\n\nMiddle.\n\nTwo.\n",
            id="paragraph-next-to-a-paragraph",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "Middle.\n\nMore."),
            "One.\n\nMiddle.\n\nMore.\n\nTwo.\n",
            id="paragraphs-holding-a-blank-line",
        ),
        pytest.param(
            DECISION,
            InsertBefore("## Other", "## Consequences\n\n- one"),
            "# Decision\n\nWe use X for each one.\n\n## Consequences\n\n- one\n\n## Other\n",
            id="before-a-heading-without-a-final-newline",
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertBefore("Two.", "## H"),
            "One.\n\n## H\n\nTwo.\n",
            id="one-heading-line-before-a-line",
        ),
        pytest.param(
            "Hello world.\n",
            InsertBefore("world", "> q\n"),
            "Hello \n\n> q\n\nworld.\n",
            id="before-mid-line-splits-it",
        ),
        pytest.param(
            DECISION, Append("## Next"), DECISION + "\n## Next\n", id="append-after-a-heading"
        ),
        pytest.param("One.", Append("## H"), "One.\n\n## H\n", id="append"),
        pytest.param(
            "Hello world.\n", InsertAfter("Hello", " big"), "Hello big world.\n", id="inline"
        ),
        pytest.param(
            "One.\nTwo.\n", InsertAfter("One.", " More."), "One. More.\nTwo.\n", id="inline-end"
        ),
        pytest.param(
            "One.\nTwo.\n", InsertAfter("One", "s"), "Ones.\nTwo.\n", id="inline-in-a-word"
        ),
        pytest.param(
            "One.\nTwo.\n",
            InsertAfter("One.", "Middle."),
            "One.Middle.\nTwo.\n",
            id="one-line-of-words-continues-the-line",
        ),
        pytest.param(
            "One.\nTwo.\n", InsertBefore("Two.", "## "), "One.\n## Two.\n", id="prefix-heading"
        ),
        pytest.param(
            "One.\nTwo.\n", InsertBefore("Two.", "- "), "One.\n- Two.\n", id="prefix-item"
        ),
        pytest.param(
            "| a | c |\n", InsertAfter("| a ", "| b "), "| a | b | c |\n", id="a-cell-in-a-row"
        ),
        pytest.param(
            "Version 1 is out.\n",
            InsertAfter("Version 1", "0. Then"),
            "Version 10. Then is out.\n",
            id="digits-within-a-line",
        ),
        pytest.param(
            "```\ncode\n```\n",
            InsertAfter("code", "## not a heading\n"),
            "```\ncode## not a heading\n\n```\n",
            id="inside-fenced-code-as-given",
        ),
    ],
)
def test_text_that_starts_a_block_is_its_own_block_and_inline_text_goes_in_as_asked(
    body: str, edit: Edit, expected: str
) -> None:
    assert apply_edits(body, [edit]) == expected


# --- a property --------------------------------------------------------------------------------

_LINES = ["Words here.", "More words.", "## Part", "- item", "> quoted", "| a |", "---", ""]
_pages = st.lists(st.sampled_from(_LINES), min_size=1, max_size=8).map(
    lambda lines: "\n".join(lines) + "\n"
)
_blocks = st.sampled_from(
    ["## Fresh\n", "## Fresh\n\n- one\n", "- one\n- two\n", "> said\n", "```\nx\n```\n", "***\n"]
)


@settings(max_examples=300, deadline=None)
@given(_pages, _blocks, st.sampled_from(["after", "before"]), st.data())
def test_a_block_never_shares_a_line_and_the_rest_of_the_page_only_gains_newlines(
    body: str, block: str, kind: str, data: st.DataObject
) -> None:
    assume("```" not in body)
    start = data.draw(st.integers(0, len(body) - 1))
    anchor = body[start : data.draw(st.integers(start + 1, min(len(body), start + 12)))]
    first = body.find(anchor)
    assume(anchor.strip() and body.find(anchor, first + 1) < 0)
    edit = (InsertAfter if kind == "after" else InsertBefore)(anchor, block)
    result = apply_edits(body, [edit])
    at = start + (len(anchor) if kind == "after" else 0)
    # Every line of the block is a whole line of the result.
    lines = result.split("\n")
    for line in block.strip("\n").split("\n"):
        assert line in lines
    # The page around it is as it was, apart from newlines.
    plain = body[:at] + block + body[at:]
    assert result.startswith(body[:at])
    assert result.replace("\n", "") == plain.replace("\n", "")
    # A blank line is added only where none was.
    assert result.count("\n\n\n") <= plain.count("\n\n\n")


# --- docs/edits.md's table, row by row ---------------------------------------------------------

_DOC_ROW = re.compile(r"^\| (.+?) \| `(insert_after|insert_before|append)` (.+?) \| (.+?) \|$")
_CODE = re.compile(r"`` (.+?) ``|`([^`]+)`")


def _code(cell: str) -> list[str]:
    """The texts a cell quotes as code, with ⏎ as a newline and \\| as a bar."""
    cell = re.sub(r" \([^`]*\)$", "", cell)
    return [
        (double or single).replace("⏎", "\n").replace("\\|", "|")
        for double, single in _CODE.findall(cell)
    ]


def _doc_rows() -> list[tuple[str, Edit, str]]:
    text = (Path(__file__).parents[2] / "docs" / "edits.md").read_text(encoding="utf-8")
    section = text.split("## Blocks kept apart", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        matched = _DOC_ROW.match(line)
        if matched:
            (page,), op, fields, (result,) = (
                _code(matched[1]),
                matched[2],
                _code(matched[3]),
                _code(matched[4]),
            )
            edit = OPS[op](*fields)
            rows.append((page + "\n", edit, result + "\n"))
    return rows


def test_docs_edits_table_of_blocks_kept_apart_is_what_the_engine_does() -> None:
    rows = _doc_rows()
    assert len(rows) >= 19
    for page, edit, result in rows:
        assert apply_edits(page, [edit]) == result, (page, edit)
