"""Markdown as teams write it: task lists, footnotes, heading anchors, a table of contents,
highlighted code and relative links, each rendered, sanitised and within the render budget."""

from __future__ import annotations

import re

import pytest

from codna.markdown import highlight
from codna.markdown.render import RENDER_MEMORY, render
from codna.markdown.toc import MOST_ENTRIES
from tests.hostile.budget import CPU_SLACK, TENTH, measured, render_budget_divided_by
from tests.markdown.test_render import assert_inert, elements, page_url

AT = "wiki:decisions/0024"
RENDER_CPU = 3.0  # as tests/hostile/test_bounded_render.py holds the worst body to


def page(body: str) -> str:
    """The body as its page's own view shows it."""
    return render(body, page_url=page_url, at=AT, navigation=True)


# --- task lists ------------------------------------------------------------------------------


def test_a_task_list_shows_disabled_checkboxes_each_labelled_by_its_text() -> None:
    html = page("- [ ] write the ADR\n- [x] ask the team\n- not a task\n")
    assert '<ul class="contains-task-list">' in html
    assert re.search(r'<li class="task-list-item"><label><input [^>]*> write the ADR</label>', html)
    assert re.search(r"<label><input [^>]*> ask the team</label>", html)
    boxes = [attrs for tag, attrs in elements(html) if tag == "input"]
    assert boxes == [
        {"class": "task-list-item-checkbox", "type": "checkbox", "disabled": "disabled"},
        {
            "class": "task-list-item-checkbox",
            "checked": "checked",
            "type": "checkbox",
            "disabled": "disabled",
        },
    ]
    assert "<li>not a task</li>" in html
    assert_inert(html)


def test_a_task_in_an_ordered_or_nested_list_is_a_task_too() -> None:
    html = page("1. [x] first\n   - [ ] inner\n2. [ ] second\n")
    assert '<ol class="contains-task-list">' in html
    boxes = [attrs for tag, attrs in elements(html) if tag == "input"]
    assert ["checked" in box for box in boxes] == [True, False, False]


def test_brackets_that_are_not_a_task_stay_text() -> None:
    html = page("- [y] no\n- [ ]\n- x [ ] later\n\n[ ] not in a list\n")
    assert "<input" not in html


# --- footnotes -------------------------------------------------------------------------------


def test_a_footnote_reference_links_to_its_note_and_the_note_back() -> None:
    html = page("Claim.[^why] Again.[^why]\n\n[^why]: Because *this*.\n")
    assert '<sup class="footnote-ref"><a href="#fn:1" id="fnref:1">[1]</a></sup>' in html
    assert '<a href="#fn:1" id="fnref:1:1">[1:1]</a>' in html
    assert '<section class="footnotes" aria-label="Footnotes">' in html
    assert '<li id="fn:1" class="footnote-item"><p>Because <em>this</em>.' in html
    assert '<a href="#fnref:1" class="footnote-backref" aria-label="Back to reference 1">' in html
    assert 'href="#fnref:1:1" class="footnote-backref" aria-label="Back to reference 1 (2)"' in html
    assert_inert(html)


def test_a_footnotes_label_is_never_shown_and_an_undefined_one_stays_text() -> None:
    body = (
        "A[^<script>alert(1)</script>] B[^javascript:alert(1)] C[^missing]\n\n"
        "[^<script>alert(1)</script>]: one\n\n[^javascript:alert(1)]: two\n"
    )
    html = page(body)
    assert "script" not in html and "javascript" not in html
    assert "C[^missing]" in html
    assert_inert(html)


def test_a_heading_never_takes_a_footnotes_id() -> None:
    html = page("# fn 1\n\n## fn:1\n\nText.[^1]\n\n[^1]: note\n")
    ids = [attrs["id"] for _, attrs in elements(html) if "id" in attrs]
    assert len(ids) == len(set(ids)), ids


