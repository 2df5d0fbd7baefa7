"""Unified diffs: difflib's output, fast on long pages, and a patch that gives the new text."""

from __future__ import annotations

import difflib
import re
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.diff import diff_stats, split_lines, unified_diff

_MARKER = "\\ No newline at end of file\n"


def _with_markers(lines: object) -> str:
    return "".join(
        line if line.endswith("\n") else line + "\n" + _MARKER
        for line in lines  # type: ignore[attr-defined]
    )


def _difflib(old: str, new: str, context: int = 3) -> str:
    out = difflib.unified_diff(split_lines(old), split_lines(new), "before", "after", n=context)
    return _with_markers(out)


def _pinned_difflib(old: str, new: str, context: int) -> str:
    """difflib's diff with the common leading and trailing lines held matched in place."""
    a, b = split_lines(old), split_lines(new)
    shorter = min(len(a), len(b))
    head = 0
    while head < shorter and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < shorter - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail])
    blocks = [(0, 0, head)]
    blocks += [(i + head, j + head, k) for i, j, k in middle.get_matching_blocks()]
    blocks.append((len(a) - tail, len(b) - tail, tail))
    merged: list[tuple[int, int, int]] = []
    for i, j, k in blocks:
        if not k:
            continue
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + k)
        else:
            merged.append((i, j, k))
    pinned = [difflib.Match(i, j, k) for i, j, k in merged] + [difflib.Match(len(a), len(b), 0)]

    class Pinned(difflib.SequenceMatcher):  # type: ignore[type-arg]
        def get_matching_blocks(self) -> list[difflib.Match]:
            return pinned

    with mock.patch.object(difflib, "SequenceMatcher", Pinned):
        return _with_markers(list(difflib.unified_diff(a, b, "before", "after", n=context)))


def _patch(old: str, diff: str) -> str:
    """Apply a unified diff to `old`, checking every context and removed line."""
    items: list[tuple[str, str]] = []
    for line in split_lines(diff)[2:]:
        if line == _MARKER:
            kind, text = items[-1]
            items[-1] = (kind, text.removesuffix("\n"))
        else:
            items.append((line[0], line[1:]))
    source, out, at = split_lines(old), [], 0
    for kind, text in items:
        if kind == "@":
            header = re.match(r"@ -(\d+)(?:,(\d+))? ", text)
            assert header is not None
            start = int(header[1]) - (0 if header[2] == "0" else 1)
            out += source[at:start]
            at = start
        elif kind == "+":
            out.append(text)
        else:
            assert source[at] == text
            if kind == " ":
                out.append(text)
            at += 1
    return "".join(out + source[at:])


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("same\n", "same\n", ""),
        ("a\nb\nc\n", "a\nB\nc\n", "--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"),
        ("", "new\n", "--- before\n+++ after\n@@ -0,0 +1 @@\n+new\n"),
        ("old\n", "", "--- before\n+++ after\n@@ -1 +0,0 @@\n-old\n"),
        (
            "a\nb",
            "a\nb\n",
            "--- before\n+++ after\n@@ -1,2 +1,2 @@\n a\n-b\n" + _MARKER + "+b\n",
        ),
        ("a\n", "a\nb", "--- before\n+++ after\n@@ -1 +1,2 @@\n a\n+b\n" + _MARKER),
        ("x\u2028y\n", "x\u2028z\n", "--- before\n+++ after\n@@ -1 +1 @@\n-x\u2028y\n+x\u2028z\n"),
    ],
)
def test_the_diff_is_a_unified_diff_of_whole_lines(old: str, new: str, expected: str) -> None:
    assert unified_diff(old, new) == expected


def test_the_labels_and_the_context_can_be_chosen() -> None:
    old = "".join(f"{n}\n" for n in range(10))
    new = old.replace("5\n", "five\n")
    diff = unified_diff(old, new, old_label="version 3", new_label="version 4", context=1)
    assert diff == "--- version 3\n+++ version 4\n@@ -5,3 +5,3 @@\n 4\n-5\n+five\n 6\n"


def test_a_long_page_with_one_changed_paragraph_diffs_like_difflib() -> None:
    old = "".join(f"paragraph {n} of the page\n\n" for n in range(30_000))
    new = old.replace("paragraph 20000 of", "paragraph twenty thousand of")
    expected = (
        "--- before\n+++ after\n@@ -39998,7 +39998,7 @@\n \n paragraph 19999 of the page\n \n"
        "-paragraph 20000 of the page\n+paragraph twenty thousand of the page\n"
        " \n paragraph 20001 of the page\n \n"
    )
    assert _difflib(old, new) == expected
    assert unified_diff(old, new) == expected


@pytest.mark.parametrize(
    ("diff", "stats"),
    [
        ("", (0, 0)),
        (unified_diff("a\nb\n", "a\nc\nd\n"), (2, 1)),
        (unified_diff("--- x\n", "++ y\n"), (1, 1)),  # looks like headers inside the hunk
        (unified_diff("a", "a\n"), (1, 1)),
    ],
)
def test_diff_stats_counts_the_lines_added_and_removed(diff: str, stats: tuple[int, int]) -> None:
    assert diff_stats(diff) == stats


_context = st.integers(0, 5)


@st.composite
def _distinct_line_versions(draw: st.DrawFn) -> tuple[str, str]:
    """Two versions of a text whose lines are each distinct, the second edited in places."""
    lines = [f"line {n}\n" for n in draw(st.lists(st.integers(0, 300), unique=True, max_size=80))]
    fresh = iter(range(1000, 2000))
    new = list(lines)
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(new)))
        stop = draw(st.integers(start, min(len(new), start + 5)))
        new[start:stop] = [f"new {next(fresh)}\n" for _ in range(draw(st.integers(0, 3)))]
    old_text, new_text = "".join(lines), "".join(new)
    if draw(st.booleans()):
        old_text = old_text.removesuffix("\n")
    if draw(st.booleans()):
        new_text = new_text.removesuffix("\n")
    return old_text, new_text


@settings(max_examples=200, deadline=None)
@given(_distinct_line_versions(), _context)
def test_the_diff_equals_difflibs_on_texts_of_distinct_lines(
    versions: tuple[str, str], context: int
) -> None:
    old, new = versions
    assert unified_diff(old, new, context=context) == _difflib(old, new, context)


_texts = st.text(st.sampled_from("ab\n"), max_size=40) | st.lists(
    st.sampled_from(["a\n", "b\n", "\n", "a", "c\n"]), max_size=30
).map("".join)


@settings(max_examples=200, deadline=None)
@given(_texts, _texts, _context)
def test_the_diff_equals_difflibs_with_the_common_ends_held_in_place(
    old: str, new: str, context: int
) -> None:
    assert unified_diff(old, new, context=context) == _pinned_difflib(old, new, context)


@settings(max_examples=200, deadline=None)
@given(_texts, _texts, _context)
def test_the_diff_applied_as_a_patch_gives_the_new_text(old: str, new: str, context: int) -> None:
    assert _patch(old, unified_diff(old, new, context=context)) == new
