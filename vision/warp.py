"""Frame <-> rectified grid: the 10x10 playing grid resampled to fixed-size cells, and back.

The rectified grid image has ``SIZE`` rows of cells, each ``cell_h`` pixels tall and ``cell_w``
pixels wide, where ``cell_w / cell_h`` is the edition's cell aspect (square cells on the classic
board, wider than tall on the Jumbo mat), so a round chip stays round after rectification.
Corners are always the canonical outer corners of the grid (TL, TR, BR, BL; TL is the outer
corner of cell (0, 0)), in image pixels, as ``(4, 2)`` float arrays of ``(x, y)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import CORNERS, EDITIONS, SIZE
from vision.geometry import check_corners


@dataclass(frozen=True)
class WarpConfig:
    """Resolution of the rectified grid: cell height in pixels (the width follows the edition)."""

    cell_h: int = 32
    interpolation: int = cv2.INTER_LINEAR


SAME_ASPECT = 0.01
"""Relative difference of width/height under which two frame sizes show the same picture."""


def corners_in_frame(corners: object, size: tuple[int, int] | None, frame_shape: tuple[int, ...]) -> np.ndarray | None:
    """``corners`` noted in a frame of ``size`` ``(width, height)`` (None: this frame's), in the
    pixels of a frame of ``frame_shape`` ``(H, W, ...)``: scaled where the camera now delivers
    the same picture at another resolution; None where the picture's aspect differs (a camera
    crops its sensor differently per mode, so the corners do not carry over and the board must
    be found again)."""
    pts = check_corners(corners)
    if not size:
        return pts
    width, height = float(size[0]), float(size[1])
    frame_w, frame_h = float(frame_shape[1]), float(frame_shape[0])
    if abs((frame_w / frame_h) / (width / height) - 1.0) > SAME_ASPECT:
        return None
    return (pts * np.array([frame_w / width, frame_h / height], np.float32)).astype(np.float32)


def check_frame(frame: object) -> np.ndarray:
    """``frame`` as an ``(H, W, 3) uint8`` BGR array; ValueError naming what was received."""
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be a NumPy image array, got {type(frame).__name__}")
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame must be an (H, W, 3) uint8 BGR image, got {frame.shape} {frame.dtype}")
    if frame.shape[0] < 2 or frame.shape[1] < 2:
        raise ValueError(f"frame is empty ({frame.shape[1]}x{frame.shape[0]} pixels)")
    return frame


@dataclass(frozen=True)
class GridGeometry:
    """Pixel geometry of the rectified grid for one edition."""

    edition: str
    cell_h: int
    cell_w: int

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the rectified grid image, as OpenCV wants it."""
        return (self.cell_w * SIZE, self.cell_h * SIZE)

    @property
    def rect_corners(self) -> np.ndarray:
        """The grid's outer corners in rectified pixels, TL, TR, BR, BL, ``(4, 2)`` float32."""
        w, h = self.size
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)


def grid_geometry(edition: str, config: WarpConfig = WarpConfig()) -> GridGeometry:
    """Cell size in the rectified image for ``edition`` (``"classic"`` or ``"jumbo"``)."""
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
    aspect = EDITIONS[edition].grid_aspect
    return GridGeometry(edition, config.cell_h, round(config.cell_h * aspect))


def homography(corners: np.ndarray, geometry: GridGeometry) -> np.ndarray:
    """3x3 matrix mapping image pixels to rectified-grid pixels for these canonical corners."""
    return cv2.getPerspectiveTransform(check_corners(corners), geometry.rect_corners)


def warp_grid(
    frame: np.ndarray, corners: np.ndarray, geometry: GridGeometry, config: WarpConfig = WarpConfig()
) -> np.ndarray:
    """Rectified grid image ``(10*cell_h, 10*cell_w, 3) uint8`` BGR; row 0 of cells at the top."""
    matrix = homography(corners, geometry)
    return cv2.warpPerspective(
        frame, matrix, geometry.size, flags=config.interpolation, borderMode=cv2.BORDER_REPLICATE
    )


def cells_view(grid: np.ndarray, geometry: GridGeometry) -> np.ndarray:
    """View a rectified grid ``(10*h, 10*w, ...)`` as ``(10, 10, h, w, ...)`` (a copy only if needed)."""
    rest = grid.shape[2:]
    blocks = grid.reshape(SIZE, geometry.cell_h, SIZE, geometry.cell_w, *rest)
    return np.swapaxes(blocks, 1, 2)


def grid_to_image(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Map points in grid units (``(x, y)`` with 0..10 across the grid) to image pixels.

    ``points`` is ``(..., 2)``; the cell ``(r, c)`` spans x in ``[c, c+1]`` and y in ``[r, r+1]``.
    Used to draw overlays: the inverse of rectification, independent of the cell resolution.
    """
    unit = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(unit, check_corners(corners))
    pts = np.asarray(points, dtype=np.float32)
    flat = pts.reshape(-1, 1, 2)
    return cv2.perspectiveTransform(flat, matrix).reshape(pts.shape)


def cell_centres(corners: np.ndarray) -> np.ndarray:
    """Image position of every cell centre, ``(10, 10, 2)`` float32 ``(x, y)``."""
    idx = np.arange(SIZE, dtype=np.float32) + 0.5
    xs, ys = np.meshgrid(idx, idx)
    return grid_to_image(np.stack([xs, ys], axis=-1), corners)


def cells_outside(corners: np.ndarray, frame_shape: tuple[int, ...]) -> np.ndarray:
    """``(10, 10)`` bool: the cells of the grid ``corners`` whose centre lies outside a frame of
    ``frame_shape`` (``(H, W, ...)``), free corners aside (no chip is put there). A board found
    with a corner past the picture's edge is read there from pixels the camera never saw (the
    warp repeats the edge's): ``detect``, ``calibrate`` and the live tracker say which."""
    h, w = frame_shape[:2]
    centres = cell_centres(corners)
    x, y = centres[..., 0], centres[..., 1]
    outside = ~((x >= 0) & (x < w) & (y >= 0) & (y < h))
    outside[tuple(np.array(CORNERS).T)] = False
    return outside


def grid_lines(corners: np.ndarray) -> np.ndarray:
    """End points of the 11 + 11 grid lines in image pixels, ``(22, 2, 2)`` float32."""
    t = np.arange(SIZE + 1, dtype=np.float32)
    zeros, full = np.zeros_like(t), np.full_like(t, SIZE)
    horizontal = np.stack([np.stack([zeros, t], -1), np.stack([full, t], -1)], axis=1)
    vertical = np.stack([np.stack([t, zeros], -1), np.stack([t, full], -1)], axis=1)
    return grid_to_image(np.concatenate([horizontal, vertical]), corners)
