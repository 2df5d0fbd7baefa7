"""The pages a body links to, found by a cheap scan: internal and relative links, each once,
and never slow or failing, whatever the body holds."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.outgoing import outgoing_links

AT = "wiki:decisions/0024"


def test_internal_and_relative_links_are_found_without_their_fragments() -> None:
    body = (
        "See [the ADR](wiki:decisions/0002#why) and [a sibling](other),\n"
        '[up](../home.md "Home") and [down](<sub/page#x>), <raw:notes/x>.\n\n'
        "[ref]: ./defined\n"
        "   [other ref]: <wiki:guides/start#top> 'title'\n"
    )
    assert outgoing_links(body, at=AT) == {
        "wiki:decisions/0002",
        "wiki:decisions/other",
        "wiki:home",
        "wiki:decisions/sub/page",
        "raw:notes/x",
        "wiki:decisions/defined",
        "wiki:guides/start",
    }


def test_external_refused_and_same_page_links_are_not_pages() -> None:
    body = (
        "[web](https://example.com/x) [mail](mailto:a@b.c) [here](#limits) [js](javascript:x)\n"
        "[climb](../../../x) [abs](/p/wiki/x) [host](//evil) [folder](sub/) [enc](%2e%2e/x)\n"
    )
    assert outgoing_links(body, at=AT) == set()


def test_links_in_fenced_code_and_code_spans_are_skipped() -> None:
    body = (
        "```markdown\n[a](wiki:in/fence)\n```\n\n~~~\n[b](wiki:in/tildes)\n~~~\n\n"
        "`[c](wiki:in/span)` and [d](wiki:outside)\n\n"
        "````\n```\n[e](wiki:in/long-fence)\n````\n"
    )
    assert outgoing_links(body, at=AT) == {"wiki:outside"}


def test_an_unclosed_fence_hides_the_rest_of_the_body() -> None:
    assert outgoing_links("[a](wiki:x)\n```\n[b](wiki:y)\n", at=AT) == {"wiki:x"}


def test_without_a_page_address_relative_links_are_not_found() -> None:
    assert outgoing_links("[a](other) [b](wiki:x)", at="not an address") == {"wiki:x"}


@pytest.mark.parametrize(
    "body",
    [
        "](" * 500_000,
        "](<" * 333_333,
        "[" * 1_000_000,
        "[a]: " * 200_000,
        "`" * 1_000_000,
        "```\n" * 250_000,
        "<wiki:" * 166_666,
        "](" + "a/" * 500_000,
        "](" + "../" * 333_333,
        "[a](wiki:x) " * 80_000,
        "[a](other) " * 90_000,
    ],
)
def test_a_megabyte_of_hostile_text_is_scanned_in_a_few_milliseconds(body: str) -> None:
    started = time.perf_counter()
    outgoing_links(body, at=AT)
    assert time.perf_counter() - started < 0.5  # a few ms here; slack for a busy machine


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["](", ")", "[", "]:", "<", ">", "wiki:", "../", "./", "a", "```", "\n"])
        | st.text(max_size=6),
        max_size=60,
    ).map("".join)
)
def test_any_body_gives_page_addresses_only(body: str) -> None:
    for address in outgoing_links(body, at=AT):
        space, _, path = address.partition(":")
        assert space in ("wiki", "raw", "output") and path and "#" not in path


def test_a_megabyte_page_of_prose_links_and_code_is_scanned_in_milliseconds() -> None:
    prose = "Prose about [the decision](wiki:decisions/0024#x) and [a sibling](other), `code`.\n"
    body = (prose * 3 + "\n```python\nx = '[a](wiki:in/code)'\n```\n\n") * 3_500
    assert len(body) > 1_000_000
    spent = []
    for _ in range(3):
        started = time.perf_counter()
        found = outgoing_links(body, at=AT)
        spent.append(time.perf_counter() - started)
    assert found == {"wiki:decisions/0024", "wiki:decisions/other"}
    assert min(spent) < 0.1, spent  # about 10 ms here
