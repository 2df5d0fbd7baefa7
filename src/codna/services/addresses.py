"""Addresses: `wiki` (a space), `wiki:decisions/` (a folder), `wiki:decisions/0024-x` (a page).

Every address is read the same way, however it is spelled; a new page's address must also be
a file name on common filesystems (check_new_page_address), since an export writes each page
to `SPACE/PATH.md`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from codna.errors import InvalidRequest
from codna.markdown.limits import check_plain_text, utf8_size
from codna.vocabulary import MAX_PATH, SEGMENT, SPACES

_SEGMENT = re.compile(SEGMENT)
# A file name on ext4, NTFS and APFS is at most 255 bytes; a page's own name is a file name
# once export adds EXPORT_SUFFIX to it.
MAX_NAME_BYTES = 255
EXPORT_SUFFIX = ".md"
# Device names Windows reserves in every folder, whatever follows the first dot (`con.md`).
WINDOWS_RESERVED = frozenset(
    [
        "CON",
        "PRN",
        "AUX",
        "NUL",
        *(f"COM{n}" for n in range(1, 10)),
        *(f"LPT{n}" for n in range(1, 10)),
    ]
)


@dataclass(frozen=True)
class Address:
    """A space, a folder (a path prefix ending in `/`) or a page in a space."""

    space: str
    path: str  # '' for a space, 'decisions/' for a folder, 'decisions/0024' for a page

    @property
    def kind(self) -> Literal["space", "folder", "page"]:
        if not self.path:
            return "space"
        return "folder" if self.path.endswith("/") else "page"

    def __str__(self) -> str:
        return f"{self.space}:{self.path}" if self.path else self.space


def parse_address(text: object, *, want: str | None = None, field: str = "address") -> Address:
    """Parse an address; `want="page"` refuses spaces and folders. Raises InvalidRequest
    (naming `field`)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequest("Give an address such as wiki:decisions/0024.", field=field)
    check_plain_text(text, field=field)
    text = text.strip()
    space, sep, path = text.partition(":")
    if space not in SPACES:
        raise InvalidRequest(
            f"'{space}' is not a space; the spaces are wiki, raw and output.", field=field
        )
    if sep and not path:
        path = ""
    if len(path) > MAX_PATH:
        raise InvalidRequest(f"A path has at most {MAX_PATH} characters.", field=field)
    segments = path.rstrip("/").split("/") if path else []
    for segment in segments:
        if not _SEGMENT.fullmatch(segment) or segment in (".", ".."):
            raise InvalidRequest(
                f"'{text}' is not a valid address: each part of a path is letters, digits, "
                "'.', '_' or '-', starting with a letter or digit.",
                field=field,
            )
    address = Address(space, path)
    if want is not None and address.kind != want:
        raise InvalidRequest(f"'{text}' is not a {want} address.", field=field)
    return address


def check_new_page_address(address: Address) -> None:
    """Refuse an address a new page cannot have: a part of its path that cannot be a file name
    on common filesystems. parse_address refuses, in every address, a part that is empty, `.`
    or `..`, or holds anything but letters, digits, '.', '_' and '-' (so no space and none of
    `\\ : * ? " < > |`); this refuses what Windows and the length of a file name add.

    Pages made before this rule keep their addresses and are read as ever. Raises
    InvalidRequest.
    """
    *folders, name = address.path.split("/")
    for number, part in enumerate([*folders, name], start=1):
        problem = None
        if part.endswith("."):
            problem = f"'{part}' ends in a dot, which Windows drops from a file name"
        elif (device := part.split(".")[0].upper()) in WINDOWS_RESERVED:
            problem = (
                f"'{part}' is the device name {device}, which Windows reserves with or without "
                "an extension (as it does CON, PRN, AUX, NUL, COM1 to COM9 and LPT1 to LPT9)"
            )
        elif number <= len(folders) and utf8_size(part) > MAX_NAME_BYTES:
            problem = (
                f"part {number} of the path is {utf8_size(part):,} bytes, and a folder's name "
                f"holds at most {MAX_NAME_BYTES}"
            )
        elif number > len(folders) and utf8_size(part) > MAX_NAME_BYTES - len(EXPORT_SUFFIX):
            problem = (
                f"the page's name is {utf8_size(part):,} bytes, and it holds at most "
                f"{MAX_NAME_BYTES - len(EXPORT_SUFFIX)}, so that its file ({EXPORT_SUFFIX} "
                f"added) fits the {MAX_NAME_BYTES} bytes of a file name"
            )
        if problem:
            raise InvalidRequest(
                f"A page cannot be made at {address}: {problem}. Choose another name.",
                field="address",
            )
