"""The tools of suggestions (ADR 0024, SPEC 7): suggest a change or a link, follow what became
of it, withdraw it; and, for a page's editors, what waits and the decision.

The names and arguments are the ADR's and SPEC 7's: `suggestion_id` is an integer of one kind,
and a tool that takes one says its kind in its name (`decide_edit_suggestion`,
`decide_link_suggestion`; `withdraw_suggestion` for a change, `withdraw_link_suggestion` for a
link). Listed together, each suggestion says its `kind`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from codna.mcp import arguments as a
from codna.mcp import budget
from codna.mcp.server import CodnaMCP
from codna.mcp.suggestion_answers import (
    Pending,
    Settled,
    Suggested,
    SuggestionAnswer,
    SuggestionList,
)
from codna.mcp.tools import READ, more
from codna.schemas import edits_of
from codna.services.inbox import inbox
from codna.services.limits import PENDING, PER_PAGE_LIMIT, SUGGESTIONS, TOTAL_LIMIT
from codna.services.members.members import Member
from codna.services.suggestions import changes, links
from codna.settings import base_url

SUGGEST = ToolAnnotations(destructive_hint=False)
DECIDE = ToolAnnotations(destructive_hint=False)


SUGGEST_EDIT = (
    "Propose a change to a page you may not edit: an editor accepts it (a revision naming you"
    " and your reason) or rejects it. Refused if the edits do not apply, or the same change was"
    f" rejected. At most {PER_PAGE_LIMIT} waiting per page, {TOTAL_LIMIT} in all. Answers its"
    " id and a url for your run page."
)


def _url(page: str, kind: str, number: int) -> str:
    """Where the page's editors decide a suggestion, in the web UI."""
    space, _, path = page.partition(":")
    if kind == "link":
        return f"{base_url()}/inbox#link-{number}"
    return f"{base_url()}/suggestions/{space}/{path}#change-{number}"


def _one(member: Member, kind: str, number: int) -> SuggestionAnswer:
    read = links.read_link if kind == "link" else changes.read_suggestion
    return SuggestionAnswer.of(read(member, suggestion_id=number), full=True)


def _go_on(shown: list[SuggestionAnswer], offset: int, kind: str | None) -> str:
    """How to go on from a list of suggestions cut to fit the budget: each kind is paged
    apart, so the offset is given for each kind listed."""
    counts = {k: sum(1 for s in shown if s.kind == k) for k in ("change", "link")}
    if kind:
        rest = f"offset={offset + counts[kind]}"
    else:
        rest = ", or ".join(f"kind={k} with offset={offset + n}" for k, n in counts.items() if n)
    return f"Cut to {len(shown)} to stay within {budget.ANSWER_CHARS:,} characters: pass {rest}."


def register(server: CodnaMCP) -> None:
    """Add the tools of suggestions to `server`."""

    def me() -> Member:
        return server.caller().member

    @server.tool_for(
        "suggest", title="Suggest a change", annotations=SUGGEST, description=SUGGEST_EDIT
    )
    def suggest_edit(
        address: a.Address,
        reason: a.Reason,
        edits: a.SuggestedEdits = None,
        title: a.Title = None,
        tags: a.NewTags = None,
        tags_add: a.TagsAdd = None,
        tags_remove: a.TagsRemove = None,
        base_version: a.SuggestedBase = None,
        dry_run: a.DryRun = False,
    ) -> Suggested:
        made = changes.suggest_edit(
            me(),
            address=address,
            edits=edits_of(edits),
            reason=reason,
            title=title,
            tags_add=tags_add or [],
            tags_remove=tags_remove or [],
            tags=tags,
            base_version=base_version,
            dry_run=dry_run,
        )
        diff = budget.clipped(made.diff, budget.EDIT_DIFF_CHARS, "the edits you sent say the rest.")
        if made.suggestion is None:
            return Suggested(saved=False, diff=diff)
        number = made.suggestion.id
        return Suggested(
            suggestion_id=number,
            saved=True,
            diff=diff,
            url=_url(made.suggestion.page, "change", number),
        )

    @server.tool_for("suggest", title="Suggest a link", annotations=SUGGEST)
    def suggest_link(
        address: a.Address,
        target: Annotated[str, Field(description="To link to, such as wiki:decisions/0001-pages.")],
        reason: a.Reason,
        anchor: Annotated[
            str | None,
            Field(description="Text on the page, found once, that becomes the link."),
        ] = None,
        dry_run: a.DryRun = False,
    ) -> Suggested:
        """Propose a link to a page you can read, on anchor text or at the end; an editor
        decides."""
        made = links.suggest_link(
            me(), address=address, target=target, reason=reason, anchor=anchor, dry_run=dry_run
        )
        if made is None:
            return Suggested(saved=False)
        return Suggested(suggestion_id=made.id, saved=True, url=_url(made.page, "link", made.id))

    @server.tool_for("read", title="Suggestions", annotations=READ)
    def list_suggestions(
        address: Annotated[
            str | None,
            Field(
                description="A page, folder (wiki:decisions/) or space (wiki:): those you may "
                "decide, and yours. Default: yours."
            ),
        ] = None,
        status: a.Status = None,
        kind: a.Kind = None,
        suggestion_id: a.OneSuggestionId = None,
        limit: a.SuggestionsLimit = SUGGESTIONS.to_model,
        offset: a.Offset = 0,
    ) -> SuggestionList:
        """Suggestions, newest first: what became of them (accepted, rejected and why,
        reverted), whether a pending one still applies."""
        if suggestion_id is not None:
            return SuggestionList(suggestions=[_one(me(), kind or "change", suggestion_id)])
        # Each kind is its own list, newest first, paged by the same limit and offset.
        found: list[tuple[datetime, SuggestionAnswer]] = []
        notes: list[str | None] = []
        if kind in (None, "change"):
            suggested = changes.list_suggestions(
                me(), address=address, status=status, limit=limit, offset=offset
            )
            found += [(s.created_at, SuggestionAnswer.of(s)) for s in suggested]
            notes.append(more(len(suggested), limit, offset))
        if kind in (None, "link"):
            made = links.list_links(
                me(), address=address, status=status, limit=limit, offset=offset
            )
            found += [(s.created_at, SuggestionAnswer.of(s)) for s in made]
            notes.append(more(len(made), limit, offset))
        found.sort(key=lambda pair: pair[0], reverse=True)
        listed = budget.fit([answer for _, answer in found])
        note = next((n for n in notes if n), None)
        if len(listed) < len(found):
            note = _go_on(listed, offset, kind)
        if not listed:
            whose = f"on {address}" if address else "of yours"
            note = f"No suggestions {whose}{f' with status {status}' if status else ''}."
        return SuggestionList(suggestions=listed, note=note)

    @server.tool_for("suggest", title="Withdraw a suggestion", annotations=SUGGEST)
    def withdraw_suggestion(suggestion_id: a.SuggestionId) -> Settled:
        """Take back a suggested change of yours that waits."""
        return Settled.of(changes.withdraw_suggestion(me(), suggestion_id=suggestion_id))

    @server.tool_for("suggest", title="Withdraw a suggested link", annotations=SUGGEST)
    def withdraw_link_suggestion(suggestion_id: a.LinkSuggestionId) -> Settled:
        """Take back a suggested link of yours that waits."""
        return Settled.of(links.withdraw_link(me(), suggestion_id=suggestion_id))

    @server.tool_for("decide", title="What waits on you", annotations=READ)
    def pending_decisions(
        kind: a.Kind = None,
        address: Annotated[
            str | None,
            Field(description="A page, folder (wiki:decisions/) or space."),
        ] = None,
        limit: a.PendingLimit = PENDING.to_model,
        offset: a.Offset = 0,
    ) -> Pending:
        """Suggestions waiting on your decision, newest first, each with its diff (and what
        accepting does now, if the page moved on)."""
        waiting = inbox.pending_decisions(
            me(), kind=kind, address=address, limit=limit, offset=offset
        )
        suggested = waiting.suggested_changes
        made = waiting.suggested_links
        diff_chars = budget.LISTED_DIFF_CHARS
        links = budget.fit([SuggestionAnswer.of(s, full=True) for s in made.items])
        room = budget.ANSWER_CHARS - sum(budget.size(link) + 1 for link in links)
        every = [
            SuggestionAnswer.of(s, full=True, edits=False, diff_chars=diff_chars)
            for s in suggested.items
        ]
        shown = budget.fit(every, max(room, 1))
        note = None
        if not waiting.total:
            note = "Nothing waits on your decision."
        elif len(shown) < len(every) or len(links) < len(made.items):
            note = _go_on([*shown, *links], offset, kind)
        elif offset + limit < max(suggested.total, made.total):
            note = f"There are more: pass offset={offset + limit}."
        return Pending(
            changes=shown,
            changes_total=suggested.total,
            links=links,
            links_total=made.total,
            note=note,
        )

    @server.tool_for("decide", title="Decide a suggested change", annotations=DECIDE)
    def decide_edit_suggestion(
        suggestion_id: a.SuggestionId, decision: a.Decision, reason: a.DecisionReason = None
    ) -> Settled:
        """Accept or reject a suggested change: accepting makes one revision in your name
        that names the suggester and their reason."""
        change = changes.decide_edit_suggestion(
            me(), suggestion_id=suggestion_id, decision=decision, reason=reason
        )
        return Settled.of(change)

    @server.tool_for("decide", title="Decide a suggested link", annotations=DECIDE)
    def decide_link_suggestion(
        suggestion_id: a.LinkSuggestionId, decision: a.Decision, reason: a.DecisionReason = None
    ) -> Settled:
        """Accept or reject a suggested link: accepting adds it, one revision in your
        name."""
        decided = links.decide_link(
            me(), suggestion_id=suggestion_id, decision=decision, reason=reason
        )
        return Settled.of(decided)