def test_a_footnote_label_longer_than_the_limit_is_text() -> None:
    label = "a" * 101
    html = page(f"x[^{label}]\n\n[^{label}]: note\n")
    assert "footnote-ref" not in html


# --- heading anchors and the table of contents -------------------------------------------


def test_each_heading_links_to_itself_in_a_pages_view_only() -> None:
    html = page("## Limits & costs\n")
    assert html == (
        '<h2 id="limits-costs">Limits &amp; costs<a class="anchor" href="#limits-costs" '
        'aria-label="Link to this section: Limits &amp; costs">#</a></h2>\n'
    )
    assert render("## Limits & costs\n", page_url=page_url) == (
        '<h2 id="limits-costs">Limits &amp; costs</h2>\n'
    )


def test_a_heading_with_quotes_and_markup_stays_text_in_its_anchor() -> None:
    html = page('## Say "hi" <img src=x onerror=alert(1)> [x](javascript:alert(1))\n')
    anchor = next(attrs for tag, attrs in elements(html) if attrs.get("class") == "anchor")
    assert anchor["aria-label"] == ('Link to this section: Say "hi" <img src=x onerror=alert(1)> x')
    assert "<img" not in html and "javascript" not in html
    assert_inert(html)


LONG = "# Title\n\nIntro.\n\n## One\n\n### One a\n\n## Two\n\n> ## Quoted\n\n## Three\n\nEnd.\n"


def test_a_long_page_gets_its_contents_before_its_first_section() -> None:
    html = page(LONG)
    toc = html[html.index('<nav class="toc"') : html.index("</nav>") + 6]
    assert html.index("<p>Intro.</p>") < html.index(toc) < html.index('<h2 id="one">')
    assert toc == (
        '<nav class="toc" aria-label="Contents"><p class="toc-title">Contents</p>\n<ul>'
        '<li><a href="#one">One</a>\n<ul>\n<li><a href="#one-a">One a</a></li></ul></li>\n'
        '<li><a href="#two">Two</a></li>\n<li><a href="#three">Three</a></li>\n</ul></nav>'
    )
    assert_inert(html)


def test_a_short_page_and_a_preview_get_no_contents() -> None:
    assert "toc" not in page("## One\n\n## Two\n\n### Three\n")
    assert "toc" not in render(LONG, page_url=page_url, at=AT)


def test_a_page_with_too_many_headings_gets_no_contents() -> None:
    body = "".join(f"## Part {n}\n\n" for n in range(MOST_ENTRIES + 1))
    assert "toc" not in page(body)
    assert 'class="toc"' in page(body.split(f"## Part {MOST_ENTRIES}")[0])


def test_contents_entries_are_the_headings_plain_text_escaped() -> None:
    body = "".join(f'## <b>"{n}"</b> & [l](javascript:x)\n\n' for n in range(4))
    html = page(body)
    assert '<a href="#b0b-l">&lt;b&gt;"0"&lt;/b&gt; &amp; l</a>' in html
    assert_inert(html)


# --- highlighted code ----------------------------------------------------------------------


def test_a_python_fence_is_highlighted_with_classes_and_no_style() -> None:
    html = page("```python\ndef f(x):\n    return '<b>'\n```\n")
    assert html.startswith('<pre class="highlight"><code class="language-python">')
    assert '<span class="k">def</span>' in html and "&lt;b&gt;" in html
    assert "style" not in html
    assert_inert(html)


@pytest.mark.parametrize("info", ["", "nonesuch", "brainfuck", '"><script>', "py{onload}"])
def test_a_fence_without_a_known_language_is_plain_escaped_text(info: str) -> None:
    html = page(f"```{info}\n<b>x</b>\n```\n")
    assert "<span" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert_inert(html)


