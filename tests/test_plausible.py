"""Whether four corners could be a photographed grid: shape, size, view and aspect."""

import numpy as np

from vision.locate_config import LocateConfig
from vision.plausible import implausibility

FRAME = (1280, 720)
SQUARE = np.array([[440.0, 160.0], [840.0, 160.0], [840.0, 560.0], [440.0, 560.0]])
# A strip of a plank table that the turn network once vouched for: convex, big enough, in view.
SLIVER = np.array([[488.0, 1065.0], [514.0, 930.0], [530.0, 1148.0], [517.0, 1209.0]])


def test_a_square_grid_in_view_is_plausible_under_any_aspect_bound():
    config = LocateConfig()
    assert implausibility(SQUARE, FRAME, config) is None
    assert implausibility(SQUARE, FRAME, config, max_aspect=config.sliver_aspect) is None


def test_a_sliver_is_not_the_boards_shape_even_under_the_loose_bound():
    config = LocateConfig()
    size = (535, 1280)
    assert implausibility(SLIVER, size, config, aspect=False) is None  # shape and size alone pass it
    why = implausibility(SLIVER, size, config, max_aspect=config.sliver_aspect)
    assert why == "the grid it found is not the board's shape"


def test_a_grid_between_the_bounds_passes_only_the_loose_one():
    config = LocateConfig()
    wide = np.array([[140.0, 260.0], [1140.0, 260.0], [1140.0, 660.0], [140.0, 660.0]])  # 2.5:1 seen square-on
    assert config.max_aspect < 2.5 < config.sliver_aspect
    assert implausibility(wide, FRAME, config) == "the grid it found is not the board's shape"
    assert implausibility(wide, FRAME, config, max_aspect=config.sliver_aspect) is None
