"""Helpers for fake cameras injected through ``open_source(..., capture_factory=...)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Capture = TypeVar("Capture")


def factory_of(*captures: Capture) -> Callable[[object], Capture]:
    """A capture factory handing out ``captures`` in turn, then the last one for every reopen."""
    queue = list(captures)

    def factory(target: object) -> Capture:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return factory
