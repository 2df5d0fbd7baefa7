"""The hash that says when two suggested changes to a page are the same change: SPEC 4's
canonical form of the edits, the new title and the tag changes, hashed.

Kept by each suggestion (`edit_suggestions.edits_hash`): the durable rejection and the duplicate
check compare it. Worked out when a suggestion is made, and again by storage/derived.py for
the suggestions whose stored hash is marked stale (migration 0008).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from codna.markdown.apply import canonical_edits
from codna.markdown.edits import Edit, edits_to_wire


def edits_hash(
    body: str,
    edits: Sequence[Edit],
    *,
    title: str | None,
    tags_add: Sequence[str],
    tags_remove: Sequence[str],
) -> str:
    """SHA-256 over the canonical form of SPEC 4: the edits in order, each with `\\n` line
    endings and sorted keys, each heading named as `body` (the page they are checked against)
    resolves it (canonical_edits: `## Alternatives` and `Alternatives` are one edit there),
    plus the new title and the sorted tags to add and remove; hex."""
    canonical = {
        "edits": edits_to_wire(canonical_edits(body, edits)),
        "title": title,
        "tags_add": sorted(tags_add),
        "tags_remove": sorted(tags_remove),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
