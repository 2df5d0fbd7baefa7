"""The piece table: a body in pieces reads, finds and changes as the same body in one string."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.pieces import PieceTable


def _once(body: str, text: str) -> int | None:
    first = body.find(text)
    if first < 0 or body.find(text, first + 1) >= 0:
        return None
    return first


# Enough text after the changes that reading around the joins costs less than joining.
_TAIL = "." * 60


def test_text_put_in_by_a_change_is_found_with_what_was_around_it() -> None:
    pieces = PieceTable("one two" + _TAIL)
    pieces.splice(3, 3, "-and")
    pieces.splice(0, 0, "[")
    pieces.splice(12, 12, "]")
    assert pieces.whole() == "[one-and two]" + _TAIL
    assert pieces.find_once("e-a") == 3  # across a join
    assert pieces.find_once("-and") == 4  # inside a piece put in
    assert pieces.find_once("two].") == 9  # across the last join
    assert pieces.find_once("o") is None  # three times
    assert pieces.find_once("x") is None
    assert pieces.slice(2, 9) == "ne-and "
    assert pieces.find_once("[one-and two]") == 0  # across every join: read joined
    assert pieces.whole() == "[one-and two]" + _TAIL


def test_occurrences_across_joins_count_as_those_inside_a_piece_do() -> None:
    pieces = PieceTable("ab b" + _TAIL)
    pieces.splice(1, 1, "")  # splits the piece between a and b
    pieces.splice(4, 4, " a")
    assert pieces.whole() == "ab b a" + _TAIL
    assert pieces.find_once("ab") == 0
    assert pieces.find_once("b a") == 3
    pieces.splice(3, 3, "a")
    assert pieces.whole() == "ab ab a" + _TAIL
    assert pieces.find_once("ab") is None  # across two joins
    assert pieces.find_once("b") is None  # in two pieces
    assert pieces.find_once("ab ab") == 0
    assert pieces.find_once(" ab ") == 2


def test_with_a_newline_in_front_the_body_is_one_string_again() -> None:
    pieces = PieceTable("b")
    pieces.splice(0, 0, "a")
    text = pieces.after_newline()
    assert text == "\nab"
    assert pieces.after_newline() is text  # not joined again
    pieces.splice(2, 2, "c")
    assert pieces.whole() == "abc"
    empty = PieceTable("")
    assert empty.after_newline() == "\n"
    assert empty.whole() == ""
    assert len(empty) == 0


_pieces_text = st.text("ab\n", max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.text("ab\n", max_size=30), st.data())
def test_a_body_in_pieces_reads_finds_and_changes_as_one_string(
    body: str, data: st.DataObject
) -> None:
    pieces = PieceTable(body)
    for _ in range(data.draw(st.integers(1, 8))):
        start = data.draw(st.integers(0, len(body)))
        stop = data.draw(st.integers(start, len(body)))
        new = data.draw(_pieces_text)
        pieces.splice(start, stop, new)
        body = body[:start] + new + body[stop:]
        if data.draw(st.integers(0, 4)) == 0:
            assert pieces.after_newline() == "\n" + body
        assert len(pieces) == len(body)
        assert pieces.whole() == body
        low = data.draw(st.integers(0, len(body)))
        high = data.draw(st.integers(low, len(body)))
        assert pieces.slice(low, high) == body[low:high]
        if low < high and data.draw(st.booleans()):
            needle = body[low:high]  # often across a join, often more than once
        else:
            needle = data.draw(st.text("ab\n", min_size=1, max_size=4))
        assert pieces.find_once(needle) == _once(body, needle)
