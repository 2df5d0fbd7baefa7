"""The heading scanner: example tables, and agreement with markdown-it on generated pages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from codna.markdown.headings import inline_tokens_text
from codna.markdown.section_finder import find_section
from codna.markdown.sections import SectionAmbiguous, SectionNotFound, scan_headings


def _headings(body: str) -> list[tuple[int, str]]:
    return [(heading.level, heading.text) for heading in scan_headings(body)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("# Limits\n", [(1, "Limits")]),
        ("###### Six\n####### Seven\n", [(6, "Six")]),
        ("#Hashtag\n", []),
        ("#\tTabbed\n", [(1, "Tabbed")]),
        ("   # Three spaces\n", [(1, "Three spaces")]),
        ("## Closing ##\n", [(2, "Closing")]),
        ("## Closing##\n", [(2, "Closing##")]),
        ("## Escaped \\##\n", [(2, "Escaped ##")]),
        ("# #\n", [(1, "")]),
        ("# **Limits**\n", [(1, "Limits")]),
        ("# `code` and _em_ and *em*\n", [(1, "code and em and em")]),
        ("# [text](http://example.com) ![alt](x.png)\n", [(1, "text alt")]),
        ("# A &amp; B\n", [(1, "A & B")]),
        ("Setext\n===\n", [(1, "Setext")]),
        ("Setext two\n---\n", [(2, "Setext two")]),
        ("Two\nlines\n===\n", [(1, "Two lines")]),
        ("  Indented **text**\n  ===  \n", [(1, "Indented text")]),
        ("para\n\n---\n", []),
        ("---\n", []),
        ("===\n", []),
        ("# Heading\n---\n", [(1, "Heading")]),
        ("```\n# not a heading\n```\n# after\n", [(1, "after")]),
        ("~~~~\n# not\n~~~\n# still code\n~~~~\n# after\n", [(1, "after")]),
        ("```\n# never closed\n", []),
        ("``` not`a fence\n# heading\n", [(1, "heading")]),
        ("    # indented code\n", []),
        ("\t# tab-indented code\n", []),
        ("para\n    # lazy continuation\n===\n", [(1, "para # lazy continuation")]),
        ("    code\n===\n", []),
        ("- item\n---\n", []),
        ("> quote\n---\n", []),
    ],
)
def test_headings_are_found_as_commonmark_reads_them(
    body: str, expected: list[tuple[int, str]]
) -> None:
    assert _headings(body) == expected


def test_a_section_runs_to_the_next_heading_of_the_same_or_a_higher_level() -> None:
    body = "# A\na\n## B\nb\n### C\nc\n## D\nd\n# E\n"
    spans = {h.text: body[h.start : h.end] for h in scan_headings(body)}
    assert spans["A"] == "# A\na\n## B\nb\n### C\nc\n## D\nd\n"
    assert spans["B"] == "## B\nb\n### C\nc\n"
    assert spans["C"] == "### C\nc\n"
    assert spans["E"] == "# E\n"


def test_a_setext_heading_starts_on_its_first_line_and_its_content_after_the_underline() -> None:
    body = "intro\n\nTwo\nlines\n---\ncontent\n"
    (heading,) = scan_headings(body)
    assert heading.line == 2
    assert body[heading.start : heading.content_start] == "Two\nlines\n---\n"
    assert body[heading.content_start : heading.end] == "content\n"


OUTLINE = """# Decision

## Limits

### Options

#### Limits

## Notes

### Limits

# Appendix > Notes

