"""axe-core in the browser tests: the WCAG 2 A and AA rules run on a page as a visitor sees it.

The engine is vendored (tests/browser/vendor/axe-core/), so no network is needed. Pages come
with `script-src 'self'`, which refuses the inline script `page.add_script_tag` would insert;
axe is added as an init script instead, which the browser runs in every document before the
page's own scripts and outside its CSP. The CSP itself stays in force, so what axe checks
(colours, what is shown and hidden) is what a visitor gets: with the CSP bypassed, styles it
refuses would apply and change the answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WCAG_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
NODES_SHOWN = 3  # offending elements listed per rule in a failure
HTML_SHOWN = 300  # characters of each offending element's markup

_RUN = """
async (tags) => {
  if (typeof window.axe === "undefined") {
    return null;
  }
  const result = await window.axe.run(document, {runOnly: {type: "tag", values: tags}});
  return result.violations;
}
"""


def with_axe(page: Page) -> Page:
    """Make axe available in every document `page` opens from now on (call it before going
    to the page to check)."""
    page.add_init_script(path=AXE)
    return page


def violations(page: Page, tags: tuple[str, ...] = WCAG_AA) -> list[dict[str, Any]]:
    """What axe finds on the page as it is now, for the rules tagged with `tags`."""
    found: list[dict[str, Any]] | None = page.evaluate(_RUN, list(tags))
    assert found is not None, "axe is not loaded here: call with_axe(page) before page.goto"
    return found


def describe(found: list[dict[str, Any]], where: str) -> str:
    """The violations as a failure message: each rule, how bad, what it asks, and the first
    offending elements with their markup and what to change."""
    lines = [f"{len(found)} accessibility rule(s) broken on {where}:"]
    for rule in found:
        nodes = rule["nodes"]
        lines.append(
            f"- {rule['id']} ({rule.get('impact') or 'no impact given'}): {rule['help']}"
            f" [{len(nodes)} element(s)] {rule.get('helpUrl', '')}"
        )
        for node in nodes[:NODES_SHOWN]:
            markup = " ".join(node.get("html", "").split())
            if len(markup) > HTML_SHOWN:
                markup = markup[:HTML_SHOWN] + "…"
            target = " ".join(str(part) for part in node.get("target", []))
            lines.append(f"    at {target}: {markup}")
            said = (node.get("failureSummary") or "").splitlines()
            summary = "; ".join(" ".join(line.split()) for line in said if line.strip())
            if summary:
                lines.append(f"      {summary}")
        if len(nodes) > NODES_SHOWN:
            lines.append(f"    … and {len(nodes) - NODES_SHOWN} more")
    return "\n".join(lines)


def assert_accessible(page: Page, where: str | None = None) -> None:
    """Fail, saying what to fix, if axe finds a WCAG 2.1 A or AA violation on the page."""
    found = violations(page)
    assert not found, describe(found, where or page.url)
