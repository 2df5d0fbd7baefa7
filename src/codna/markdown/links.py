"""Internal links: the edits that put a link to another page into a page."""

from __future__ import annotations

from codna.markdown.edits import Append, Edit, Replace, ReplaceSection
from codna.markdown.escape import link_destination, markdown_link
from codna.markdown.sections import scan_headings

RELATED = "Related"


def link_markdown(label: str, target: str) -> str:
    """A Markdown link to a page by its address, `[label](wiki:decisions/0002)`, its label
    shown as the text it is (escape.markdown_link)."""
    return markdown_link(label, target)


def links_to(body: str, target: str) -> bool:
    """Whether `body` holds a link to `target` as link_markdown writes one."""
    return f"]({link_destination(target)})" in body


def link_edits(body: str, *, target: str, label: str, anchor: str | None) -> list[Edit]:
    """The edits that link `target` from a page: the anchor text becomes the link, or the link
    goes on a line of its own under the page's one `Related` heading (made at the end if there
    is none)."""
    if anchor:
        return [Replace(old=anchor, new=link_markdown(anchor, target))]
    line = f"- {link_markdown(label, target)}"
    related = [h for h in scan_headings(body) if h.text == RELATED]
    if len(related) == 1:
        heading = related[0]
        content = body[heading.content_start : heading.end].strip("\n")
        new_body = f"{content}\n{line}" if content else line
        return [ReplaceSection(heading=f"{'#' * heading.level} {RELATED}", body=new_body)]
    return [Append(text=f"\n## {RELATED}\n\n{line}\n")]
