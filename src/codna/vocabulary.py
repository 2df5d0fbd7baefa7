"""The domain's words, spelled once: the spaces, how a page's path is written, the statuses of
a suggestion and the two decisions. Every layer imports them from here, from the text
machinery and storage's checks up to the forms and the tool schemas; only a migration keeps a
frozen copy of what it was written against."""

from __future__ import annotations

from typing import Literal, get_args

Space = Literal["wiki", "raw", "output"]
SPACES: tuple[Space, ...] = get_args(Space)

SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._-]*"  # one name of a path: `decisions`, `0024-x.v2`
MAX_PATH = 500  # a page path's longest, in characters

Status = Literal["pending", "accepted", "rejected", "withdrawn"]  # of a suggestion, either kind
STATUSES: tuple[Status, ...] = get_args(Status)

Decision = Literal["accept", "reject"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)


def one_of(column: str, values: tuple[str, ...]) -> str:
    """The SQL of a CHECK that `column` holds one of `values`."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"
