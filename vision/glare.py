"""Which cells a lamp's glare has blinded, and what to tell the people at the table about it.

Where the camera clipped a cell's centre to white (``ReaderConfig.glare_floor``) and the reader
could not tell a chip from the card, glare has taken what lies there: a white chip on a white
card most of all. No reader can make that up; the person can, by moving the lamp or the camera.
So ``detect``, ``calibrate``, the calibration wizard and the tablet say which cells glare blinded.
"""

from __future__ import annotations

import numpy as np

from engine.layout import SIZE
from vision.advice import cells_where
from vision.cells import CORNER_MASK

GLARE_SHARE = 0.5
"""Share of a cell's disc clipped white (``ReaderConfig.glare_floor``) from which glare may have
blinded it."""
DOUBT_LOGIT = 3.0
"""A clipped cell counts as blinded where the reader's chip logit is within this of zero: it
could not tell a chip from the card. A card at full white is common on a bright board, and the
reader still sees each chip's rim and shadow there (a clear chip or card reads 10 or more away).
On 240 rendered frames of seeds 13300-13539 (all difficulties, both editions, true corners),
blinded cells showed on 26 frames, all hard or Jumbo ones, and held 31 of the 36 wrong cells;
by clipping alone, 91 frames had some, 84 of them read all right."""


def glare_cells(features: dict[str, np.ndarray]) -> np.ndarray:
    """``(10, 10)`` bool: the cells glare blinded, from a reading's per-cell cues ``glare``
    (share of the disc clipped white, ``vision.classify``) and ``chip_logit``, each ``(10, 10)``
    or ``(100,)``; all False when the reading lacks them (a stand-in reader). Free corners never
    count: no chip is put there."""
    share, logit = features.get("glare"), features.get("chip_logit")
    if share is None or logit is None:
        return np.zeros((SIZE, SIZE), dtype=bool)
    clipped = np.asarray(share, dtype=np.float32).reshape(SIZE, SIZE) >= GLARE_SHARE
    unsure = np.abs(np.asarray(logit, dtype=np.float32).reshape(SIZE, SIZE)) < DOUBT_LOGIT
    return clipped & unsure & ~CORNER_MASK


def glare_advice(blinded: np.ndarray) -> str:
    """One line for the people at the table about the cells glare ``blinded`` (``(10, 10)`` bool);
    "" when there are none. A few cells are named, more are given as the rows and columns they
    span (a glare spot is one patch of the board)."""
    count, where = cells_where(blinded)
    if not count:
        return ""
    noun = "cell" if count == 1 else "cells"
    return (f"glare: the camera sees {count} {noun} as plain white ({where}); a chip there, a white one "
            "above all, may go unseen: move the lamp or the camera, or lower its exposure")

