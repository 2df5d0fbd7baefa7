"""`codna check`: every version of every page rebuilds to its SHA-256, or it says which does
not and exits with 1."""

from __future__ import annotations

import json

import sqlalchemy as sa
from click.testing import CliRunner

from codna.cli.main import cli
from codna.markdown.edits import parse_edits
from codna.services.members import members
from codna.services.pages import editing, pages, search
from codna.storage.database import Database
from codna.storage.schema import page_sections, revisions
from tests.cli.conftest import invoke


def a_page_with_versions(versions: int) -> None:
    ada = members.first_admin()
    body = "".join(f"Line {n} of the page.\n" for n in range(100))
    pages.create_page(ada, address="wiki:checked", title="Checked", body=body)
    for n in range(1, versions):
        editing.edit_page(
            ada,
            address="wiki:checked",
            edits=parse_edits([{"op": "replace", "old": f"Line {n} of", "new": f"Line {n} in"}]),
        )


def test_a_clean_workspace_checks_out_with_every_version_counted(workspace: None) -> None:
    a_page_with_versions(4)
    done = invoke(["check"])
    assert done.stdout == (
        "Checked 4 versions of 1 page: every version rebuilds to its SHA-256, every page's "
        "search index is in step with its text.\n"
    )
    found = json.loads(invoke(["check", "--json"]).stdout)
    assert (found["pages"], found["versions"], found["damaged"], found["database"]) == (
        1,
        4,
        [],
        [],
    )


def test_a_delta_damaged_on_purpose_is_named_and_the_check_fails(
    workspace: None, db: Database
) -> None:
    a_page_with_versions(4)
    with db.write() as conn:
        conn.execute(
            revisions.update()
            .where(revisions.c.version == 3)
            .values(delta=sa.func.replace(revisions.c.delta, "in", "on"))
        )
    done = CliRunner().invoke(cli, ["check"], catch_exceptions=False)
    assert done.exit_code == 1
    assert done.stdout.splitlines() == [
        "wiki:checked version 3: its text does not match its SHA-256.",
        "wiki:checked version 4: its text does not match its SHA-256.",
        "Checked 4 versions of 1 page: 2 versions damaged.",
    ]


def test_only_an_admin_checks(workspace: None) -> None:
    refused = invoke(["check", "--as", "ben@example.com"], ok=False)
    assert refused.stderr.startswith("read_only: Only an admin can check the workspace")


def test_a_page_whose_search_index_is_out_of_step_is_named_and_made_again_when_asked(
    workspace: None, db: Database
) -> None:
    a_page_with_versions(2)
    with db.write() as conn:  # as if a save had left a section's words behind
        conn.execute(page_sections.update().values(text="stale words", digest="0" * 64))
    done = CliRunner().invoke(cli, ["check"], catch_exceptions=False)
    assert done.exit_code == 1
    assert done.stdout.splitlines() == [
        "wiki:checked: its search index is out of step with its text (codna check --reindex "
        "makes it again).",
        "Checked 2 versions of 1 page: 1 page out of step in the index.",
    ]
    ada = members.first_admin()
    assert [h.address for h in search.search(ada, query="stale")] == ["wiki:checked"]
    repaired = invoke(["check", "--reindex", "--json"])
    assert json.loads(repaired.stdout)["reindexed"] == ["wiki:checked"]
    assert search.search(ada, query="stale") == []
    assert [h.address for h in search.search(ada, query='"line 1 in"')] == ["wiki:checked"]
    assert invoke(["check"]).stdout.endswith("is in step with its text.\n")
