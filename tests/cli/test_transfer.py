"""`codna import` and `codna export`: the files are the command line's, the pages the service's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codna.cli import transfer as transfer_cli
from codna.markdown.limits import MAX_BODY_BYTES
from codna.services.admin.transfer import ExportedFile
from tests.cli.conftest import invoke


def addresses(space: str = "raw") -> list[str]:
    return [p["address"] for p in json.loads(invoke(["page", "list", space, "--json"]).stdout)]


def test_an_import_never_follows_a_link_to_a_file_outside_its_folder_and_says_so(
    workspace: None, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nNot for the wiki.\n")
    (outside / "more").mkdir()
    (outside / "more" / "also.md").write_text("Also secret.\n")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kept.md").write_text("# Kept\n\nText.\n")
    (folder / "leak.md").symlink_to(outside / "secret.md")
    (folder / "alias.md").symlink_to(folder / "kept.md")  # a link within the folder is read
    (folder / "elsewhere").symlink_to(outside / "more", target_is_directory=True)
    done = invoke(["import", str(folder)])
    assert addresses() == ["raw:alias", "raw:kept"]
    assert "Imported 2 pages, skipped 2:" in done.stdout
    assert f"leak.md: a link to a file outside {folder}" in done.stdout
    assert "elsewhere: a link to a folder; links to folders are not followed." in done.stdout


def test_a_file_that_is_not_utf8_or_too_big_is_refused_by_name_and_the_others_are_imported(
    workspace: None, tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nFine.\n")
    (folder / "latin1.md").write_bytes("Caf\xe9\n".encode("latin-1"))
    (folder / "huge.md").write_text("x" * (MAX_BODY_BYTES + 1))
    done = json.loads(invoke(["import", str(folder), "--into", "raw:in/", "--json"]).stdout)
    assert [p["address"] for p in done["imported"]] == ["raw:in/good"]
    reasons = {s["name"]: s["reason"] for s in done["skipped"]}
    assert reasons == {
        "huge.md": f"over {MAX_BODY_BYTES:,} bytes, the most a page holds (1 MiB); split it "
        "into several files.",
        "latin1.md": "not UTF-8 text (byte 0xe9 at offset 3).",
    }
    text = invoke(["import", str(folder / "latin1.md"), str(folder / "huge.md")], ok=False)
    assert text.stderr.startswith("invalid_request: Nothing was imported: every file was skipped")
    assert "latin1.md: not UTF-8 text" in text.stderr and "huge.md: over" in text.stderr
    assert addresses() == ["raw:in/good"]


def test_a_file_the_service_refuses_is_skipped_by_name_and_the_others_are_imported(
    workspace: None, tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "long-title.md").write_text(f"---\ntitle: {'t' * 300}\n---\nBody\n")
    (folder / "Same.md").write_text("One.\n")
    (folder / "same.md").write_text("Two.\n")
    done = invoke(["import", str(folder)])
    assert addresses() == ["raw:same"]
    assert "Imported 1 page, skipped 2:" in done.stdout
    [refused] = [line for line in done.stdout.splitlines() if "long-title.md" in line]
    assert refused.startswith("  long-title.md: The ") and "300 characters" in refused
    assert "same.md: it makes raw:same, as Same.md does." in done.stdout


def test_front_matter_tags_as_one_word_are_one_tag_and_as_a_list_are_several(
    workspace: None, tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "one.md").write_text("---\ntags: research\n---\nBody\n")
    (folder / "two.md").write_text("---\ntags: [Research, field notes]\n---\nBody\n")
    invoke(["import", str(folder)])
    one = json.loads(invoke(["page", "show", "raw:one", "--json"]).stdout)
    two = json.loads(invoke(["page", "show", "raw:two", "--json"]).stdout)
    assert (one["tags"], two["tags"]) == (["research"], ["research", "field notes"])


def test_an_import_into_a_place_that_is_not_raw_is_refused_before_any_file_is_read(
    workspace: None, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("A\n")
    refused = invoke(["import", str(tmp_path), "--into", "wiki:notes/"], ok=False)
    assert refused.stderr.startswith("invalid_request: Imports go into raw or a folder of it")
    assert addresses() == []


def test_an_export_refuses_to_replace_a_file_naming_it_and_writes_nothing_unless_told(
    workspace: None, tmp_path: Path
) -> None:
    invoke(["page", "create", "wiki:a", "--title", "A", "--body-file", "-"], stdin="Alpha.\n")
    invoke(["page", "create", "wiki:b/c", "--title", "C", "--body-file", "-"], stdin="Gamma.\n")
    out = tmp_path / "out"
    (out / "wiki").mkdir(parents=True)
    (out / "wiki" / "a.md").write_text("Mine.\n")
    refused = invoke(["export", str(out)], ok=False)
    assert refused.stderr.startswith(
        f"duplicate: A file is in the way, so nothing was exported: {out / 'wiki' / 'a.md'}. "
        "Give --overwrite to replace them"
    )
    assert (out / "wiki" / "a.md").read_text() == "Mine.\n"
    assert not (out / "wiki" / "b").exists()
    done = invoke(["export", str(out), "--overwrite"])
    assert done.stdout == f"Exported 2 pages to {out}, skipped none.\n"
    assert (out / "wiki" / "a.md").read_text().endswith("---\nAlpha.\n")
    assert (out / "wiki" / "b" / "c.md").read_text().endswith("---\nGamma.\n")


def test_an_export_never_writes_through_a_link_out_of_its_folder(
    workspace: None, tmp_path: Path
) -> None:
    invoke(["page", "create", "wiki:a", "--title", "A"])
    invoke(["import", str(_file(tmp_path / "src" / "notes.md", "Notes.\n"))])
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "wiki").symlink_to(outside, target_is_directory=True)
    done = json.loads(invoke(["export", str(out), "--json"]).stdout)
    assert done["exported"] == ["raw:notes"]
    assert done["skipped"] == [
        {"name": "wiki:a", "reason": f"its file wiki/a.md would be outside {out}."}
    ]
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("path", ["../escape.md", "/etc/escape.md", "wiki/../../escape.md"])
def test_an_exported_file_whose_path_would_resolve_outside_the_folder_has_no_place(
    tmp_path: Path, path: str
) -> None:
    file = ExportedFile("wiki:escape", path, "text")
    assert transfer_cli.export_target(tmp_path / "out", file) is None
    assert transfer_cli.export_target(tmp_path / "out", ExportedFile("wiki:x", "wiki/x.md", ""))


def test_import_and_export_draw_progress_only_on_a_terminal_and_end_with_a_count(
    workspace: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "in"
    for name in ("a", "b", "c"):
        _file(folder / f"{name}.md", f"{name}\n")
    piped = invoke(["import", str(folder / "a.md")])
    assert piped.stderr == "" and piped.stdout.endswith("Imported 1 page, skipped none.\n")
    monkeypatch.setattr(transfer_cli, "on_terminal", lambda: True)
    shown = invoke(["import", str(folder / "b.md"), str(folder / "c.md")])
    assert "Reading files" in shown.stderr
    assert shown.stdout.endswith("Imported 2 pages, skipped none.\n")
    exported = invoke(["export", str(tmp_path / "out")])
    assert "Writing files" in exported.stderr
    assert exported.stdout == f"Exported 3 pages to {tmp_path / 'out'}, skipped none.\n"


def _file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
