"""Markdown as the plain text a reader sees, and a search snippet cut from it.

The search engines mark each hit in a section's Markdown with START and STOP (control
characters a page cannot hold, markdown/limits.py). `strip_markdown` takes the syntax away and
keeps the marks; `snippet` cuts the text around the first hit and answers it as pieces, plain
text and hits, for each interface to show as it shows a hit: the web in `<mark>`, MCP and the
command line in [brackets].

The stripping reads lines, not a syntax tree: a snippet is cut from a window of a section,
which may begin inside a list, a table or a fenced block, where a parser would read the
fragment as something else. It removes what a reader never sees (heading marks, list and
quote markers, task boxes, fences, table pipes and rules, emphasis, link and image syntax
keeping the label, link definitions, HTML tags, backslash escapes), decodes HTML entities, and
keeps code as it is written.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from itertools import chain

START = "\x02"  # where a hit begins, as the search engines are told to mark it
STOP = "\x03"  # where it ends
_HOLE = "\x01"  # around the number of a stretch set aside (code, an escaped character)

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# Lines a reader does not see: rules, setext underlines, table delimiter rows, link
# definitions, HTML comments on a line of their own.
_HIDDEN_LINE = re.compile(
    r" {0,3}(?:"
    r"(?:[-*_][ \t]*){3,}|=+[ \t]*"
    r"|\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*"
    r"|\[[^\]^][^\]]*\]:[ \t]*\S.*"
    r"|<!--.*-->[ \t]*"
    r")"
)
# What opens a line: quote markers, a list item's marker and task box, a heading's marks, a
# footnote definition's label.
_LINE_OPENING = re.compile(
    r"^[ \t]*(?:>[ \t]?)*[ \t]*"
    r"(?:(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?"
    r"(?:#{1,6}(?:[ \t]+|$))?"
    r"(?:\[\^[^\]]+\]:[ \t]*)?"
)
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_PIPE = re.compile(r"[ \t]*(?<!\\)\|[ \t]*")

_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_SET_ASIDE = re.compile(_HOLE + r"(\d+)" + _HOLE)
_AUTOLINK = re.compile(r"<((?:[A-Za-z][A-Za-z0-9+.-]{1,31}:|mailto:)[^\s<>]*|[^\s<>@]+@[^\s<>]+)>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLOCK_TAG = re.compile(
    r"</?(?:address|article|aside|blockquote|br|dd|details|div|dl|dt|figcaption|figure|footer"
    r"|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|tbody|td|tfoot|th|thead|tr"
    r"|ul)\b[^<>]*>",
    re.IGNORECASE,
)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_LABEL = r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"
_INLINE_LINK = re.compile(
    r"!?" + _LABEL + r"\([ \t\n]*(?:<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:[ \t\n]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t\n]*\)"
)
_REFERENCE_LINK = re.compile(r"!?" + _LABEL + r"\[[^\[\]]*\]")
_FOOTNOTE = re.compile(r"\[\^[^\]\s]+\]")
_STRONG_OR_EMPHASIS = re.compile(r"(\*{1,3}|~~)(?=[^\s*~])(.+?)(?<=[^\s*~])\1", re.DOTALL)
_UNDERSCORES = re.compile(r"(?<![^\W_])(_{1,3})(?=[^\s_])(.+?)(?<=[^\s_])\1(?![^\W_])", re.DOTALL)
_STRAY = re.compile(r"\*{2,}|~~|(?<!\S)__+|__+(?!\S)")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_markdown(text: str) -> str:
    """The text a reader sees of this Markdown (or of a stretch of it), its white space
    collapsed to single spaces; START and STOP marks in it are kept where they were."""
    blocks: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.split("\n"):
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]).strip():
                fence = ""
            else:
                blocks.append(line)  # code, as it is written
            continue
        opened = _FENCE.match(line)
        if opened is not None:
            blocks.append(_inline("\n".join(prose)))
            prose = []
            fence = opened.group(1)
            continue
        if _HIDDEN_LINE.fullmatch(line):
            continue
        line = _LINE_OPENING.sub("", line, count=1)
        line = _CLOSING_HASHES.sub("", line)
        if line.startswith("|") or line.rstrip().endswith("|"):
            line = _PIPE.sub(" ", line)
        prose.append(line)
    blocks.append(_inline("\n".join(prose)))
    return " ".join(" ".join(blocks).split())


def _inline(text: str) -> str:
    """Inline Markdown's text: code spans and escaped characters set aside first, so that no
    other rule reads them, and put back last."""
    aside: list[str] = []

    def set_aside(kept: str) -> str:
        aside.append(kept)
        return f"{_HOLE}{len(aside) - 1}{_HOLE}"

    # Each rule runs only where its characters are: most text has none of them.
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: set_aside(_code_text(m.group(2))), text)
    if "\\" in text:
        text = _ESCAPED.sub(lambda m: set_aside(m.group(1)), text)
    if "<" in text:
        text = _AUTOLINK.sub(lambda m: set_aside(m.group(1)), text)
        text = _TAG.sub("", _BLOCK_TAG.sub(" ", _COMMENT.sub("", text)))
    for _ in range(3):  # an image inside a link's label, a link inside emphasis
        before = text
        if "[" in text:
            text = _REFERENCE_LINK.sub(r"\1", _INLINE_LINK.sub(r"\1", text))
        if "*" in text or "~~" in text:
            text = _STRONG_OR_EMPHASIS.sub(r"\2", text)
        if "_" in text:
            text = _UNDERSCORES.sub(r"\2", text)
        if text == before:
            break
    if "[^" in text:
        text = _FOOTNOTE.sub("", text)
    if "**" in text or "~~" in text or "__" in text:
        text = _STRAY.sub("", text)
    if "&" in text:
        text = _ENTITY.sub(_entity, text)
    if not aside:
        return text
    return _SET_ASIDE.sub(lambda m: aside[int(m.group(1))], text)


def _code_text(code: str) -> str:
    """A code span's text: one space on each side taken away when both are there."""
    if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
        return code[1:-1]
    return code


