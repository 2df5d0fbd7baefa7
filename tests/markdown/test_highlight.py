"""Fenced code highlighted by Pygments: only the languages listed, quickly over hostile text,
with the stylesheet markdown.css holds kept current."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]

from codna.markdown import highlight
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


def _by_lexer() -> dict[str, list[str]]:
    """The listed languages by the lexer Pygments gives them (`py`, `python` and `python3` are
    one lexer), each list sorted."""
    names: dict[str, list[str]] = defaultdict(list)
    for language in sorted(LANGUAGES):
        names[type(get_lexer_by_name(language)).__name__].append(language)
    return dict(names)


BY_LEXER = _by_lexer()


@pytest.mark.parametrize("lexer", sorted(BY_LEXER))
def test_every_listed_language_stops_within_its_time_over_hostile_text(
    lexer: str, long_form: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each lexer once, by the first of its names (the others are the same lexer). In the
    quick form the budget is a tenth of HIGHLIGHT_SECONDS, so a lexer stops ten times sooner;
    it may still overrun its budget by no more than three times HIGHLIGHT_SECONDS, as it may
    over the whole budget in the long form."""
    language = BY_LEXER[lexer][0]
    budget = HIGHLIGHT_SECONDS if long_form else HIGHLIGHT_SECONDS / 10
    monkeypatch.setattr(highlight, "HIGHLIGHT_SECONDS", budget)
    for n, text in enumerate(HOSTILE):
        started = time.thread_time()
        Highlighter().html((text * 3)[: FENCE_BYTES - 1], language)  # cut to be lexed
        # Unbounded, some lexers took minutes; the clock is read between tokens, so a
        # listed lexer never spends much more than the budget inside one match.
        assert time.thread_time() - started < budget + HIGHLIGHT_SECONDS * 3, (language, n)


def test_highlighting_stops_once_the_render_has_spent_its_time() -> None:
    highlighter = Highlighter()
    assert highlighter.html("r'" + "\\'" * 30_000, "typescript") is None  # ran out of time
    assert highlighter.seconds >= HIGHLIGHT_SECONDS
    assert highlighter.html("x = 1\n", "python") is None
