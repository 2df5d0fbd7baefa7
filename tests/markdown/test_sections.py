"""The heading scanner: example tables, and agreement with markdown-it on generated pages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from codna.markdown.headings import inline_tokens_text, parse_name, plain_text
from codna.markdown.sections import (
    SectionAmbiguous,
    SectionNotFound,
    Sections,
    _Found,
    _lookup,
    _Outline,
    find_section,
    scan_headings,
)


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


# --- finding one heading by its passes, and keeping up with changes: it answers as the outline
# of every heading does, on generated pages and after changes.


def _full_scan_answer(body: str, name: str) -> tuple[int, int, int, int, str] | None:
    outline = _Outline(body)
    found = _lookup(outline, name)
    if len(found) != 1:
        return None
    heading = outline.heading(found[0])
    return heading.start, heading.content_start, heading.end, heading.level, heading.text


def _find_quickly(body: str, name: str) -> tuple[_Found, int] | None:
    """The one heading `name` names, found by the passes of Sections, or None if unsure."""
    return Sections("\n" + body, [name]).find(name)


def _fast_answer(body: str, name: str) -> tuple[int, int, int, int, str] | None:
    quick = _find_quickly(body, name)
    if quick is None:
        return None
    (start, level, raw, content_start), end = quick
    return start, content_start, end, level, plain_text(raw)


def _names(body: str, data: st.DataObject) -> str:
    """A name for one of the page's headings: its text, with its level or its ancestors."""
    outline = _Outline(body)
    choices = [*range(len(outline)), -1]
    index = data.draw(st.sampled_from(choices))
    if index < 0:
        return data.draw(st.sampled_from(["Limits", "A", "nothing", "A > B", "## A > B"]))
    parts: list[str] = []
    at = index
    depth = data.draw(st.integers(0, 3))
    while at >= 0 and len(parts) <= depth:
        prefix = data.draw(st.sampled_from(["", f"{'#' * outline.levels[at]} "]))
        parts.append(prefix + outline.text_of(at))
        at = outline.parents[at]
    return " > ".join(reversed(parts))


@settings(max_examples=400, deadline=None)
@given(st.one_of(generated_pages, busy_pages), st.data())
def test_the_fast_path_finds_what_the_full_scan_finds(body: str, data: st.DataObject) -> None:
    # Any name (plain, with a level, with ancestors) is looked up first without the full
    # scan; when it answers, it must be the outline's answer, the section's end included,
    # and it must answer whenever the outline finds exactly one heading.
    name = _names(body, data)
    expected = _full_scan_answer(body, name)
    fast = _fast_answer(body, name)
    if fast is None and expected is not None:
        assert not parse_name(name)[-1][1]  # a heading with no text is left to the outline
    else:
        assert fast == expected


@pytest.mark.parametrize(
    "body",
    [
        "# A\n```\n# B\n~~~\n```\n# B\n~~~\n## C\n~~~\n# D\n",
        "~~~\n```\n~~~\n# A\n```\n# B\n```\n## C\n",
        "A\n===\nB\n---\n\n---\nC\n---\n- x\n---\n## D\n",
        "# A\n    ## B\n  ## C\n para\n  ---\n### D\n",
        "# A\npara\n***\nB\n===\n## C\n```\nD\n===\n```\n## D\n",
        "# A\n" + "text\n" * 5000 + "## B\n" + "x\n" * 3000 + "### C\nend\n",
    ],
)
def test_the_fast_path_agrees_on_every_name_of_these_pages(body: str) -> None:
    outline = _Outline(body)
    for index in range(len(outline)):
        chain = [index]
        while outline.parents[chain[-1]] >= 0:
            chain.append(outline.parents[chain[-1]])
        for depth in range(len(chain)):
            path = list(reversed(chain[: depth + 1]))
            for with_levels in (False, True):
                name = " > ".join(
                    ("#" * outline.levels[i] + " " if with_levels else "") + outline.text_of(i)
                    for i in path
                )
                expected = _full_scan_answer(body, name)
                assert expected is not None, name
                assert _fast_answer(body, name) == expected, name


# Lines a change puts in: ones that open and close fences, underline a paragraph, indent a
# heading, or name the headings the generated pages have.
_changes = st.lists(
    st.one_of(_atx, _paragraph, _underline, _fence, _indented, _blank, _setext_lines),
    max_size=3,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(generated_pages, busy_pages), st.data())
def test_sections_kept_up_with_changes_find_what_the_outline_finds_on_the_page_they_make(
    body: str, data: st.DataObject
) -> None:
    # Some names are given when the Sections are made (their headings are looked for on its
    # passes), the others cost a pass of their own; either way, after each change (anywhere,
    # not only at line starts) it answers as the outline of the page as it now is.
    finder = Sections("\n" + body, [_names(body, data) for _ in range(2)])
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(body)))
        stop = data.draw(st.integers(start, min(len(body), start + 20)))
        new = data.draw(st.sampled_from(["", "\n"])) + data.draw(_changes)
        body = body[:start] + new + body[stop:]
        finder.update("\n" + body, start, stop, len(new))
        name = _names(body, data)
        expected = _full_scan_answer(body, name)
        quick = finder.find(name)
        if quick is None and expected is not None:
            assert not parse_name(name)[-1][1]
        else:
            fast = None
            if quick is not None:
                (found, level, raw, content_start), end = quick
                fast = found, content_start, end, level, plain_text(raw)
            assert fast == expected


def test_sections_made_without_names_find_each_name_with_a_pass_of_its_own() -> None:
    body = "# A\n## **B**\n```\n## B\n```\n  ## C\nD\n---\n"
    finder = Sections("\n" + body)
    for name in ["A", "B", "A > B", "## C", "D", "A > D"]:
        assert finder.find(name) == _find_quickly(body, name) is not None
    assert finder.bounds("B") == (4, 13, 26)
