"""Where the grid's corners lie, seen from a rough outline of it: a small CNN.

The board network outlines the card area within about a cell on most frames, but on a small,
far or glare-washed board its outline can sit two or three cells inside or outside the cards.
The turn network's climb (``vision.net_climb``) only brings an outline home from about a cell
off: farther out, every grid it tries is equally "not the board". This network looks at the
frame around the outline (rectified with ``PAD`` cells to spare on every side, so the cards'
edge and the board's margin are in view) and says how far each of the grid's corners lies
from the outline's, in the outline's own cells. Applied twice it brings most such outlines
to within half a cell, where the climb and the locator's registration take over. Its answer
is only a proposal: the grid it gives is tested like any other.
Fitted by ``benchmarks/fit_corner_net.py`` (PyTorch, exported as ONNX) on rendered frames no
benchmark uses; run by OpenCV's ``dnn``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import GRID_CORNERS_UV, apply_homography, check_corners, grid_homography
from vision.onnx_net import OnnxNet
from vision.turn_net import standardised

MODEL_PATH = Path(__file__).with_name("corner_net.onnx")
PAD = 3
"""Cells of the frame kept around the outline on each side."""
CELL_PX = 6
"""Pixels per cell of the network's input."""
SIDE = (SIZE + 2 * PAD) * CELL_PX
"""Side of the network's input in pixels."""


def corner_input(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The network's input ``(3, SIDE, SIDE)`` float32 for the outline ``corners`` ``(4, 2)``
    (any consistent order) of ``frame``: the outline and ``PAD`` cells around it, rectified
    and standardised per channel. ValueError where ``corners`` enclose no area."""
    h = grid_homography(check_corners(corners))
    around = GRID_CORNERS_UV.astype(np.float64) * (SIZE + 2 * PAD) / SIZE - PAD
    outer = apply_homography(h, around).astype(np.float32)
    # The outline's corners at the input's pixel edges (not centres), so that turning the input
    # a quarter turn is exactly the same outline with its corners named from another one.
    edges = (GRID_CORNERS_UV * SIDE / SIZE - 0.5).astype(np.float32)
    warp = cv2.getPerspectiveTransform(outer, edges)
    grid = cv2.warpPerspective(frame, warp, (SIDE, SIDE), flags=cv2.INTER_AREA)
    return standardised(grid, SIDE).astype(np.float32)


class CornerNet(OnnxNet):
    """The fitted network, loaded from ONNX; ``offsets(frame, corners)`` of the grid's corners."""

    what = "corner network"
    model_path = MODEL_PATH

    def offsets(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """``(4, 2)`` float64: where the grid's corner nearest each of ``corners`` lies, less
        where that corner lies, in the outline's cell units (u along its first side)."""
        return self.run(corner_input(frame, corners)[None]).reshape(4, 2).astype(np.float64)

    def refine(self, frame: np.ndarray, corners: np.ndarray, rounds: int = 2) -> np.ndarray:
        """``corners`` ``(4, 2)`` moved where the network says the grid's corners lie, ``rounds``
        times (each look is closer, so sharper); ``(4, 2)`` float32 in the same order."""
        c = check_corners(corners).astype(np.float64)
        for _ in range(rounds):
            uv = GRID_CORNERS_UV + self.offsets(frame, c)
            c = apply_homography(grid_homography(c.astype(np.float32)), uv)
        return c.astype(np.float32)


@functools.cache
def load_corner_net(path: Path = MODEL_PATH) -> CornerNet:
    """The network at ``path``, read once per process."""
    return CornerNet(path)
