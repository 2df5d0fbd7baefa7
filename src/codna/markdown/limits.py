"""The size limits shared by edits and suggestions, the newline rule, and what text is.

One set of numbers (SPEC 2): a page body is at most 1 MiB after the edits, a call carries at
most 100 edits, each text field of an edit is at most 256 KiB. Bytes are UTF-8 bytes; the
summary, reason and title limits count characters, because people write those. Every text
field a caller sends is plain text (check_plain_text): no control characters, no lone
surrogates; and a short field (a name, a title, a tag, a reason) holds no bidirectional
control either, which could make it read other than it is. A Markdown field (a body, an
edit's text) may hold those: they are the page's own text, shown as such.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from codna.errors import InvalidRequest, TooLarge

MAX_BODY_BYTES = 1024 * 1024
MAX_EDITS = 100
MAX_TEXT_BYTES = 256 * 1024
MAX_SUMMARY_CHARS = 1000
MAX_REASON_CHARS = 500
MAX_TITLE_CHARS = 200


def normalise_newlines(text: str) -> str:
    """The text with `\\r\\n` and lone `\\r` turned into `\\n`."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def utf8_size(text: str) -> int:
    """The number of UTF-8 bytes `text` takes (a lone surrogate counts as three)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _fits(text: str, limit: int) -> bool:
    # Every character takes 1 to 4 bytes: most texts are decided without encoding them.
    if len(text) > limit:
        return False
    if len(text) * 4 <= limit:
        return True
    return utf8_size(text) <= limit


# Not text in any field: every C0 control but tab and newline (line endings are normalised to
# `\n` before a multi-line field is checked, so a carriage return left over is one too), DEL,
# and the C1 controls. PostgreSQL cannot store NUL at all; the rest is invisible to a reader.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The same test on the UTF-8 bytes, an order of magnitude faster on a large body than the
# pattern above: deleting every byte that is not a C0 control or DEL leaves nothing, and no
# C1 control (U+0080-U+009F, encoded as 0xC2 0x80-0x9F) is there.
_NOT_C0_OR_DEL = bytes(range(0x20, 0x7F)) + b"\t\n" + bytes(range(0x80, 0x100))
_C1_IN_UTF8 = re.compile(b"\xc2[\x80-\x9f]")


# The bidirectional controls (embeddings, overrides, isolates and the marks): in a name, title,
# tag or reason they reorder what a reader sees, so `abc\u202egpj.exe` reads as `abcexe.jpg`.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Letters and symbols that show nothing: Hangul fillers, the Braille blank, the halfwidth filler.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\u2800\uffa0")


def _where(field: str, edit_index: int | None) -> tuple[str, dict[str, Any]]:
    """How a refusal names the field (and the edit it is in), and the fields it carries."""
    if edit_index is None:
        return f"The field '{field}'", {"field": field}
    return f"Edit {edit_index}: the field '{field}'", {"field": field, "edit_index": edit_index}


def check_plain_text(
    value: str, *, field: str, edit_index: int | None = None, markdown: bool = False
) -> None:
    """Refuse a text holding what is not text: a lone surrogate (half of a UTF-16 pair, which
    JSON can spell and UTF-8 cannot store) or a control character (see _CONTROL); and, unless
    it is `markdown` (a body or an edit's text, which may quote any text), a bidirectional
    control (see _BIDI).

    Raises InvalidRequest (field, edit_index when given, and `character`, like "U+0000", for a
    control character).
    """
    if not markdown and not value.isascii():
        bidi = _BIDI.search(value)
        if bidi is not None:
            character = f"U+{ord(bidi.group()):04X}"
            where, fields = _where(field, edit_index)
            raise InvalidRequest(
                f"{where} holds the bidirectional control {character}, which can make text "
                "read other than it is; remove it.",
                **fields,
                character=character,
            )
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        where, fields = _where(field, edit_index)
        raise InvalidRequest(
            f"{where} holds a lone surrogate (half of a UTF-16 pair), which is not text.",
            **fields,
        ) from None
    if not encoded.translate(None, _NOT_C0_OR_DEL) and (
        value.isascii() or not _C1_IN_UTF8.search(encoded)
    ):
        return
    found = _CONTROL.search(value)
    assert found is not None  # the bytes held one
    character = f"U+{ord(found.group()):04X}"
    where, fields = _where(field, edit_index)
    raise InvalidRequest(
        f"{where} holds the control character {character}; remove it.",
        **fields,
        character=character,
    )


def check_body(body: str) -> None:
    """Refuse a page body over MAX_BODY_BYTES, or one that is not text.

    Raises TooLarge (limit=MAX_BODY_BYTES, field="body"), InvalidRequest.
    """
    check_plain_text(body, field="body", markdown=True)
    check_body_size(body)


def check_body_size(body: str) -> None:
    """Refuse a page body over MAX_BODY_BYTES. Raises TooLarge (limit, field="body")."""
    if not _fits(body, MAX_BODY_BYTES):
        raise TooLarge(
            f"The page body would be {utf8_size(body):,} bytes; a page holds at most "
            f"{MAX_BODY_BYTES:,} bytes (1 MiB). Split it into several pages.",
            limit=MAX_BODY_BYTES,
            field="body",
        )


def check_text(
    value: str, *, field: str, limit: int = MAX_TEXT_BYTES, edit_index: int | None = None
) -> None:
    """Refuse a text field over `limit` UTF-8 bytes (MAX_TEXT_BYTES unless told), or one
    that is not text (check_plain_text, as Markdown: an edit's text is the page's).

    Raises TooLarge (limit, field, and edit_index when given), InvalidRequest.
    """
    check_plain_text(value, field=field, edit_index=edit_index, markdown=True)
    if _fits(value, limit):
        return
    where, fields = _where(field, edit_index)
    raise TooLarge(
        f"{where} is {utf8_size(value):,} bytes; at most {limit:,} bytes are allowed.",
        limit=limit,
        **fields,
    )


def check_chars(value: str, *, field: str, limit: int) -> None:
    """Refuse a text over `limit` characters (for a summary, a reason or a title), or one
    that is not text (check_plain_text).

    Raises TooLarge (limit, field), InvalidRequest.
    """
    check_plain_text(value, field=field)
    if len(value) > limit:
        raise TooLarge(
            f"The field '{field}' is {len(value):,} characters; at most {limit:,} are allowed.",
            limit=limit,
            field=field,
        )


def shows_something(value: str) -> bool:
    """Whether a text shows anything to a reader: a character that is not white space, a
    format character (zero-width spaces and joiners, the BOM, the word joiner, the soft
    hyphen, …: Unicode's Cf), a combining mark with nothing to combine with, a control, or a
    letter that is blank (a Hangul filler, the Braille blank)."""
    for character in value:
        if character.isspace() or character in _BLANK_LETTERS:
            continue
        if unicodedata.category(character)[0] not in "CMZ":
            return True
    return False
