"""The tracker's readings of the cells waiting to be committed: what the reader last said of each
changed cell, since when it has said so, and how sure it was.

A changed cell is read once it has been clear of hands for a while, and again while the reader
is unsure; a reading is committed once it is sure and has held (``vision.track``). Kept apart
so that forgetting a cell's readings (committed, absorbed, its change gone) is one call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.layout import SIZE
from vision.frame_time import lasted


def _never() -> np.ndarray:
    return np.full((SIZE, SIZE), np.nan)


@dataclass
class CellReadings:
    """Per-cell ``(10, 10)`` arrays of the readings of cells waiting to be committed."""

    label: np.ndarray = field(default_factory=lambda: np.full((SIZE, SIZE), "", dtype=object))
    """The last label read (``""`` before any)."""
    since: np.ndarray = field(default_factory=_never)
    """When the reader first gave that label, in an unbroken run of readings (NaN: not read)."""
    frames: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=int))
    """How many readings in a row gave that label."""
    read_at: np.ndarray = field(default_factory=_never)
    """When the cell was last read (NaN: not since its change began)."""
    conf: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=np.float32))
    """The last reading's confidence."""

    @property
    def read(self) -> np.ndarray:
        """``(10, 10)`` bool: cells read since their change began."""
        return ~np.isnan(self.read_at)

    def forget(self, cells: np.ndarray) -> None:
        """Start ``cells`` (``(10, 10)`` bool) afresh: the next reading is their first. (Label and
        confidence stay for display; nothing counts them until the cell is read again.)"""
        self.since[cells] = np.nan
        self.read_at[cells] = np.nan
        self.frames[cells] = 0

    def due(self, settled: np.ndarray, t: float, every: float, sure_from: float) -> np.ndarray:
        """The ``settled`` cells to read at ``t``: those not read yet, and those read unsurely
        (below ``sure_from``) ``every`` seconds or more ago."""
        unread = np.isnan(self.read_at)
        again = lasted(t - np.nan_to_num(self.read_at, nan=t), every)
        return settled & (unread | again) & (~(self.conf >= sure_from) | unread)

    def held_for(self, t: float) -> np.ndarray:
        """Seconds each cell's label has been read unchanged (0 where it was not read)."""
        return t - np.nan_to_num(self.since, nan=t)

    def record(self, cells: np.ndarray, labels: np.ndarray, conf: np.ndarray, t: float) -> None:
        """A reading of ``cells`` at ``t``: ``labels`` and ``conf`` ``(10, 10)`` of every cell."""
        same = cells & (labels == self.label) & ~np.isnan(self.since)
        fresh = cells & ~same
        self.label[fresh] = labels[fresh]
        self.since[fresh] = t
        self.frames[fresh] = 1
        self.frames[same] += 1
        self.conf[cells] = conf[cells]
        self.read_at[cells] = t