def _entity(found: re.Match[str]) -> str:
    character = html.unescape(found.group())
    return "" if _CONTROL.search(character) else character


# --- a snippet ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A stretch of a snippet: plain text, or a hit (`hit`: the words the search matched)."""

    text: str
    hit: bool = False


BEFORE = 70  # characters of a snippet before its first hit, at most
LONGEST = 220  # characters of a snippet, at most (a word longer is cut)
ELLIPSIS = "…"
_MARKED = re.compile(f"{START}([^{START}{STOP}]*){STOP}?")
_WORD = re.compile(r"\w+(?:['’]\w+)*")


def snippet(marked: str, *, whole_start: bool = True, whole_end: bool = True) -> tuple[Piece, ...]:
    """The pieces of a snippet of `marked` (Markdown with hits between START and STOP, or a
    stretch of it: `whole_start` and `whole_end` say whether it begins and ends where the
    section does): its plain text around the first hit, at most LONGEST characters cut
    between words, with an ellipsis where it leaves text out; without a hit, its opening.

    Every word the engine marked anywhere in `marked` is a hit wherever it stands, each word
    a piece of its own: the engines mark a phrase differently (FTS5 its instances as one
    stretch, PostgreSQL each word wherever it is), and the snippet is the same on both."""
    text = strip_markdown(_whole_lines(marked, whole_start, whole_end))
    wanted = {w.casefold() for hit in _MARKED.findall(text) for w in _WORD.findall(hit)}
    text = text.replace(START, "").replace(STOP, "")
    words = (m.span() for m in _any_of(wanted).finditer(text)) if wanted else iter(())
    first, stop = next(words, (0, 0))
    begin = 0
    if stop:
        begin = max(first - BEFORE, 0)
        if begin:
            space = text.find(" ", begin, first)
            begin = space + 1 if space >= 0 else first
    end = begin + LONGEST
    if end < len(text):
        space = text.rfind(" ", begin, end + 1)
        if space > max(stop, begin):
            end = space
    else:
        end = len(text)
    hits = chain([(first, stop)], words) if stop else iter(())
    pieces: list[Piece] = [Piece(ELLIPSIS)] if begin > 0 or not whole_start else []
    at = begin
    for start, past in hits:
        if start >= end:
            break
        pieces += [Piece(text[at:start]), Piece(text[start:past], hit=True)]
        at = past
    pieces.append(Piece(text[at:end]))
    if end < len(text) or not whole_end:
        pieces.append(Piece(ELLIPSIS))
    return tuple(_joined(pieces))


def _any_of(words: set[str]) -> re.Pattern[str]:
    """Any of these words, in any case, as a whole word."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _whole_lines(marked: str, whole_start: bool, whole_end: bool) -> str:
    """A window without its partial first and last lines, where they hold no hit, so that
    what opens a line is read as such."""
    first = marked.find(START)
    if not whole_start:
        newline = marked.find("\n")
        if newline >= 0 and (first < 0 or newline < first):
            marked = marked[newline + 1 :]
    if not whole_end:
        newline = marked.rfind("\n")
        stop = marked.find(STOP)
        if newline >= 0 and newline > stop:
            marked = marked[:newline]
    return marked


def _joined(pieces: list[Piece]) -> list[Piece]:
    """Neighbouring plain pieces as one, empty ones left out."""
    joined: list[Piece] = []
    for piece in pieces:
        if not piece.text:
            continue
        if joined and not piece.hit and not joined[-1].hit:
            joined[-1] = Piece(joined[-1].text + piece.text)
        else:
            joined.append(piece)
    return joined


def bracketed(pieces: tuple[Piece, ...]) -> str:
    """A snippet as one line of text, its hits [in brackets]."""
    return "".join(f"[{p.text}]" if p.hit else p.text for p in pieces)
