"""Bring a grid's corners the last fraction of a cell onto the cards: fitted to the card gaps
(``gap_fit``, sub-pixel where the camera resolves them), or where the gaps do not register
(blurred, washed out) moved where the fine corner network sees the corners.

Used to finish a located grid (``vision.locate``), to snap corners a person gave
(``settle_corners``) and corners matched on an empty-board reference (``refine_corners``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.corner_net import FINE, CornerView, load_corner_net
from vision.geometry import (
    GRID_CORNERS_UV,
    apply_homography,
    check_frame,
    grid_homography,
    moved_cells,
    order_as_seen,
)
from vision.lattice import refine_grid_homography
from vision.locate_config import LocateConfig


def settle_corners(frame: np.ndarray, corners: np.ndarray, config: LocateConfig = LocateConfig()) -> np.ndarray:
    """A grid's ``corners`` ``(4, 2)`` (any order) brought the last fraction of a cell onto the
    cards, as a located grid is finished: fitted to the card gaps, or where the gaps do not
    register it (blurred, washed out), moved where the fine corner network sees the corners.
    Neither moves a corner farther than ``max_refine_move_cells`` / ``polish_max_move``."""
    frame = check_frame(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seen = order_as_seen(corners)
    settled = np.asarray(settle_seen(frame, gray, seen, config), np.float32)
    given = np.asarray(corners, np.float32).reshape(4, 2)
    return settled[[int(np.argmin(np.linalg.norm(seen - p, axis=1))) for p in given]]


def refine_corners(frame: np.ndarray, corners: np.ndarray, config: LocateConfig = LocateConfig()) -> np.ndarray:
    """``corners`` (any order) moved onto the card-gap lattice near them, sub-pixel, when enough
    gaps agree; else unchanged. For corners found another way (an empty-board reference's
    feature match is a few pixels off, which the cell reader's comparisons cannot absorb)."""
    frame = check_frame(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    refined, _, _ = gap_fit(gray, corners, config)
    return np.asarray(corners if refined is None else refined, dtype=np.float32)


def settle_seen(frame: np.ndarray, gray: np.ndarray, corners: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``settle_corners`` for corners as seen, the frame's grey already made."""
    again, _, _ = gap_fit(gray, corners, config)
    return again if again is not None else _polished(frame, corners, config)


def _polished(frame: np.ndarray, corners: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``corners`` ``(4, 2)`` moved where the fine corner network (``vision.corner_net.FINE``)
    sees the grid's corners after ``polish_looks`` looks; as they were where it moves one
    farther than ``polish_max_move`` cells (it is then not looking at this grid) or fails."""
    moved = corner_net_look(frame, corners, FINE, config.polish_looks)
    if moved is None or moved_cells(moved, corners) > config.polish_max_move:
        return corners
    return moved


def corner_net_look(frame: np.ndarray, corners: np.ndarray, view: CornerView, looks: int) -> np.ndarray | None:
    """``corners`` ``(4, 2)`` where the corner network for ``view`` sees the grid's after
    ``looks`` looks; None where it is not asked (``looks`` 0) or gives no grid."""
    if looks <= 0:
        return None
    try:
        moved = load_corner_net(view).refine(frame, corners, looks)
    except (ValueError, cv2.error):
        return None
    return moved if np.all(np.isfinite(moved)) else None


def gap_fit(
    gray: np.ndarray, corners: np.ndarray, config: LocateConfig
) -> tuple[np.ndarray | None, np.ndarray | None, float]:
    """Fit the card-gap lattice near ``corners``: the fitted corners as usually trusted
    (``gap_accept`` support, a move of at most ``max_refine_move_cells``) or None, the same
    corners under the looser far limits (``placed_gap_support``, ``max_placed_move_cells``;
    to be kept only when checked otherwise) or None, and the support."""
    # Whole-cell shifts are settled by the ink pattern afterwards, not by the gaps.
    fit = refine_grid_homography(gray, grid_homography(np.asarray(corners, np.float32)), config, test_shifts=False)
    if fit is None:
        return None, None, 0.0
    refined, support = apply_homography(fit[0], GRID_CORNERS_UV), float(fit[1])
    moved = moved_cells(refined, corners)
    near = refined if support >= config.gap_accept and moved <= config.max_refine_move_cells else None
    far = refined if support >= config.placed_gap_support and moved <= config.max_placed_move_cells else None
    return near, far, support
