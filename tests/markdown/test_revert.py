"""Undoing one revision's change on a later version of the page."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.errors import RevertConflict
from codna.markdown.revert import undo

PAGE = "".join(f"line {n}\n" for n in range(1, 11))


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("change", "since"),
    [
        pytest.param(("line 2\n", "line two\n"), ("line 8\n", "line eight\n"), id="replace"),
        pytest.param(("line 2\n", "line 2\nnew\n"), ("line 8\n", "line eight\n"), id="insert"),
        pytest.param(("line 2\n", ""), ("line 8\n", "line eight\n"), id="delete"),
        pytest.param(("line 8\n", "line eight\n"), ("line 2\n", "line two\n"), id="later-change"),
        pytest.param(("line 1\n", "top\nline 1\n"), ("line 5\n", ""), id="insert-at-top"),
        pytest.param(("line 10\n", "line 10\nend\n"), ("line 1\n", "one\n"), id="insert-at-end"),
        pytest.param(("line 10\n", ""), ("line 3\n", "three\nmore\n"), id="delete-at-end"),
        pytest.param(("line 5\n", "line 5\n"), ("line 3\n", "three\n"), id="nothing-to-undo"),
    ],
)
def test_undoing_a_change_keeps_what_was_edited_elsewhere_since(
    change: tuple[str, str], since: tuple[str, str]
) -> None:
    after = _edit(PAGE, *change)
    current = _edit(after, *since)
    assert undo(PAGE, after, current) == _edit(PAGE, *since)


def test_undoing_the_latest_change_restores_the_version_before_it() -> None:
    after = _edit(PAGE, "line 4\n", "")
    assert undo(PAGE, after, after) == PAGE


@pytest.mark.parametrize(
    ("change", "since", "line", "says"),
    [
        pytest.param(
            ("line 2\n", "line two\n"),
            ("line two\n", "line 2, again\n"),
            2,
            'the text it wrote, "line two", has changed since',
            id="its-text-changed",
        ),
        pytest.param(
            ("line 2\n", "line 2\nnew\n"),
            ("line 2\n", "line 2 edited\n"),
            3,
            'the text it wrote, "new", has changed since',
            id="an-insertion-whose-neighbour-changed",
        ),
        pytest.param(
            ("line 2\n", ""),
            ("line 3\n", "line 3 edited\n"),
            2,
            'it removed "line 2", and the text around that place has changed since',
            id="a-removal-whose-neighbour-changed",
        ),
        pytest.param(
            ("line 2\n", ""),
            ("line 3\n", "wedge\nline 3\n"),
            2,
            'it removed "line 2", and the text around that place has changed since',
            id="a-removal-where-text-was-put-since",
        ),
    ],
)
def test_a_change_whose_text_changed_since_cannot_be_undone(
    change: tuple[str, str], since: tuple[str, str], line: int, says: str
) -> None:
    after = _edit(PAGE, *change)
    current = _edit(after, *since)
    with pytest.raises(RevertConflict) as refused:
        undo(PAGE, after, current)
    assert refused.value.fields == {"reason": "changed_since", "hunk": 0, "line": line}
    assert refused.value.message == (
        f"Change 0 of this revision (line {line}) cannot be undone: {says}. "
        "Edit the page by hand instead."
    )


def test_nothing_is_undone_when_one_of_several_changes_conflicts() -> None:
    after = _edit(_edit(PAGE, "line 2\n", "line two\n"), "line 8\n", "line eight\n")
    current = _edit(after, "line eight\n", "line 8!\n")
    with pytest.raises(RevertConflict) as refused:
        undo(PAGE, after, current)
    assert refused.value.fields["hunk"] == 1


_texts = st.text(st.sampled_from("ab\n"), max_size=40)


@settings(max_examples=200, deadline=None)
@given(_texts, _texts)
def test_undo_on_the_version_the_change_made_gives_the_version_before(
    before: str, after: str
) -> None:
    assert undo(before, after, after) == before


Change = tuple[int, int, list[str]]  # lines start to stop become the new lines


@st.composite
def _two_far_apart_changes(draw: st.DrawFn) -> tuple[list[str], Change, Change]:
    lines = [f"line {n}\n" for n in range(draw(st.integers(4, 40)))]
    fresh = iter(range(1000, 2000))

    def change(low: int, high: int) -> Change:
        start = draw(st.integers(low, high))
        stop = draw(st.integers(start, min(high, start + 3)))
        new = [f"new {next(fresh)}\n" for _ in range(draw(st.integers(0, 3)))]
        return start, stop, new

    split = draw(st.integers(1, len(lines) - 3))
    first = change(0, split)
    second = change(first[1] + 2, len(lines))  # at least one untouched line between
    if draw(st.booleans()):
        return lines, first, second
    return lines, second, first


def _apply(lines: list[str], *changes: Change) -> str:
    result = list(lines)
    for start, stop, new in sorted(changes, reverse=True):
        result[start:stop] = new
    return "".join(result)


@settings(max_examples=200, deadline=None)
@given(_two_far_apart_changes())
def test_undo_of_an_edit_on_a_page_edited_elsewhere_since_keeps_the_other_edit(
    case: tuple[list[str], Change, Change],
) -> None:
    lines, reverted, other = case
    before = "".join(lines)
    after = _apply(lines, reverted)
    current = _apply(lines, reverted, other)
    assert undo(before, after, current) == _apply(lines, other)
