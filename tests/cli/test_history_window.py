"""`codna page history` lists a window of a page's revisions with --limit and --offset, says
how to see the older ones when some are left out, and refuses a window beyond HISTORY."""

from __future__ import annotations

import json

from codna.services.limits import HISTORY
from tests.cli.conftest import invoke

PAGE = "wiki:history-window"


def saved(versions: int) -> None:
    invoke(["page", "create", PAGE, "--title", "H", "--body-file", "-"], stdin="Version 1.\n")
    for n in range(2, versions + 1):
        edit = [{"op": "replace", "old": f"Version {n - 1}.", "new": f"Version {n}."}]
        invoke(["page", "edit", PAGE, "--edits", "-"], stdin=json.dumps(edit))


def versions(*options: str) -> list[int]:
    listed = json.loads(invoke(["page", "history", PAGE, "--json", *options]).stdout)
    return [revision["version"] for revision in listed]


def test_page_history_takes_a_window_and_says_how_to_see_older_revisions(
    workspace: None,
) -> None:
    saved(4)
    assert versions() == [4, 3, 2, 1]
    assert versions("--limit", "2") == [4, 3]
    assert versions("--limit", "2", "--offset", "2") == [2, 1]
    shown = invoke(["page", "history", PAGE, "--limit", "1", "--offset", "1"]).stdout
    assert shown.splitlines()[0].startswith("v3 ")
    assert shown.splitlines()[-1] == "Older revisions are left out: give --offset 2."
    whole = invoke(["page", "history", PAGE]).stdout
    assert len(whole.splitlines()) == 4 and "left out" not in whole


def test_page_history_refuses_a_window_beyond_its_bounds(workspace: None) -> None:
    saved(1)
    for options in (["--limit", str(HISTORY.most + 1)], ["--limit", "0"], ["--offset", "-1"]):
        refused = invoke(["page", "history", PAGE, *options], ok=False)
        assert refused.stderr.startswith("invalid_request: "), options
