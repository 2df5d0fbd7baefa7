"""A Markdown file's YAML front matter, read within bounds.

Front matter is the YAML between a first line `---` and the next line `---`. It comes from
files someone else wrote, so it is read with PyYAML's safe loader (plain data, never an
object) and bounded before anything is built from it:

- at most MAX_FRONT_MATTER_BYTES bytes;
- no anchors and no aliases: an alias repeats a node by reference, and ten lines of them
  (the "billion laughs") stand for a billion nodes once anything walks or prints them;
- no explicit tags (`!!int`, `!!binary`, `!x`): plain values are all front matter needs,
  and a tag's constructor may fail on text it does not fit in ways no refusal could name;
- at most MAX_FRONT_MATTER_DEPTH nested collections and MAX_FRONT_MATTER_NODES nodes in all,
  counted as the loader composes them, before any is built (PyYAML composes by recursion, so
  a deep nest would otherwise end in a RecursionError);
- a mapping at the top; what each key means and which types it takes is the reader's part.

Each refusal says what was wrong, in which key and on which line of the front matter.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from codna.errors import InvalidRequest, TooLarge
from codna.markdown.limits import utf8_size

MAX_FRONT_MATTER_BYTES = 16 * 1024
MAX_FRONT_MATTER_DEPTH = 8
MAX_FRONT_MATTER_NODES = 2_000

_FRONT_MATTER = re.compile(r"\A---\n(.*?\n)---\n", re.DOTALL)
_FIELD = "front_matter"


def _line(mark: Any) -> int | None:
    """The line of the file a mark of the front matter is on, counting the first `---`."""
    return None if mark is None else mark.line + 2


def _refusal(message: str, key: str | None, line: int | None) -> InvalidRequest:
    where = "The front matter" if key is None else f"The front matter's key '{key}'"
    at = "" if line is None else f" (line {line})"
    fields: dict[str, Any] = {"field": _FIELD}
    if key is not None:
        fields["key"] = key
    if line is not None:
        fields["line"] = line
    return InvalidRequest(f"{where}{at} {message}", **fields)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors and aliases and counting depth and nodes as it
    composes, so nothing past the bounds is ever built; and naming the key and line of a
    value it cannot build."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0
        self.nodes = 0
        self.key: str | None = None  # the top-level key being composed
        self.keys: dict[int, str] = {}  # the top-level key of each node composed, by its id

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        line = _line(event.start_mark)
        if self.depth == 1 and isinstance(parent, MappingNode):
            # The mapping at the top composes each key with index None, its value with the key.
            self.key = index.value if isinstance(index, ScalarNode) else None
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _refusal(
                "uses a YAML anchor or alias (& or *); front matter takes neither: write each "
                "value out.",
                self.key,
                line,
            )
        tag = getattr(event, "tag", None)  # set only when written out: `!!int`, `!x`
        if tag is not None:
            raise _refusal(
                f"uses the YAML tag {tag}; front matter takes plain values only: remove it.",
                self.key,
                line,
            )
        self.nodes += 1
        if self.nodes > MAX_FRONT_MATTER_NODES:
            raise _refusal(
                f"holds more than {MAX_FRONT_MATTER_NODES:,} values; front matter holds at most "
                f"{MAX_FRONT_MATTER_NODES:,}.",
                self.key,
                line,
            )
        if self.depth >= MAX_FRONT_MATTER_DEPTH:
            raise _refusal(
                f"nests lists or mappings more than {MAX_FRONT_MATTER_DEPTH} deep; front matter "
                f"nests at most {MAX_FRONT_MATTER_DEPTH} deep.",
                self.key,
                line,
            )
        self.depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        if self.key is not None and node is not None:
            self.keys[id(node)] = self.key
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError):
            # A plain scalar YAML takes for a number or a date that is none: `2024-13-45`, an
            # integer of 5,000 digits. (Explicit tags, whose constructors fail in more ways,
            # were refused as the nodes were composed.)
            kind = str(node.tag).rpartition(":")[2]
            shown = str(node.value)[:40] if isinstance(node, ScalarNode) else "it"
            raise _refusal(
                f"holds '{shown}', which YAML reads as {kind} but cannot make one of; quote "
                "it to keep it as text.",
                self.keys.get(id(node)),
                _line(node.start_mark),
            ) from None


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter of a Markdown text (`{}` without any) and the body after it. Line
    endings must be `\\n` already.

    Raises TooLarge (front matter over MAX_FRONT_MATTER_BYTES: field "front_matter", limit),
    InvalidRequest (field "front_matter", and `key` and `line` where known: YAML that does not
    parse, an anchor or alias, nesting or values past the bounds, a top that is not a
    mapping).
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    source = match.group(1)
    size = utf8_size(source)
    if size > MAX_FRONT_MATTER_BYTES:
        raise TooLarge(
            f"The front matter is {size:,} bytes; it holds at most {MAX_FRONT_MATTER_BYTES:,} "
            "bytes.",
            field=_FIELD,
            limit=MAX_FRONT_MATTER_BYTES,
        )
    loader = _BoundedLoader(source)
    try:
        meta = loader.get_single_data()
    except yaml.MarkedYAMLError as error:
        line = _line(error.problem_mark or error.context_mark)
        raise _refusal(
            f"is not YAML: {error.problem or error.context}.", loader.key, line
        ) from None
    except yaml.YAMLError as error:
        raise _refusal(f"is not YAML: {error}.", loader.key, None) from None
    finally:
        loader.dispose()
    if meta is None:
        return {}, text[match.end() :]
    if not isinstance(meta, dict):
        raise _refusal("is not a mapping of keys to values (such as `title: Notes`).", None, None)
    return meta, text[match.end() :]
