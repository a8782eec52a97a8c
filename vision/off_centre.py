"""Where a coloured chip put down off its card's centre has its middle (``chip_middles``).

The cell reader looks for a chip about each cell's centre; one a quarter of a cell or more off
shows half a disc there. Its middle is found here, from the frame's colour alone, so the cell
can be read again about it (``vision.classify.CellReader``).
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.layout import SIZE
from vision.cells import N_CELLS
from vision.reader_config import ReaderConfig
from vision.warp import GridGeometry


def chip_middles(a: np.ndarray, b: np.ndarray, hues: np.ndarray, chroma_floor: np.ndarray, geom: GridGeometry,
                 cfg: ReaderConfig) -> np.ndarray:
    """Where a coloured chip's middle lies in each cell, and of which colour: ``(100, 3)`` float32,
    pixels down and across from the cell's centre and the index into ``hues`` (the chip colours'
    Lab hue angles, degrees); 0, 0, -1 where none does (the widest, where several do). ``a``,
    ``b``: the white-balanced Lab planes of the rectified grid. A pixel is taken for a chip's face
    where its hue is within ``off_centre_hue`` of a colour's and its chroma at least that colour's
    ``chroma_floor``.

    A chip put down off centre still shows a disc of its colour. In the regions of chip-like
    chroma, split by the nearest chip hue (a red chip lying over a yellow one leaves two), a
    disc's middle is the point farthest from the region's edge: a local peak of the distance to
    it, at least ``off_centre_inset`` deep (print strokes and pips are narrower), at most
    ``off_centre_depth`` (a box is wider), and a peak every way, not a ridge (``_peaked``: an arm,
    a sleeve, a finger). Two chips of one team touching (a line put down carelessly) make one
    region with two peaks. A middle belongs to the cell it lies in, so a chip reaching into its
    neighbour is counted in one cell only. Looked at every second pixel each way: a middle is
    still placed to a pixel or two, within the rim search.
    """
    h, w = geom.cell_h, geom.cell_w
    out = np.zeros((N_CELLS, 3), np.float32)
    out[:, 2] = -1
    if len(hues) == 0:
        return out
    s = 2  # (the pixel step)
    side = min(h, w) / s
    apart = max(1, round(cfg.off_centre_apart * side))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * apart + 1, 2 * apart + 1))
    chroma, angle = cv2.cartToPolar(np.ascontiguousarray(a[::s, ::s]), np.ascontiguousarray(b[::s, ::s]),
                                    angleInDegrees=True)
    # Each pixel's nearest chip hue, 1-based (0: not coloured enough to be a chip's face).
    nearest = cv2.LUT(cv2.convertScaleAbs(angle, alpha=255.0 / 360.0), _hue_lookup(hues, cfg.off_centre_hue))
    floors = np.full(256, np.inf, np.float32)
    floors[1 : len(hues) + 1] = chroma_floor
    floor = cv2.LUT(nearest, floors)
    nearest = cv2.bitwise_and(nearest, cv2.compare(chroma, floor, cv2.CMP_GT))
    # (A chip's moulded ring and highlight leave thin greyer lines across its face.)
    nearest = cv2.medianBlur(nearest, 3)
    # How deep each pixel lies in its colour's region: the distance to where the colour changes
    # (one distance transform for every colour; the change itself is a pixel wide), and to the
    # grid's edge (where chips are sought: a chip pushed half over it is still found) or not
    # (where their outline is judged: an arm reaching in from the table goes on past it).
    open_depth = _depth(nearest)
    nearest = cv2.copyMakeBorder(nearest, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    depth = _depth(nearest)
    coarse = cv2.convertScaleAbs(depth, alpha=8.0)  # (in eighths of a pixel: uint8 dilates far faster)
    peak = cv2.bitwise_and(cv2.compare(coarse, cv2.dilate(coarse, kernel), cv2.CMP_GE),
                           cv2.inRange(depth, cfg.off_centre_inset * side, cfg.off_centre_depth * side))
    ys, xs = np.nonzero(peak)  # (a plateau's pixels all lie in one cell, or near its edge)
    colour = nearest[ys, xs]
    reach = cfg.off_centre_reach * side
    round_ = _peaked(open_depth, ys - 1, xs - 1, reach) >= cfg.off_centre_fall * reach
    x, y, deep, colour = xs[round_], ys[round_], depth[ys, xs][round_], colour[round_].astype(np.float32) - 1
    if deep.size == 0:
        return out
    order = np.argsort(deep)  # the widest last, so it is the one its cell keeps
    x, y = (x[order] - 1) * s + (s - 1) / 2, (y[order] - 1) * s + (s - 1) / 2  # (back from the border and step)
    row = np.clip(y // h, 0, SIZE - 1).astype(np.intp)
    col = np.clip(x // w, 0, SIZE - 1).astype(np.intp)
    # (pixel i is centred at i + 0.5, a cell's centre at h / 2 from its edge)
    out[row * SIZE + col] = np.stack([y - row * h - (h - 1) / 2, x - col * w - (w - 1) / 2, colour[order]], axis=1)
    return out


def _depth(labels: np.ndarray) -> np.ndarray:
    """Each pixel's distance (plus one) to where ``labels`` (uint8, 0: none) change, ``float32``;
    1 where the label is 0. The image's own edge is no change."""
    change = cv2.morphologyEx(labels, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    inside = cv2.bitwise_and(cv2.compare(change, 0, cv2.CMP_EQ), cv2.compare(labels, 0, cv2.CMP_GT))
    return cv2.distanceTransform(inside, cv2.DIST_L2, 3) + np.float32(1.0)


def _peaked(depth: np.ndarray, ys: np.ndarray, xs: np.ndarray, reach: float) -> np.ndarray:
    """How far ``depth`` falls ``reach`` pixels away from each point (``ys``, ``xs``), at the
    least, over four lines through it (whichever way along a line falls more), ``(points,)``:
    about ``reach`` at a disc's middle (the depth falls every way), nothing on the ridge of a
    strip (an arm, a finger, a mug's rim: along it the depth stays). A chip of the same team
    touching this one holds the depth up one way only."""
    angle = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    height, width = depth.shape
    y = np.clip(np.rint(ys[:, None] + reach * np.sin(angle)), 0, height - 1).astype(np.intp)
    x = np.clip(np.rint(xs[:, None] + reach * np.cos(angle)), 0, width - 1).astype(np.intp)
    fall = depth[ys, xs][:, None] - depth[y, x]
    return np.maximum(fall[:, :4], fall[:, 4:]).min(axis=1)  # (opposite ways lie 4 apart)


def _hue_lookup(hues: np.ndarray, within: float) -> np.ndarray:
    """``cv2.LUT`` table ``(256,)`` uint8 from a hue angle scaled to 0..255 to the 1-based index of
    the nearest of ``hues`` (degrees), 0 where none is within ``within`` degrees."""
    angle = np.arange(256) * 360.0 / 255.0
    apart = np.abs((angle[:, None] - np.asarray(hues, np.float64)[None, :] + 180.0) % 360.0 - 180.0)
    return np.where(apart.min(axis=1) <= within, apart.argmin(axis=1) + 1, 0).astype(np.uint8)
