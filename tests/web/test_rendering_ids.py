"""Heading ids are decided once over the whole page: a page rendered section by section is the
page rendered whole, ids and anchors included, and no heading takes an id the templates it is
shown in give their own elements."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from codna.web import rendering
from codna.web.rendering import TEMPLATE_IDS, Rendered

MADE = datetime(2026, 12, 1, tzinfo=UTC)
ADDRESS = "wiki:notes/page"

_HEADING = re.compile(r'<h([1-6]) id="([^"]*)">')
_ANCHOR = re.compile(r'<h[1-6] id="([^"]*)">.*?<a class="anchor" href="#([^"]*)"', re.DOTALL)
_FILLER = "Words of prose, enough of them to make the page big. " * 20 + "\n"


def _padded(sections: list[str], big: bool) -> str:
    """The sections in turn, with prose after each until the page is BIG or more (`big`), or
    as they are (well under BIG)."""
    if not big:
        return "".join(sections)
    parts: list[str] = []
    while sum(map(len, parts)) < rendering.BIG:
        parts += [f"{section}\n{_FILLER}\n" for section in sections]
    return "".join(parts)


# Each case: its sections, and whether a big page of them is rendered section by section.
SECTIONS = {
    # The same heading in every section, and under it.
    "repeated across sections": (["## Notes\n\nText.\n\n### Details\n\nMore.\n"], True),
    # ATX and setext, one text written both ways.
    "setext and ATX": (
        ["Notes\n-----\n\nText.\n\n### Notes\n", "## Notes\n\nPlain.\n\nDetails\n=======\n"],
        True,
    ),
    # Headings in fenced code are code: no id, and nothing numbered after them.
    "in code fences": (
        [
            "## Code\n\n```\n# Code\n## Notes\n```\n\n~~~~\n## Code\n~~~~\n",
            "## Notes\n\n```python\n# Notes\n```\n",
        ],
        True,
    ),
    # A slug that is a numbered repeat of another: `Foo 2` before two `Foo`s. Numbering each
    # section's ids again over the page gave `foo-2-2` here, where the page whole has `foo-3`.
    "a slug like a numbered repeat": (["## Foo 2\n\nText.\n", "## Foo\n\n### Foo\n"], True),
    # Ids the page's template gives its own elements.
    "template ids": (["## Main\n\nText.\n", "## Site menu\n\n### Main\n\n### Find q\n"], True),
    # Inline markup, punctuation and text that slugs the same.
    "markup and punctuation": (
        [
            "## **Limits** & `costs`\n\n### Limits costs\n",
            "## Limits — costs!\n\n### [Limits](wiki:home) costs\n",
        ],
        True,
    ),
    # A heading that is not cut at, in a list item and after a paragraph's last line.
    "in a list item and right after text": (
        ["## Notes\n\n- item\n  ## Notes\n", "Text.\n## Notes\n"],
        True,
    ),
    # Headings the scanner does not read as markdown-it does: in a quote, in a list item's
    # fence, a table row underlined. The page is rendered whole then, with the same result.
    "in a block quote": (["## Notes\n\n> ## Notes\n\nAfter.\n"], False),
    "in a list item's fence": (["## Notes\n\n- ```\n  # Notes\n  ```\n"], False),
    "in a table": (["## Notes\n\n| a |\n|---|\n| b |\nNotes\n-----\n"], False),
}
# The page's title, so that its `##` headings cut it.
CASES = [
    pytest.param(
        "# Page\n\nIntroduction.\n\n" + _padded(sections, big),
        big and sectioned,
        id=f"{name}, {'big' if big else 'small'}",
    )
    for name, (sections, sectioned) in SECTIONS.items()
    for big in (True, False)
]
BIG_CASES = [case for case in CASES if str(case.id).endswith("big")]


def _ids(html: str) -> list[str]:
    return [heading_id for _, heading_id in _HEADING.findall(html)]


@pytest.mark.parametrize(("body", "sectioned"), CASES)
def test_a_page_renders_by_sections_as_it_does_whole_with_ids_unique_over_it(
    body: str, sectioned: bool
) -> None:
    whole = rendering.render(
        body, page_url=rendering.page_url, at=ADDRESS, navigation=True, reserved=TEMPLATE_IDS
    )
    shown = str(Rendered().html(ADDRESS, 1, MADE, body))
    assert shown == whole
    ids = _ids(whole)
    assert ids and len(set(ids)) == len(ids)
    assert not set(ids) & TEMPLATE_IDS
    # Each heading's anchor links to the heading's own id.
    anchors = _ANCHOR.findall(whole)
    assert len(anchors) == len(ids) and all(a == b for a, b in anchors)
    # The table of contents, where there is one, links to those ids.
    toc = whole[whole.find('<nav class="toc"') : whole.find("</nav>")]
    assert set(re.findall(r'href="#([^"]*)"', toc)) <= set(ids)


@pytest.mark.parametrize(("body", "sectioned"), BIG_CASES)
def test_a_big_page_is_rendered_section_by_section_where_the_scanner_reads_it_right(
    body: str, sectioned: bool
) -> None:
    # Where it is, the comparison above is between the two ways of rendering, not one way
    # twice; where it is not, the page was rendered whole.
    assert len(body) >= rendering.BIG
    assert (Rendered()._by_sections(ADDRESS, body) is not None) == sectioned


def test_a_heading_keeps_clear_of_the_ids_of_the_page_template() -> None:
    assert {"main", "site-menu", "menu-button", "inbox-count"} <= TEMPLATE_IDS
    html = str(Rendered().html(ADDRESS, 1, MADE, "# Main\n\n## Main\n"))
    assert _ids(html) == ["main-2", "main-3"]
    assert '<a class="anchor" href="#main-2"' in html


def test_a_section_kept_is_not_reused_where_its_headings_get_other_ids() -> None:
    # The same section text, after a section that has its heading once and then twice: its
    # heading is `notes-2`, then `notes-3`.
    kept = Rendered()
    tail = f"## Notes\n\n{_FILLER * 80}"
    first = "# Page\n\n## Notes\n\nOnce.\n\n" + tail
    second = "# Page\n\n## Notes\n\n### Notes\n\nTwice.\n\n" + tail
    for version, body in enumerate([first, second], start=1):
        assert len(body) >= rendering.BIG
        whole = rendering.render(
            body, page_url=rendering.page_url, at=ADDRESS, navigation=True, reserved=TEMPLATE_IDS
        )
        assert str(kept.html(ADDRESS, version, MADE, body)) == whole
    assert _ids(whole)[-1] == "notes-3"
