"""`codna backup FILE`: a consistent copy of a running SQLite workspace, taken while edits go
on; the copy passes SQLite's integrity_check and `codna check`, and restored it holds every edit
acknowledged before the backup began. PostgreSQL, a missing workspace and a file in the way are
refused."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from codna.markdown.edits import parse_edits
from codna.services.admin import backup
from codna.services.context import close_database, use_database
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.storage.database import Database, sqlite_file
from tests.cli.conftest import invoke

ADDRESS = "wiki:busy"
# A page big enough that the database takes many steps to copy at a few pages a step.
FILLER = "".join(f"Line {n} of a page that makes the database bigger.\n" for n in range(4000))
DEADLINE = 30.0  # seconds a wait on the writer may take before the test fails


def edit_text(n: int) -> str:
    return f"Edit {n}."


def body_at(version: int) -> str:
    """The page's text at `version`: the filler, then one appended line per edit."""
    return FILLER + "".join(f"\n{edit_text(n)}\n" for n in range(2, version + 1))


class Writer:
    """A thread that edits the page through the services, one append at a time, until
    stopped; it keeps the latest version each edit was acknowledged with."""

    def __init__(self, actor: Member) -> None:
        self.actor = actor
        self.acknowledged = 1  # the page's creation
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                n = self.acknowledged + 1
                done = editing.edit_page(
                    self.actor,
                    address=ADDRESS,
                    edits=parse_edits([{"op": "append", "text": edit_text(n)}]),
                )
                assert done.page.version == n, done.page.version
                with self.changed:
                    self.acknowledged = n
                    self.changed.notify_all()
        except BaseException as error:
            self.failure = error
            with self.changed:
                self.changed.notify_all()

    def wait_for(self, version: int) -> None:
        """Wait until an edit has been acknowledged with `version` or later."""
        with self.changed:
            met = self.changed.wait_for(
                lambda: self.acknowledged >= version or self.failure is not None, DEADLINE
            )
        assert self.failure is None, self.failure
        assert met, f"the writer stayed at version {self.acknowledged}, waiting for {version}"


@contextmanager
def busy(actor: Member) -> Iterator[Writer]:
    pages.create_page(actor, address=ADDRESS, title="Busy", body=FILLER)
    writer = Writer(actor)
    writer.thread.start()
    try:
        yield writer
    finally:
        writer.stop.set()
        writer.thread.join(DEADLINE)
    assert not writer.thread.is_alive(), "the writer did not stop"
    assert writer.failure is None, writer.failure


def stored_page(file: Path) -> tuple[int, str]:
    """The page's version and text in the SQLite database `file`, read without the services
    (which the writer is using meanwhile)."""
    with closing(sqlite3.connect(f"file:{file}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT version, body FROM pages WHERE space = 'wiki' AND path = 'busy'"
        ).fetchone()
    return int(row[0]), str(row[1])


def integrity(file: Path) -> list[str]:
    with closing(sqlite3.connect(f"file:{file}?mode=ro", uri=True)) as conn:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]


