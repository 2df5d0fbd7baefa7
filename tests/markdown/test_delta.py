"""A version as a delta: the engine's splices, the diff for other changes, the stored form, the
rule for snapshots, and rebuilding a chain of them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.errors import InvalidEdit
from codna.markdown import delta
from codna.markdown.apply import apply_edits, apply_edits_with_splices
from codna.markdown.edits import (
    Append,
    DeleteSection,
    Edit,
    InsertAfter,
    InsertBefore,
    Replace,
    ReplaceSection,
)

LINES = st.sampled_from(
    [
        "# Title\n",
        "## Context\n",
        "## Decision\n",
        "### Notes\n",
        "\n",
        "Some text.\n",
        "More words here.\n",
        "```\n",
        "code()\n",
        "- an item\n",
        "No newline",
        "Ünïcödé ✓\n",
        "\r\n",
    ]
)
BODIES = st.lists(LINES, max_size=30).map("".join)


@st.composite
def bodies_and_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A body and edits that name text of it (many of which do not apply, as in life)."""
    body = draw(BODIES)
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 5))):
        start = draw(st.integers(0, len(body)))
        piece = body[start : start + draw(st.integers(1, 20))] or "Some"
        text = draw(LINES)
        kind = draw(st.sampled_from(["replace", "after", "before", "append", "section", "delete"]))
        heading = draw(st.sampled_from(["Context", "Decision", "## Decision", "Notes"]))
        edits.append(
            {
                "replace": Replace(old=piece, new=text),
                "after": InsertAfter(anchor=piece, text=text),
                "before": InsertBefore(anchor=piece, text=text),
                "append": Append(text=text),
                "section": ReplaceSection(heading=heading, body=text),
                "delete": DeleteSection(heading=heading),
            }[kind]
        )
    return body, edits


@settings(max_examples=400, deadline=None)
@given(bodies_and_edits())
def test_the_splices_of_any_edits_rebuild_what_apply_edits_makes(
    case: tuple[str, list[Edit]],
) -> None:
    body, edits = case
    try:
        expected = apply_edits(body, edits)
    except InvalidEdit:
        with pytest.raises(InvalidEdit):
            apply_edits_with_splices(body, edits)
        return
    result, splices = apply_edits_with_splices(body, edits)
    assert result == expected
    assert delta.apply(body, splices) == result
    assert delta.apply(body, delta.decode(delta.encode(splices))) == result


def test_an_edit_of_a_long_page_is_a_splice_of_the_paragraph_it_changed() -> None:
    body = "".join(f"## Part {n}\n\nParagraph {n} says a thing.\n\n" for n in range(20_000))
    edits = [Replace(old="Paragraph 12345 says", new="Paragraph 12345 now says")]
    result, splices = apply_edits_with_splices(body, edits)
    at = body.index("Paragraph 12345 says")
    assert splices == [(at, at + len("Paragraph 12345 says"), "Paragraph 12345 now says")]
    assert len(delta.encode(splices)) < 50
    assert delta.apply(body, splices) == result


def test_a_body_with_carriage_returns_is_one_splice_of_the_whole_text() -> None:
    body = "# A\r\n\r\nText.\r\n"
    result, splices = apply_edits_with_splices(body, [Replace(old="Text.", new="More.")])
    assert result == "# A\n\nMore.\n"
    assert splices == [(0, len(body), result)]


LONG_LINES = st.integers(0, 400).map(lambda n: f"Line {n} of a long page, with some words.\n")


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(BODIES, st.lists(LONG_LINES, max_size=600).map("".join)),
    st.one_of(BODIES, st.lists(LONG_LINES, max_size=600).map("".join)),
)
def test_the_diff_of_any_two_texts_rebuilds_the_second_from_the_first(old: str, new: str) -> None:
    splices = delta.splices_between(old, new)
    assert delta.apply(old, splices) == new
    assert delta.apply(old, delta.decode(delta.encode(splices))) == new


