"""Fenced code highlighted on the server by Pygments, as `<span class="…">` (CSS classes,
never inline styles: the page's CSP allows none), and the stylesheet those classes need.

Only the languages of LANGUAGES are highlighted: Pygments has some six hundred lexers, each a
set of regular expressions run over text anyone may write, and a lexer whose expressions
backtrack can take minutes over a crafted fence; these are the common ones, each measured
over hostile text (tests/markdown/test_highlight.py). Any other language, or none, is plain
escaped text.

Highlighting has a budget per render, so a page costs about the same whatever its fences
hold: a fence of FENCE_BYTES or more is not highlighted, nor is any fence once HIGHLIGHT_BYTES
of code or HIGHLIGHT_FENCES fences have been (a fence costs a lexer's start even when tiny,
and the HTML Pygments makes is several times the code).
And it has a time: HIGHLIGHT_SECONDS of the thread's CPU in all, checked between the tokens
a lexer yields. Hostile code (a run of unclosed quotes, heredocs, comment openers) makes
some lexers try a long match again at each position, in time that grows with the square of
its length, and is shown plain once the time is spent. A lexer
that could spend the time inside one match is not listed: C's and C++'s spend seconds in one
match over runs of spaces and tabs, so a C fence is plain text.
"""

from __future__ import annotations

import functools
import io
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.token import STANDARD_TYPES  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

FENCE_BYTES = 100_000  # characters in one fence, past which it is plain
HIGHLIGHT_BYTES = 256_000  # characters highlighted in one render, in all
HIGHLIGHT_FENCES = 1_000  # fences highlighted in one render
HIGHLIGHT_SECONDS = 0.25  # CPU spent highlighting in one render
_CHECK_EVERY = 32  # tokens between two looks at the clock

# The names a fence may give (compared in lower case), each one of Pygments' aliases.
LANGUAGES = frozenset(
    {
        *("python", "py", "python3", "javascript", "js", "typescript", "ts", "jsx", "tsx"),
        *("json", "yaml", "yml", "toml", "bash", "sh", "shell", "zsh", "powershell", "sql"),
        *("postgresql", "html", "xml", "css", "scss", "markdown", "md", "diff", "go", "rust"),
        *("rs", "java", "kotlin", "csharp", "c#", "php", "swift"),
        *("docker", "dockerfile", "graphql", "lua", "r", "haskell", "elixir", "erlang"),
        "text",
    }
)
# The classes Pygments' HTML formatter gives, and the one on a highlighted `<pre>`.
CLASSES = frozenset(name for name in STANDARD_TYPES.values() if name)
PRE_CLASS = "highlight"
LIGHT_STYLE = "xcode"  # every colour at least 4.5:1 on the page's white
DARK_STYLE = "monokai"  # every colour at least 4.5:1 on the page's dark background

_FORMATTER = HtmlFormatter(nowrap=True)


class _OutOfTime(Exception):
    """A render has spent its HIGHLIGHT_SECONDS."""


def _timed(tokens: Iterable[object], deadline: float) -> Iterator[object]:
    for n, token in enumerate(tokens):
        if n % _CHECK_EVERY == 0 and time.thread_time() > deadline:
            raise _OutOfTime
        yield token


@dataclass
class Highlighter:
    """What one render has highlighted so far, and the time it took."""

    fences: int = 0
    characters: int = 0
    seconds: float = 0.0

    def html(self, code: str, language: str) -> str | None:
        """`code` as highlighted HTML (spans only, text escaped), or None to show it plain:
        a language not in LANGUAGES, a fence too long, or the render's budget spent."""
        lexer = _lexer(language.lower()) if language.lower() in LANGUAGES else None
        if lexer is None or len(code) >= FENCE_BYTES or self.fences >= HIGHLIGHT_FENCES:
            return None
        if self.characters + len(code) > HIGHLIGHT_BYTES or self.seconds >= HIGHLIGHT_SECONDS:
            return None
        self.fences += 1
        self.characters += len(code)
        started = time.thread_time()
        shown = io.StringIO()
        try:
            deadline = started + HIGHLIGHT_SECONDS - self.seconds
            _FORMATTER.format(_timed(lexer.get_tokens(code), deadline), shown)
        except _OutOfTime:
            return None
        finally:
            self.seconds += time.thread_time() - started
        return shown.getvalue()


@functools.cache
def _lexer(language: str) -> Lexer | None:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _rules(style: str, indent: str = "") -> list[str]:
    """Pygments' rules for `style` under `.highlight`, without the ones that set the block's
    own background or style line numbers (a page shows code on its own background), and
    without black text, which is the page's own text colour."""
    defs = HtmlFormatter(style=style).get_style_defs(f".{PRE_CLASS}")
    rules = []
    for rule in defs.splitlines():
        selector, _, rest = rule.partition(" { ")
        if not selector.startswith(f".{PRE_CLASS} .") or selector.endswith(" .hll"):
            continue
        declarations = [
            d.strip()
            for d in rest.partition(" }")[0].split(";")
            if d.strip() and d.strip() not in ("color: #000", "color: #000000")
        ]
        if declarations:
            rules.append(f"{indent}{selector} {{ {'; '.join(declarations)} }}")
    return rules


def stylesheet() -> str:
    """The CSS of the highlighting classes: LIGHT_STYLE, and DARK_STYLE when the reader
    prefers a dark scheme (the light colours reset first, so a class the dark style leaves
    out is the page's text colour). markdown.css holds it, made by this function."""
    reset = (
        f"  .{PRE_CLASS} [class] {{ color: inherit; background-color: transparent; "
        "border: 0; font-style: inherit; font-weight: inherit }"
    )
    dark = ["@media (prefers-color-scheme: dark) {", reset, *_rules(DARK_STYLE, "  "), "}"]
    return "\n".join([*_rules(LIGHT_STYLE), *dark]) + "\n"