def checked_with_codna(file: Path, db: Database, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """`codna check --json` on the workspace in `file`, as a restore would point
    CODNA_DATABASE_URL at it; the test's own database is in use again afterwards."""
    use_database(None)
    monkeypatch.setenv("CODNA_DATABASE_URL", f"sqlite:///{file}")
    try:
        found: dict[str, int] = json.loads(invoke(["check", "--json"]).stdout)
    finally:
        close_database()
        monkeypatch.delenv("CODNA_DATABASE_URL")
        use_database(db)
    return found


def workspace_file(db: Database) -> Path:
    file = sqlite_file(db.url)
    assert file is not None
    return file


def backup_beside(writer: Writer, target: Path) -> tuple[backup.Backup, int]:
    """Back up the workspace a few pages a step, holding the copy at its first step until the
    writer has had three more edits acknowledged: the backup and the version acknowledged when
    its first step was done."""
    first_step: list[int] = []
    steps: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        steps.append((done, total))
        if not first_step:
            # The copy holds its snapshot open; edits must go on beside it.
            first_step.append(writer.acknowledged)
            writer.wait_for(first_step[0] + 3)

    made = backup.backup_workspace(writer.actor, target=target, pages_per_step=4, progress=progress)
    # Several steps, each further on, never started over by the edits between them.
    assert len(steps) > 10 and steps[-1][0] == steps[-1][1] == made.pages
    assert [done for done, _ in steps] == sorted(done for done, _ in steps)
    return made, first_step[0]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_backup_taken_while_edits_go_on_holds_every_edit_acknowledged_before_it_began(
    workspace: None,
    db: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    long_form: bool,
) -> None:
    ada = members.first_admin()
    rounds = 25 if long_form else 3
    copies: list[tuple[Path, int, int, int]] = []  # file, acknowledged before, at first step
    with busy(ada) as writer:
        for n in range(rounds):
            writer.wait_for(writer.acknowledged + 2)
            before = writer.acknowledged
            made, at_first_step = backup_beside(writer, tmp_path / f"copy-{n}.db")
            copies.append((Path(made.file), before, at_first_step, writer.acknowledged))
    for file, before, at_first_step, after in copies:
        version, body = stored_page(file)
        assert before <= version <= at_first_step < after, (before, version, at_first_step)
        assert body == body_at(version)
        assert integrity(file) == ["ok"]
        found = checked_with_codna(file, db, monkeypatch)
        assert (found["pages"], found["versions"], found["damaged"]) == (1, version, [])

    # Restored by copying the file back in place of the workspace's, with the server stopped.
    restored_file, _, _, _ = copies[-1]
    restored_version, _ = stored_page(restored_file)
    db.dispose()
    live = workspace_file(db)
    assert not live.with_name(live.name + "-wal").exists()  # closed cleanly: one file
    shutil.copyfile(restored_file, live)
    restored = Database(db.url.render_as_string(hide_password=False), create=False)
    use_database(restored)
    try:
        page = pages.read_page(ada, address=ADDRESS)
        assert (page.version, page.body) == (restored_version, body_at(restored_version))
        shown = json.loads(invoke(["page", "show", ADDRESS, "--json"]).stdout)
        assert shown["version"] == restored_version
    finally:
        use_database(db)
        restored.dispose()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_codna_backup_copies_the_workspace_while_edits_go_on(
    workspace: None, db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = members.first_admin()
    file = tmp_path / "backups" / "codna.db"
    file.parent.mkdir()
    with busy(ada) as writer:
        writer.wait_for(3)
        before = writer.acknowledged
        done = invoke(["backup", str(file)])
        writer.wait_for(writer.acknowledged + 2)
    assert done.stdout.startswith(f"Backed up {workspace_file(db)} to {file}: ")
    assert "every change made before" in done.stdout
    version, body = stored_page(file)
    assert version >= before and body == body_at(version)
    assert integrity(file) == ["ok"]
    assert checked_with_codna(file, db, monkeypatch)["damaged"] == []
    assert sorted(p.name for p in file.parent.iterdir()) == ["codna.db"]  # nothing left beside
    assert file.stat().st_mode & 0o077 == 0  # it holds password hashes: its owner's alone


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_backup_never_replaces_a_file_without_overwrite(
    workspace: None, db: Database, tmp_path: Path
) -> None:
    file = tmp_path / "codna.db"
    file.write_text("Not a database.")
    refused = invoke(["backup", str(file)], ok=False)
    assert refused.stderr == (
        f"duplicate: There is a file at {file} already; nothing was written. "
        "Give --overwrite to replace it, or choose another file.\n"
    )
    assert file.read_text() == "Not a database."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["codna.db"]
    as_json = json.loads(invoke(["backup", str(file), "--json"], ok=False).stdout)
    assert as_json["error"]["code"] == "duplicate" and as_json["error"]["path"] == str(file)

    made = json.loads(invoke(["backup", str(file), "--overwrite", "--json"]).stdout)
    assert made["file"] == str(file) and made["bytes"] == file.stat().st_size
    assert integrity(file) == ["ok"]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_backup_is_refused_onto_the_workspaces_own_file_into_a_missing_folder_or_to_a_non_admin(
    workspace: None, db: Database, tmp_path: Path
) -> None:
    live = workspace_file(db)
    for target in (live, live.with_name(live.name + "-wal")):
        refused = invoke(["backup", str(target), "--overwrite"], ok=False)
        assert refused.stderr.startswith(f"invalid_request: {target} is the workspace's own")
    missing = tmp_path / "nowhere" / "codna.db"
    refused = invoke(["backup", str(missing)], ok=False)
    assert refused.stderr == f"invalid_request: There is no folder {missing.parent}.\n"
    assert not missing.parent.exists()
    refused = invoke(["backup", str(tmp_path), "--overwrite"], ok=False)
    assert refused.stderr == f"invalid_request: {tmp_path} is a folder; a backup is a file.\n"
    for who in ("ben@example.com", "checker"):
        refused = invoke(["backup", str(tmp_path / "b.db"), "--as", who], ok=False)
        assert refused.stderr.startswith("read_only: Only an admin can back up the workspace")
    assert not (tmp_path / "b.db").exists()
    assert pages.list_pages(members.first_admin(), address="wiki") == []  # nothing else made


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)
def test_a_postgresql_workspace_is_told_to_use_pg_dump(workspace: None, tmp_path: Path) -> None:
    refused = invoke(["backup", str(tmp_path / "codna.db")], ok=False)
    assert refused.stderr.startswith("invalid_request: The workspace at postgresql")
    assert "use pg_dump (or pg_basebackup for the whole cluster)." in refused.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_backup_of_a_missing_workspace_is_refused_and_makes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_database(None)
    absent = tmp_path / "data" / "codna.db"
    monkeypatch.setenv("CODNA_DATABASE_URL", f"sqlite:///{absent}")
    refused = invoke(["backup", str(tmp_path / "copy.db")], ok=False)
    assert refused.stderr.startswith(f"not_found: There is no workspace at {absent}: no such file.")
    assert list(tmp_path.iterdir()) == []
