"""How an accepted suggestion names who suggested it, in the revision's summary (SPEC 4)."""

from __future__ import annotations

from codna.services.members import Member


def suggested_by(suggester: Member, reason: str, *, via: str | None = None) -> str:
    """`Suggested by NAME: REASON`, with `(ROUTINE)` for a routine and `(agent)` for an agent."""
    if via:
        return f"Suggested by {suggester.name} ({via}): {reason}"
    if suggester.is_agent:
        return f"Suggested by {suggester.name} (agent): {reason}"
    return f"Suggested by {suggester.name}: {reason}"
