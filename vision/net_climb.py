"""Pull a rough outline of the board onto its grid by the turn network's own judgement.

On a washed-out, blurred or dim board the card gaps and the ink are too faint to register a
lattice on, so the locator's placements land a cell or two off the cards. The board network
still outlines the card area that far off, and the turn network (``vision.turn_net``), which
reads the layout from all hundred cells at once, is sure of a turn only where a grid lies on
the cards (within about a cell). Its log-odds of the best turn against "not the board here"
rise as a grid comes closer, so climbing them corner by corner, in steps of a cell and then
finer, brings such an outline to within a fraction of a cell: near enough for the locator's
own registration and tests to take over.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import GRID_CORNERS_UV, apply_homography, check_corners, grid_homography
from vision.orient import ink_lattice
from vision.turn_net import NOT_PLACED, SIDE, load_turn_net, turn_input


@dataclass(frozen=True)
class ClimbConfig:
    """How far and how finely the corners are moved."""

    steps_cells: tuple[float, ...] = (1.0, 0.5, 0.25)
    """Step sizes, in cells of the grid where the corner lies, coarsest first."""
    max_rounds: int = 6
    """Most rounds over the four corners at one step size (a round with no gain ends it)."""


def net_odds(frame: np.ndarray, corners: np.ndarray) -> float:
    """The turn network's log-odds of its likeliest turn against "not the board here" for the
    grid ``corners`` ``(4, 2)`` of ``frame``; -inf where they are no convex quadrilateral (no
    view of a grid: a climb must not fold one over)."""
    try:
        grid = ink_lattice(frame, check_corners(corners), SIDE // SIZE, SIZE)
    except (ValueError, cv2.error):
        return float("-inf")
    logits = load_turn_net().run(turn_input(grid)).ravel()
    return float(logits[:NOT_PLACED].max() - logits[NOT_PLACED])


def climb(frame: np.ndarray, corners: np.ndarray, config: ClimbConfig = ClimbConfig()) -> tuple[np.ndarray, float]:
    """Move each corner of ``corners`` ``(4, 2)`` (any consistent order) a step along either
    side of the grid where it lies while that raises ``net_odds``; the corners reached
    ``(4, 2) float32`` and their log-odds."""
    c = np.asarray(corners, np.float64).copy()
    best = net_odds(frame, c)
    for step in config.steps_cells:
        for _ in range(config.max_rounds):
            moved = False
            for i in range(4):
                h = grid_homography(c.astype(np.float32))
                here, along_u, along_v = apply_homography(h, GRID_CORNERS_UV[i] + np.array([[0, 0], [1, 0], [0, 1]]))
                tried = []
                for d in (along_u - here, here - along_u, along_v - here, here - along_v):
                    moved_c = c.copy()
                    moved_c[i] += step * d
                    tried.append((net_odds(frame, moved_c), moved_c))
                odds, where = max(tried, key=lambda t: t[0])
                if odds > best:
                    best, c, moved = odds, where, True
            if not moved:
                break
    return c.astype(np.float32), best