# ### Literal
"""


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("Decision", 0),
        ("#### Limits", 6),
        ("## Limits", 2),
        ("Options > Limits", 6),
        ("Limits > Options > Limits", 6),
        ("Decision > Limits > Options > Limits", 6),
        ("Notes > Limits", 10),
        ("## Notes > ### Limits", 10),
        ("  Decision  >   Limits ", 2),
        ("Appendix > Notes", 12),
        ("### Literal", 14),
    ],
)
def test_a_heading_is_named_by_its_text_its_level_or_the_headings_above_it(
    name: str, line: int
) -> None:
    assert find_section(OUTLINE, name).line == line


def test_a_heading_without_text_is_named_by_the_one_above_it() -> None:
    heading = find_section("# A\n##\nx\n# B\n", "A > ")
    assert (heading.level, heading.text, heading.start, heading.end) == (2, "", 4, 9)


def test_a_name_several_headings_share_is_ambiguous_and_the_refusal_names_each_uniquely() -> None:
    with pytest.raises(SectionAmbiguous) as refused:
        find_section(OUTLINE, "Limits")
    assert refused.value.count == 3
    assert refused.value.hints == ["Decision > Limits", "Options > Limits", "Notes > Limits"]


def test_a_name_no_heading_has_is_not_found_and_the_refusal_suggests_close_ones() -> None:
    with pytest.raises(SectionNotFound) as refused:
        find_section(OUTLINE, "limits")
    assert refused.value.suggestions == ["Limits"]
    # The named ancestors must be the nearest ones: skipping one does not match.
    for name in ("Notes > Options", "Decision > Options > Limits"):
        with pytest.raises(SectionNotFound):
            find_section(OUTLINE, name)


def test_matching_is_exact_case_and_inner_spaces_kept() -> None:
    body = "# Two  spaces\n# Case\n"
    assert find_section(body, "Two  spaces").line == 0
    for name in ("Two spaces", "case"):
        with pytest.raises(SectionNotFound):
            find_section(body, name)


# --- agreement with markdown-it -------------------------------------------------------------

_TEXTS = [
    "Limits",
    "**Limits**",
    "`code` here",
    "[link](http://example.com)",
    "a_b_c *em* _em_",
    "x #",
    "trail ##",
    "\\#escaped",
    "A > B",
    "",
]
_atx = st.builds(
    lambda indent, hashes, gap, text, closing, tail: indent + hashes + gap + text + closing + tail,
    st.sampled_from(["", " ", "   "]),
    st.sampled_from(["#", "##", "###", "######", "#######"]),
    st.sampled_from([" ", "\t", "  ", ""]),
    st.sampled_from(_TEXTS),
    st.sampled_from(["", " #", " ###", "#"]),
    st.sampled_from(["", " ", "\t"]),
)
_paragraph = st.sampled_from(
    ["Some text", "more *text", "end* here", "   three spaces", "x = y", "==", "--", "= =", "`a`"]
)
_underline = st.sampled_from(
    ["===", "---", "  ---", "--- ", "=", "==", "-- ", "- - -", "***", "___", "* * *", "----\t"]
)
_fence = st.sampled_from(["```", "~~~", "````", "```python", "  ```", "~~~~", "``` a`b", "```  "])
_indented = st.sampled_from(["    code", "    # not a heading", "\tcode", "     ---", "    ```"])
_blank = st.sampled_from(["", "  ", "\t"])
generated_pages = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(st.one_of(_atx, _paragraph, _underline, _fence, _indented, _blank), max_size=30),
    st.sampled_from(["", "\n"]),
)


_setext_lines = st.sampled_from(["Title", "Limits", "A > B", "**A**", "- item", "> quote", "  x"])
busy_pages = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(
        st.one_of(_atx, _paragraph, _underline, _fence, _indented, _blank, _setext_lines),
        max_size=40,
    ),
    st.sampled_from(["", "\n"]),
)


_COMMONMARK = MarkdownIt("commonmark")


def _markdown_it_headings(body: str) -> list[tuple[int, str, int, int, int]]:
    tokens = _COMMONMARK.parse(body)
    offsets = [0] + [i + 1 for i, char in enumerate(body) if char == "\n"]
    offsets.append(len(body))
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            first, after = token.map
            text = inline_tokens_text(tokens[index + 1].children or [])
            found.append((int(token.tag[1]), text, first, offsets[first], offsets[after]))
    return found


@settings(max_examples=200, deadline=None)
@given(generated_pages)
def test_the_scanner_agrees_with_markdown_it_on_generated_pages(body: str) -> None:
    ours = [(h.level, h.text, h.line, h.start, h.content_start) for h in scan_headings(body)]
    assert ours == _markdown_it_headings(body)
