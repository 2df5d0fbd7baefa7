"""Markdown as the plain text a reader sees, and the snippet cut from it around a hit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codna.markdown.plain_text import START, STOP, Piece, bracketed, snippet, strip_markdown

STRIPPED = [
    ("**Status:** Accepted", "Status: Accepted"),
    ("*one* _two_ ***three*** ~~four~~ __five__", "one two three four five"),
    ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
    ("## Heading ##", "Heading"),
    ("> quoted\n> > twice", "quoted twice"),
    ("- one\n* two\n+ three\n1. four\n2) five", "one two three four five"),
    ("- [x] done\n- [ ] to do", "done to do"),
    ('See [the guide](https://example.com/a_(b) "Title").', "See the guide."),
    ("An ![image](a.png) in [![a badge](b.svg)](https://x)", "An image in a badge"),
    ("A [reference][1] and [another][].\n\n[1]: https://example.com", "A reference and another."),
    ("A note[^1].\n\n[^1]: The note.", "A note. The note."),
    ("<https://example.com> and <a@example.com>", "https://example.com and a@example.com"),
    ('<div class="x">in <b>HTML</b></div><!-- hidden -->', "in HTML"),
    ("&amp; &lt;b&gt; &copy; &#x41; &#2;", "& <b> © A"),
    ("\\*not emphasis\\* and \\[not a link\\]", "*not emphasis* and [not a link]"),
    ("`*code*` and ``a ` b``", "*code* and a ` b"),
    ("```python\nx = *y*  # [a](b)\n```\nafter", "x = *y* # [a](b) after"),
    ("~~~\n<b>kept</b>\n~~~", "<b>kept</b>"),
    ("| Who | What |\n|:---|---:|\n| *Ada* | reads |", "Who What Ada reads"),
    ("Setext\n======\ntext\n\n***\n\n---", "Setext text"),
    ("Line one\nline two  \nline three", "Line one line two line three"),
]


@pytest.mark.parametrize(("markdown", "plain"), STRIPPED)
def test_markdown_is_stripped_to_the_text_a_reader_sees(markdown: str, plain: str) -> None:
    assert strip_markdown(markdown) == plain


def test_the_marks_of_a_hit_stay_where_they_were_through_the_stripping() -> None:
    marked = f"- **{START}kestrel{STOP}** in [a {START}link{STOP}](https://x/{START}k{STOP})"
    assert strip_markdown(marked) == f"{START}kestrel{STOP} in a {START}link{STOP}"


def test_a_snippet_is_cut_around_the_first_hit_between_words() -> None:
    words = " ".join(f"w{n}" for n in range(200))
    pieces = snippet(f"{words} **{START}osprey{STOP}** {words}")
    assert pieces[0].text.startswith("…") and pieces[0].text.endswith("w199 ")
    assert pieces[1] == Piece("osprey", hit=True)
    assert pieces[2].text.startswith(" w0 w1") and pieces[2].text.endswith("…")
    assert all(not p.text.startswith("w") or p.text[1:].isdigit() for p in pieces)
    assert sum(len(p.text) for p in pieces) <= 222


def test_every_word_a_hit_marked_is_a_hit_wherever_it_stands() -> None:
    pieces = snippet(f"The osprey and {START}Osprey nests{STOP}; nests.")
    assert bracketed(pieces) == "The [osprey] and [Osprey] [nests]; [nests]."


def test_a_window_drops_its_partial_lines_and_says_where_text_was_left_out() -> None:
    window = f"ial line\n- {START}hit{STOP} here\n| a | b |\nlast [li"
    assert bracketed(snippet(window, whole_start=False, whole_end=False)) == "…[hit] here a b…"


def test_without_a_hit_a_snippet_is_the_opening() -> None:
    assert snippet("Plain *words*.") == (Piece("Plain words."),)
    assert snippet("") == ()


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"])))
def test_any_text_gives_a_snippet_without_marks_of_its_own(text: str) -> None:
    pieces = snippet(text)
    assert all(p.text and START not in p.text and STOP not in p.text for p in pieces)


def test_a_word_marked_before_an_apostrophe_is_marked_everywhere_it_stands() -> None:
    pieces = snippet(f"The {START}kestrel{STOP}'s nest; a kestrel.")
    assert bracketed(pieces) == "The [kestrel]'s nest; a [kestrel]."
