"""The tables, as SQLAlchemy Core. The migrations build exactly these on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

from codna.vocabulary import SPACES, STATUSES, one_of


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no zone)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        moment: datetime = value.astimezone(UTC)
        return moment


# The largest id or version an INTEGER column holds on both databases; anything beyond it
# names nothing that exists.
MAX_ID = 2**31 - 1

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

members = sa.Table(
    "members",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("email", sa.String(320), unique=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("password_hash", sa.String(200)),
    sa.Column("is_admin", sa.Boolean, nullable=False, default=False),
    sa.Column("disabled", sa.Boolean, nullable=False, default=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.CheckConstraint("kind IN ('person', 'agent')", name="kind"),
)

# An agent's name is its handle (`codna share wiki:x decision-check read`); unique among agents.
sa.Index(
    "ix_members_agent_name",
    members.c.name,
    unique=True,
    sqlite_where=members.c.kind == "agent",
    postgresql_where=members.c.kind == "agent",
)

agent_responsibles = sa.Table(
    "agent_responsibles",
    metadata,
    sa.Column(
        "agent_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "person_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), primary_key=True
    ),
)

grants = sa.Table(
    "grants",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("space", sa.String(20), nullable=False),
    # '' for the whole space, 'decisions/' for a folder, 'decisions/0024' for a page.
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("level", sa.String(5), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("member_id", "space", "path"),
    sa.CheckConstraint("level IN ('read', 'write')", name="level"),
)

pages = sa.Table(
    "pages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("space", sa.String(20), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("tags", sa.JSON, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("trashed_at", UTCDateTime),
    sa.Column("trashed_by", sa.Integer, sa.ForeignKey("members.id")),
    sa.UniqueConstraint("space", "path"),
    sa.CheckConstraint(one_of("space", SPACES), name="space"),
)

# A version's text is kept whole (a snapshot: `body`, `delta` NULL) or as a delta against the
# version before it (`delta`, the splices of markdown/delta.py, and `body` empty), with a
# snapshot whenever the deltas since the last one would add up to more than the body
# (delta.snapshot_due). `snapshot_version` is the snapshot a version is rebuilt from (its own
# for a snapshot), `chain_chars` the characters of the deltas from there to it; `sha256` the
# hash of its text, checked whenever it is rebuilt (empty only on a row migration 0012 has not
# converted yet). The page's row holds its latest text, so the latest version is never rebuilt
# to be read.
revisions = sa.Table(
    "revisions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("tags", sa.JSON, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("author_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("summary", sa.String(1000), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("delta", sa.Text),
    sa.Column("sha256", sa.String(64), nullable=False, server_default=""),
    sa.Column("snapshot_version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("chain_chars", sa.Integer, nullable=False, server_default="0"),
    sa.UniqueConstraint("page_id", "version"),
    sa.CheckConstraint(
        "kind IN ('create', 'edit', 'revert', 'accept_suggestion', 'accept_link', 'import')",
        name="kind",
    ),
)
# What a member wrote: summed on each of their writes in output (OUTPUT_BYTES, migration 0018).
sa.Index("ix_revisions_author_id", revisions.c.author_id)

sa.Index("ix_revisions_created_at", revisions.c.created_at)  # recent changes (migration 0019)

# The pages a page's text links to, by address (internal addresses, and relative links resolved
# against its folder: markdown/outgoing.py), kept by every save: a page's backlinks are the rows
# that name it (migration 0019).
page_links = sa.Table(
    "page_links",
    metadata,
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column("space", sa.String(20), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.PrimaryKeyConstraint("page_id", "space", "path"),
    sa.Index("ix_page_links_target", "space", "path"),
)

# The search index: a page's current title and sections, one row each (markdown/
# search_sections.py says what a row is). The words are indexed beside this table: on SQLite
# by the FTS5 table page_search over `heading` and `text`, kept in step by triggers; on
# PostgreSQL by the generated tsvector column `search` and its GIN index (migration 0011).
page_sections = sa.Table(
    "page_sections",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column("ordinal", sa.Integer, nullable=False),
    sa.Column("heading", sa.Text),
    sa.Column("anchor", sa.Text),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    # The section's length as written, heading line included (0 on the title row): from them a
    # save finds where each section begins without scanning the page (migration 0014).
    sa.Column("chars", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_page_sections_page_id", "page_id"),
    sa.Index("ix_page_sections_lengths", "page_id", "ordinal", "chars"),
)

tokens = sa.Table(
    "tokens",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("name", sa.String(100), nullable=False),
    # SHA-256 of the token: a token has 256 random bits, so a fast hash is enough to store.
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("revoked_at", UTCDateTime),
    # A run token: minted for one run of a routine, revoked when the run ends; its member acts
    # through the routine (suggestions carry its name), never deciding nor editing outside
    # output.
    sa.Column("routine", sa.String(100)),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE")),
    # A run token stops working at this time even if nobody revokes it (its server was killed).
    sa.Column("expires_at", UTCDateTime),
)

SUGGESTION_STATUSES = one_of("status", STATUSES)

link_suggestions = sa.Table(
    "link_suggestions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column(
        "target_page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("anchor", sa.Text),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("suggester_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
    sa.Column("decided_at", UTCDateTime),
    sa.Column("decision_reason", sa.String(500)),
    sa.Column("accepted_version", sa.Integer),
    sa.Column("reverted_in_version", sa.Integer),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.CheckConstraint(SUGGESTION_STATUSES, name="status"),
)
# One pending or rejected suggestion per pair: a rejection is durable, a withdrawal is not.
sa.Index(
    "ix_link_suggestions_open_pair",
    link_suggestions.c.page_id,
    link_suggestions.c.target_page_id,
    unique=True,
    sqlite_where=link_suggestions.c.status.in_(["pending", "rejected"]),
    postgresql_where=link_suggestions.c.status.in_(["pending", "rejected"]),
)
sa.Index(
    "ix_link_suggestions_status_created", link_suggestions.c.status, link_suggestions.c.created_at
)
sa.Index(
    "ix_link_suggestions_suggester", link_suggestions.c.suggester_id, link_suggestions.c.status
)

notifications = sa.Table(
    "notifications",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column(
        "link_suggestion_id",
        sa.Integer,
        sa.ForeignKey("link_suggestions.id", ondelete="CASCADE"),
    ),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("reason", sa.String(500)),
    sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("read_at", UTCDateTime),
    sa.Column(
        "edit_suggestion_id",
        sa.Integer,
        sa.ForeignKey("edit_suggestions.id", ondelete="CASCADE"),
    ),
)
sa.Index("ix_notifications_member_read", notifications.c.member_id, notifications.c.read_at)

edit_suggestions = sa.Table(
    "edit_suggestions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column("base_version", sa.Integer, nullable=False),
    sa.Column("edits", sa.JSON, nullable=False),
    sa.Column("title", sa.String(200)),
    sa.Column("title_was", sa.String(200)),
    sa.Column("tags_add", sa.JSON, nullable=False),
    sa.Column("tags_remove", sa.JSON, nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("suggester_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("via", sa.String(100)),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
    sa.Column("decided_at", UTCDateTime),
    sa.Column("decision_reason", sa.String(500)),
    sa.Column("accepted_version", sa.Integer),
    sa.Column("reverted_in_version", sa.Integer),
    sa.Column("diff", sa.Text, nullable=False),
    sa.Column("edits_hash", sa.String(64), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.CheckConstraint(SUGGESTION_STATUSES, name="status"),
)
# The same edits block each other on a page while pending or rejected (durable rejection);
# a withdrawn or accepted suggestion does not.
sa.Index(
    "ix_edit_suggestions_open_hash",
    edit_suggestions.c.page_id,
    edit_suggestions.c.edits_hash,
    unique=True,
    sqlite_where=edit_suggestions.c.status.in_(["pending", "rejected"]),
    postgresql_where=edit_suggestions.c.status.in_(["pending", "rejected"]),
)
sa.Index(
    "ix_edit_suggestions_suggester", edit_suggestions.c.suggester_id, edit_suggestions.c.status
)
sa.Index("ix_edit_suggestions_page", edit_suggestions.c.page_id, edit_suggestions.c.status)
sa.Index(
    "ix_edit_suggestions_status_created", edit_suggestions.c.status, edit_suggestions.c.created_at
)

# Whether a pending suggestion still applies to its page, as computed for one page version:
# kept so that listing what waits does not run every suggestion's edits on every call. A
# page's versions never change, so a row is right for as long as `page_version` is current.
suggestion_checks = sa.Table(
    "suggestion_checks",
    metadata,
    sa.Column(
        "suggestion_id",
        sa.Integer,
        sa.ForeignKey("edit_suggestions.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("page_version", sa.Integer, nullable=False),
    sa.Column("applies", sa.Boolean, nullable=False),
    sa.Column("edit_index", sa.Integer),
    sa.Column("op", sa.String(20)),
    sa.Column("reason", sa.String(40)),
    sa.Column("message", sa.Text),
)

# A person's browser session: the cookie holds the secret, this table only its SHA-256 (it has
# 256 random bits, so a fast hash is enough). Signing out deletes the row.
web_sessions = sa.Table(
    "web_sessions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("last_seen_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False),
)
sa.Index("ix_web_sessions_member_id", web_sessions.c.member_id)

# Failed sign-ins, counted per e-mail and per client address over a window: kept in the
# database so the throttle holds across server processes. The e-mail is stored as typed
# (normalised), whether or not a member has it.
sign_in_failures = sa.Table(
    "sign_in_failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("email", sa.String(320), nullable=False),
    sa.Column("address", sa.String(100), nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
)
sa.Index("ix_sign_in_failures_email_at", sign_in_failures.c.email, sign_in_failures.c.at)
sa.Index("ix_sign_in_failures_address_at", sign_in_failures.c.address, sign_in_failures.c.at)
sa.Index("ix_sign_in_failures_at", sign_in_failures.c.at)

# What happened to a page, written in the same transaction as the change and consumed by a
# worker: taken (taken_by, lease_until) for a while, then done, or failed for good after the
# last attempt. A worker that stops mid-run leaves its lease to run out; another takes it.
EVENT_TYPES = "('document.created', 'document.changed')"

outbox = sa.Table(
    "outbox",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("type", sa.String(30), nullable=False),
    sa.Column("page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False),
    sa.Column("space", sa.String(20), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("author_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("available_at", UTCDateTime, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("taken_by", sa.String(200)),
    sa.Column("lease_until", UTCDateTime),
    sa.Column("done_at", UTCDateTime),
    sa.Column("failed_at", UTCDateTime),
    sa.Column("last_error", sa.Text),
    sa.CheckConstraint(f"type IN {EVENT_TYPES}", name="type"),
)
# The events still to run, oldest first: what every claim scans, and only those.
sa.Index(
    "ix_outbox_open",
    outbox.c.id,
    sqlite_where=sa.and_(outbox.c.done_at.is_(None), outbox.c.failed_at.is_(None)),
    postgresql_where=sa.and_(outbox.c.done_at.is_(None), outbox.c.failed_at.is_(None)),
)

# When an event happens to a page under a folder, run a routine as a member (who made the
# rule). `path` is the folder's path in its space: '' for the whole space, 'decisions/'.
automations = sa.Table(
    "automations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("event_type", sa.String(30), nullable=False),
    sa.Column("space", sa.String(20), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("routine", sa.String(100), nullable=False),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("disabled_at", UTCDateTime),
    sa.CheckConstraint(f"event_type IN {EVENT_TYPES}", name="event_type"),
)
sa.Index("ix_automations_member_id", automations.c.member_id)

# Command routines: a command line run with the skill, the MCP URL and a run token in its
# environment, for at most `timeout_seconds`. Built-in routines need no row.
routines = sa.Table(
    "routines",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(100), nullable=False, unique=True),
    sa.Column("command", sa.Text, nullable=False),
    sa.Column("timeout_seconds", sa.Integer, nullable=False),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

RUN_STATUSES = ("running", "succeeded", "failed", "timed_out")

# Each run of a routine: as whom, on which page, started by which automation and event (or by
# hand), and what became of it: its run page, its error, a command's output.
runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("routine", sa.String(100), nullable=False),
    sa.Column(
        "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("automation_id", sa.Integer, sa.ForeignKey("automations.id", ondelete="SET NULL")),
    sa.Column("event_id", sa.Integer, sa.ForeignKey("outbox.id", ondelete="SET NULL")),
    sa.Column("address", sa.String(521), nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("ended_at", UTCDateTime),
    sa.Column("run_page", sa.String(521)),
    sa.Column("error", sa.Text),
    sa.Column("output", sa.Text),
    # Who runs it: the host and process of its server, and its command's process group (if
    # any), so that a start after that process died closes the run and kills the command.
    sa.Column("host", sa.String(255)),
    sa.Column("pid", sa.Integer),
    sa.Column("command_pid", sa.Integer),
    sa.CheckConstraint(
        "status IN (" + ", ".join(f"'{s}'" for s in RUN_STATUSES) + ")", name="status"
    ),
)
sa.Index("ix_runs_member_id", runs.c.member_id)
sa.Index("ix_runs_status", runs.c.status)
sa.Index("ix_runs_run_page", runs.c.run_page)  # a run page is read only with its run's page

# Each automation that finished for an event: a retry of the event runs only the others.
outbox_automations_done = sa.Table(
    "outbox_automations_done",
    metadata,
    sa.Column(
        "event_id", sa.Integer, sa.ForeignKey("outbox.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "automation_id",
        sa.Integer,
        sa.ForeignKey("automations.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("done_at", UTCDateTime, nullable=False),
)

# Every change of a grant: who made it and when, whom it concerns, where, and the level before
# and after (None before: given; None after: taken back). Written in the change's transaction.
grant_changes = sa.Table(
    "grant_changes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("changed_at", UTCDateTime, nullable=False),
    sa.Column("changed_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
    sa.Column("space", sa.String(20), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("level_before", sa.String(5)),
    sa.Column("level_after", sa.String(5)),
    sa.CheckConstraint(
        "level_before IN ('read', 'write') OR level_before IS NULL", name="level_before"
    ),
    sa.CheckConstraint(
        "level_after IN ('read', 'write') OR level_after IS NULL", name="level_after"
    ),
    sa.CheckConstraint("level_before IS NOT NULL OR level_after IS NOT NULL", name="a_change"),
)
sa.Index("ix_grant_changes_member_id", grant_changes.c.member_id)
sa.Index("ix_grant_changes_changed_by", grant_changes.c.changed_by)
