"""Text quoted into Markdown that CoDNA writes (a link's label and target, a run page's
lines), so that it reads as the text it is: no title, anchor or reason can open a link, an
image, code, emphasis or a heading, nor make a link point anywhere but where CoDNA meant.
"""

from __future__ import annotations

import re
from urllib.parse import quote

# What opens or closes something inline: escapes, code, emphasis, links and images (`[`, `]`;
# `!` and `(` mean nothing without them), autolinks (`<`), entities, strikethrough, table cells.
_INLINE = re.compile(r"[\\`*_\[\]<>&~|]")
# What makes a block when it starts a line: a heading, a quote, a list item, a setext rule.
_BLOCK_START = re.compile(r"^(?:[#>+=-]|\d+[.)])")
# What ends or breaks a bare link destination.
_NOT_IN_DESTINATION = re.compile(r"[\s<>]")
_ESCAPED_IN_DESTINATION = re.compile(r"[\\()]")


def markdown_text(text: str) -> str:
    """`text` on one line (every run of white space one space), with each character Markdown
    would read as markup escaped: it renders as exactly the text, wherever it is put in a
    line, including at the start of a list item."""
    line = " ".join(text.split())
    escaped = _INLINE.sub(lambda found: "\\" + found.group(), line)
    start = _BLOCK_START.match(escaped)
    if start is None:
        return escaped
    marker = start.group()
    return f"{marker[:-1]}\\{marker[-1]}{escaped[len(marker) :]}"


def link_destination(target: str) -> str:
    """`target` as a link's destination that ends where it does: white space and angle
    brackets percent-encoded, backslashes and parentheses escaped."""
    encoded = _NOT_IN_DESTINATION.sub(lambda found: quote(found.group(), safe=""), target)
    return _ESCAPED_IN_DESTINATION.sub(lambda found: "\\" + found.group(), encoded)


def markdown_link(label: str, target: str) -> str:
    """A Markdown link that shows `label` as text and points at `target` and nowhere else."""
    return f"[{markdown_text(label)}]({link_destination(target)})"
