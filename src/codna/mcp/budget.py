"""Every answer within one budget: what a model can take in at once (windows.READ_BUDGET).

A page's body is read in windows (services/pages/windows.py). What else could grow past the budget
is cut here, each cut saying what is left and how to get it: a list keeps the items that fit
and its `note` gives the offset to go on from; a diff keeps its first lines and says how many
characters are left; edits too long to show are left out, their diff saying what they do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from codna.mcp import compact
from codna.services.pages import windows
from codna.services.pages.windows import READ_BUDGET

ANSWER_CHARS = READ_BUDGET  # of one answer as sent, all its text together
PAGE_FIELDS = 600  # kept in each page's share for its address, title, version, `more`…
DIFF_CHARS = 8_000  # of one diff in an answer about one suggestion
EDIT_DIFF_CHARS = ANSWER_CHARS - PAGE_FIELDS  # of the diff an edit or a suggestion answers
LISTED_DIFF_CHARS = 3_000  # of one diff in a list of suggestions

Item = TypeVar("Item", bound=BaseModel)


def size(answer: BaseModel) -> int:
    """The characters `answer` costs a model, as it is sent."""
    return len(compact.text(compact.without_nulls(answer.model_dump(mode="json"))))


def fit(items: Sequence[Item], chars: int = ANSWER_CHARS) -> list[Item]:
    """The first of `items` that fit in `chars` together; always the first one."""
    kept: list[Item] = []
    used = 0
    for item in items:
        used += size(item) + 1
        if kept and used > chars:
            break
        kept.append(item)
    return kept


def clipped(text: str | None, chars: int, rest: str) -> str | None:
    """`text` whole, or its first lines within `chars` as sent, and a last line saying how
    many characters are left and `rest`, where to find them."""
    if text is None or sent(text) <= chars:
        return text
    room = max(0, chars - len(rest) - 40)  # 40: the count and its words
    piece = text[:room]
    while (over := sent(piece) - room) > 0:
        piece = piece[: len(piece) - over]
    end = piece.rfind("\n") + 1 or len(piece)
    return f"{text[:end]}… {len(text) - end:,} more characters: {rest}"


def sent(text: str) -> int:
    """The characters `text` costs inside an answer: a newline or a quote is two."""
    return len(compact.text(text)) - 2


def cut_short(shown: int, asked: int, offset: int) -> str | None:
    """The note of a list cut to fit the budget: how to go on."""
    if shown >= asked:
        return None
    return (
        f"Cut to {shown} to stay within {ANSWER_CHARS:,} characters: "
        f"pass offset={offset + shown} for the rest."
    )


def window(
    body: str, *, pages: int = 1, section: str | None = None, start: int = 0
) -> windows.Part:
    """The window of `body` one of `pages` read together may answer: its share of the
    budget, less PAGE_FIELDS, counted as sent (a newline or a quote is sent as two
    characters). Raises InvalidRequest as windows.window does."""
    share = max(1, ANSWER_CHARS // max(1, pages) - PAGE_FIELDS)
    part = windows.window(body, section=section, start=start, chars=share)
    while (cost := sent(part.text)) > share:
        chars = max(1, part.end - part.start - (cost - share))
        part = windows.window(body, section=section, start=start, chars=chars)
    return part
