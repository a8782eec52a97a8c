"""Shared geometry of the printed grid: input checks, corner order, homographies, editions.

Conventions (see docs/ARCHITECTURE.md): images are ``(H, W, 3) uint8`` BGR (a few functions
also take ``(H, W)`` grayscale and say so); corners are ``(4, 2) float32`` image pixels of the
outer corners of the 10x10 grid. *Grid coordinates* ``(u, v)`` run in cells: ``u`` along a row
(0 at the left edge of column 0, 10 at the right edge of column 9), ``v`` down the columns, so
the corners are ``(0, 0) (10, 0) (10, 10) (0, 10)`` in the order TL, TR, BR, BL.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.layout import EDITIONS, SIZE

GRID_CORNERS_UV = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], dtype=np.float32)
"""Grid coordinates of the four outer corners, in the order TL, TR, BR, BL."""


NO_BOARD = "no board: "
"""How the locator begins a reason that no board is in the picture (then why); ``vision.detect``
says "board not found" in its place."""


@dataclass(frozen=True)
class GridFit:
    """Where the 10x10 grid is in a frame, or why it was not found (then it is falsy).

    ``corners`` is ``(4, 2) float32`` image pixels (order documented by the producer);
    ``score`` in [0, 1] says how well the printed lattice supports the fit; ``edition`` is
    ``"classic"`` or ``"jumbo"``; ``reason`` is empty on success and a one-line message on
    failure, in the style of scikit-image's ``FailedEstimation``.
    """

    corners: np.ndarray | None = None
    score: float = 0.0
    edition: str | None = None
    reason: str = ""
    details: dict = field(default_factory=dict, compare=False)

    def __bool__(self) -> bool:
        return self.corners is not None and not self.reason

    @classmethod
    def failed(cls, reason: str, **details: object) -> GridFit:
        """A falsy fit carrying ``reason``."""
        return cls(reason=reason, details=dict(details))


def edition_aspect(edition: str) -> float:
    """Width/height of the playing grid of ``edition``; ``ValueError`` naming it if unknown."""
    try:
        return EDITIONS[edition].grid_aspect
    except KeyError:
        names = ", ".join(EDITIONS)
        raise ValueError(f"unknown edition {edition!r}; expected one of: {names}") from None


def check_frame(frame: object, name: str = "frame", *, allow_gray: bool = True) -> np.ndarray:
    """Return ``frame`` as a uint8 array after checking it is an image; ``ValueError`` otherwise.

    Accepts ``(H, W, 3)`` BGR and, when ``allow_gray``, ``(H, W)`` grayscale. The message names
    the parameter and quotes the shape or type received.
    """
    if frame is None:
        raise ValueError(f"{name} is None; expected an (H, W, 3) uint8 BGR image")
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"{name} must be a NumPy array, got {type(frame).__name__}")
    if frame.size == 0:
        raise ValueError(f"{name} is empty (shape {frame.shape})")
    shapes = "(H, W, 3) BGR or (H, W) grayscale" if allow_gray else "(H, W, 3) BGR"
    ok = (frame.ndim == 3 and frame.shape[2] == 3) or (allow_gray and frame.ndim == 2)
    if not ok:
        raise ValueError(f"{name} must be {shapes}, got shape {frame.shape}")
    if frame.dtype != np.uint8:
        raise ValueError(f"{name} must be uint8, got dtype {frame.dtype}")
    if min(frame.shape[:2]) < 16:
        raise ValueError(f"{name} is too small to hold a board: shape {frame.shape}")
    return frame


NOT_IN_ORDER = "cross or fold over: they must go round the grid in order (TL, TR, BR, BL)"
"""What is wrong with four corners that are no convex quadrilateral, in words for the user."""


def check_corners(corners: object, name: str = "corners") -> np.ndarray:
    """Return ``corners`` as ``(4, 2) float32`` after checking it is a usable quadrilateral.

    Raises ``ValueError`` naming the parameter for a wrong shape, non-finite values, or a
    degenerate (self-crossing, collinear or tiny) quadrilateral.
    """
    if corners is None:
        raise ValueError(f"{name} is None; expected 4 (x, y) points")
    try:
        pts = np.asarray(corners, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 4 (x, y) points, got {corners!r}") from None
    if pts.shape != (4, 2):
        raise ValueError(f"{name} must have shape (4, 2), got shape {pts.shape}")
    if not np.isfinite(pts).all():
        raise ValueError(f"{name} must be finite numbers, got {pts.tolist()}")
    if not is_convex(pts):
        raise ValueError(f"{name} {NOT_IN_ORDER}: {pts.round(1).tolist()}")
    if abs(polygon_area(pts)) < 16.0:
        raise ValueError(f"{name} encloses almost no area: {pts.round(1).tolist()}")
    return pts.astype(np.float32)


FRAME_MARGIN = 0.5
"""Corners given by hand may lie off the picture (a board its edge cuts), by at most this
fraction of the picture's longer side; and the grid's centre must be in the picture."""


def off_the_picture(corners: object, size: tuple[int, int]) -> str:
    """Why four grid corners cannot be a board in a picture of ``size`` ``(width, height)``: a
    sentence naming the problem, or "" when they can (see ``FRAME_MARGIN``). Corners meant for
    another picture, or typed wrong, would otherwise read the picture's replicated edge as an
    empty board."""
    pts = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    w, h = size
    margin = FRAME_MARGIN * max(w, h)
    if (pts < -margin).any() or (pts[:, 0] > w + margin).any() or (pts[:, 1] > h + margin).any():
        return f"lie far outside the {w}x{h} picture"
    cx, cy = pts.mean(axis=0)
    if not (0 <= cx < w and 0 <= cy < h):
        return f"put the grid's centre outside the {w}x{h} picture"
    return ""


def check_corners_in(corners: object, size: tuple[int, int], name: str = "corners") -> np.ndarray:
    """``check_corners``, and also that the corners can be a board in a picture of ``size``
    ``(width, height)`` (``off_the_picture``); ``ValueError`` naming ``name`` otherwise."""
    pts = check_corners(corners, name)
    why = off_the_picture(pts, size)
    if why:
        raise ValueError(f"{name} {why}: {pts.round(1).tolist()}")
    return pts


def is_convex(points: object) -> bool:
    """Whether four ``(x, y)`` points, in order, turn the same way at every corner: a convex
    quadrilateral, neither folded (self-crossing) nor with three points on a line."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    edges = roll_rows(pts) - pts
    cross = edges[:, 0] * roll_rows(edges)[:, 1] - edges[:, 1] * roll_rows(edges)[:, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))


