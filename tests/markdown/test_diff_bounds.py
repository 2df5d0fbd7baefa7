"""The diff's bounded work: past the bound it is coarser, never wrong.

Small texts are taken past the bound by lowering it; the worst cases of real size are told
apart by the shape of their diff, not by the time they take.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codna.markdown import diff
from codna.markdown.diff import diff_stats, line_opcodes, split_lines, unified_diff, word_diff

_MARKER = "\\ No newline at end of file\n"
_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def _apply(old: str, patch: str) -> str:
    """`old` with the hunks of a unified diff applied, each checked against its header."""
    if not patch:
        return old
    lines = split_lines(patch)
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    source, out, at = split_lines(old), [], 0
    body, n = lines[2:], 0
    while n < len(body):
        header = _HEADER.fullmatch(body[n])
        assert header is not None, body[n]
        old_length, new_length = int(header[2] or 1), int(header[4] or 1)
        # A hunk of no lines on one side names the line before it (difflib's convention).
        old_start = int(header[1]) - (1 if old_length else 0)
        new_start = int(header[3]) - (1 if new_length else 0)
        assert old_start >= at, "hunks overlap or go backwards"
        out += source[at:old_start]
        at = old_start
        assert len(out) == new_start
        n += 1
        old_seen = new_seen = 0
        while n < len(body) and not body[n].startswith("@@"):
            kind, text = body[n][0], body[n][1:]
            assert kind in " -+", body[n]
            n += 1
            if n < len(body) and body[n] == _MARKER:
                text = text.removesuffix("\n")
                n += 1
            if kind in " -":
                assert source[at] == text
                at, old_seen = at + 1, old_seen + 1
            if kind in " +":
                out.append(text)
                new_seen += 1
        assert (old_seen, new_seen) == (old_length, new_length)
    return "".join(out + source[at:])


def _shapes(patch: str) -> list[str]:
    """Each hunk as the kinds of its runs of lines: " -+ " is context, removed, added, context."""
    shapes: list[str] = []
    for line in split_lines(patch)[2:]:
        if line.startswith("@@"):
            shapes.append("")
        elif line != _MARKER and not shapes[-1].endswith(line[0]):
            shapes[-1] += line[0]
    return shapes


def _page(lines: int, seed: int) -> list[str]:
    """Lines of a page, each found once."""
    rng = random.Random(seed)
    return [f"Line {n} says {rng.randrange(10**6)}.\n" for n in range(lines)]


# Lines found many times, and lines found once or a few times, which can anchor the matching.
_line = st.sampled_from(["a\n", "b\n", "\n", "a"]) | st.integers(0, 200).map("u{}\n".format)
_lines = st.lists(_line, max_size=40)
_texts = _lines.map("".join) | st.text(st.sampled_from("ab \n"), max_size=60)


@st.composite
def _edited(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a version of it edited in a few places."""
    old = draw(st.lists(_line, min_size=8, max_size=40))
    new = list(old)
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(new)))
        stop = draw(st.integers(start, min(len(new), start + 4)))
        new[start:stop] = draw(st.lists(_line, max_size=3))
    return "".join(old), "".join(new)


_versions = st.tuples(_texts, _texts) | _edited()


# The whole bound (no coarse matching on texts this small), none at all, and a few between.
_steps = st.sampled_from([diff._STEPS, 0, 1, 4, 16, 64, 256])


@settings(max_examples=300, deadline=None)
@given(_versions, _steps, _steps, st.integers(0, 4))
def test_the_diff_applied_to_the_old_text_gives_the_new_text_at_any_bound(
    versions: tuple[str, str], steps: int, gap_steps: int, context: int
) -> None:
    old, new = versions
    with mock.patch.object(diff, "_STEPS", steps), mock.patch.object(diff, "_GAP_STEPS", gap_steps):
        patch = unified_diff(old, new, context=context)
    assert _apply(old, patch) == new
    assert (patch == "") == (old == new)


