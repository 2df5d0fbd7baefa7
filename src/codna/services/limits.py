"""The bounds of what a caller may ask for, in one place: the services refuse what is beyond
them (never clamp), and the API's and MCP's schemas are built from the same numbers.

The size limits of texts (a body, an edit's field, a summary, a reason, a title) are the edit
language's own, in `codna.markdown.limits`; they are re-exported here beside the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from codna.errors import InvalidRequest
from codna.markdown.limits import (
    MAX_BODY_BYTES,
    MAX_EDITS,
    MAX_REASON_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TEXT_BYTES,
    MAX_TITLE_CHARS,
)
from codna.storage.schema import MAX_ID

__all__ = [
    "EXPORT",
    "EXPORT_BYTES",
    "HISTORY",
    "IMPORT_DOCUMENTS",
    "INBOX",
    "MAX_BODY_BYTES",
    "MAX_EDITS",
    "MAX_ID",
    "MAX_REASON_CHARS",
    "MAX_SUMMARY_CHARS",
    "MAX_TEXT_BYTES",
    "MAX_TITLE_CHARS",
    "OUTPUT_BYTES",
    "PAGES",
    "PENDING",
    "PER_PAGE_LIMIT",
    "READS_PER_CALL",
    "READ_MANY",
    "RECENT",
    "RUNS",
    "SEARCH",
    "SEARCH_BUDGET",
    "STORED_ROW_BYTES",
    "STORED_SUGGESTION_BYTES",
    "SUGGESTIONS",
    "TAGS",
    "TOKENS_PER_HOUR",
    "TOTAL_LIMIT",
    "SearchBudget",
    "Window",
    "check_limit",
    "check_offset",
    "is_id",
]


@dataclass(frozen=True)
class Window:
    """How many items one call lists: `default` when not asked, at most `most`; `brief`
    when a model does not ask, which pays for each one it reads (MCP)."""

    default: int
    most: int
    brief: int | None = None

    @property
    def to_model(self) -> int:
        return self.brief or self.default


# ADR 0024's limits, for either kind of suggestion: waiting from one suggester on one page,
# and in all.
PER_PAGE_LIMIT = 20
TOTAL_LIMIT = 200

PAGES = Window(default=100, most=5000, brief=50)
SEARCH = Window(default=20, most=100, brief=10)
SUGGESTIONS = Window(default=50, most=200, brief=20)
PENDING = Window(default=50, most=200, brief=10)  # with their diffs
INBOX = Window(default=20, most=200)
RUNS = Window(default=50, most=500)
HISTORY = Window(default=100, most=1000, brief=20)  # a page's revisions, newest first
RECENT = Window(default=50, most=500)  # recent changes: revisions of many pages, newest first
TAGS = Window(default=500, most=5000)  # the tags there are, with their counts
EXPORT = Window(default=100, most=1000)  # pages as Markdown files, by address
# The Markdown one export answers at most (transfer.export_documents), in bytes of its files'
# texts: the window stops before the page that would pass it, and says where the next starts.
EXPORT_BYTES = 64 * 1024 * 1024
# How many pages one call reads at most (pages.read_pages).
READ_MANY = 20
# Rate limits (services/members/ratelimit.py): a token's or web session's reads may be this many
# times its writes and tool calls (CODNA_RATE_LIMIT, 600 a minute by default).
READS_PER_CALL = 4
# What one member may hold in suggestions no editor has accepted (waiting, withdrawn or
# rejected; changes and links together), in bytes as stored: their edits, diffs, anchors and
# reasons, and STORED_ROW_BYTES for each row's own (services/suggestions/changes.py, check_stored).
# Accepted ones are part of a page's history, which an editor chose to keep.
# Documents one import may hold: each becomes a page, its first revision and its sections, all
# in one transaction.
IMPORT_DOCUMENTS = 5_000
STORED_SUGGESTION_BYTES = 64 * 1024 * 1024
STORED_ROW_BYTES = 256
# What one member may store in `output`, where agents and routines write unreviewed: the
# revisions they wrote of pages there, trashed ones included (purging frees them), in bytes as
# stored (text, title, tags, summary) and STORED_ROW_BYTES a revision (services/pages/pages.py,
# check_output). Refused past it for every member but an admin acting as themselves.
OUTPUT_BYTES = 256 * 1024 * 1024
# Tokens made for one member in a sliding hour (services/members/tokens.py), counted in the
# database.
TOKENS_PER_HOUR = 20


@dataclass(frozen=True)
class SearchBudget:
    """The work one search may cause, refused beyond (services/pages/search.py): `words` in all (a
    phrase's words count each), `prefixes` terms ending in `*`, each with at least
    `prefix_chars` letters before it (a shorter one matches most of the vocabulary), and
    `scored` words scored in all: a search of n words ranks at most `scored` // n sections
    of readable pages matching every word (100,000 for one word, 5,000 for 20), which the
    database counts with a LIMIT before it scores any."""

    words: int
    prefixes: int
    prefix_chars: int
    scored: int

    def candidates(self, words: int) -> int:
        """The most sections a search of `words` words ranks."""
        return self.scored // max(1, words)


SEARCH_BUDGET = SearchBudget(words=20, prefixes=3, prefix_chars=3, scored=100_000)


def check_limit(limit: int, window: Window, *, field: str = "limit") -> int:
    """`limit`, if it is 1 to `window.most`. Raises InvalidRequest (field, limit)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= window.most:
        raise InvalidRequest(
            f"{field} is a whole number from 1 to {window.most}.", field=field, limit=window.most
        )
    return limit


def check_offset(offset: int, *, field: str = "offset") -> int:
    """`offset`, if it is 0 to MAX_ID. Raises InvalidRequest (field, limit)."""
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_ID:
        raise InvalidRequest(
            f"{field} is a whole number from 0 to {MAX_ID}.", field=field, limit=MAX_ID
        )
    return offset


def is_id(value: object) -> bool:
    """Whether `value` can name a row: an id or a version of 1 to MAX_ID, what the database
    holds. Anything else names nothing that exists (not found, on every interface)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID
