"""How an accepted suggestion names who suggested it, in the revision's summary (SPEC 4)."""

from __future__ import annotations

from codna.services.members import Member


def _one_line(text: str) -> str:
    # A name may hold a line break; a summary is one line, or a second one could pass for
    # another revision's in a history listed a line each.
    return " ".join(text.split())


def suggested_by(suggester: Member, reason: str, *, via: str | None = None) -> str:
    """`Suggested by NAME: REASON`, with `(ROUTINE)` for a routine and `(agent)` for an agent;
    one line, whatever the name and the reason hold. A summary is plain text, shown as such
    (never read as Markdown), so it quotes them as they are."""
    name, reason = _one_line(suggester.name), _one_line(reason)
    if via:
        return f"Suggested by {name} ({_one_line(via)}): {reason}"
    if suggester.is_agent:
        return f"Suggested by {name} (agent): {reason}"
    return f"Suggested by {name}: {reason}"
