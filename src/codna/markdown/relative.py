"""Relative links between pages: `other`, `../home`, `./x`, `sub/page.md#part`, read against
the folder of the page that holds them, within the same space.

A destination is taken as markdown-it hands it over (entities decoded, anything outside URL
characters percent-encoded), so `%2e%2e` or `\\host` are segments with a `%` in them, which
no page path has. A destination resolves only when every segment is `.`, `..` or a page path
segment (a letter or digit, then letters, digits, `.`, `_`, `-`), it does not climb above the
space, and it names a page rather than a folder; a trailing `.md` is dropped and a fragment
kept. `/…` (absolute), `//host`, schemes and queries never resolve: the caller keeps only the
link's text.
"""

from __future__ import annotations

import re

from codna.vocabulary import MAX_PATH, SEGMENT, SPACES

_SEGMENT = re.compile(SEGMENT)
_ADDRESS = re.compile(rf"(?P<space>{'|'.join(SPACES)}):(?P<path>{SEGMENT}(?:/{SEGMENT})*)")
_MARKDOWN_FILE = re.compile(r"\.md$", re.IGNORECASE)


def folder_of(address: str) -> str | None:
    """`wiki:decisions` for `wiki:decisions/0024`, `wiki:` for `wiki:home`; None when
    `address` is not a page's address."""
    match = _ADDRESS.fullmatch(address)
    if match is None:
        return None
    folder = match["path"].rpartition("/")[0]
    return f"{match['space']}:{folder}"


def resolve(destination: str, *, folder: str | None) -> tuple[str, str] | None:
    """The page address (`wiki:decisions/other`) and fragment (`#part` or '') a relative
    `destination` points to from a page in `folder` (as folder_of gives it), or None when it
    is not a relative link to a page of that space."""
    if folder is None or not destination or destination.startswith(("/", "#")):
        return None
    path, hash_mark, fragment = destination.partition("#")
    space, _, base = folder.partition(":")
    if space not in SPACES:
        return None
    segments = base.split("/") if base else []
    *steps, last = path.split("/")
    for step in steps:
        if step == "..":
            if not segments:
                return None  # above the space
            segments.pop()
        elif _SEGMENT.fullmatch(step):
            segments.append(step)
        elif step != ".":
            return None
    name = _MARKDOWN_FILE.sub("", last)
    if not _SEGMENT.fullmatch(name):
        return None  # a folder (`..`, `.`, `x/`) or not a page path
    segments.append(name)
    resolved = "/".join(segments)
    if len(resolved) > MAX_PATH:
        return None
    return f"{space}:{resolved}", hash_mark + fragment
