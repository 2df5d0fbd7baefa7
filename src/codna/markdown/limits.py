"""The size limits shared by edits and suggestions, and the newline rule.

One set of numbers (SPEC 2): a page body is at most 1 MiB after the edits, a call carries at
most 100 edits, each text field of an edit is at most 256 KiB. Bytes are UTF-8 bytes; the
summary, reason and title limits count characters, because people write those.
"""

from __future__ import annotations

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


def check_encodable(value: str, *, field: str, edit_index: int | None = None) -> None:
    """Refuse a text holding a lone surrogate (half of a UTF-16 pair, which JSON can spell):
    it is not text and cannot be stored as UTF-8. Raises InvalidRequest (field, edit_index)."""
    if value.isascii():
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        fields: dict[str, Any] = {"field": field}
        where = f"The field '{field}'"
        if edit_index is not None:
            fields["edit_index"] = edit_index
            where = f"Edit {edit_index}: the field '{field}'"
        raise InvalidRequest(
            f"{where} holds a lone surrogate (half of a UTF-16 pair), which is not text.",
            **fields,
        ) from None


def check_body(body: str) -> None:
    """Refuse a page body over MAX_BODY_BYTES, or one that is not text.

    Raises TooLarge (limit=MAX_BODY_BYTES, field="body"), InvalidRequest.
    """
    check_encodable(body, field="body")
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
    """Refuse a text field over `limit` UTF-8 bytes (MAX_TEXT_BYTES unless told).

    Raises TooLarge (limit, field, and edit_index when given), or InvalidRequest (field,
    edit_index) for a text holding a lone surrogate, which cannot be stored as UTF-8.
    """
    fields: dict[str, Any] = {"field": field}
    where = f"The field '{field}'"
    if edit_index is not None:
        fields["edit_index"] = edit_index
        where = f"Edit {edit_index}: the field '{field}'"
    check_encodable(value, field=field, edit_index=edit_index)
    if _fits(value, limit):
        return
    raise TooLarge(
        f"{where} is {utf8_size(value):,} bytes; at most {limit:,} bytes are allowed.",
        limit=limit,
        **fields,
    )


def check_chars(value: str, *, field: str, limit: int) -> None:
    """Refuse a text over `limit` characters (for a summary, a reason or a title).

    Raises TooLarge (limit, field), InvalidRequest (not text).
    """
    check_encodable(value, field=field)
    if len(value) > limit:
        raise TooLarge(
            f"The {field} is {len(value):,} characters; at most {limit:,} are allowed.",
            limit=limit,
            field=field,
        )
