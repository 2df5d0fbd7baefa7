"""A page body renders within the render budget, whatever it holds, up to the largest body.

markdown-it's cost per byte varies a hundredfold with what the bytes are: before the budget,
a megabyte of table rows took 870 MiB, of `![` 19 s of CPU, and the sanitiser 15 s over a
megabyte of `&`. Each worst body here renders with a traced peak under RENDER_MEMORY and
within ten times RENDER_CPU; past the budget, the top-level blocks that fit are rendered and
the rest is shown as written, escaped. The quick form renders each worst body at 128 KiB and
the three once worst at the largest body; `pytest --long` renders every one at the largest.
"""

from __future__ import annotations

import pytest

from codna.markdown.limits import MAX_BODY_BYTES
from codna.markdown.render import RENDER_MEMORY, internal_links, render
from tests.conftest import InProcessServer, unique
from tests.hostile.budget import CPU_SLACK, measured
from tests.hostile.parser_inputs import MARKDOWN_BODIES
from tests.web.conftest import signed_in

RENDER_CPU = 3.0  # seconds of CPU for the worst body at the largest size, held to ten times
SHOWN_AS_WRITTEN = "shown as written"
ONCE_WORST = ("table rows", "images", "ampersands")


def page_url(address: str) -> str:
    return "/p/" + address.replace(":", "/", 1)


def within_budget(what: str, body: str) -> str:
    """Render `body` twice, tracing memory and then timing alone (tracing slows some bodies
    tenfold), assert both are within the budget, and give the HTML."""
    with measured() as traced:
        html = render(body, page_url=page_url)
    with measured(memory=False) as timed:
        assert render(body, page_url=page_url) == html
    print(f"{what}: peak {traced.memory / 2**20:.1f} MiB, {timed.cpu:.2f} s CPU")
    assert traced.memory <= RENDER_MEMORY, f"{what}: {traced.memory / 2**20:.1f} MiB"
    assert timed.cpu <= RENDER_CPU * CPU_SLACK, f"{what}: {timed.cpu:.2f} s of CPU"
    return html


@pytest.mark.parametrize("kind", list(MARKDOWN_BODIES))
def test_each_worst_body_renders_within_the_budget(kind: str, long_form: bool) -> None:
    sizes = [128 * 1024]
    if long_form or kind in ONCE_WORST:
        sizes.append(MAX_BODY_BYTES)
    for size in sizes:
        body = MARKDOWN_BODIES[kind](size)
        assert len(body.encode()) <= MAX_BODY_BYTES
        within_budget(f"{kind} at {size // 1024} KiB", body)


def test_a_body_past_the_budget_shows_the_blocks_that_fit_and_the_rest_as_written() -> None:
    head = "# Title\n\nAn [intro](wiki:a/b) with *emphasis*.\n\n"
    rows = "|x|<script>alert(1)</script>|\n" * 100_000
    body = head + "|a|b|\n|-|-|\n" + rows + "\nAfter [it](wiki:c/d).\n"
    html = render(body, page_url=page_url)
    fitted, _, rest = html.partition(SHOWN_AS_WRITTEN)
    assert '<h1 id="title">Title</h1>' in fitted
    assert '<a href="/p/wiki/a/b">intro</a> with <em>emphasis</em>' in fitted
    # The table's first rows fit; the rows after it are the text of the rest.
    shown = fitted.count("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>")
    written = rest.count("|x|&lt;script&gt;alert(1)&lt;/script&gt;|")
    assert shown > 1_000 and written > 1_000 and shown + written == 100_000
    assert "<script" not in html
    assert rest.endswith("After [it](wiki:c/d).\n</code></pre>")
    assert internal_links(body) == ["wiki:a/b"]  # the links render resolves, and no others


def test_a_large_ordinary_page_renders_whole() -> None:
    paragraph = (
        "Some words of prose with a [link](https://example.org) and *emphasis* & more.\n" * 5
    )
    body = "\n".join(f"## Part {i}\n\n{paragraph}" for i in range(500))  # about 200 KB
    html = within_budget("a 200 KB ordinary page", body)
    assert SHOWN_AS_WRITTEN not in html
    assert html.count("<h2 id=") == 500 and html.count("&amp; more") == 2_500


@pytest.mark.parametrize("opener", [">", "- ", "1. ", "* > ", "[", "*", "_", "**"])
def test_nesting_a_hundred_thousand_deep_renders_without_recursion(opener: str) -> None:
    body = opener * (100_000 // len(opener)) + "x"
    assert within_budget(f"{opener!r} nested", body)


def test_the_page_view_of_the_worst_body_is_shown_within_the_budget(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, MARKDOWN_BODIES["table rows"](MAX_BODY_BYTES - 1024))
    with signed_in(app, "writer") as browser, measured() as spent:
        shown = browser.get(page_url(address))
    assert shown.status_code == 200, shown.text[:300]
    assert SHOWN_AS_WRITTEN in shown.text
    spent.within("the page view of a megabyte table", memory=RENDER_MEMORY, cpu=RENDER_CPU)
