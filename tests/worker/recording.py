"""A routine for the tests' worker processes, named to them in CODNA_WORKER_HANDLERS.

`record` appends a line `EVENT_ID PID` to the file CODNA_TEST_RECORD names once its run has
done its work, so each line is one finished run. The first run on a page whose path ends in
`hang` writes its process's id to that file's `.hang` twin and never returns: the test kills
its worker, and the run that takes the event after its lease records it like any other.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from codna import worker
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event

ROUTINE = "record"
RECORD = "CODNA_TEST_RECORD"


def hang_marker(record: Path) -> Path:
    return record.with_suffix(".hang")


def record(event: Event, automation: Automation) -> None:
    path = Path(os.environ[RECORD])
    if event.path.endswith("hang"):
        try:
            marker = os.open(hang_marker(path), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass  # taken again after the first run's worker died
        else:
            os.write(marker, f"{os.getpid()}\n".encode())
            os.close(marker)
            threading.Event().wait()  # until the process is killed
    # One short write to a file opened for appending: whole lines, whichever process writes.
    with path.open("a") as out:
        out.write(f"{event.id} {os.getpid()}\n")


worker.register(ROUTINE, record)
