"""Draw a reading on the frame: the grid, the (0, 0) corner, and each cell's label.

This is the first thing a user looks at when a reading is off, so it shows exactly what the
reader decided: a ring in the chip's colour, a dot for an empty cell, low-confidence cells
ringed, the cells glare blinded outlined in amber, and the TL corner (cell (0, 0)) marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import check_corners
from vision.warp import cell_centres, grid_lines, grid_to_image

LABEL_BGR: dict[str, tuple[int, int, int]] = {
    "blue": (230, 90, 20),
    "green": (60, 170, 30),
    "red": (40, 40, 220),
    "yellow": (0, 215, 255),
    "flipped": (255, 255, 255),
    "empty": (160, 160, 160),
    "free": (200, 0, 200),
    "unknown": (0, 140, 255),
}
"""Drawing colour of each label (BGR): for the eye only, unrelated to any colour model."""


@dataclass(frozen=True)
class OverlayStyle:
    """Line widths and the confidence under which a cell is outlined as doubtful."""

    grid_bgr: tuple[int, int, int] = (0, 255, 255)
    origin_bgr: tuple[int, int, int] = (255, 0, 255)
    doubtful_bgr: tuple[int, int, int] = (0, 0, 255)
    doubtful_below: float = 0.6
    glare_bgr: tuple[int, int, int] = (0, 165, 255)
    """Outline of a cell glare blinded (``vision.glare``), over a dark edge: glare leaves the
    board white, so neither white nor yellow would show."""
    chip_radius: float = 0.3
    """Ring radius as a fraction of the local cell size."""


def draw_overlay(
    frame: np.ndarray,
    corners: np.ndarray,
    labels: Sequence[Sequence[str]] | None = None,
    confidence: np.ndarray | None = None,
    *,
    glare: np.ndarray | None = None,
    style: OverlayStyle = OverlayStyle(),
) -> np.ndarray:
    """A copy of ``frame`` (``(H, W, 3)`` uint8 BGR) with grid, origin and labels drawn on it;
    the cells of ``glare`` (``(10, 10)`` bool, ``Detection.glare``) outlined."""
    out = frame.copy()
    corners = check_corners(corners)
    scale = max(1, round(max(frame.shape[:2]) / 800))
    for p0, p1 in np.rint(grid_lines(corners)).astype(int).tolist():
        cv2.line(out, tuple(p0), tuple(p1), style.grid_bgr, scale, cv2.LINE_AA)
    origin = grid_to_image(np.array([[0.0, 0.0], [1.0, 1.0]]), corners)
    o = tuple(np.rint(origin[0]).astype(int).tolist())
    cv2.circle(out, o, 6 * scale, style.origin_bgr, -1, cv2.LINE_AA)
    cv2.putText(out, "(0,0)", (o[0] + 8 * scale, o[1] - 8 * scale), cv2.FONT_HERSHEY_SIMPLEX,
                0.5 * scale, style.origin_bgr, scale, cv2.LINE_AA)
    if glare is not None:
        for r, c in np.argwhere(np.asarray(glare, dtype=bool)):
            square = np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32)
            cell = np.rint(grid_to_image(square, corners)).astype(np.int32)
            cv2.polylines(out, [cell], True, (0, 0, 0), scale + 2, cv2.LINE_AA)
            cv2.polylines(out, [cell], True, style.glare_bgr, scale, cv2.LINE_AA)
    if labels is None:
        return out
    centres = cell_centres(corners)
    # local cell size: distance between neighbouring centres along the row
    right = grid_to_image(
        np.stack(np.meshgrid(np.arange(SIZE) + 1.5, np.arange(SIZE) + 0.5), -1).astype(np.float32), corners
    )
    sizes = np.linalg.norm(right - centres, axis=-1)
    centres_px = np.rint(centres).astype(int).tolist()
    radii = np.maximum(2, np.rint(style.chip_radius * sizes).astype(int)).tolist()
    for r in range(SIZE):
        for c in range(SIZE):
            label = str(labels[r][c])
            centre = tuple(centres_px[r][c])
            radius = radii[r][c]
            colour = LABEL_BGR.get(label, LABEL_BGR["unknown"])
            if label in ("empty", "free"):
                cv2.circle(out, centre, max(2, radius // 5), colour, -1, cv2.LINE_AA)
            else:
                cv2.circle(out, centre, radius, (0, 0, 0), 2 * scale + 2, cv2.LINE_AA)
                cv2.circle(out, centre, radius, colour, 2 * scale, cv2.LINE_AA)
            if confidence is not None and float(confidence[r][c]) < style.doubtful_below:
                cv2.circle(out, centre, radius + 3 * scale, style.doubtful_bgr, scale, cv2.LINE_AA)
    return out