def polygon_area(pts: np.ndarray) -> float:
    """Signed area of a polygon given as ``(N, 2)`` points (positive when clockwise in image axes)."""
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * float(np.dot(x, roll_rows(y)) - np.dot(y, roll_rows(x)))


def mirrored(corners: np.ndarray) -> bool:
    """Whether canonical corners (TL, TR, BR, BL) run anticlockwise on screen: the picture shows
    the board mirrored, as a webcam set to mirror (a video call's self-view) delivers it."""
    return polygon_area(np.asarray(corners, dtype=np.float64).reshape(4, 2)) < 0.0


def mirror_points(points: np.ndarray, width: int) -> np.ndarray:
    """``(N, 2)`` pixel points of a ``width``-wide frame, where they lie in the frame flipped left
    to right (``cv2.flip(frame, 1)``); its own inverse."""
    pts = np.asarray(points, dtype=np.float32).reshape(-1, 2)
    return np.stack([(width - 1) - pts[:, 0], pts[:, 1]], axis=1)


def roll_rows(a: np.ndarray, start: int = 1) -> np.ndarray:
    """``np.roll(a, -start, axis=0)``, a copy beginning at row ``start``: without np.roll's
    generality, which costs more than the work on a 4-point quad (checked thousands of times
    per located frame)."""
    k = start % len(a) if len(a) else 0
    return np.concatenate([a[k:], a[:k]])


