"""Fenced code highlighted by Pygments: only the languages listed, quickly over hostile text,
with the stylesheet markdown.css holds kept current."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from codna.markdown.highlight import (
    CLASSES,
    FENCE_BYTES,
    HIGHLIGHT_SECONDS,
    LANGUAGES,
    Highlighter,
    stylesheet,
)

STATIC = Path(__file__).parents[2] / "src" / "codna" / "web" / "static"

# Text that makes a regular-expression lexer work hardest: long runs of what opens a string,
# a comment, an escape or a nesting, never closed.
HOSTILE = [
    '"' * 20_000 + "\\",
    "'" * 20_000,
    '"""' + "\\" * 30_000,
    "/*" * 20_000,
    "<!--" * 10_000,
    "<" * 30_000,
    "{" * 30_000,
    "(" * 30_000,
    "`${" * 10_000,
    "#" * 30_000,
    "$" * 10_000 + "(((",
    "<<EOF\n" + "a" * 30_000,
    "a" * 90_000,
    " \t" * 30_000 + "x",
    "r'" + "\\'" * 20_000,
    "0x" + "9" * 30_000 + "e" * 1000,
    "-" * 30_000 + "\n" + "=" * 30_000,
    "\\\n" * 20_000,
    '"' + "\\u" * 20_000,
    "@" * 20_000 + "x",
]


def test_markdown_css_holds_the_current_highlighting_classes() -> None:
    css = (STATIC / "markdown.css").read_text()
    assert css.endswith(stylesheet()), "make markdown.css again (its comment says how)"
    assert "@media (prefers-color-scheme: dark)" in css


def test_every_listed_language_has_a_lexer_and_highlights() -> None:
    for language in sorted(LANGUAGES):
        html = Highlighter().html("x = 1 # a\n", language)
        assert html is not None and "x" in html, language


def test_highlighted_code_holds_spans_with_known_classes_only() -> None:
    html = Highlighter().html("def f():\n    return '<b>&'  # c\n", "Python")
    assert html is not None
    assert "&lt;b&gt;&amp;" in html and "style" not in html
    for name in re.findall(r'<span class="([^"]*)"', html):
        assert name in CLASSES


def test_a_language_not_listed_or_a_fence_too_long_is_not_highlighted() -> None:
    assert Highlighter().html("x", "brainfuck") is None
    assert Highlighter().html("x" * FENCE_BYTES, "python") is None


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_listed_language_stops_within_its_time_over_hostile_text(language: str) -> None:
    for n, text in enumerate(HOSTILE):
        started = time.thread_time()
        Highlighter().html(text * 3, language)  # up to 90 KB, under FENCE_BYTES
        # Unbounded, some lexers took minutes; the clock is read between tokens, so a
        # listed lexer never spends much more than the budget inside one match.
        assert time.thread_time() - started < HIGHLIGHT_SECONDS * 4, (language, n)


def test_highlighting_stops_once_the_render_has_spent_its_time() -> None:
    highlighter = Highlighter()
    assert highlighter.html("r'" + "\\'" * 30_000, "typescript") is None  # ran out of time
    assert highlighter.seconds >= HIGHLIGHT_SECONDS
    assert highlighter.html("x = 1\n", "python") is None
