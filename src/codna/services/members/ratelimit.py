"""Per-token rate limits: a sliding window, in this process.

A token's (or a web session's) calls are counted in two windows: writes and tool calls
against `limit` (CODNA_RATE_LIMIT, 600 a minute by default), reads against READS_PER_CALL
times as many, since a read costs less and an agent reads more than it writes. Making
tokens has a limit of its own, counted in the database (tokens.py).

Each server process keeps its own windows, so behind N workers a token may make up to N times
the limit; the limit is there to stop a runaway agent, not to meter anyone.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from codna.errors import RateLimited
from codna.services.limits import READS_PER_CALL


class RateLimiter:
    """At most `limit` hits per `window` seconds for each key; its `reads` window allows
    READS_PER_CALL times as many."""

    def __init__(self, limit: int, window: float, *, what: str = "calls") -> None:
        self.limit = limit
        self.window = window
        self.what = what
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._reads: RateLimiter | None = None

    @property
    def reads(self) -> RateLimiter:
        """The window reads are counted in, beside this one's."""
        with self._lock:
            if self._reads is None:
                self._reads = RateLimiter(self.limit * READS_PER_CALL, self.window, what="reads")
            return self._reads

    def hit(self, key: str) -> None:
        """Count one call for `key`. Raises RateLimited with `retry_after` seconds when over."""
        moment = time.monotonic()
        with self._lock:
            hits = self._hits.setdefault(key, deque())
            while hits and hits[0] <= moment - self.window:
                hits.popleft()
            if len(hits) >= self.limit:
                retry_after = max(1, math.ceil(hits[0] + self.window - moment))
                raise RateLimited(
                    f"Too many {self.what}: at most {self.limit} every {self.window:g} seconds. "
                    f"Retry in {retry_after} s.",
                    retry_after=retry_after,
                    limit=self.limit,
                )
            hits.append(moment)
            if len(self._hits) > _SWEEP_AT:
                self._sweep(moment)

    def _sweep(self, moment: float) -> None:
        """Forget the keys with no hit in the window, so that the windows stay small."""
        for key in [k for k, hits in self._hits.items() if hits[-1] <= moment - self.window]:
            del self._hits[key]


_SWEEP_AT = 10_000  # keys kept before those with no recent hit are forgotten
