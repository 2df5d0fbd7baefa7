"""How long a diff takes on ordinary and worst-case edits of long pages.

The worst cases are those whose matching is bounded (see `codna.markdown.diff`): a section
replaced by lines that share nothing with it, a whole page replaced, many near-identical lines
with changes sprinkled in, and the word diff of one long changed line; the last line cases
are those that spend the most of the bound. Each figure is the median of repeated runs, with
the size of the diff beside it (lines added and removed, or words), which shows where the
matching went coarse. Run: .venv/bin/python bench/diff.py
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from codna.markdown.diff import diff_stats, unified_diff, word_diff

MB = 1_000_000


def make_page(size: int) -> str:
    """A decision-record-like page: sections of a few paragraphs, until `size` characters."""
    parts: list[str] = []
    total = n = 0
    while total < size:
        section = (
            f"## Section {n}\n\n"
            f"Paragraph {n}a says something about topic {n} in plain words.\n\n"
            f"Paragraph {n}b goes on with details, numbers {n * 7} and more.\n\n"
            f"### Notes {n}\n\nA note under section {n}.\n\n"
        )
        parts.append(section)
        total += len(section)
        n += 1
    return "".join(parts)


def unrelated_lines(size: int, seed: int) -> str:
    """Lines of random letters, none of them a line of `make_page`, until `size` characters."""
    rng = random.Random(seed)
    letters = "bcdfghjklmnpqrstvwxz"
    lines: list[str] = []
    total = 0
    while total < size:
        words = ("".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(8))
        line = " ".join(words) + "\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


def one_paragraph_change() -> tuple[str, str]:
    old = make_page(MB)
    return old, old.replace("Paragraph 3000a says", "Paragraph 3000a now says")


def section_replaced() -> tuple[str, str]:
    old = make_page(MB)
    start = old.index("## Section 3000\n")
    stop = old.index("## Section 4500\n")  # about 170 KB
    return old, old[:start] + unrelated_lines(300_000, seed=1) + old[stop:]


def page_replaced() -> tuple[str, str]:
    return make_page(MB), unrelated_lines(MB, seed=2)


def near_identical_lines() -> tuple[str, str]:
    # 150 shapes of table row, each some 130 times: under difflib's autojunk threshold (1%),
    # so it matches them all, the quadratic case.
    rng = random.Random(3)
    old = [f"| task | {rng.randrange(150)} | open |\n" for _ in range(20_000)]
    new = list(old)
    for n in range(0, len(new), 50):
        new[n + rng.randrange(50)] = f"| task | {rng.randrange(150)} | done |\n"
    return "".join(old), "".join(new)


def ten_paragraphs_changed() -> tuple[str, str]:
    old = new = make_page(MB)
    for n in range(250, 5_000, 500):
        new = new.replace(f"Paragraph {n}a says", f"Paragraph {n}a now says")
    return old, new


def distinct_lines_changed() -> tuple[str, str]:
    # Past the bound, lines found once on each side anchor the matching: one hunk a change.
    old = [f"- item {n} is checked\n" for n in range(20_000)]
    new = [f"- item {n} is done\n" if n % 10 == 3 else line for n, line in enumerate(old)]
    return "".join(old), "".join(new)


def costly_gaps() -> tuple[str, str]:
    # Runs of one repeated line between anchors, each costly for difflib: both budgets spent.
    old = "".join(f"anchor {k}\n" + "x\n" * 100 for k in range(300))
    new = "".join(
        f"anchor {k}\n" + "".join("y\n" if n % 3 == 0 else "x\n" for n in range(99))
        for k in range(300)
    )
    return old, new


def long_line_words() -> tuple[str, str]:
    # One 200 KB line of words from a vocabulary of 1,000, every 20th word changed.
    rng = random.Random(4)
    vocabulary = [f"word{n}" for n in range(1_000)]
    words: list[str] = []
    while sum(map(len, words)) + len(words) < 200_000:
        words.append(rng.choice(vocabulary))
    changed = [f"new{n}" if n % 20 == 7 else word for n, word in enumerate(words)]
    return " ".join(words), " ".join(changed)


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    cases: list[tuple[str, Callable[[], tuple[str, str]], int]] = [
        ("one paragraph changed in a 1 MB page", one_paragraph_change, 21),
        ("a section of a 1 MB page replaced by 300 KB of unrelated lines", section_replaced, 7),
        ("a 1 MB page replaced by 1 MB of unrelated lines", page_replaced, 7),
        ("20,000 near-identical lines, one in 50 changed", near_identical_lines, 7),
        ("ten paragraphs changed across a 1 MB page", ten_paragraphs_changed, 7),
        ("20,000 distinct lines, one in 10 changed", distinct_lines_changed, 7),
        ("300 costly gaps between anchors", costly_gaps, 7),
    ]
    print(f"{'case':<66} {'median':>10}  diff")
    for name, make, repeats in cases:
        old, new = make()
        seconds = median_seconds(lambda: unified_diff(old, new), repeats)  # noqa: B023
        added, removed = diff_stats(unified_diff(old, new))
        print(f"{name:<66} {seconds * 1000:>7.1f} ms  +{added} -{removed} lines")
    old, new = long_line_words()
    seconds = median_seconds(lambda: word_diff(old, new), 7)
    runs = word_diff(old, new)
    changed = sum(len(text.split()) for tag, text in runs if tag != "equal")
    line_seconds = median_seconds(lambda: unified_diff(old, new), 7)
    print(
        f"{'the word diff of a 200 KB line, one word in 20 changed':<66} "
        f"{seconds * 1000:>7.1f} ms  {len(runs)} runs, {changed} words in changed runs"
    )
    print(f"{'the line diff of that line':<66} {line_seconds * 1000:>7.1f} ms")


if __name__ == "__main__":
    main()