def order_as_seen(points: np.ndarray) -> np.ndarray:
    """Order 4 points TL, TR, BR, BL *as seen* in the image (clockwise on screen).

    The first point is the one lying most towards the upper-left from the centroid, so the
    order is stable for any rotation of the board. Returns ``(4, 2) float32``.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y points down)
    offsets = pts - centre
    up_left = (offsets @ np.array([-1.0, -1.0])) / np.maximum(np.linalg.norm(offsets, axis=1), 1e-9)
    return roll_rows(pts, int(np.argmax(up_left))).astype(np.float32)


def roll_corners(corners: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Corners with the start moved ``quarter_turns`` places along the order (a copy)."""
    return roll_rows(np.asarray(corners, dtype=np.float32), int(quarter_turns))


def grid_homography(corners: np.ndarray) -> np.ndarray:
    """3x3 homography taking grid coordinates ``(u, v)`` in cells to image pixels."""
    return cv2.getPerspectiveTransform(GRID_CORNERS_UV, np.asarray(corners, dtype=np.float32))


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(N, 2)`` points through ``h``; returns ``(N, 2)`` float64.

    A point on the horizon of ``h`` maps to infinity (inf or nan), silently: the search extends
    steep candidate grids past their horizon, and callers reject what does not land in the
    frame. (NumPy's warning would reach the user's terminal from ``detect``.)"""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=np.float64).T
    with np.errstate(divide="ignore", invalid="ignore"):
        return q[:, :2] / q[:, 2:3]


def canonical_size(edition: str, cell_px: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of a rectified grid of ``edition`` with cells ``cell_px`` tall."""
    return round(SIZE * cell_px * edition_aspect(edition)), SIZE * cell_px


def canonical_rect(edition: str, cell_px: int) -> np.ndarray:
    """Corners TL, TR, BR, BL of the rectified grid of ``edition`` (``(4, 2) float32``)."""
    w, h = canonical_size(edition, cell_px)
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)


_CELL_OFF_SIDES = np.array(
    [[dx, dy, dx, dy] for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1))]
    + [[s if i == k else 0 for i in range(4)] for k in range(4) for s in (-1, 1)],
    dtype=np.float32,
)
"""Moves ``(left, top, right, bottom)`` in cells of a grid's four sides: the whole grid shifted a
cell (eight ways), and each side alone moved a cell out or in (eight)."""


def grids_a_cell_off(corners: np.ndarray) -> np.ndarray:
    """``(16, 4, 2)`` float64: the grids ``corners`` (``(4, 2)``, TL TR BR BL as seen) would be a
    cell off, in its own perspective: shifted a cell any of eight ways, or one side a cell out or
    in. The placements a locator most often confuses with the board."""
    left, top, right, bottom = _CELL_OFF_SIDES.T
    uv = np.stack([np.stack([left, top], 1), np.stack([SIZE + right, top], 1),
                   np.stack([SIZE + right, SIZE + bottom], 1), np.stack([left, SIZE + bottom], 1)], 1)
    return apply_homography(grid_homography(corners), uv.reshape(-1, 2)).reshape(-1, 4, 2)