def test_a_fence_too_long_is_plain_and_highlighting_stops_at_the_budget() -> None:
    big = "x = 1\n" * (highlight.FENCE_BYTES // 6 + 1)
    assert "<span" not in page(f"```python\n{big}```\n")
    many = "```python\nx = 1\n```\n\n" * (highlight.HIGHLIGHT_FENCES + 5)
    html = page(many)
    assert html.count('<pre class="highlight">') == highlight.HIGHLIGHT_FENCES
    assert html.count("<pre><code") == 5


# --- relative links ------------------------------------------------------------------------


def test_a_relative_link_goes_to_the_page_in_the_same_folder() -> None:
    body = "[a](other) [b](../home.md#top) [c](./sub/x) [d](other.md)"
    assert page(body) == (
        '<p><a href="/p/wiki/decisions/other">a</a> <a href="/p/wiki/home#top">b</a> '
        '<a href="/p/wiki/decisions/sub/x">c</a> <a href="/p/wiki/decisions/other">d</a></p>\n'
    )


@pytest.mark.parametrize(
    "destination",
    [
        "../../x",
        "../../../../etc/passwd",
        "%2e%2e/%2e%2e/x",
        "\\\\host/x",
        "//evil.example/x",
        "/p/wiki/x",
        "java%0ascript:alert(1)",
        "&#106;avascript:alert(1)",
        "javascript&colon;alert(1)",
        "./javascript:alert(1)",
        "sub/",
    ],
)
def test_a_relative_destination_that_is_not_a_page_keeps_only_its_text(destination: str) -> None:
    assert page(f"see [the page]({destination}) here") == "<p>see the page here</p>\n"


def test_without_the_pages_address_a_relative_link_keeps_only_its_text() -> None:
    assert render("[a](other)", page_url=page_url) == "<p>a</p>\n"


def test_a_link_to_an_address_too_long_to_be_a_page_keeps_its_text() -> None:
    def strict(address: str) -> str:
        assert len(address) <= 510, "page_url would refuse it"
        return page_url(address)

    body = f"[a](wiki:{'x' * 600}) [b]({'y' * 600})"
    assert render(body, page_url=strict, at=AT) == "<p>a b</p>\n"


# --- within the budget ---------------------------------------------------------------------

WORST = {
    "task items": lambda n: "- [ ] a\n" * (n // 8),
    "footnote references": lambda n: "[^1]: note\n\n" + "[^1]" * (n // 4),
    "footnote openers": lambda n: "[^1]: note\n\n" + "[^" * (n // 2),
    "footnote definitions": lambda n: "".join(f"[^{i}]\n\n[^{i}]: n\n\n" for i in range(n // 16)),
    "highlighted fences": lambda n: "```python\na\n```\n" * (n // 16),
    "one big fence": lambda n: "```python\n" + "x = '<a>' # c\n" * (n // 15) + "```\n",
    "headings for contents": lambda n: "".join(f"## h{i}\n" for i in range(n // 8)),
    "relative links": lambda n: "[a](../b/c.md#d) " * (n // 17),
}


@pytest.mark.parametrize("kind", list(WORST))
def test_each_new_construct_at_a_megabyte_renders_within_the_budget(
    kind: str, long_form: bool
) -> None:
    """A megabyte of each against the whole budget in the long form; in the quick form, a
    tenth of a megabyte against the budget divided by TENTH (highlighting's included), held to
    a tenth of the memory and the CPU. Memory is traced in one render, CPU timed in another."""
    for scale in [TENTH, 1] if long_form else [TENTH]:
        body = WORST[kind](1_000_000 // scale)
        with render_budget_divided_by(scale):
            with measured() as traced:
                html = page(body)
            with measured(memory=False) as timed:
                assert page(body) == html
        what = f"{kind}, budget / {scale}"
        print(f"{what}: peak {traced.memory / 2**20:.1f} MiB, {timed.cpu:.2f} s CPU")
        assert traced.memory <= RENDER_MEMORY // scale, f"{what}: {traced.memory / 2**20:.1f} MiB"
        assert timed.cpu <= RENDER_CPU / scale * CPU_SLACK, f"{what}: {timed.cpu:.2f} s of CPU"
        assert re.search(r"<script|\son\w+=", html) is None
