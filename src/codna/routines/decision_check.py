"""`decision-check`: checks a decision record against the form, suggests one change per gap
it can write for real, with its reason, and writes a run page in `output` that links them and
names what only a person can write (SPEC 6, ADR 0024 step 3).

The form: a title `NNNN · …`; a status line `**Status:** Proposed|Accepted|Superseded · date`;
the sections Context, Decision, Consequences and Alternatives rejected, none empty; links to
the records it amends or supersedes, to pages that exist. A missing or empty section is told on
the run page, never suggested: what a section should say is the author's to write, and a
placeholder is a change nobody can accept as it is. Before suggesting it reads what was
suggested on the page, so it never repeats what waits nor fights what was rejected. It speaks
to CoDNA only through MCP tools, like any agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from codna.markdown.escape import markdown_link, markdown_text
from codna.routines.calls import Refused, Session, call

NAME = "decision-check"
# The form's sections, in order, each with the other headings that count as it (any level,
# any case): a record that says "## Alternatives" has its Alternatives rejected section.
SECTIONS: dict[str, tuple[str, ...]] = {
    "Context": ("Background",),
    "Decision": (),
    "Consequences": (),
    "Alternatives rejected": (
        "Alternatives",
        "Alternatives considered",
        "Rejected alternatives",
        "Options considered",
    ),
}
_TITLE = re.compile(r"\d{4} · \S.*")
_NUMBERED_PATH = re.compile(r"(\d{4})-([a-z0-9-]+)")
_STATUS_LINE = re.compile(r"^\*\*Status:\*\*.*$", re.MULTILINE)
_STATUS = re.compile(r"\*\*Status:\*\* (Proposed|Accepted|Superseded) · \d{4}-\d{2}-\d{2}\s*")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_RELATED = re.compile(
    r"(?i)\b(amends|supersedes|superseded by)\b[^\n]*?\[[^\]]*\]\(([a-z]+:[^)\s#]+)"
)


@dataclass(frozen=True)
class Gap:
    """One way the record departs from the form: why, and the change that mends it (edits,
    a new title), or nothing a routine can write (said on the run page only)."""

    reason: str
    edits: tuple[dict[str, str], ...] = ()
    title: str | None = None

    @property
    def mendable(self) -> bool:
        return bool(self.edits) or self.title is not None


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _headings(body: str) -> list[tuple[int, str, int, int]]:
    """Each heading outside fenced code: level, text, where its line starts and ends."""
    fenced = [(m.start(), m.end()) for m in _FENCE.finditer(body)]
    return [
        (len(m.group(1)), m.group(2).strip(), m.start(), m.end())
        for m in _HEADING.finditer(body)
        if not any(start <= m.start() < end for start, end in fenced)
    ]


def gaps(address: str, title: str, body: str) -> list[Gap]:
    """What the record at `address` lacks, in the order of the form."""
    found: list[Gap] = []
    if not _TITLE.fullmatch(title.strip()):
        numbered = _NUMBERED_PATH.fullmatch(address.rsplit("/", 1)[-1])
        fixed = (
            f"{numbered.group(1)} · {numbered.group(2).replace('-', ' ').capitalize()}"
            if numbered
            else None
        )
        found.append(
            Gap(
                f"A decision record's title is 'NNNN · what was decided'; this one is '{title}'.",
                title=fixed,
            )
        )
    found.extend(_status_gaps(body))
    found.extend(_section_gaps(body))
    return found


def _status_gaps(body: str) -> list[Gap]:
    line = _STATUS_LINE.search(body)
    form = "**Status:** Proposed|Accepted|Superseded · date"
    if line is None:
        first = next((ln for ln in body.splitlines() if ln.strip()), None)
        if first is None or body.count(first) != 1:
            return [Gap(f"A decision record starts with a status line, {form}; this one has none.")]
        text = f"**Status:** Proposed · {_today()}\n\n"
        edit = {"op": "insert_before", "anchor": first, "text": text}
        return [Gap("A decision record starts with a status line; this one has none.", (edit,))]
    if not _STATUS.fullmatch(line.group(0)):
        return [Gap(f"The status line reads '{line.group(0)}'; its form is {form}.")]
    return []


def is_section(heading: str, name: str) -> bool:
    """Whether a heading's text is the form's section `name`, in its spelling or an accepted
    other one, whatever its case and spacing."""

    def plain(text: str) -> str:
        return " ".join(text.split()).casefold()

    return plain(heading) in {plain(n) for n in (name, *SECTIONS[name])}


def _section_gaps(body: str) -> list[Gap]:
    headings = _headings(body)
    found: list[Gap] = []
    for name in SECTIONS:
        here = next((h for h in headings if is_section(h[1], name)), None)
        article = "an" if name[0] in "AEIOU" else "a"
        if here is None:
            found.append(Gap(f"A decision record has {article} {name} section; this one has none."))
            continue
        level, text, _, end = here
        after = [s for lv, _, s, _ in headings if s > end and lv <= level]
        if not body[end : after[0] if after else len(body)].strip():
            found.append(Gap(f"The {text} section is empty."))
    return found


@dataclass
class Report:
    """What a run did, for its run page."""

    address: str
    title: str
    version: int
    made: list[dict[str, Any]] = field(default_factory=list)  # gap reason, suggestion_id, url
    skipped: list[str] = field(default_factory=list)  # why a gap was not suggested again
    unmendable: list[str] = field(default_factory=list)
    missing_links: list[str] = field(default_factory=list)
    earlier: list[dict[str, Any]] = field(default_factory=list)


async def check(session: Session, *, on: str, run_id: int, routine: str = NAME) -> str:
    """Check the record at `on`, suggest what it lacks, write the run page; its address."""
    page = (await call(session, "read_document", address=on))["pages"][0]
    report = Report(on, page["title"], page["version"])
    listed = await call(session, "list_suggestions", address=on, limit=200)
    ours = [s for s in listed.get("suggestions", []) if f"({routine})" in s.get("by", "")]
    report.earlier = ours
    settled = {s["reason"]: s["status"] for s in ours if s["status"] in ("pending", "rejected")}
    for gap in gaps(on, page["title"], page["body"]):
        if not gap.mendable:
            report.unmendable.append(gap.reason)
        elif gap.reason in settled:
            report.skipped.append(f"{gap.reason} (already {settled[gap.reason]})")
        else:
            await _suggest(session, report, gap, page["version"])
    report.missing_links = await _missing_links(session, page["body"])
    run_page = f"output:{routine}/runs/{run_id}"
    await call(
        session,
        "create_document",
        address=run_page,
        title=f"{routine} run {run_id}: {page['title']}",
        body=run_page_body(report, routine),
        tags=[routine],
    )
    return run_page


async def _suggest(session: Session, report: Report, gap: Gap, version: int) -> None:
    arguments: dict[str, Any] = {"address": report.address, "reason": gap.reason}
    if gap.edits:
        arguments["edits"] = list(gap.edits)
    if gap.title is not None:
        arguments["title"] = gap.title
    try:
        made = await call(session, "suggest_edit", base_version=version, **arguments)
    except Refused as refused:
        if refused.code not in ("duplicate", "rejected_before", "invalid_edit"):
            raise
        report.skipped.append(f"{gap.reason} ({refused.message})")
        return
    report.made.append(
        {"reason": gap.reason, "suggestion_id": made["suggestion_id"], "url": made.get("url")}
    )


async def _missing_links(session: Session, body: str) -> list[str]:
    related = sorted({m.group(2) for m in _RELATED.finditer(body)})
    if not related:
        return []
    try:
        found = await call(session, "read_document", address=related[:20], outline=True)
    except Refused:  # a link that is no page's address at all: nothing to tell of its page
        return []
    return list(found.get("missing", []))


def run_page_body(report: Report, routine: str) -> str:
    """The run page: what was looked at, what was found, the suggestions made, and what became
    of the earlier ones. What it quotes (a title, a reason, a refusal) reads as the text it
    is, and its links point only at the page and the suggestions."""
    text = markdown_text
    lines = [
        f"# {text(routine)}",
        "",
        f"Looked at {markdown_link(report.title, report.address)}, version {report.version}.",
        "",
        "## Suggested",
        "",
    ]
    for m in report.made:
        change = markdown_link(f"change {m['suggestion_id']}", m["url"] or report.address)
        lines.append(f"- {change}: {text(m['reason'])}")
    if not report.made:
        lines.append("Nothing new to suggest.")
    if report.skipped:
        lines += ["", "## Not suggested again", ""] + [f"- {text(s)}" for s in report.skipped]
    if report.unmendable or report.missing_links:
        lines += ["", "## For a person to look at", ""]
        lines += [f"- {text(u)}" for u in report.unmendable]
        lines += [f"- It links to {text(a)}, which does not exist." for a in report.missing_links]
    if report.earlier:
        lines += ["", "## Earlier suggestions", ""]
        for s in report.earlier:
            why = f": {s['decision_reason']}" if s.get("decision_reason") else ""
            undone = " (since undone)" if s.get("reverted_in_version") else ""
            which = f"{s['kind']} {s['suggestion_id']}"
            said = f"{which} {s['status']}{undone}{why} ({s['reason']})"
            lines.append(f"- {text(said)}")
    return "\n".join(lines) + "\n"
