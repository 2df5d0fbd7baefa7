"""A change as the page will read: two renderings of a page (render.py's sanitised HTML)
merged into one, what was inserted in `<ins>` and what was deleted in `<del>`.

The two are compared first block by block (the top-level elements: a paragraph, a list, a
table, a heading). Blocks only one side has are wrapped whole (`<ins class="block">`). Inside a
run of blocks that changed, they are compared again tag by tag and word by word, and the result
keeps the new rendering's tags, so it is as well formed as the new page is:
- inserted words are wrapped in `<ins>`;
- deleted words are wrapped in `<del>` where they stood. A deleted run that holds whole
  elements (a list item, a table cell) keeps them, its words struck; otherwise only its words
  are kept, never a tag that would open or close something of the new page.

Heading ids are dropped: a merged view sits in a page with others, where they would repeat.

lxml's `htmldiff` does the same job, but moves a deleted table cell after its table, and would
be a compiled dependency for one function.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from codna.markdown.diff import Opcode, opcodes

# A tag (quoted attribute values may hold ">"), or a run of text.
_TOKEN = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>|[^<]+""")
# Words of a run of text: an entity stays one word, so no mark splits it.
_WORD = re.compile(r"&#?\w+;|\w+|\s+|[^\w\s]")
_ID = re.compile(r'\s+id="[^"]*"')
_NAME = re.compile(r"</?([a-zA-Z0-9]+)")
_VOID = frozenset({"area", "br", "col", "hr", "img", "input", "wbr"})


@dataclass(frozen=True)
class Block:
    """A stretch of the merged HTML, and whether it holds a change."""

    html: str
    changed: bool


def _is_tag(token: str) -> bool:
    return token.startswith("<")


def _depth_change(tag: str) -> int:
    name = _NAME.match(tag)
    if name is None or name.group(1).lower() in _VOID or tag.endswith("/>"):
        return 0
    return -1 if tag.startswith("</") else 1


def _blocks(html: str) -> list[tuple[str, ...]]:
    """The top-level elements of `html`, each as its tags and words; the white space between
    them is dropped."""
    blocks: list[tuple[str, ...]] = []
    current: list[str] = []
    depth = 0
    for token in _TOKEN.findall(html):
        if _is_tag(token):
            current.append(_ID.sub("", token))
            depth = max(depth + _depth_change(token), 0)
        elif depth or token.strip():
            current += _WORD.findall(token)
        if depth == 0 and current:
            blocks.append(tuple(current))
            current = []
    if current:
        blocks.append(tuple(current))
    return blocks


def _balanced(tokens: Sequence[str]) -> bool:
    """Whether every tag `tokens` open they also close, and they close none they did not open."""
    stack: list[str] = []
    for token in tokens:
        if not _is_tag(token) or not _depth_change(token):
            continue
        name = _NAME.match(token)
        assert name is not None
        if token.startswith("</"):
            if not stack or stack.pop() != name.group(1):
                return False
        else:
            stack.append(name.group(1))
    return not stack


def _marked(tokens: Sequence[str], mark: str, keep_tags: bool) -> Iterator[str]:
    """`tokens` with each run of words wrapped in `<mark>`, the white space around it left
    outside (and white space alone unmarked); the tags kept or dropped."""
    words: list[str] = []

    def flush() -> Iterator[str]:
        text = "".join(words)
        words.clear()
        word = text.strip()
        if word:
            start = text.index(word)
            yield f"{text[:start]}<{mark}>{word}</{mark}>{text[start + len(word) :]}"
        elif keep_tags:
            yield text

    for token in tokens:
        if _is_tag(token):
            yield from flush()
            if keep_tags:
                yield token
        else:
            words.append(token)
    yield from flush()


# How far a deleted or inserted run may slide to hold whole elements.
_SLIDE = 16


def _slid(codes: list[Opcode], old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """The opcodes with each run only deleted or only inserted slid back over the equal run
    before it, as far as the same tokens allow, until it holds whole elements: a deleted
    list item is `<li>two</li>`, not `two</li><li>`."""
    codes = list(codes)
    for at in range(1, len(codes) - 1):
        tag, i1, i2, j1, j2 = codes[at]
        before, after = codes[at - 1], codes[at + 1]
        if tag not in ("delete", "insert") or before[0] != "equal" or after[0] != "equal":
            continue
        side, lo, hi = (old, i1, i2) if tag == "delete" else (new, j1, j2)
        shift = 0
        while (
            not _balanced(side[lo - shift : hi - shift])
            and shift < min(_SLIDE, before[2] - before[1])
            and side[lo - shift - 1] == side[hi - shift - 1]
        ):
            shift += 1
        if shift and _balanced(side[lo - shift : hi - shift]):
            codes[at - 1] = ("equal", before[1], before[2] - shift, before[3], before[4] - shift)
            codes[at] = (tag, i1 - shift, i2 - shift, j1 - shift, j2 - shift)
            codes[at + 1] = ("equal", after[1] - shift, after[2], after[3] - shift, after[4])
    return codes


def _is_word(token: str) -> bool:
    return not _is_tag(token) and bool(token.strip())


def _alike(codes: list[Opcode], old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether at least half the words of the longer side are kept: marking words inside the
    lines only helps then; otherwise the words kept are chance ("a", "the") and the marks
    would weave two different texts into one."""
    kept = sum(
        1
        for tag, i1, i2, _, _ in codes
        if tag == "equal"
        for token in old[i1:i2]
        if _is_word(token)
    )
    words = max(sum(map(_is_word, old)), sum(map(_is_word, new)))
    return 2 * kept >= words


def _merge(old: Sequence[str], new: Sequence[str], codes: list[Opcode]) -> str:
    """Changed blocks, tag by tag and word by word, in the new blocks' structure."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in _slid(codes, old, new):
        if tag == "equal":
            out += new[j1:j2]
            continue
        if tag in ("delete", "replace"):
            out += _marked(old[i1:i2], "del", keep_tags=_balanced(old[i1:i2]))
        if tag in ("insert", "replace"):
            out += _marked(new[j1:j2], "ins", keep_tags=True)
    return "".join(out)


def rendered_diff(old_html: str, new_html: str) -> list[Block]:
    """The new rendering of a page with what changed from the old one marked, block by block."""
    old, new = _blocks(old_html), _blocks(new_html)
    merged: list[Block] = []
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        if tag == "equal":
            merged += [Block("".join(block), changed=False) for block in new[j1:j2]]
            continue
        joined_old = [token for block in old[i1:i2] for token in block]
        joined_new = [token for block in new[j1:j2] for token in block]
        codes = opcodes(joined_old, joined_new) if tag == "replace" else []
        if codes and _alike(codes, joined_old, joined_new):
            merged.append(Block(_merge(joined_old, joined_new, codes), changed=True))
            continue
        merged += [Block(f'<del class="block">{"".join(b)}</del>', True) for b in old[i1:i2]]
        merged += [Block(f'<ins class="block">{"".join(b)}</ins>', True) for b in new[j1:j2]]
    return merged


def around_changes(blocks: Sequence[Block], context: int = 1) -> list[Block | None]:
    """The blocks that changed, with `context` unchanged blocks on each side; None stands for
    each stretch left out between them."""
    near = {
        i + step
        for i, block in enumerate(blocks)
        if block.changed
        for step in range(-context, context + 1)
    }
    shown: list[Block | None] = []
    for i, block in enumerate(blocks):
        if i in near:
            shown.append(block)
        elif shown and shown[-1] is not None:
            shown.append(None)
    if shown and shown[-1] is None:
        shown.pop()
    return shown
