"""A per-token rate limit on tool calls and API writes: a sliding window, in this process.

Each server process keeps its own window, so behind N workers a token may make up to N times
the limit; the limit is there to stop a runaway agent, not to meter anyone.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from codna.errors import RateLimited


class RateLimiter:
    """At most `limit` hits per `window` seconds for each key."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

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
                    f"Too many calls: at most {self.limit} every {self.window:g} seconds. "
                    f"Retry in {retry_after} s.",
                    retry_after=retry_after,
                )
            hits.append(moment)
