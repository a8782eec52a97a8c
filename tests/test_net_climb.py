"""The turn network pulls a rough outline onto the grid (``vision.net_climb``)."""

from __future__ import annotations

import numpy as np
import pytest
from gridcells import cells_off

from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography, order_as_seen
from vision.net_climb import ClimbConfig, climb, net_odds
from vision.sim import random_spec, render


@pytest.fixture(scope="module")
def washed_out():
    """A hard classic view whose faint print the locator cannot place without the climb (seed 6148)."""
    return render(random_spec(6148, edition="classic", difficulty="hard"))


def off_grid(scene, moves_uv: np.ndarray) -> np.ndarray:
    """The true grid with its corners moved by ``moves_uv`` cells, as seen."""
    h = grid_homography(scene.corners.astype(np.float32))
    return order_as_seen(apply_homography(h, GRID_CORNERS_UV + moves_uv).astype(np.float32))


def test_an_outline_a_cell_off_is_climbed_onto_the_grid(washed_out):
    """Every corner about a cell off, each its own way, as the board network's outlines lie."""
    start = off_grid(washed_out, np.array([[-1.0, -0.5], [0.8, -1.0], [0.5, 0.8], [-0.8, 0.6]]))
    assert cells_off(start, washed_out.corners) >= 1.0
    corners, odds = climb(washed_out.frame, start)
    assert cells_off(corners, washed_out.corners) < 0.5
    assert odds > 4.0 > net_odds(washed_out.frame, start)


def test_a_grid_off_the_board_is_not_climbed_onto_it(washed_out):
    """Far off (whole grids away) the network sees no board anywhere near, so the corners stay
    where the log-odds stay low."""
    far = off_grid(washed_out, np.array([[12.0, 0.0]] * 4))
    _, odds = climb(washed_out.frame, far, ClimbConfig(steps_cells=(1.0,), max_rounds=2))
    assert odds < 0.0


def test_a_grid_that_cannot_be_rectified_has_no_odds(washed_out):
    point = np.full((4, 2), 100.0, np.float32)
    assert net_odds(washed_out.frame, point) == float("-inf")
