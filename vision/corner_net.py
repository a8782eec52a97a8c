"""Where the grid's corners lie, seen from a rough outline of it: a small CNN.

The board network outlines the card area within about a cell on most frames, but on a small,
far or glare-washed board its outline can sit two or three cells inside or outside the cards.
The turn network's climb (``vision.net_climb``) only brings an outline home from about a cell
off: farther out, every grid it tries is equally "not the board". This network looks at the
frame around the outline (rectified with three cells to spare on every side, so the cards'
edge and the board's margin are in view) and says how far each of the grid's corners lies
from the outline's, in the outline's own cells. Applied twice it brings most such outlines
to within half a cell, where the climb and the locator's registration take over. Its answer
is only a proposal: the grid it gives is tested like any other.
A second network of the same shape looks closer (a cell around the grid, 8 px a cell) and
takes a located grid the card gaps could not register from about a tenth of a cell off to
about a twentieth: each cell is then read where it is, not a few pixels aside.
Fitted by ``benchmarks/fit_corner_net.py`` (PyTorch, exported as ONNX) on rendered frames no
benchmark uses; run by ONNX Runtime.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import GRID_CORNERS_UV, apply_homography, check_corners, grid_homography
from vision.onnx_net import OnnxNet
from vision.turn_net import standardised


@dataclass(frozen=True)
class CornerView:
    """How much of the frame a corner network sees around an outline (fixed by the fitted model)."""

    pad: int
    """Cells of the frame kept around the outline on each side."""
    cell_px: int
    """Pixels per cell of the network's input."""

    @property
    def side(self) -> int:
        """Side of the network's input in pixels."""
        return (SIZE + 2 * self.pad) * self.cell_px


REACH = CornerView(pad=3, cell_px=6)
"""The network that brings outlines two or three cells off within a fraction of a cell."""
FINE = CornerView(pad=1, cell_px=8)
"""The network that brings a grid a fraction of a cell off onto the cards, finer."""
MODEL_PATHS = {REACH: Path(__file__).with_name("corner_net.onnx"),
               FINE: Path(__file__).with_name("corner_fine_net.onnx")}


def corner_input(frame: np.ndarray, corners: np.ndarray, view: CornerView = REACH) -> np.ndarray:
    """A network's input ``(3, side, side)`` float32 for the outline ``corners`` ``(4, 2)``
    (any consistent order) of ``frame``: the outline and ``view.pad`` cells around it,
    rectified and standardised per channel. ValueError where ``corners`` enclose no area."""
    h = grid_homography(check_corners(corners))
    around = GRID_CORNERS_UV.astype(np.float64) * (SIZE + 2 * view.pad) / SIZE - view.pad
    outer = apply_homography(h, around).astype(np.float32)
    # The outline's corners at the input's pixel edges (not centres), so that turning the input
    # a quarter turn is exactly the same outline with its corners named from another one.
    edges = (GRID_CORNERS_UV * view.side / SIZE - 0.5).astype(np.float32)
    warp = cv2.getPerspectiveTransform(outer, edges)
    grid = cv2.warpPerspective(frame, warp, (view.side, view.side), flags=cv2.INTER_AREA)
    return standardised(grid, view.side).astype(np.float32)


class CornerNet(OnnxNet):
    """The fitted network, loaded from ONNX; ``offsets(frame, corners)`` of the grid's corners."""

    what = "corner network"

    def __init__(self, path: Path | None = None, view: CornerView = REACH) -> None:
        super().__init__(MODEL_PATHS[view] if path is None else path)
        self.view = view

    def offsets(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """``(4, 2)`` float64: where the grid's corner nearest each of ``corners`` lies, less
        where that corner lies, in the outline's cell units (u along its first side)."""
        return self.run(corner_input(frame, corners, self.view)[None]).reshape(4, 2).astype(np.float64)

    def refine(self, frame: np.ndarray, corners: np.ndarray, rounds: int = 2) -> np.ndarray:
        """``corners`` ``(4, 2)`` moved where the network says the grid's corners lie, ``rounds``
        times (each look is closer, so sharper); ``(4, 2)`` float32 in the same order."""
        c = check_corners(corners).astype(np.float64)
        for _ in range(rounds):
            uv = GRID_CORNERS_UV + self.offsets(frame, c)
            c = apply_homography(grid_homography(c.astype(np.float32)), uv)
        return c.astype(np.float32)


@functools.cache
def load_corner_net(view: CornerView = REACH) -> CornerNet:
    """The shipped network for ``view``, read once per process."""
    return CornerNet(view=view)
