"""The worst inputs for each parser of untrusted text, at or just past its limit.

`FRONT_MATTER` names a front matter and what its refusal is (status, code and the key or field
it names); `front_matter_fuzz` makes many more from the same pieces, seeded, for the long form.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from codna.markdown.front_matter import (
    MAX_FRONT_MATTER_BYTES,
    MAX_FRONT_MATTER_DEPTH,
    MAX_FRONT_MATTER_NODES,
)


def alias_bomb(levels: int = 9, width: int = 9, key: str = "title") -> str:
    """The billion laughs: each level a list of `width` aliases of the one before, so the
    last stands for width**levels strings in a few hundred bytes."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    lines.append(f"{key}: [{', '.join([f'*a{levels - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Refused:
    """A front matter and its refusal: the HTTP status, the code and the key (or field) its
    refusal names."""

    name: str
    yaml: str
    status: int
    code: str
    names: str


_DEEP = 5_000  # well past the depth limit, inside the size limit
FRONT_MATTER = (
    Refused("alias bomb", alias_bomb(), 422, "invalid_request", "a0"),
    Refused("alias only", "title: *nowhere\n", 422, "invalid_request", "title"),
    Refused("merge key", "base: {a: 1}\ntitle:\n  <<: *base\n", 422, "invalid_request", "title"),
    Refused("anchor only", "title: &t Notes\n", 422, "invalid_request", "title"),
    Refused(
        "deep flow lists",
        "title: " + "[" * _DEEP + "]" * _DEEP + "\n",
        422,
        "invalid_request",
        "title",
    ),
    Refused(
        "deep flow mappings",
        "tags: " + "{a: " * 3_000 + "b" + "}" * 3_000 + "\n",
        422,
        "invalid_request",
        "tags",
    ),
    Refused(
        "deep block mappings",
        "title:\n" + "".join(f"{' ' * i}k:\n" for i in range(1, MAX_FRONT_MATTER_DEPTH + 2)),
        422,
        "invalid_request",
        "title",
    ),
    Refused(
        "too many values",
        "tags: [" + "a, " * MAX_FRONT_MATTER_NODES + "a]\n",
        422,
        "invalid_request",
        "tags",
    ),
    Refused(
        "too large",
        "title: x\nnote: " + "y" * MAX_FRONT_MATTER_BYTES + "\n",
        413,
        "too_large",
        "front_matter",
    ),
    Refused("huge title", "title: " + "t" * 15_000 + "\n", 413, "too_large", "title"),
    Refused("huge integer title", "title: " + "9" * 5_000 + "\n", 422, "invalid_request", "title"),
    Refused("huge hex title", "title: 0x" + "f" * 10_000 + "\n", 413, "too_large", "title"),
    Refused("title a list", "title: [a, b]\n", 422, "invalid_request", "title"),
    Refused("title a mapping", "title: {a: b}\n", 422, "invalid_request", "title"),
    Refused("title true", "title: yes\n", 422, "invalid_request", "title"),
    Refused("tags a mapping", "tags: {a: b}\n", 422, "invalid_request", "tags"),
    Refused("tags nested", "tags: [[a, b]]\n", 422, "invalid_request", "tags"),
    Refused("a date that is none", "title: 2024-13-45\n", 422, "invalid_request", "title"),
    Refused("an explicit tag", "title: !!int ten\n", 422, "invalid_request", "title"),
    Refused(
        "an object",
        "title: !!python/object/apply:os.system [echo]\n",
        422,
        "invalid_request",
        "title",
    ),
    Refused("not YAML", "title: [a, b\n", 422, "invalid_request", "title"),
    Refused("not a mapping", "- title\n- tags\n", 422, "invalid_request", "front_matter"),
)


_PIECES = (
    "title: {v}",
    "tags: [{v}, {v}]",
    "tags:\n  - {v}\n  - {v}",
    "note: {v}",
    "nested: {{a: {v}, b: [{v}]}}",
    "date: 2024-02-30",
    "n: {n}",
    "flag: {b}",
    "anchored: &x{n} {v}",
    "aliased: *x{n}",
    "<<: {{k: {v}}}",
    "bad: [{v}",
    "bin: !!binary {v}",
    "tagged: !!{t} {v}",
    "? [complex, key]\n: {v}",
    "deep: {open}{v}{close}",
    "many: [{many}]",
    "long: {long}",
)


def front_matter_fuzz(count: int, seed: int = 28) -> Iterator[str]:
    """`count` front matters made of the pieces above, each with random words, numbers, depths
    and sizes around the limits: some read, most are refused."""
    rng = random.Random(seed)
    words = ("lol", "Notes", "", "'quoted'", '"dq"', "yes", "null", "~", "0x1F", "1e999", "é")
    tags = ("int", "float", "str", "map", "seq", "set", "timestamp", "python/name:os.system")
    for _ in range(count):
        lines = []
        for _piece in range(rng.randint(1, 6)):
            depth = rng.choice((1, MAX_FRONT_MATTER_DEPTH - 2, MAX_FRONT_MATTER_DEPTH, 500))
            lines.append(
                rng.choice(_PIECES).format(
                    v=rng.choice(words),
                    n=rng.choice(("0", "1", "1" + "0" * rng.randint(1, 5000))),
                    b=rng.choice(("true", "no", "on")),
                    t=rng.choice(tags),
                    open="[" * depth,
                    close="]" * depth,
                    many=", ".join(["a"] * rng.choice((10, MAX_FRONT_MATTER_NODES, 3_000))),
                    long="x"
                    * rng.choice((10, MAX_FRONT_MATTER_BYTES // 2, MAX_FRONT_MATTER_BYTES)),
                )
            )
        yield "\n".join(lines) + "\n"


def _repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


# Bodies of about `size` bytes (pure ASCII, so characters are bytes), each the worst of a kind
# for markdown-it or the sanitiser: what once took most memory (table rows, runs of emphasis),
# most CPU (`[` and `![` looking ahead for their `]`, a sanitiser over `&`), nesting, and a
# million tiny blocks.
MARKDOWN_BODIES: dict[str, Callable[[int], str]] = {
    "brackets": lambda n: "[" * n,
    "images": lambda n: _repeat("![", n),
    "link nest": lambda n: "[" * (n // 3) + "a" + "](b)" * (n // 6),
    "emphasis runs": lambda n: _repeat("*a", n),
    "one run of stars": lambda n: "x" + "*" * (n - 1),  # each `*` a delimiter, in one step
    "one run of underscores": lambda n: "_" * (n - 1) + "x",
    "underscores": lambda n: _repeat("_a ", n),
    "strikethrough": lambda n: _repeat("~~a ", n),
    "backtick runs": lambda n: "".join("`" * i + "a" for i in range(1, 1500))[:n],
    "table rows": lambda n: _repeat("|x|y|\n", n, head="|a|b|\n|-|-|\n"),
    "table wide": lambda n: "|" + "a|" * ((n - 4) // 4) + "\n|" + "-|" * ((n - 4) // 4) + "\n",
    "angle brackets": lambda n: "<" * n,
    "ampersands": lambda n: "&" * n,
    "entities": lambda n: _repeat("&amp;", n),
    "references": lambda n: _repeat("[a]: b\n", n - 120) + "[a]" * 40,
    "list items": lambda n: _repeat("- a\n", n),
    "nested lists": lambda n: "".join("  " * (i % 40) + "- x\n" for i in range(n // 50)),
    "nested quotes": lambda n: "".join(">" * (i % 60) + " x\n" for i in range(n // 32))[:n],
    "quote markers": lambda n: ">" * n,
    "quoted lines": lambda n: _repeat("> a\n", n),
    "headings": lambda n: _repeat("# a\n", n),
    "rules": lambda n: _repeat("***\n", n),
    "fences": lambda n: _repeat("```\na\n```\n", n),
    "fenced ampersands": lambda n: "```\n" + "&" * (n - 9) + "\n```\n",
    "autolinks": lambda n: _repeat("<https://a.b/c> ", n),
    "backslashes": lambda n: _repeat("\\*", n),
}
