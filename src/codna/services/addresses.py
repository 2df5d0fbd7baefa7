"""Addresses: `wiki` (a space), `wiki:decisions/` (a folder), `wiki:decisions/0024-x` (a page)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from codna.errors import InvalidRequest
from codna.markdown.limits import check_encodable

SPACES = ("wiki", "raw", "output")
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_PATH = 500


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


def parse_address(text: object, *, want: str | None = None) -> Address:
    """Parse an address; `want="page"` refuses spaces and folders. Raises InvalidRequest."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequest("Give an address such as wiki:decisions/0024.", field="address")
    check_encodable(text, field="address")
    text = text.strip()
    space, sep, path = text.partition(":")
    if space not in SPACES:
        raise InvalidRequest(
            f"'{space}' is not a space; the spaces are wiki, raw and output.", field="address"
        )
    if sep and not path:
        path = ""
    if len(path) > MAX_PATH:
        raise InvalidRequest(f"A path has at most {MAX_PATH} characters.", field="address")
    segments = path.rstrip("/").split("/") if path else []
    for segment in segments:
        if not _SEGMENT.fullmatch(segment) or segment in (".", ".."):
            raise InvalidRequest(
                f"'{text}' is not a valid address: each part of a path is letters, digits, "
                "'.', '_' or '-', starting with a letter or digit.",
                field="address",
            )
    address = Address(space, path)
    if want is not None and address.kind != want:
        raise InvalidRequest(f"'{text}' is not a {want} address.", field="address")
    return address
