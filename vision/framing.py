"""Whether the camera shows the board large enough to read, in words for the people setting it up.

Below about 20 pixels a cell, a white chip's rim and the cards' thin print blur into each other,
and the board is found less often. On rendered normal frames at 1280x720 (seeds 15300-15339,
nothing given): a board filling a quarter of the picture (cells a median 12 px along the grid's
shortest side) was found 37 times in 40 and read 0.19 % of its cells wrong; at 0.3 (15 px), 39
times and none wrong; at 1920x1080 a quarter of the picture (18 px), 38 times. In the accuracy
benchmark's range (35 % and more; seed 1000), 0.014 % or less outside the cells glare blinded.
The README asks for 25 px. Calibration is when the camera is placed, so that is when to say it.
"""

from __future__ import annotations

import numpy as np

from engine.layout import SIZE
from vision.geometry import roll_rows

SMALL_CELL_PX = 20.0
"""Cells narrower than this many pixels along the grid's shortest side make a board too small
in the picture."""


def cell_px(corners: object) -> float:
    """Pixels per cell along the grid's shortest side, for grid corners ``(4, 2)`` in order."""
    pts = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    sides = np.linalg.norm(roll_rows(pts) - pts, axis=1)
    return float(sides.min()) / SIZE


def framing_sentence(corners: object) -> str:
    """A sentence telling the people at the table to bring the camera closer where the board
    ``corners`` mark is small in the picture (``SMALL_CELL_PX``); "" where it is large enough."""
    px = cell_px(corners)
    if px >= SMALL_CELL_PX:
        return ""
    return (f"The board is small in the picture (cells about {px:.0f} pixels across, {SMALL_CELL_PX:.0f} "
            "or more read well): move the camera closer, or ask it for a larger picture "
            "(--camera-size 1920x1080).")
