"""Whether the camera shows the board large enough to read (``vision.framing``)."""

import numpy as np

from vision.framing import SMALL_CELL_PX, cell_px, framing_sentence


def _grid(side_px: float, squash: float = 1.0) -> np.ndarray:
    """Corners of a grid ``side_px`` wide, its far side ``squash`` times as wide (a tilted view)."""
    top = side_px * squash
    return np.array([[100 + (side_px - top) / 2, 50], [100 + (side_px + top) / 2, 50],
                     [100 + side_px, 50 + side_px], [100, 50 + side_px]], dtype=np.float32)


def test_cells_are_measured_along_the_grids_shortest_side():
    assert cell_px(_grid(300)) == 30.0
    assert cell_px(_grid(300, squash=0.5)) == 15.0  # the far row, seen from an angle, is what blurs first


def test_only_a_board_small_in_the_picture_gets_advice():
    assert framing_sentence(_grid(10 * SMALL_CELL_PX + 5)) == ""
    advice = framing_sentence(_grid(130))
    assert "cells about 13 pixels" in advice and "move the camera closer" in advice
