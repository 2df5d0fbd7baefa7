"""Requests that carry fields of their own making (a status, an author, a base version, a hash,
`via`, created_by, a version): each is refused, naming the field, and changes nothing. The JSON
API's bodies forbid fields they do not have; MCP's tools refuse arguments they do not take.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from codna.services.context import database
from codna.storage import schema
from tests.reliability.permission_drivers import MORE, SUGGEST
from tests.reliability.permission_world import NOBODY, TARGET, World

# What a caller might try to set for itself, and a value each.
CLAIMS: dict[str, Any] = {
    "status": "accepted",
    "author": "ada@example.com",
    "base_version": 1,
    "hash": "0" * 64,
    "via": "decision-check",
    "created_by": 1,
    "version": 9,
}
TABLES = (
    schema.members,
    schema.grants,
    schema.grant_changes,
    schema.pages,
    schema.revisions,
    schema.tokens,
    schema.edit_suggestions,
    schema.link_suggestions,
    schema.notifications,
    schema.automations,
)


def fingerprint() -> dict[str, object]:
    """How many rows each table holds, and every suggestion's status and page's version."""
    with database().read() as conn:
        counts: dict[str, object] = {
            table.name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in TABLES
        }
        for table in (schema.edit_suggestions, schema.link_suggestions):
            statuses = conn.execute(sa.select(table.c.id, table.c.status)).all()
            counts[f"{table.name}.status"] = sorted(tuple(row) for row in statuses)
        versions = conn.execute(sa.select(schema.pages.c.id, schema.pages.c.version)).all()
        counts["pages.version"] = sorted(tuple(row) for row in versions)
    return counts


Body = Callable[[World], tuple[str, dict[str, Any]]]


def _fresh(world: World) -> str:
    return world.fresh_page("page")


def _pending(world: World) -> int:
    return world.fresh_item("page", "pending").change


def _pending_link(world: World) -> int:
    return world.fresh_item("page", "pending").link


# Each API request: its path and body, made as the admin (who may do all of them), and which
# of the claims are not fields of its body (base_version is one of an edit's and a
# suggestion's own).
API: dict[str, tuple[Body, tuple[str, ...]]] = {
    "create": (
        lambda w: ("/api/v1/pages", {"address": f"{_fresh(w)}-new", "title": "T", "body": "B."}),
        tuple(CLAIMS),
    ),
    "edit": (
        lambda w: ("/api/v1/page/edit", {"address": _fresh(w), "edits": MORE}),
        tuple(c for c in CLAIMS if c != "base_version"),
    ),
    "suggest": (
        lambda w: (
            "/api/v1/suggestions",
            {"address": _fresh(w), "edits": SUGGEST, "reason": "Why."},
        ),
        tuple(c for c in CLAIMS if c != "base_version"),
    ),
    "decide": (
        lambda w: (f"/api/v1/suggestions/{_pending(w)}/decide", {"decision": "accept"}),
        tuple(CLAIMS),
    ),
    "suggest_link": (
        lambda w: ("/api/v1/links", {"address": _fresh(w), "target": TARGET, "reason": "Why."}),
        tuple(CLAIMS),
    ),
    "share": (
        lambda w: ("/api/v1/grants", {"address": _fresh(w), "member": NOBODY, "level": "read"}),
        tuple(CLAIMS),
    ),
    "token": (lambda w: ("/api/v1/tokens", {"member": "checker", "name": "n"}), tuple(CLAIMS)),
}

# Each MCP tool call, made as the admin, and the claims that are not its arguments.
MCP: dict[str, tuple[Body, tuple[str, ...]]] = {
    "create_document": (
        lambda w: ("create_document", {"address": f"{_fresh(w)}-new", "title": "T"}),
        tuple(CLAIMS),
    ),
    "edit_document": (
        lambda w: ("edit_document", {"address": _fresh(w), "edits": MORE}),
        tuple(c for c in CLAIMS if c != "base_version"),
    ),
    "suggest_edit": (
        lambda w: ("suggest_edit", {"address": _fresh(w), "edits": SUGGEST, "reason": "Why."}),
        tuple(c for c in CLAIMS if c != "base_version"),
    ),
    "decide_edit_suggestion": (
        lambda w: ("decide_edit_suggestion", {"suggestion_id": _pending(w), "decision": "accept"}),
        tuple(CLAIMS),
    ),
    "decide_link_suggestion": (
        lambda w: (
            "decide_link_suggestion",
            {"suggestion_id": _pending_link(w), "decision": "accept"},
        ),
        tuple(CLAIMS),
    ),
    "suggest_link": (
        lambda w: ("suggest_link", {"address": _fresh(w), "target": TARGET, "reason": "Why."}),
        tuple(CLAIMS),
    ),
    "revert_document": (
        lambda w: ("revert_document", {"address": _fresh(w), "version": 2}),
        tuple(c for c in CLAIMS if c != "version"),
    ),
}
