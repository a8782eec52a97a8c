"""How far a located grid lies from the true one, in cells: what the locator tests measure."""

from __future__ import annotations

import numpy as np

from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography


def cells_off(corners: np.ndarray, truth: np.ndarray) -> float:
    """Largest distance (cells, along either grid axis) of a corner from the true grid's, in
    whichever corner order fits best (the turn is the orientation's business, not the place's)."""
    uv = apply_homography(np.linalg.inv(grid_homography(np.asarray(truth, np.float32))), np.asarray(corners, float))
    return float(min(np.abs(np.roll(uv, k, 0) - GRID_CORNERS_UV).max() for k in range(4)))
