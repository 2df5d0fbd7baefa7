"""The `codna` command, in process on both databases, and once as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from codna.cli.main import cli
from tests.cli.conftest import run


def test_a_page_goes_through_create_edit_history_and_revert(
    workspace: None, tmp_path: Path
) -> None:
    body = tmp_path / "body.md"
    body.write_text("# One\n\nFirst text.\n")
    run(
        "page",
        "create",
        "wiki:decisions/0001",
        "--title",
        "One",
        "--tags",
        "a,b",
        "--body-file",
        str(body),
        "--as",
        "ben@example.com",
    )
    edits = json.dumps([{"op": "replace", "old": "First text.", "new": "Second text."}])
    dry = run(
        "page",
        "edit",
        "wiki:decisions/0001",
        "--edits",
        "-",
        "--dry-run",
        "--as",
        "ben@example.com",
        stdin=edits,
    )
    assert "Dry run" in dry and "+Second text." in dry
    saved = json.loads(
        run(
            "page",
            "edit",
            "wiki:decisions/0001",
            "--edits",
            "-",
            "--json",
            "--summary",
            "Better",
            "--as",
            "ben@example.com",
            stdin=edits,
        )
    )
    assert saved["saved"] is True and saved["page"]["version"] == 2
    shown = json.loads(
        run("page", "show", "wiki:decisions/0001", "--version", "1", "--json", "--as", "checker")
    )
    assert shown["body"] == "# One\n\nFirst text.\n" and shown["tags"] == ["a", "b"]
    history = json.loads(run("page", "history", "wiki:decisions/0001", "--json", "--as", "checker"))
    assert [(r["version"], r["kind"], r["author"]) for r in history] == [
        (2, "edit", "Ben"),
        (1, "create", "Ben"),
    ]
    run("page", "revert", "wiki:decisions/0001", "2", "--as", "ben@example.com")
    assert "First text." in run("page", "show", "wiki:decisions/0001", "--as", "ben@example.com")


def test_a_refused_command_exits_non_zero_with_its_code_and_sentence(workspace: None) -> None:
    result = CliRunner().invoke(cli, ["page", "show", "wiki:nothing", "--as", "ben@example.com"])
    assert result.exit_code == 1
    assert result.output.startswith("not_found: There is no page wiki:nothing.")
    result = CliRunner().invoke(
        cli,
        ["page", "edit", "wiki:decisions/x", "--edits", "-", "--as", "checker", "--json"],
        input="[]",
    )
    assert result.exit_code == 1
    assert json.loads(result.output.splitlines()[0])["error"]["code"] in {
        "not_found",
        "invalid_request",
    }


def test_an_agent_cannot_edit_what_it_was_given(workspace: None) -> None:
    run("page", "create", "wiki:decisions/0002", "--title", "Two", "--as", "ben@example.com")
    result = CliRunner().invoke(
        cli,
        ["page", "edit", "wiki:decisions/0002", "--edits", "-", "--as", "checker"],
        input=json.dumps([{"op": "append", "text": "x"}]),
    )
    assert result.exit_code == 1 and result.output.startswith("read_only:")


def test_import_export_and_search(workspace: None, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "notes.md").write_text("---\ntitle: Field notes\n---\nThe turbines hum.\n")
    run("import", str(source), "--into", "raw:field/")
    hits = json.loads(run("search", "turbines", "--json"))
    assert [h["address"] for h in hits] == ["raw:field/notes"]
    out = tmp_path / "out"
    run("export", str(out))
    text = (out / "raw" / "field" / "notes.md").read_text()
    assert text.startswith("---\ntitle: Field notes\n") and text.endswith("The turbines hum.\n")


def test_the_demo_builds_its_workspace_prints_a_page_and_watches_its_decision_records(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "CODNA_DATABASE_URL": f"sqlite:///{tmp_path / 'demo.db'}"}
    codna = Path(sys.executable).parent / "codna"
    for _ in range(2):  # building once, then showing what is there
        done = subprocess.run(
            [str(codna), "demo"], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert "wiki:decisions/0001-markdown-pages" in done.stdout
        assert "v3" in done.stdout and "create" in done.stdout
    # The demo watches its decision records: a new one starts decision-check as Ada.
    listed = subprocess.run(
        [str(codna), "automation", "list", "--as", "ada@example.com"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "wiki:decisions/" in listed.stdout and "decision-check" in listed.stdout, listed


def test_suggest_list_decide_and_withdraw_from_the_command_line(workspace: None) -> None:
    run(
        "page",
        "create",
        "wiki:decisions/0003",
        "--title",
        "Three",
        "--as",
        "ben@example.com",
        "--body-file",
        "-",
        stdin="**Status:** Proposed\n",
    )
    edits = json.dumps([{"op": "replace", "old": "Proposed", "new": "Accepted"}])
    made = json.loads(
        run(
            "suggest",
            "wiki:decisions/0003",
            "--edits",
            "-",
            "--reason",
            "Adopted.",
            "--json",
            "--as",
            "checker",
            stdin=edits,
        )
    )
    suggestion = made["suggestion"]
    assert suggestion["status"] == "pending" and "+**Status:** Accepted" in made["diff"]
    listed = run("suggestions", "wiki:decisions/0003", "--as", "ben@example.com")
    assert f"#{suggestion['id']} pending" in listed and "Adopted." in listed
    refused = CliRunner().invoke(
        cli, ["decide", str(suggestion["id"]), "accept", "--as", "checker"]
    )
    assert refused.exit_code == 1 and refused.output.startswith("read_only:")
    run("decide", str(suggestion["id"]), "accept", "--as", "ben@example.com")
    history = json.loads(run("page", "history", "wiki:decisions/0003", "--json"))
    assert history[0]["summary"] == "Suggested by checker (agent): Adopted."
    other = json.loads(
        run(
            "suggest",
            "wiki:decisions/0003",
            "--edits",
            "-",
            "--reason",
            "Tidy.",
            "--json",
            "--as",
            "checker",
            stdin=json.dumps([{"op": "append", "text": "More."}]),
        )
    )
    withdrawn = run("withdraw", str(other["suggestion"]["id"]), "--as", "checker")
    assert "withdrawn" in withdrawn
