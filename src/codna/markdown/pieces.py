"""A body being edited, kept as pieces of strings so that an edit does not copy the page.

An edit call makes up to a hundred changes to a page of up to a megabyte, and copying the
page for each of them costs about what finding their text does. A piece table keeps the body
as a list of slices of strings (the body as it came, and the texts the edits put in), finds
text piece by piece and across the joins between pieces, and copies the page only when
something needs it in one string: a section edit (which reads the page with regular
expressions) or the result.
"""

from __future__ import annotations

# A slice of a string: the string, and where the slice starts and stops in it.
_Piece = tuple[str, int, int]


class PieceTable:
    """A body as pieces; offsets are the body's."""

    __slots__ = ("_length", "_pieces")

    def __init__(self, body: str) -> None:
        self._pieces: list[_Piece] = [(body, 0, len(body))] if body else []
        self._length = len(body)

    def __len__(self) -> int:
        return self._length

    def whole(self) -> str:
        """The body in one string."""
        if len(self._pieces) == 1:
            source, start, stop = self._pieces[0]
            return source[start:stop]  # source itself when the piece is all of it
        return "".join([source[start:stop] for source, start, stop in self._pieces])

    def after_newline(self) -> str:
        """The body with a newline in front, in one string, which from then on holds the body."""
        if len(self._pieces) == 1:
            source, start, stop = self._pieces[0]
            if start == 1 and stop == len(source) and source[0] == "\n":
                return source
        text = "".join(["\n", *(source[start:stop] for source, start, stop in self._pieces)])
        self._pieces = [(text, 1, len(text))] if len(text) > 1 else []
        return text

    def slice(self, start: int, stop: int) -> str:
        """`body[start:stop]`, for `0 <= start <= stop <= len(body)`."""
        parts: list[str] = []
        offset = 0
        for source, low, high in self._pieces:
            end = offset + high - low
            if end > start and offset < stop:
                parts.append(source[low + max(0, start - offset) : high - max(0, end - stop)])
            if end >= stop:
                break
            offset = end
        return "".join(parts)

    def find_once(self, text: str) -> int | None:
        """Where `text` (not empty) occurs in the body if it occurs there exactly once, or
        None (not at all, or more than once, overlapping occurrences included)."""
        if (len(self._pieces) - 1) * 2 * (len(text) - 1) > self._length:
            # Reading around every join would read more than the body: join it instead.
            whole = self.whole()
            self._pieces = [(whole, 0, len(whole))]
        found = -1
        offset = 0
        for source, start, stop in self._pieces:
            at = source.find(text, start, stop)
            if at >= 0:
                if found >= 0 or source.find(text, at + 1, stop) >= 0:
                    return None
                found = offset + at - start
            offset += stop - start
        if len(text) > 1 and len(self._pieces) > 1:
            across = self._find_across(text)
            if len(across) + (found >= 0) != 1:
                return None
            if across:
                found = across.pop()
        return found if found >= 0 else None

    def _find_across(self, text: str) -> set[int]:
        """Where `text` occurs across a join between pieces (two at most are wanted)."""
        reach = len(text) - 1
        found: set[int] = set()
        join = 0
        for at in range(len(self._pieces) - 1):
            _, start, stop = self._pieces[at]
            join += stop - start
            # Every occurrence in the window crosses the join: it starts before the join, as
            # the window ends less than len(text) after it, and ends after it, as the window
            # starts less than len(text) before it.
            low = max(0, join - reach)
            window = self._around(at, join - low, reach)
            position = window.find(text)
            while position >= 0:
                found.add(low + position)
                if len(found) > 1:
                    return found
                position = window.find(text, position + 1)
        return found

    def _around(self, at: int, before: int, after: int) -> str:
        """The last `before` characters up to the end of piece `at`, and the `after`
        characters that follow it."""
        left: list[str] = []
        index = at
        while before > 0 and index >= 0:
            source, start, stop = self._pieces[index]
            take = min(before, stop - start)
            left.append(source[stop - take : stop])
            before -= take
            index -= 1
        right: list[str] = []
        index = at + 1
        while after > 0 and index < len(self._pieces):
            source, start, stop = self._pieces[index]
            take = min(after, stop - start)
            right.append(source[start : start + take])
            after -= take
            index += 1
        return "".join([*reversed(left), *right])

    def splice(self, start: int, stop: int, new: str) -> None:
        """Replaces `body[start:stop]` with `new`."""
        before: list[_Piece] = []
        after: list[_Piece] = []
        offset = 0
        for piece in self._pieces:
            source, low, high = piece
            end = offset + high - low
            if end <= start:
                before.append(piece)
            elif offset >= stop:
                after.append(piece)
            else:
                if offset < start:
                    before.append((source, low, low + start - offset))
                if end > stop:
                    after.append((source, low + stop - offset, high))
            offset = end
        if new:
            before.append((new, 0, len(new)))
        self._pieces = before + after
        self._length += len(new) - (stop - start)