@settings(max_examples=300, deadline=None)
@given(_versions, _steps, _steps)
@example(("x\nU\nV\ny\n", "z\nU\nV\nw\n"), 0, 0)  # two anchors in one run
@example(("s\nU\na\na\nV\nt\n", "r\nU\na\nV\nq\n"), 0, 0)  # runs that could overlap
def test_line_opcodes_cover_both_texts_and_pair_only_equal_lines_at_any_bound(
    versions: tuple[str, str], steps: int, gap_steps: int
) -> None:
    old, new = versions
    with mock.patch.object(diff, "_STEPS", steps), mock.patch.object(diff, "_GAP_STEPS", gap_steps):
        old_lines, new_lines, codes = line_opcodes(old, new)
    assert "".join(old_lines) == old and "".join(new_lines) == new
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j)
        assert tag in ("equal", "replace", "delete", "insert")
        if tag == "equal":
            assert old_lines[i1:i2] == new_lines[j1:j2]
        assert (i1 == i2) == (tag == "insert") and (j1 == j2) == (tag == "delete")
        i, j = i2, j2
    assert (i, j) == (len(old_lines), len(new_lines))
    assert all(a[0] != b[0] or a[0] != "equal" for a, b in pairwise(codes))


def _steps_taken(old: str, new: str) -> int:
    """The steps of matching the unified diff from `old` to `new` took."""
    taken: list[int] = []
    spend = diff._Budget.spend

    def counted(budget: diff._Budget, steps: int) -> None:
        spend(budget, steps)
        taken.append(steps)

    with mock.patch.object(diff._Budget, "spend", counted):
        unified_diff(old, new)
    return sum(taken)


def _bound(old: str, new: str) -> int:
    # difflib on the whole middle, then the coarse matching with its first anchoring.
    return 2 * diff._STEPS + len(split_lines(old)) + len(split_lines(new))


@settings(max_examples=300, deadline=None)
@given(_versions, _steps, _steps)
def test_the_matching_of_any_two_texts_takes_no_more_steps_than_the_bound(
    versions: tuple[str, str], steps: int, gap_steps: int
) -> None:
    old, new = versions
    with mock.patch.object(diff, "_STEPS", steps), mock.patch.object(diff, "_GAP_STEPS", gap_steps):
        assert _steps_taken(old, new) <= _bound(old, new)


def test_many_gaps_that_are_each_costly_to_match_share_one_bound() -> None:
    # Between lines found once, runs of one repeated line that difflib matches in cubic time.
    old = "".join(f"anchor {k}\n" + "x\n" * 100 for k in range(300))
    new = "".join(
        f"anchor {k}\n" + "".join("y\n" if n % 3 == 0 else "x\n" for n in range(99))
        for k in range(300)
    )
    assert _steps_taken(old, new) <= _bound(old, new)
    assert _apply(old, unified_diff(old, new)) == new


@settings(max_examples=300, deadline=None)
@given(_versions, _steps, _steps)
def test_the_word_diff_gives_back_both_texts_at_any_bound(
    versions: tuple[str, str], steps: int, gap_steps: int
) -> None:
    old, new = versions
    with mock.patch.object(diff, "_STEPS", steps), mock.patch.object(diff, "_GAP_STEPS", gap_steps):
        runs = word_diff(old, new)
    assert "".join(text for tag, text in runs if tag != "insert") == old
    assert "".join(text for tag, text in runs if tag != "delete") == new
    assert all(text for _, text in runs)
    assert all(a[0] != b[0] for a, b in pairwise(runs))


@pytest.mark.parametrize(
    ("old", "new", "runs"),
    [
        ("", "", []),
        ("same words", "same words", [("equal", "same words")]),
        ("", "new", [("insert", "new")]),
        (
            "the old words",
            "the new words",
            [("equal", "the "), ("delete", "old"), ("insert", "new"), ("equal", " words")],
        ),
        ("a, b", "a; b", [("equal", "a"), ("delete", ","), ("insert", ";"), ("equal", " b")]),
        ("one two", "one, two", [("equal", "one"), ("insert", ","), ("equal", " two")]),
    ],
)
def test_the_word_diff_marks_the_words_deleted_and_inserted(
    old: str, new: str, runs: list[tuple[str, str]]
) -> None:
    assert word_diff(old, new) == runs


