"""The tracker's clocks for changes too large to be moves: an episode of most of the board
changing at once (a bump, an arm across it, a lamp), and the time a large changed region has
lain quiet (a lamp whose change stays under the board-wide share, or a sleeve).

What they decide (re-lock, re-normalise to a new light) is the tracker's (``vision.track``);
these only keep the times and the evidence gathered meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.layout import SIZE
from vision.motion import regional_share
from vision.track_config import TrackConfig


@dataclass
class QuietClock:
    """Seconds in all that a condition held, frame to frame: the time from one frame to the
    next counts when the condition holds at the later one."""

    total: float = 0.0
    last_t: float | None = None

    def tick(self, t: float, *, holds: bool) -> float:
        """A frame at ``t``; the seconds since the previous one (0 for the first)."""
        elapsed = 0.0 if self.last_t is None else t - self.last_t
        if holds:
            self.total += elapsed
        self.last_t = t
        return elapsed


@dataclass
class BoardWideChange:
    """One episode of most of the board changed at once, begun at ``since``."""

    since: float
    still: float | None = None
    """When the board last became still in it (None while something moves)."""
    still_change: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE)))
    """Each cell's change against the background when the board last became still."""
    judged: bool = False
    """Whether this still stretch was already judged for a move of the board (once per stretch)."""
    quiet: QuietClock = field(default_factory=QuietClock)
    """Seconds in all with nothing moving."""
    unmoved: bool = False
    """Whether an alignment with no hand in view found the board unmoved."""

    def tick(self, t: float, *, moving: bool) -> float:
        """A frame at ``t`` (``moving``: anything on the board moves); the seconds since the
        episode's previous frame (0 for its first)."""
        elapsed = self.quiet.tick(t, holds=not moving)
        if moving:
            self.still = None
            self.judged = False
        return elapsed

    def still_for(self, t: float, change: np.ndarray) -> float:
        """Seconds the board has been still at ``t`` (a still frame; ``change``: its per-cell
        change, kept from the stretch's first frame)."""
        if self.still is None:
            self.still, self.still_change = t, change.copy()
        return t - self.still

    def light_settled(self, change: np.ndarray, *, hand: bool, config: TrackConfig) -> bool:
        """Is the board-wide ``change`` a new light settled over the whole board: the board
        unmoved, no hand in view, every cell's change as when the stillness began, and no region
        changed more than the rest? (A shadow sweeping over slowly moves no cell from one frame to
        the next, and stands still as it turns back: game 154001.)"""
        return (
            self.unmoved and not hand
            and float(np.percentile(np.abs(change - self.still_change), 90)) <= config.relight_settled_drift
            and regional_share(change) <= config.relight_regional_share
        )
