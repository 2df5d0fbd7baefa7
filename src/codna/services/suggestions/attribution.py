"""How an accepted suggestion names who suggested it, in the revision's summary (SPEC 4)."""

from __future__ import annotations

from codna.services.members.members import Member


def _one_line(text: str) -> str:
    # A name may hold a line break; a summary is one line, or a second one could pass for
    # another revision's in a history listed a line each.
    return " ".join(text.split())


def named(name: str, *, is_agent: bool, via: str | None = None) -> str:
    """Who suggested, as a summary and every answer name them: `NAME`, with `(ROUTINE)` for
    a routine's run and `(agent)` for an agent; one line, whatever the name holds."""
    name = _one_line(name)
    if via:
        return f"{name} ({_one_line(via)})"
    return f"{name} (agent)" if is_agent else name


def suggested_by(suggester: Member, reason: str, *, via: str | None = None) -> str:
    """`Suggested by NAME: REASON`, NAME as `named` gives it; one line, whatever the name and
    the reason hold. A summary is plain text, shown as such (never read as Markdown), so it
    quotes them as they are."""
    who = named(suggester.name, is_agent=suggester.is_agent, via=via)
    return f"Suggested by {who}: {_one_line(reason)}"