def test_a_section_replaced_by_unrelated_lines_is_one_block_of_removed_then_added_lines() -> None:
    page = _page(20_000, seed=1)
    unrelated = [f"zq {n} xv\n" for n in range(6_000)]
    old, new = "".join(page), "".join(page[:8_000] + unrelated + page[11_000:])
    patch = unified_diff(old, new)
    assert _shapes(patch) == [" -+ "]
    assert diff_stats(patch) == (6_000, 3_000)
    assert _apply(old, patch) == new


def test_near_identical_lines_with_changes_sprinkled_in_are_one_block_past_the_bound() -> None:
    # 150 shapes of row, each some 130 times: difflib would match them all, in quadratic time.
    rng = random.Random(2)
    rows = [f"| task | {rng.randrange(150)} | open |\n" for _ in range(20_000)]
    changed = list(rows)
    for n in range(0, len(changed), 50):
        changed[n + 10] = f"| task | {n} | done |\n"
    old, new = "".join(rows), "".join(changed)
    patch = unified_diff(old, new)
    assert _shapes(patch) == [" -+ "]
    assert diff_stats(patch) == (19_951, 19_951)  # all but the 9 lines before and after
    assert _apply(old, patch) == new


def test_one_line_repeated_against_a_short_text_is_one_block_past_the_bound() -> None:
    # difflib's cubic case: every line of one side matches every line of the other.
    old = "start\n" + "x\n" * 20_000 + "end\n"
    new = "start\n" + "".join("y\n" if n % 3 == 0 else "x\n" for n in range(199)) + "end\n"
    patch = unified_diff(old, new)
    assert _shapes(patch) == [" -+ "]
    assert diff_stats(patch) == (199, 20_000)
    assert _apply(old, patch) == new


def test_past_the_bound_lines_found_once_on_each_side_still_anchor_the_diff() -> None:
    page = _page(20_000, seed=3)
    changed = [f"Line {n} is new.\n" if n % 10 == 3 else line for n, line in enumerate(page)]
    old, new = "".join(page), "".join(changed)
    with mock.patch.object(diff, "_anchored_blocks", wraps=diff._anchored_blocks) as anchored:
        patch = unified_diff(old, new)
    assert anchored.called
    assert _shapes(patch) == [" -+ "] * 2_000
    assert diff_stats(patch) == (2_000, 2_000)
    assert _apply(old, patch) == new


def test_past_the_bound_a_page_with_scattered_edits_gets_a_small_hunk_for_each_edit() -> None:
    page = [line for paragraph in _page(10_000, seed=4) for line in (paragraph, "\n")]
    changed = list(page)
    for n in range(100, 20_000, 400):  # two paragraphs rewritten, the blank line between kept
        changed[n : n + 3] = ["A new paragraph.\n", "\n", "And another.\n"]
    old, new = "".join(page), "".join(changed)
    with mock.patch.object(diff, "_anchored_blocks", wraps=diff._anchored_blocks) as anchored:
        patch = unified_diff(old, new)
    assert anchored.called
    assert _shapes(patch) == [" -+ -+ "] * 50
    assert diff_stats(patch) == (100, 100)
    assert _apply(old, patch) == new


def test_the_word_diff_of_a_long_line_with_many_changed_words_is_one_block_past_the_bound() -> None:
    rng = random.Random(5)
    words = [f"word{rng.randrange(1_000)}" for _ in range(25_000)]
    changed = [f"new{n}" if n % 20 == 7 else word for n, word in enumerate(words)]
    old, new = " ".join(words), " ".join(changed)
    runs = word_diff(old, new)
    assert [tag for tag, _ in runs] == ["equal", "delete", "insert", "equal"]
    assert "".join(text for tag, text in runs if tag != "insert") == old
    assert "".join(text for tag, text in runs if tag != "delete") == new


def test_the_word_diff_of_a_long_line_with_a_few_changed_words_marks_just_those() -> None:
    words = [f"word{n}" for n in range(25_000)]
    changed = list(words)
    for n in (100, 9_000, 24_000):
        changed[n] = "other"
    runs = word_diff(" ".join(words), " ".join(changed))
    assert [text for tag, text in runs if tag != "equal"] == [
        "word100",
        "other",
        "word9000",
        "other",
        "word24000",
        "other",
    ]