def grid_diagonal(corners: np.ndarray) -> float:
    """Mean length of the two diagonals of the grid quadrilateral, in pixels."""
    c = np.asarray(corners, dtype=np.float64)
    return 0.5 * float(np.linalg.norm(c[2] - c[0]) + np.linalg.norm(c[3] - c[1]))


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance between two corner sets, as a fraction of the true grid diagonal."""
    d = np.linalg.norm(np.asarray(found, np.float64) - np.asarray(truth, np.float64), axis=1)
    return float(d.max() / grid_diagonal(truth))


def shift_in_cells(corners: np.ndarray, other: np.ndarray, *, any_turn: bool = False) -> float:
    """How far apart two grids' corners lie at most, in cells of ``other`` (its mean side / 10);
    with ``any_turn``, whichever corner each starts from (where they lie, not how they turn)."""
    a, b = np.asarray(corners, np.float64), np.asarray(other, np.float64)
    cell_px = float(np.linalg.norm(roll_rows(b) - b, axis=1).mean()) / SIZE
    turns = range(4) if any_turn else (0,)
    return min(float(np.linalg.norm(roll_rows(a, k) - b, axis=1).max()) for k in turns) / cell_px


def moved_cells(a: np.ndarray, b: np.ndarray) -> float:
    """Largest corner move between two corner sets, in cells of ``b`` (its mean diagonal over
    10 sqrt 2). Near ``shift_in_cells``, which measures by the mean side: the locator's move limits
    were set with this one."""
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b), axis=1).max() / (grid_diagonal(b) / 14.14))


def move_in_nearer_cells(a: np.ndarray, b: np.ndarray) -> float:
    """How far the grid ``b`` ``(4, 2)`` lies from the grid ``a`` at its farthest corner, in
    cells of whichever of the two grids makes it nearer: an outline drawn over only part of the
    cards (a network's card area with a hole) has cells far smaller than the grid's, one drawn
    around the margin larger. (``moved_cells`` measures small moves in one mean cell.)"""
    a, b = (np.asarray(q, np.float64) for q in (a, b))
    return float(min(
        np.abs(apply_homography(np.linalg.inv(grid_homography(x.astype(np.float32))), y) - GRID_CORNERS_UV).max()
        for x, y in ((a, b), (b, a))
    ))


def metric_aspect(
    corners: np.ndarray, image_size: tuple[int, int], *, focal_prior: float = 0.8
) -> float:
    """Estimate width/height of the real rectangle imaged as ``corners`` (TL, TR, BR, BL).

    Assumes square pixels with the principal point at the image centre. The focal length comes
    from the two vanishing points (Zhang & He, whiteboard scanning) when they determine it,
    otherwise ``focal_prior`` times the long image side (a typical webcam). With the focal
    length ``K`` known, the homography ``H`` of the unit square gives the ratio as
    ``|K^-1 h1| / |K^-1 h2|``. ``image_size`` is ``(width, height)``.
    """
    c = np.asarray(corners, dtype=np.float64)
    scale = float(max(image_size))
    centred = (c - np.array([image_size[0] / 2.0, image_size[1] / 2.0])) / scale
    f2 = _focal_squared(centred)
    if f2 is None or not 0.3**2 <= f2 <= 3.0**2:
        f2 = focal_prior**2
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    h = cv2.getPerspectiveTransform(unit, centred.astype(np.float32))
    k_inv = np.diag([1.0 / np.sqrt(f2), 1.0 / np.sqrt(f2), 1.0])
    cols = k_inv @ h
    return float(np.linalg.norm(cols[:, 0]) / max(np.linalg.norm(cols[:, 1]), 1e-12))


def _focal_squared(centred: np.ndarray) -> float | None:
    """Squared focal length (in the same units as ``centred``) from a rectangle's image, or None."""
    p = np.hstack([centred, np.ones((4, 1))])
    m1, m2, m3, m4 = p[0], p[1], p[3], p[2]  # Zhang & He order: (0,0) (w,0) (0,h) (w,h)
    d2 = float(np.dot(np.cross(m2, m4), m3))
    d3 = float(np.dot(np.cross(m3, m4), m2))
    if abs(d2) < 1e-12 or abs(d3) < 1e-12:
        return None
    n2 = float(np.dot(np.cross(m1, m4), m3)) / d2 * m2 - m1
    n3 = float(np.dot(np.cross(m1, m4), m2)) / d3 * m3 - m1
    # Both vanishing points must be finite enough for the product below to mean anything.
    if abs(n2[2]) < 0.02 * np.linalg.norm(n2[:2]) or abs(n3[2]) < 0.02 * np.linalg.norm(n3[:2]):
        return None
    f2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / (n2[2] * n3[2])
    return float(f2) if np.isfinite(f2) else None


def guess_edition(corners: np.ndarray, image_size: tuple[int, int]) -> tuple[str, float]:
    """The edition whose grid aspect is closest to the measured one, and that aspect.

    The measured aspect is folded so that a board seen rotated by a quarter turn counts the
    same (orientation is decided later, from the print).
    """
    aspect = metric_aspect(corners, image_size)
    folded = max(aspect, 1.0 / max(aspect, 1e-9))
    best = min(EDITIONS, key=lambda name: abs(np.log(folded / EDITIONS[name].grid_aspect)))
    return best, aspect


def line_homography(
    k: np.ndarray, vertical: np.ndarray, img_pts: np.ndarray, threshold: float, iterations: int = 100, seed: int = 0
) -> np.ndarray | None:
    """Grid-to-image homography from image points known to lie on grid lines, robustly.

    Sample ``i`` lies on the grid line ``u = k[i]`` when ``vertical[i]`` and on ``v = k[i]``
    otherwise; where *along* its line it lies is not known. A point-to-point fit would have to
    assume it (and inherit the error of the rough grid the samples were taken with); here each
    sample constrains only the distance across its line, which is what a gap measurement gives.
    The image-to-grid map ``G`` is linear in these constraints (``G[0].p = k G[2].p``), so
    RANSAC draws 4 samples of each family, solves all draws at once (a batched 8x8 solve), and
    refits on the consensus by least squares. ``threshold`` is in cells (grid units). Returns
    ``(3, 3)`` float64 or None.
    """
    k = np.asarray(k, np.float64)
    vertical = np.asarray(vertical, bool)
    p = np.asarray(img_pts, np.float64).reshape(-1, 2)
    iv, ih = np.flatnonzero(vertical), np.flatnonzero(~vertical)
    if len(iv) < 4 or len(ih) < 4:
        return None
    mean = p.mean(axis=0)
    scale = np.sqrt(2.0) / max(float(np.linalg.norm(p - mean, axis=1).mean()), 1e-9)
    norm = np.array([[scale, 0, -scale * mean[0]], [0, scale, -scale * mean[1]], [0, 0, 1.0]])
    ph = np.c_[(p - mean) * scale, np.ones(len(p))]
    rows = np.zeros((len(p), 9))
    rows[vertical, 0:3] = ph[vertical]
    rows[~vertical, 3:6] = ph[~vertical]
    rows[:, 6:9] = -k[:, None] * ph

    def residual(g: np.ndarray) -> np.ndarray:  # (D, 9) -> (D, N) distance across the line, cells
        g = g.reshape(-1, 3, 3)
        w = g[:, 2] @ ph.T
        w = np.where(np.abs(w) < 1e-12, 1e-12, w)
        num = np.where(vertical, g[:, 0] @ ph.T, g[:, 1] @ ph.T)
        return np.abs(num / w - k)

    rng = np.random.default_rng(seed)
    # 4 different samples of each family per draw (a repeated one makes the system singular).
    draws = np.concatenate(
        [fam[rng.random((iterations, len(fam))).argsort(axis=1)[:, :4]] for fam in (iv, ih)], axis=1
    )
    # Each draw's null vector with G[2, 2] = 1 (the points are centred, so the middle of the
    # board maps to a finite grid point): a batched 8x8 solve, a tenth the cost of an SVD.
    a = rows[draws]
    try:
        g = np.linalg.solve(a[:, :, :8], -a[:, :, 8:])[..., 0]
        g = np.concatenate([g, np.ones((iterations, 1))], axis=1)
    except np.linalg.LinAlgError:  # a degenerate draw (samples on one line): the slow, safe way
        g = np.linalg.svd(a)[2][:, -1, :]
    fits = residual(g) < threshold
    inliers = fits[int(np.argmax(fits.sum(axis=1)))]
    for _ in range(3):  # refit on the consensus; it may grow as the fit improves
        if inliers[iv].sum() < 4 or inliers[ih].sum() < 4:
            return None
        picked = rows[inliers]
        g = np.linalg.eigh(picked.T @ picked)[1][:, 0]  # the least-squares null vector
        inliers = residual(g[None])[0] < threshold
    try:
        h = np.linalg.inv(g.reshape(3, 3) @ norm)
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(h).all() or abs(h[2, 2]) < 1e-12:
        return None
    return h / h[2, 2]


@functools.lru_cache(maxsize=16)
def window_index(shape: tuple[int, int]) -> tuple[tuple[int, int], np.ndarray]:
    """Every 10x10 window of an ``shape`` lattice as flat indices, ``(windows, 100)`` row-major,
    and the ``(rows, cols)`` of window offsets: one gather per call instead of a strided copy."""
    rows, cols = shape[0] - SIZE + 1, shape[1] - SIZE + 1
    offsets = (np.arange(rows)[:, None] * shape[1] + np.arange(cols)).reshape(-1, 1)
    cell = (np.arange(SIZE)[:, None] * shape[1] + np.arange(SIZE)).reshape(1, -1)
    index = offsets + cell
    index.setflags(write=False)
    return (rows, cols), index
