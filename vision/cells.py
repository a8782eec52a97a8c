"""The board's cells in the flat, row-major form the reader gathers them in (cell ``r * 10 + c``).

Masks of what is printed where, each cell's 3x3 neighbourhood and the five-in-a-row windows,
derived once from the engine's layout and windows (``engine.layout``, ``engine.sequences``), so
every vision module that needs them reads the same arrays.
"""

from __future__ import annotations

import numpy as np

from engine.layout import CORNERS, COURT_MAP, INK_MAP, SIZE
from engine.sequences import WINDOWS

N_CELLS = SIZE * SIZE
CORNER_MASK = np.array([[(r, c) in CORNERS for c in range(SIZE)] for r in range(SIZE)])
"""The four printed free corners, ``(10, 10)`` bool."""
COURT_MASK = np.array(COURT_MAP, dtype=bool)
"""Cells printed with a Queen or King (colourful art), ``(10, 10)`` bool."""
RED_PRINT_MASK = np.array([[ink == "red" for ink in row] for row in INK_MAP], dtype=bool)
"""Cells printed in red ink (hearts and diamonds), ``(10, 10)`` bool."""


def _neighbour_index() -> np.ndarray:
    """For each cell (row-major), its 3x3 neighbourhood's cells with edges replicated, ``(100, 9)``."""
    rows, cols = np.divmod(np.arange(N_CELLS), SIZE)
    steps = np.array([-1, 0, 1])
    ny = np.clip(rows[:, None, None] + steps[None, :, None], 0, SIZE - 1)
    nx = np.clip(cols[:, None, None] + steps[None, None, :], 0, SIZE - 1)
    return (ny * SIZE + nx).reshape(N_CELLS, 9)


NEIGHBOURS = _neighbour_index()
"""``(100, 9)`` flat indices of each cell's 3x3 neighbourhood, edges replicated."""
WINDOW_CELLS = np.array([[r * SIZE + c for r, c in window] for window in WINDOWS], dtype=np.intp)
"""``(192, 5)`` flat cell indices of every five-in-a-row window (the engine's ``WINDOWS``)."""
