"""`codna export` still writes every page one can read, though the service answers a window at
a time: it walks the windows, and starts over when pages are made or trashed between two of
them, so that none is left out or written twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codna.errors import Conflict
from codna.services.admin import transfer
from codna.services.limits import EXPORT_BYTES
from codna.services.members import members
from codna.services.pages import pages
from tests.cli.conftest import invoke

NAMES = ["e", "b", "a", "d", "c", "f"]


@pytest.fixture
def folder(workspace: None) -> list[str]:
    for name in NAMES:
        invoke(
            ["page", "create", f"wiki:many/{name}", "--title", name, "--body-file", "-"],
            stdin="Text.\n" * 100,
        )
    return sorted(f"wiki/many/{name}.md" for name in NAMES)


def written(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.md"))


def test_an_export_writes_every_page_however_many_windows_it_takes(
    folder: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert EXPORT_BYTES > 2_000
    monkeypatch.setattr(transfer, "EXPORT_BYTES", 2_000)  # two pages a window
    calls = []
    window = transfer.export_documents

    def counted(*args: Any, **kwargs: Any) -> transfer.Export:
        calls.append(kwargs.get("offset", 0))
        return window(*args, **kwargs)

    monkeypatch.setattr(transfer, "export_documents", counted)
    done = invoke(["export", str(tmp_path / "out"), "--address", "wiki:many/"])
    assert written(tmp_path / "out") == folder
    assert "Exported 6 pages" in done.stdout
    assert calls == [0, 1, 2, 3, 4]  # each window after the first starts on the last one read


def test_an_export_starts_over_when_a_page_is_trashed_between_two_windows(
    folder: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "EXPORT_BYTES", 2_000)
    window = transfer.export_documents
    trashed = []

    def meanwhile(*args: Any, **kwargs: Any) -> transfer.Export:
        if kwargs.get("offset") and not trashed:  # before the second window, once
            ada = members.member_by_handle("ada@example.com")
            trashed.append(pages.trash_page(ada, address="wiki:many/a").address)
        return window(*args, **kwargs)

    monkeypatch.setattr(transfer, "export_documents", meanwhile)
    invoke(["export", str(tmp_path / "out"), "--address", "wiki:many/"])
    assert trashed == ["wiki:many/a"]
    assert written(tmp_path / "out") == [f for f in folder if f != "wiki/many/a.md"]


def test_an_export_whose_pages_keep_changing_is_refused_and_writes_nothing(
    folder: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "EXPORT_BYTES", 2_000)
    window = transfer.export_documents
    made = iter(range(100))

    def meanwhile(*args: Any, **kwargs: Any) -> transfer.Export:
        if kwargs.get("offset"):
            ada = members.member_by_handle("ada@example.com")
            pages.create_page(ada, address=f"wiki:many/0{next(made)}", title="New")
        return window(*args, **kwargs)

    monkeypatch.setattr(transfer, "export_documents", meanwhile)
    refused = invoke(["export", str(tmp_path / "out"), "--address", "wiki:many/"], ok=False)
    assert refused.stderr.startswith(f"{Conflict.code}: Pages were made or trashed")
    assert not (tmp_path / "out").exists()
