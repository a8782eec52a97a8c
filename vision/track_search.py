"""When the tracker looks for the board while it has none: a full search costs seconds of CPU
when no board is in view, so after a few failures in a row the searches back off."""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision.frame_time import lasted
from vision.track_config import TrackConfig


@dataclass
class SearchSchedule:
    """The searches so far: when the last began, how many failed in a row, what the last cost."""

    config: TrackConfig
    last: float = -math.inf
    """Frame time the last search began."""
    failed: int = 0
    """Searches failed in a row."""
    cost: float = 0.0
    """Wall-clock seconds the last failed search took."""

    def due(self, t: float) -> bool:
        """Is a search due at frame time ``t``?"""
        return bool(lasted(t - self.last, self.interval()))

    def interval(self) -> float:
        """Seconds from one search's start to the next: ``search_every_seconds``, doubling per
        failure after ``search_backoff_after`` failures in a row, up to ``search_every_max_seconds``.
        Once backing off, that wait starts when the last failed search ended, and lasts at least
        as long as it took. A search on a frame with no board takes 2-3 s, longer than the longest
        interval, so searches ran back to back: a core busy all evening, and the camera view
        standing still, just when the people at the table look at it to aim the camera."""
        cfg = self.config
        extra = self.failed - cfg.search_backoff_after + 1
        if extra <= 0:
            return cfg.search_every_seconds
        wait = min(cfg.search_every_max_seconds, cfg.search_every_seconds * 2.0 ** min(extra, 16))
        return self.cost + max(wait, self.cost)

    def both_ways(self) -> bool:
        """Should this search look at the frame mirrored too? Only on some failed searches
        (``mirrored_search_every``): a camera rarely starts mirroring."""
        return self.failed % self.config.mirrored_search_every == 0

    def began(self, t: float) -> None:
        """A search begins at frame time ``t``."""
        self.last = t

    def ended(self, *, found: bool, seconds: float) -> None:
        """The search begun last found the board or not, after ``seconds`` of wall-clock time."""
        if found:
            self.failed = 0
        else:
            self.failed += 1
            self.cost = seconds
