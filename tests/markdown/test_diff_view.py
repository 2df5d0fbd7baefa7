"""A unified diff read into hunks: each under the heading path of its section, a removed
line and the added line in its place paired into one changed line with its words marked."""

from __future__ import annotations

from codna.markdown.diff import unified_diff
from codna.markdown.diff_view import Hunk, HunkLine, read_hunks, word_runs

DECISION = (
    "Intro.\n\n# Decision\n\nWe decided.\n\n## Limits\n\n"
    + "".join(f"Limit {n} holds.\n" for n in range(1, 9))
    + "\n## Later\n\nMore.\n"
)


def test_a_one_word_change_is_one_changed_line_with_one_deleted_and_one_inserted_word() -> None:
    diff = unified_diff("a\nWe ship on Friday.\nb\n", "a\nWe ship on Monday.\nb\n")
    [hunk] = read_hunks(diff)
    changed = [line for line in hunk.lines if line.kind != "same"]
    assert changed == [
        HunkLine(
            "changed",
            (("equal", "We ship on "), ("delete", "Friday"), ("insert", "Monday"), ("equal", ".")),
        )
    ]
    assert [line.runs for line in hunk.lines if line.kind == "same"] == [
        (("equal", "a"),),
        (("equal", "b"),),
    ]


def test_a_hunk_in_a_nested_section_names_its_heading_path() -> None:
    diff = unified_diff(DECISION, DECISION.replace("Limit 6 holds.", "Limit 6 is lifted."))
    assert "@@ -11,7 +11,7 @@ Decision > Limits\n" in diff
    [hunk] = read_hunks(diff)
    assert hunk.path == "Decision > Limits"
    assert (hunk.old_start, hunk.new_start) == (11, 11)


def test_a_hunk_above_the_first_heading_names_no_path() -> None:
    diff = unified_diff(DECISION, DECISION.replace("Intro.", "An intro."))
    assert "@@ -1,4 +1,4 @@\n" in diff
    assert read_hunks(diff)[0].path is None


def test_a_hunk_names_the_section_of_its_first_line_in_the_old_text() -> None:
    old = "# One\n\n" + "".join(f"x{n}\n" for n in range(10)) + "# Two\n\ny\n"
    diff = unified_diff(old, old.replace("x9\n", "x9\nadded\n").replace("y\n", "z\n"))
    assert [hunk.path for hunk in read_hunks(diff)] == ["One"]  # one hunk, begun under One
    setext = "Title\n=====\n\nSub\n---\n\n" + "".join(f"s{n}\n" for n in range(8))
    diff = unified_diff(setext, setext.replace("s6", "six"))
    assert [hunk.path for hunk in read_hunks(diff)] == ["Title > Sub"]


def test_a_hash_line_inside_a_fenced_block_is_no_heading() -> None:
    old = "# Setup\n\n```sh\n# install it\n" + "".join(f"step {n}\n" for n in range(6)) + "```\n"
    diff = unified_diff(old, old.replace("step 4", "step four"))
    assert [hunk.path for hunk in read_hunks(diff)] == ["Setup"]


def test_an_old_diff_without_a_path_still_reads() -> None:
    diff = "--- v1\n+++ v2\n@@ -1,3 +1,3 @@\n a\n-b c\n+b d\n e\n"
    assert read_hunks(diff) == [
        Hunk(
            1,
            1,
            None,
            (
                HunkLine("same", (("equal", "a"),)),
                HunkLine("changed", (("equal", "b "), ("delete", "c"), ("insert", "d"))),
                HunkLine("same", (("equal", "e"),)),
            ),
        )
    ]


def test_lines_that_share_no_word_stay_removed_and_added_and_extra_lines_stand_alone() -> None:
    diff = "--- a\n+++ b\n@@ -1,2 +1,3 @@\n-one two\n-gone\n+three four\n+gone too\n+new\n"
    [hunk] = read_hunks(diff)
    assert [line.kind for line in hunk.lines] == ["removed", "added", "changed", "added"]
    assert hunk.lines[-1].runs == (("insert", "new"),)


def test_a_missing_newline_marker_is_no_line() -> None:
    diff = unified_diff("a\nb", "a\nc\n")
    assert "\\ No newline at end of file" in diff
    [hunk] = read_hunks(diff)
    assert [line.kind for line in hunk.lines] == ["same", "removed", "added"]


def test_word_runs_split_a_pair_into_the_old_and_the_new_line() -> None:
    assert word_runs("on Friday\n", "on Monday\n") == (
        ((False, "on "), (True, "Friday")),
        ((False, "on "), (True, "Monday")),
    )
    assert word_runs("one\n", "two\n") == (((False, "one"),), ((False, "two"),))
