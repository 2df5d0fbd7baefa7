"""Markdown to sanitised HTML: what a page shows, and what hostile input cannot make of it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.render import ALLOWED_CLASSES, ALLOWED_TAGS, internal_links, render, slug


def page_url(address: str) -> str:
    space, _, path = address.partition(":")
    return f"/p/{space}/{path}"


def html_of(body: str) -> str:
    return render(body, page_url=page_url)


class _Elements(HTMLParser):
    """The start tags of an HTML fragment, each with its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.elements


ALLOWED_HREF = re.compile(r"(?:https?://|mailto:|#|/p/(?:wiki|raw|output)/)", re.IGNORECASE)
ALLOWED_SRC = re.compile(r"https?://", re.IGNORECASE)


def assert_inert(html: str) -> None:
    """Nothing in the HTML can run: only allowed tags, no handlers or styles, safe URLs."""
    assert "<script" not in html.lower()
    for tag, attrs in elements(html):
        assert tag in ALLOWED_TAGS, html
        for name, value in attrs.items():
            assert not name.startswith("on"), html
            assert name != "style", html
            if name == "href":
                assert ALLOWED_HREF.match(value), html
            if name == "src":
                assert ALLOWED_SRC.match(value), html
            if name == "class" and tag == "code":
                assert re.fullmatch(r"language-[A-Za-z0-9_+#.-]+", value), html
            elif name == "class":
                assert set(value.split()) <= ALLOWED_CLASSES.get(tag, set()), html
            if tag == "input":
                assert attrs.get("type") == "checkbox" and "disabled" in attrs, html


# --- what a page shows -----------------------------------------------------------------------


def test_headings_get_the_slug_of_their_text_as_id() -> None:
    html = html_of("# Limits & costs\n\n## **Bold** `code` here\n\n### Étape 2\n")
    assert '<h1 id="limits-costs">Limits &amp; costs</h1>' in html
    assert '<h2 id="bold-code-here">' in html
    assert '<h3 id="étape-2">' in html


def test_a_repeated_heading_gets_a_numbered_id_that_no_other_heading_has() -> None:
    html = html_of("# Notes\n\n# Notes\n\nNotes\n===\n\n# Notes-2\n")
    assert [attrs["id"] for tag, attrs in elements(html) if tag == "h1"] == [
        "notes",
        "notes-2",
        "notes-3",
        "notes-2-2",
    ]


def test_a_heading_without_words_is_called_section() -> None:
    assert slug("") == "section"
    assert slug("!!!") == "section"
    assert '<h2 id="section">' in html_of("## ???\n")


def test_lists_keep_their_items_and_an_ordered_list_its_start() -> None:
    html = html_of("- one\n- two\n\n3. three\n4. four\n")
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in html
    assert '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>' in html


def test_a_script_inside_a_code_fence_stays_text() -> None:
    html = html_of("```nonesuch\nprint('<script>alert(1)</script>')\n```\n")
    assert html == (
        '<pre><code class="language-nonesuch">'
        "print('&lt;script&gt;alert(1)&lt;/script&gt;')\n</code></pre>\n"
    )
    highlighted = html_of("```python\nprint('<script>alert(1)</script>')\n```\n")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in highlighted
    assert_inert(highlighted)


def test_a_fence_language_that_is_not_a_plain_name_gives_no_class() -> None:
    html = html_of('```"onmouseover=alert(1)\nx\n```\n\n```c++ extra words\ny\n```\n')
    assert "<pre><code>x\n</code></pre>" in html
    assert '<code class="language-c++">' in html and "y" in html
    assert_inert(html)


def test_inline_markup_and_strikethrough_render() -> None:
    html = html_of("*em* **strong** `code` ~~gone~~  \nnext\n\n> quoted\n\n---\n")
    assert "<em>em</em> <strong>strong</strong> <code>code</code> <s>gone</s><br>" in html
    assert "<blockquote>\n<p>quoted</p>\n</blockquote>" in html
    assert "<hr>" in html


def test_a_table_renders_without_alignment_styles() -> None:
    html = html_of("| a | b |\n|:--|--:|\n| 1 | 2 |\n")
    assert "<table>" in html
    assert "<th>a</th>" in html
    assert "<td>2</td>" in html
    assert "style" not in html


def test_an_internal_link_resolves_through_page_url_and_keeps_its_fragment() -> None:
    asked: list[str] = []

    def recording_page_url(address: str) -> str:
        asked.append(address)
        return page_url(address)

    html = render(
        "[Suggested changes](wiki:decisions/0024-suggested-changes#limits) and [notes](raw:x)",
        page_url=recording_page_url,
    )
    assert '<a href="/p/wiki/decisions/0024-suggested-changes#limits">Suggested changes</a>' in html
    assert '<a href="/p/raw/x">notes</a>' in html
    assert asked == ["wiki:decisions/0024-suggested-changes", "raw:x"]


def test_an_internal_autolink_and_a_reference_link_resolve_too() -> None:
    html = html_of("<output:report/1> and [ref][r]\n\n[r]: wiki:a/b#c\n")
    assert '<a href="/p/output/report/1">output:report/1</a>' in html
    assert '<a href="/p/wiki/a/b#c">ref</a>' in html


def test_an_external_link_gets_rel_noopener_noreferrer() -> None:
    html = html_of('[site](https://example.com/a?b=1 "Title") and <http://example.org>')
    assert (
        '<a href="https://example.com/a?b=1" title="Title" rel="noopener noreferrer">site</a>'
        in html
    )
    assert '<a href="http://example.org" rel="noopener noreferrer">http://example.org</a>' in html


