"""PostgreSQL LISTEN: the inbox trigger's notifications, as they arrive after each commit."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import psycopg
import sqlalchemy as sa

CHANNEL = "codna_inbox"
log = logging.getLogger(__name__)


def _conninfo(url: sa.URL) -> str:
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(
    url: sa.URL, handle: Callable[[dict[str, Any]], None], *, ready: Callable[[], None]
) -> None:
    """Call `handle` with each notification's payload, for ever; reconnects when the database
    goes away. `ready` is called each time it is listening, again after a reconnection
    (whatever was sent in between is lost). Cancel the task to stop."""
    delay = 0.5
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                _conninfo(url), autocommit=True
            ) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                ready()
                delay = 0.5
                async for notice in conn.notifies():
                    try:
                        handle(json.loads(notice.payload))
                    except (ValueError, KeyError):
                        log.warning("ignored a malformed notification: %r", notice.payload)
        except (psycopg.OperationalError, OSError) as error:
            log.warning("listening for inbox events failed (%s); retrying", error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10)
