"""Polling helper for tests of threaded code (camera readers, pipelines, servers)."""

from __future__ import annotations

import time
from collections.abc import Callable

POLL_S = 0.005


def wait_for(predicate: Callable[[], object], timeout: float = 5.0) -> bool:
    """True as soon as ``predicate()`` is truthy; False if it is still falsy after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(POLL_S)
    return False