@settings(max_examples=200, deadline=None)
@given(st.lists(LONG_LINES, min_size=300, max_size=600), st.data())
def test_a_few_changes_far_apart_on_a_long_text_are_stored_as_those_changes(
    lines: list[str], data: st.DataObject
) -> None:
    old = "".join(f"{n}: {line}" for n, line in enumerate(lines))  # every line once
    changed = list(old.splitlines(keepends=True))
    far_apart = st.sampled_from(range(0, len(changed), 150))  # some 7,000 characters apart
    for at in data.draw(st.lists(far_apart, max_size=5, unique=True)):
        changed[at] = "A changed line.\n" if at % 2 else changed[at] + "An added line.\n"
    new = "".join(changed)
    splices = delta.splices_between(old, new)
    assert delta.apply(old, splices) == new
    assert sum(len(text) for _, _, text in splices) <= 5 * 2 * 60  # the lines changed, no more


def test_the_same_text_is_an_empty_delta() -> None:
    assert delta.splices_between("Same.\n", "Same.\n") == []
    assert delta.encode([]) == "[]"


@pytest.mark.parametrize(
    "stored",
    ["", "{}", "[1]", "[[1, 2]]", '[[2, 1, "x"]]', '[[-1, 0, "x"]]', '[[true, 1, "x"]]', "[[0,"],
)
def test_a_stored_delta_that_is_not_splices_is_refused(stored: str) -> None:
    with pytest.raises(delta.DeltaError):
        delta.decode(stored)


def test_a_splice_past_the_end_of_the_text_is_refused() -> None:
    with pytest.raises(delta.DeltaError, match="does not fit"):
        delta.apply("short", [(2, 10, "x")])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), LINES), max_size=200))
def test_a_chain_of_deltas_rebuilds_what_applying_them_one_by_one_makes(
    changes: list[tuple[float, float, str]],
) -> None:
    base = "".join(f"Line {n}.\n" for n in range(3000))  # several pieces of the rebuild
    text, deltas = base, []
    for a, b, insert in changes:
        start = int(a * len(text))
        stop = start + int(b * (len(text) - start))
        deltas.append([(start, stop, insert)])
        text = text[:start] + insert + text[stop:]
    assert delta.rebuild(base, deltas) == text
    chain = delta.Chain()
    seen = [chain.next(base, None)] + [chain.next("", delta.encode(d)) for d in deltas]
    assert seen[-1] == text


def test_a_version_is_stored_whole_once_the_deltas_since_the_last_would_outgrow_its_body() -> None:
    body = "x" * 100
    before = delta.Before(4, body, snapshot_version=1, chain_chars=60)
    small = delta.store(5, body[:-1] + "y", before=before, splices=[(99, 100, "y")])
    assert (small.delta, small.body, small.snapshot_version) == ('[[99,100,"y"]]', "", 1)
    assert small.chain_chars == 60 + len(small.delta)
    big = delta.store(5, "z" * 50 + body[50:], before=before, splices=[(0, 50, "z" * 50)])
    assert (big.delta, big.body, big.snapshot_version, big.chain_chars) == (None, big.body, 5, 0)
    assert big.body == "z" * 50 + body[50:]
    assert small.sha256 == delta.digest(body[:-1] + "y")
    assert big.sha256 == delta.digest(big.body)


def test_a_chain_is_cut_after_max_chain_deltas_however_small(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(delta, "MAX_CHAIN", 3)
    body = "A long enough body.\n" * 10
    at_limit = delta.Before(4, body, snapshot_version=1, chain_chars=10)  # three deltas since
    assert delta.store(5, body + "x", before=at_limit).delta is None
    under = delta.Before(3, body, snapshot_version=1, chain_chars=10)
    assert delta.store(4, body + "x", before=under).delta is not None


def test_splices_that_do_not_make_the_body_give_way_to_a_diff() -> None:
    before = delta.Before(1, "One two three.\n" * 10, snapshot_version=1, chain_chars=0)
    body = before.body.replace("two", "2", 1)
    stored = delta.store(2, body, before=before, splices=[(0, 3, "Wrong")])
    assert stored.delta is not None
    assert delta.apply(before.body, delta.decode(stored.delta)) == body


def test_a_version_after_a_gap_or_without_a_version_before_is_stored_whole() -> None:
    assert delta.store(1, "First.").delta is None
    before = delta.Before(2, "Text.", snapshot_version=1, chain_chars=0)
    assert delta.store(4, "Text!", before=before).delta is None
