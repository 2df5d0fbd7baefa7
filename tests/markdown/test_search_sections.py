"""A page cut into the search index's rows, and the rows a change touched: rescanning from
the sections the splices touched gives what cutting the whole new page gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown import delta
from codna.markdown.search_sections import (
    IndexedSection,
    changed_sections,
    changed_spans,
    index_sections,
)

LINES = st.sampled_from(
    [
        "# Title\n",
        "## Context\n",
        "## Context\n",
        "### Notes\n",
        "Decision\n",
        "===\n",
        "---\n",
        "\n",
        "Some text.\n",
        "More words here.\n",
        "```\n",
        "~~~\n",
        "    ## indented\n",
        "code()\n",
        "No newline",
    ]
)
TEXTS = st.lists(LINES, max_size=40).map("".join)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str, list[delta.Splice]]:
    old = draw(TEXTS)
    text = old
    splices: list[delta.Splice] = []
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        stop = draw(st.integers(start, min(len(text), start + 30)))
        piece = draw(st.one_of(LINES, st.sampled_from(["", "x", "#", "\n", "## "])))
        splices.append((start, stop, piece))
        text = text[:start] + piece + text[stop:]
    return old, text, splices


def lengths_of(rows: list[IndexedSection], body: str) -> list[int]:
    """What the index stores, by ordinal from 0: the length of the text before the first
    heading even when it has no row of its own."""
    headings = [r.chars for r in rows if r.ordinal > 0]
    return [len(body) - sum(headings), *headings]


@settings(max_examples=400, deadline=None)
@given(edited())
def test_outside_the_changed_spans_the_texts_before_and_after_are_the_same(
    case: tuple[str, str, list[delta.Splice]],
) -> None:
    old, new, splices = case
    old_at = new_at = 0
    for span in changed_spans(splices):
        assert span.old_start >= old_at and span.new_start >= new_at
        assert old[old_at : span.old_start] == new[new_at : span.new_start]
        old_at, new_at = span.old_stop, span.new_stop
    assert old[old_at:] == new[new_at:]


@settings(max_examples=1000, deadline=None)
@given(edited())
def test_the_sections_a_change_touched_rescanned_give_the_rows_of_the_whole_new_page(
    case: tuple[str, str, list[delta.Splice]],
) -> None:
    old, new, splices = case
    before = index_sections("T", [], old)
    after = index_sections("T", [], new)
    rewrites = changed_sections(old, new, splices, lengths_of(before, old))
    if rewrites is None:  # headings came, went or moved: the caller cuts the whole page
        return
    rows = {r.ordinal: r for r in before}
    for rewrite in rewrites:
        for section in rewrite.sections:
            rows[section.ordinal] = section
    expected = {r.ordinal: r for r in after}
    if 0 in rows and not rows[0].text.strip():
        del rows[0]  # white space before the first heading has no row
    assert sorted(rows) == sorted(expected)
    for ordinal, row in rows.items():
        want = expected[ordinal]
        assert (row.heading, row.text, row.digest, row.chars) == (
            want.heading,
            want.text,
            want.digest,
            want.chars,
        )


PARAGRAPHS = "".join(f"## Part {n}\n\nParagraph {n} says a thing.\n\n" for n in range(40))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 39), st.sampled_from(["said", "", "says *not*"])),
        min_size=1,
        max_size=5,
    )
)
def test_changes_of_paragraphs_alone_never_need_the_whole_page(
    changes: list[tuple[int, str]],
) -> None:
    old = new = PARAGRAPHS
    splices: list[delta.Splice] = []
    for n, word in changes:
        at = new.index(f"Paragraph {n} ") + len(f"Paragraph {n} ")
        stop = new.index(" a thing", at)
        splices.append((at, stop, word))
        new = new[:at] + word + new[stop:]
    rows = index_sections("T", [], old)
    rewrites = changed_sections(old, new, splices, lengths_of(rows, old))
    assert rewrites is not None
    assert sum(len(r.sections) for r in rewrites) <= 3 * len(changes)
    for row in index_sections("T", [], new):
        for rewrite in rewrites:
            for section in rewrite.sections:
                if section.ordinal == row.ordinal:
                    assert (section.text, section.digest, section.chars) == (
                        row.text,
                        row.digest,
                        row.chars,
                    )


def test_a_one_paragraph_change_of_a_long_page_rescans_its_own_section() -> None:
    old = "".join(f"## Part {n}\n\nParagraph {n} says a thing.\n\n" for n in range(2000))
    at = old.index("Paragraph 1000 says")
    new = old[:at] + "Paragraph 1000 said" + old[at + len("Paragraph 1000 says") :]
    rows = index_sections("T", [], old)
    rewrites = changed_sections(
        old, new, [(at, at + 19, "Paragraph 1000 said")], lengths_of(rows, old)
    )
    assert rewrites is not None
    assert [(r.first, [s.heading for s in r.sections]) for r in rewrites] == [
        (1000, ["Part 999", "Part 1000"])  # the section before, whose heading stays put
    ]


def test_a_fence_opened_by_a_change_rescans_to_the_end_of_the_page() -> None:
    old = "".join(f"## Part {n}\n\nText.\n\n" for n in range(5))
    at = old.index("Text.")
    new = old[:at] + "```\n" + old[at:]
    rows = index_sections("T", [], old)
    assert changed_sections(old, new, [(at, at, "```\n")], lengths_of(rows, old)) is None
    closed = old[:at] + "```\ncode\n```\n" + old[at:]
    rewrites = changed_sections(old, closed, [(at, at, "```\ncode\n```\n")], lengths_of(rows, old))
    assert rewrites is not None and [r.first for r in rewrites] == [0]


def test_lengths_that_do_not_add_up_to_the_page_ask_for_the_whole_page() -> None:
    assert (
        changed_sections("## A\n\nText.\n", "## A\n\nMore.\n", [(6, 11, "More.")], [0, 3]) is None
    )
