"""A pinhole camera looking at the table plane, and the homographies that follow from it.

World coordinates are in *cell heights*, origin at the centre of the 10x10 grid, X along
the columns, Y along the rows (down), Z into the table (a hand above the board has Z < 0).
A board bump is a rigid motion of the board inside the table plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.layout import EDITIONS, SIZE


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is, as the seeded spec states it (angles in degrees)."""

    tilt: float  # 0 = straight down; the far rows shrink as it grows
    roll: float  # in-plane rotation of the board in the image
    yaw: float  # small sideways pan
    fov: float  # horizontal field of view
    fill: float  # largest side of the board's bounding box / that side of the frame
    centre: tuple[float, float]  # where the board sits in the free space, 0..1 each way


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def bump_matrix(shift: tuple[float, float], rot_deg: float) -> np.ndarray:
    """3x3 rigid motion of the board in the table plane (cells, degrees)."""
    a = np.deg2rad(rot_deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, shift[0]], [s, c, shift[1]], [0, 0, 1]])


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``K`` (with the image shift folded in), rotation ``R``, translation ``t``."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 2) image pixels (pixel centres at integers)."""
        cam = pts @ self.R.T + self.t
        uvw = cam @ self.K.T
        return uvw[:, :2] / uvw[:, 2:3]

    def plane_homography(self) -> np.ndarray:
        """3x3 map from the table plane (X, Y, 1) to image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]


def grid_half_extent(edition: str) -> tuple[float, float]:
    """Half width and half height of the 10x10 grid, in cell heights."""
    return SIZE * EDITIONS[edition].grid_aspect / 2, SIZE / 2


def make_camera(pose: CameraPose, size: tuple[int, int], board_outline: np.ndarray) -> Camera:
    """Place the camera so ``board_outline`` ((N, 2) plane points) fills ``pose.fill`` of the frame.

    The distance is solved for the fill fraction, then the image is shifted so the board sits
    at ``pose.centre`` inside the space it leaves free (always wholly inside the frame).
    """
    w, h = size
    f = (w / 2) / np.tan(np.deg2rad(pose.fov) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    R = _rot_y(np.deg2rad(pose.yaw)) @ _rot_x(-np.deg2rad(pose.tilt)) @ _rot_z(np.deg2rad(pose.roll))
    pts = np.column_stack([board_outline, np.zeros(len(board_outline))])
    dist = 30.0
    for _ in range(6):  # apparent size ~ 1 / distance: converges in a few steps
        cam = Camera(K, R, np.array([0, 0, dist]), size)
        uv = cam.project(pts)
        span = uv.max(0) - uv.min(0)
        frac = max(span[0] / w, span[1] / h)
        dist *= frac / pose.fill
    cam = Camera(K, R, np.array([0, 0, dist]), size)
    uv = cam.project(pts)
    lo, hi = uv.min(0), uv.max(0)
    free = np.array([w - 1, h - 1]) - (hi - lo)
    target = free * np.clip(np.array(pose.centre), 0, 1)
    shift = target - lo
    T = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]])
    return Camera(T @ K, R, cam.t, size)
