"""A page body renders within the render budget, whatever it holds, up to the largest body.

markdown-it's cost per byte varies a hundredfold with what the bytes are: before the budget,
a megabyte of table rows took 870 MiB, of `![` 19 s of CPU, and the sanitiser 15 s over a
megabyte of `&`. Each worst body here renders with a traced peak under RENDER_MEMORY and
within ten times RENDER_CPU; past the budget, the top-level blocks that fit are rendered and
the rest is shown as written, escaped.

The quick form renders each body at a tenth of its size against the budget divided by TENTH
(tests/hostile/budget.py), held to a tenth of the memory and the CPU: the same code runs, the
budget running out where it runs out on the largest body, for a tenth of the work. Tracing
memory is the slow part: a tenth is traced for one body of each family, and every body is
traced at a hundredth against a hundredth of the budget. `pytest --long` renders each at its
whole size against the whole budget too.
"""

from __future__ import annotations

import pytest

from codna.markdown.limits import MAX_BODY_BYTES
from codna.markdown.render import RENDER_MEMORY, internal_links, render
from tests.conftest import InProcessServer, unique
from tests.hostile.budget import CPU_SLACK, TENTH, measured, render_budget_divided_by
from tests.hostile.parser_inputs import MARKDOWN_BODIES
from tests.web.conftest import signed_in

RENDER_CPU = 3.0  # seconds of CPU for the worst body at the largest size, held to ten times
SHOWN_AS_WRITTEN = "shown as written"


def page_url(address: str) -> str:
    return "/p/" + address.replace(":", "/", 1)


def scales(long_form: bool) -> list[int]:
    """What the budget and the bodies are divided by: a tenth, and in the long form the whole."""
    return [TENTH, 1] if long_form else [TENTH]


def within_budget(what: str, body: str, scale: int = 1, *, memory: bool = True) -> str:
    """Render `body` against the budget divided by `scale`, tracing memory (unless `memory` is
    false) and then timing alone (tracing slows some bodies tenfold), assert both are within
    that share of RENDER_MEMORY and RENDER_CPU, and give the HTML."""
    with render_budget_divided_by(scale):
        with measured(memory=memory) as traced:
            html = render(body, page_url=page_url)
        with measured(memory=False) as timed:
            assert render(body, page_url=page_url) == html
    what = f"{what}, budget / {scale}"
    print(f"{what}: peak {traced.memory / 2**20:.1f} MiB, {timed.cpu:.2f} s CPU")
    assert traced.memory <= RENDER_MEMORY // scale, f"{what}: {traced.memory / 2**20:.1f} MiB"
    assert timed.cpu <= RENDER_CPU / scale * CPU_SLACK, f"{what}: {timed.cpu:.2f} s of CPU"
    return html


# The body of each family of worst bodies (lookahead, emphasis, tables, escapes and entities,
# blocks) that peaks highest: the quick form traces its memory at a tenth.
TRACED_AT_A_TENTH = ("link nest", "strikethrough", "table rows", "autolinks", "headings")


@pytest.mark.parametrize("kind", list(MARKDOWN_BODIES))
def test_each_worst_body_renders_within_the_budget(kind: str, long_form: bool) -> None:
    """The quick form renders the body at a tenth of its size against a tenth of the budget,
    timed (and traced for the bodies of TRACED_AT_A_TENTH), then at a hundredth against a
    hundredth, traced and timed; the long form renders it whole and at a tenth, each traced
    and timed."""
    for scale in [1, TENTH] if long_form else [TENTH, TENTH * TENTH]:
        size = MAX_BODY_BYTES // scale
        body = MARKDOWN_BODIES[kind](size)
        assert len(body.encode()) <= size
        traced = long_form or scale != TENTH or kind in TRACED_AT_A_TENTH
        within_budget(f"{kind} at {size / 1024:.0f} KiB", body, scale, memory=traced)


def test_a_body_past_the_budget_shows_the_blocks_that_fit_and_the_rest_as_written(
    long_form: bool,
) -> None:
    for scale in scales(long_form):
        head = "# Title\n\nAn [intro](wiki:a/b) with *emphasis*.\n\n"
        count = 100_000 // scale
        rows = "|x|<script>alert(1)</script>|\n" * count
        body = head + "|a|b|\n|-|-|\n" + rows + "\nAfter [it](wiki:c/d).\n"
        with render_budget_divided_by(scale):
            html = render(body, page_url=page_url)
            links = internal_links(body)  # the links render resolves, and no others
        fitted, _, rest = html.partition(SHOWN_AS_WRITTEN)
        assert '<h1 id="title">Title</h1>' in fitted
        assert '<a href="/p/wiki/a/b">intro</a> with <em>emphasis</em>' in fitted
        # The table's first rows fit; the rows after it are the text of the rest.
        shown = fitted.count("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>")
        written = rest.count("|x|&lt;script&gt;alert(1)&lt;/script&gt;|")
        assert shown > count // 100 and written > count // 100 and shown + written == count
        assert "<script" not in html
        assert rest.endswith("After [it](wiki:c/d).\n</code></pre>")
        assert links == ["wiki:a/b"]


def test_a_large_ordinary_page_renders_whole(long_form: bool) -> None:
    paragraph = (
        "Some words of prose with a [link](https://example.org) and *emphasis* & more.\n" * 5
    )
    for scale in scales(long_form):
        parts = 500 // scale
        body = "\n".join(f"## Part {i}\n\n{paragraph}" for i in range(parts))  # 200 KB / scale
        html = within_budget(f"a {200 // scale} KB ordinary page", body, scale)
        assert SHOWN_AS_WRITTEN not in html
        assert html.count("<h2 id=") == parts and html.count("&amp; more") == 5 * parts


@pytest.mark.parametrize("opener", [">", "- ", "1. ", "* > ", "[", "*", "_", "**"])
def test_nesting_a_hundred_thousand_deep_renders_without_recursion(
    opener: str, long_form: bool
) -> None:
    """A hundred thousand openers render within the budget's CPU: against the whole budget,
    memory traced, in the long form; against a tenth of it in the quick form, whose memory is
    traced at a tenth of the depth."""
    body = opener * (100_000 // len(opener)) + "x"
    if not long_form:
        with render_budget_divided_by(TENTH), measured(memory=False) as timed:
            assert render(body, page_url=page_url)
        cpu = RENDER_CPU / TENTH * CPU_SLACK
        assert timed.cpu <= cpu, f"{opener!r} nested: {timed.cpu:.2f} s of CPU"
    for scale in scales(long_form):
        body = opener * (100_000 // scale // len(opener)) + "x"
        assert within_budget(f"{opener!r} nested {100_000 // scale:,} deep", body, scale)


def test_the_page_view_of_the_worst_body_is_shown_within_the_budget(
    app: InProcessServer, long_form: bool
) -> None:
    for scale in scales(long_form):
        address = unique()
        app.create_page(address, MARKDOWN_BODIES["table rows"](MAX_BODY_BYTES // scale - 1024))
        with (
            render_budget_divided_by(scale),
            signed_in(app, "writer") as browser,
            measured() as spent,
        ):
            shown = browser.get(page_url(address))
        assert shown.status_code == 200, shown.text[:300]
        assert SHOWN_AS_WRITTEN in shown.text
        spent.within(
            f"the page view of a table of {MAX_BODY_BYTES // scale // 1024} KiB",
            memory=RENDER_MEMORY // scale,
            cpu=RENDER_CPU / scale,
        )
