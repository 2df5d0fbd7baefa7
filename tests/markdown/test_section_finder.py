"""The section finder: it answers as the full scan does, on generated pages and after changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.headings import parse_name, plain_text
from codna.markdown.section_finder import SectionFinder, _find_quickly
from codna.markdown.sections import _lookup, _Outline
from tests.markdown.test_sections import (
    _atx,
    _blank,
    _fence,
    _indented,
    _paragraph,
    _setext_lines,
    _underline,
    busy_pages,
    generated_pages,
)


def _full_scan_answer(body: str, name: str) -> tuple[int, int, int, int, str] | None:
    outline = _Outline(body)
    found = _lookup(outline, name)
    if len(found) != 1:
        return None
    heading = outline.heading(found[0])
    return heading.start, heading.content_start, heading.end, heading.level, heading.text


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
    # scan; when it answers, it must be the full scan's answer, the section's end included,
    # and it must answer whenever the full scan finds exactly one heading.
    name = _names(body, data)
    expected = _full_scan_answer(body, name)
    fast = _fast_answer(body, name)
    if fast is None and expected is not None:
        assert not parse_name(name)[-1][1]  # a heading with no text is left to the full scan
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
def test_a_finder_kept_up_with_changes_finds_what_the_full_scan_finds_on_the_page_they_make(
    body: str, data: st.DataObject
) -> None:
    # Some names are given when the finder is made (their headings are looked for on its
    # passes), the others cost a pass of their own; either way, after each change (anywhere,
    # not only at line starts) it answers as the full scan of the page as it now is.
    finder = SectionFinder("\n" + body, [_names(body, data) for _ in range(2)])
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


def test_a_finder_made_without_names_finds_each_with_a_pass_of_its_own() -> None:
    body = "# A\n## **B**\n```\n## B\n```\n  ## C\nD\n---\n"
    finder = SectionFinder("\n" + body)
    for name in ["A", "B", "A > B", "## C", "D", "A > D"]:
        assert finder.find(name) == _find_quickly(body, name) is not None
    assert finder.bounds("B") == (4, 13, 26)