def test_a_mailto_link_is_kept_without_rel() -> None:
    html = html_of("[write](mailto:team@example.com) or <someone@example.com>")
    assert '<a href="mailto:team@example.com">write</a>' in html
    assert '<a href="mailto:someone@example.com">someone@example.com</a>' in html


def test_a_same_page_fragment_is_kept() -> None:
    assert '<a href="#limits">see limits</a>' in html_of("[see limits](#limits)")


@pytest.mark.parametrize(
    "destination",
    ["other/page", "../up", "/p/wiki/x", "//evil.example/x", "wiki:", "wiki:folder/", "Wiki:a"],
)
def test_a_link_that_is_not_an_address_or_an_allowed_url_is_rendered_as_its_text(
    destination: str,
) -> None:
    assert html_of(f"see [the page]({destination}) here") == "<p>see the page here</p>\n"


def test_an_http_image_is_kept_and_any_other_source_leaves_its_alt_text() -> None:
    html = html_of('![a chart](https://example.com/c.png "Chart")\n\n![local](pics/x.png)\n')
    assert '<img src="https://example.com/c.png" alt="a chart" title="Chart">' in html
    assert "<p>local</p>" in html


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("<svg onload=alert(1)>", "&lt;svg onload=alert(1)&gt;"),
        ('<iframe src="https://evil.example"></iframe>', "&lt;iframe src="),
        ('<a href="javascript:alert(1)">x</a>', '&lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;'),
        ("text <b onclick=alert(1)>bold</b>", "&lt;b onclick=alert(1)&gt;bold&lt;/b&gt;"),
        ("<!-- a comment -->", "&lt;!-- a comment --&gt;"),
    ],
)
def test_raw_html_is_shown_escaped_as_text(body: str, shown: str) -> None:
    html = html_of(body)
    assert shown in html
    assert_inert(html)
    assert elements(html) == [("p", {})]


@pytest.mark.parametrize(
    "body",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](&#x6A;&#x61;vascript:alert(1))",
        "[x](java%0ascript:alert(1))",
        "[x](java&#x0A;script:alert(1))",
        "[x](\tjavascript:alert(1))",
        "[x](&#9;javascript:alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x](<  javascript:alert(1)>)",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](DATA:text/html,<script>alert(1)</script>)",
        "[x](vbscript:msgbox(1))",
        "[x](file:///etc/passwd)",
        "[x](unknown:thing)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        '[x](<wiki:a" onmouseover="alert(1)>)',
    ],
)
def test_a_javascript_link_is_rendered_as_its_text(body: str) -> None:
    html = html_of(body)
    assert html == "<p>x</p>\n"


def test_a_refused_link_keeps_the_markup_of_its_text() -> None:
    html = html_of("[**bold** and `code`](javascript:alert(1)) after")
    assert html == "<p><strong>bold</strong> and <code>code</code> after</p>\n"


def test_a_script_autolink_is_rendered_as_its_text() -> None:
    html = html_of("<javascript:alert(1)>")
    assert html == "<p>javascript:alert(1)</p>\n"


@pytest.mark.parametrize(
    "body",
    [
        "![x](data:image/png;base64,iVBORw0KGgo=)",
        "![x](data:text/html,<script>alert(1)</script>)",
        "![x](javascript:alert(1))",
        "![x](&#106;avascript:alert(1))",
        "![x](wiki:pics/x)",
    ],
)
def test_an_image_from_a_data_or_script_url_is_its_alt_text(body: str) -> None:
    assert html_of(body) == "<p>x</p>\n"


def test_a_page_url_that_gives_a_script_url_is_still_dropped_by_the_sanitiser() -> None:
    html = render("[x](wiki:a)", page_url=lambda address: "javascript:alert(1)")
    assert "javascript:" not in html
    assert_inert(html)


HOSTILE_PIECES = [
    "<script>",
    "</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<a href='javascript:alert(1)'>",
    "javascript:alert(1)",
    "&#106;avascript:",
    "java%0ascript:",
    "data:text/html,x",
    "wiki:a/b#c",
    "https://example.com/",
    "mailto:a@b.c",
    "[",
    "](",
    ")",
    "![",
    "<",
    ">",
    '"',
    "'",
    " on",
    "click=",
    "\t",
    "\n",
    "\n\n",
    "```",
    "# ",
    "| a |\n|--|\n",
    "&#x3c;",
    "\x00",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(HOSTILE_PIECES) | st.text(max_size=8), max_size=40).map("".join)
    | st.text()
)
def test_no_text_renders_to_executable_markup(body: str) -> None:
    html = html_of(body)
    assert_inert(html)
    assert re.search(r"<[^>]*\son[a-z]+\s*=", html, re.IGNORECASE) is None


# --- internal links --------------------------------------------------------------------------


def test_internal_links_lists_each_address_once_in_order_without_fragments() -> None:
    body = (
        "[a](wiki:decisions/0024#limits) [b](raw:notes/x) <output:report/1>\n\n"
        "[again](wiki:decisions/0024) [ref][r] [web](https://example.com) [rel](other/page)\n\n"
        "[r]: wiki:guides/start\n"
    )
    assert internal_links(body) == [
        "wiki:decisions/0024",
        "raw:notes/x",
        "output:report/1",
        "wiki:guides/start",
    ]


def test_internal_links_skips_code_images_and_what_is_not_an_address() -> None:
    body = (
        "`[a](wiki:in/code)`\n\n```\n[b](wiki:in/fence)\n```\n\n"
        "![c](wiki:pic) [d](Wiki:x) [e](wiki:) [f](wiki:folder/)"
    )
    assert internal_links(body) == []
