"""Re-find the grid from an empty-board reference: local features + RANSAC homography.

Calibration keeps one frame of the empty board with its canonical corners. Later frames are
matched to it (ORB keypoints and binary descriptors, ratio test, RANSAC homography); the
reference corners mapped through the homography are the grid's corners in the new frame,
already in canonical order. Chips, hands and objects only remove matches: the printed
margin, the card faces left uncovered and the board edge carry it, so it survives heavy
occlusion, and a bump of the board or camera is absorbed. ORB is used because it is several
times faster than AKAZE or SIFT at this size with the same hit rate (``benchmarks/locate_accuracy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.geometry import (
    GridFit,
    apply_homography,
    check_corners,
    check_frame,
    edition_aspect,
    grid_diagonal,
    is_convex,
    polygon_area,
)


@dataclass(frozen=True)
class ReferenceConfig:
    """Feature extraction and matching settings shared by ``Reference.build`` and ``relocate``."""

    work_long_side: int = 800
    """Longest side of the image features are taken from (a crop around the board when possible)."""
    features: int = 1500
    fast_threshold: int = 12
    mask_pad: float = 0.25
    search_pad: float = 0.6
    gate: float = 0.15
    """First pass: matches must land within this fraction of the grid diagonal of their old place."""
    """First look for the board within its reference place grown by this fraction."""
    """The reference keeps features within the grid grown by this fraction (the printed margin)."""
    ratio: float = 0.8
    """Lowe's ratio test for the best versus second-best match."""
    ransac_px: float = 3.0
    """RANSAC reprojection threshold at the working scale."""
    min_inliers: int = 15
    min_spread: float = 0.12
    """The agreeing features must span at least this fraction of the grid's area."""
    full_inliers: int = 150
    """Inlier count that earns a score of 1."""
    max_area_change: float = 3.0
    """Reject a homography that changes the grid's area by more than this factor."""
    seed: int = 0


@dataclass(frozen=True)
class Reference:
    """An empty-board frame reduced to what relocation needs.

    ``corners`` are canonical (TL = outer corner of cell (0, 0)) in pixels of the original
    reference frame; ``points`` ``(N, 2) float32`` and ``descriptors`` ``(N, 32) uint8`` are the
    ORB keypoints (in original-frame pixels) inside the board area.
    """

    corners: np.ndarray
    edition: str
    points: np.ndarray
    descriptors: np.ndarray
    size: tuple[int, int]
    config: ReferenceConfig = field(default_factory=ReferenceConfig)

    @classmethod
    def build(
        cls,
        empty_frame: np.ndarray,
        corners: np.ndarray,
        *,
        edition: str,
        config: ReferenceConfig = ReferenceConfig(),
    ) -> Reference:
        """Extract the board's features from ``empty_frame`` (``(H, W, 3)`` BGR or ``(H, W)`` gray).

        ``corners`` are the canonical outer grid corners in that frame. Raises ``ValueError``
        for bad inputs or when the board area has too little texture to match against.
        """
        frame = check_frame(empty_frame, "empty_frame")
        corners = check_corners(corners)
        edition_aspect(edition)
        gray = _gray(frame)
        view = _View.around(gray, corners, config.mask_pad, config.work_long_side)
        mask = view.mask(corners, config.mask_pad)
        points, descriptors = _features(view.image, mask, config)
        if len(points) < config.min_inliers:
            raise ValueError(
                f"empty_frame: only {len(points)} features on the board (need {config.min_inliers}); "
                "is the board in view and in focus?"
            )
        return cls(
            corners.astype(np.float32),
            edition,
            view.to_frame(points).astype(np.float32),
            descriptors,
            (frame.shape[1], frame.shape[0]),
            config,
        )


def relocate(frame: np.ndarray, ref: Reference) -> GridFit:
    """Find the grid of ``ref`` in ``frame`` (``(H, W, 3)`` BGR or ``(H, W)`` gray).

    Returns a ``GridFit`` with canonical corners (``(4, 2) float32`` pixels of ``frame``), a
    score from the inlier count, and ``details`` (``inliers``, ``matches``); falsy with a reason
    when too few features agree. Raises ``ValueError`` only for a bad frame or reference.
    """
    frame = check_frame(frame)
    if not isinstance(ref, Reference):
        raise ValueError(f"ref must be a vision.reference.Reference, got {type(ref).__name__}")
    config = ref.config
    gray = _gray(frame)
    # Boards rarely move far: look near where the reference had it first (at full resolution),
    # then in the whole frame.
    scale = np.array([frame.shape[1] / ref.size[0], frame.shape[0] / ref.size[1]], dtype=np.float32)
    expected = ref.corners * scale
    views = [
        _View.around(gray, expected, config.search_pad, config.work_long_side),
        _View.whole(gray, config.work_long_side),
    ]
    # Bumps move the board a little: first trust only matches that land near where the
    # reference had them (this removes most wrong matches between look-alike cards).
    gate = config.gate * grid_diagonal(expected)
    fit = GridFit.failed("board not found")
    for view, radius in ((views[0], gate), (views[0], None), (views[1], None)):
        fit = _match(view, ref, config, scale, radius)
        if fit:
            reason = _implausible(fit.corners, expected, config)
            if not reason:
                return fit
            fit = GridFit.failed(reason, **fit.details)
    return fit


def _gray(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


@dataclass(frozen=True)
class _View:
    """A crop of the frame, resized: ``view px = (frame px - offset) * scale``."""

    image: np.ndarray
    offset: np.ndarray
    scale: float

    @classmethod
    def around(cls, gray: np.ndarray, corners: np.ndarray, pad: float, max_side: int) -> _View:
        """The grid's bounding box grown by ``pad`` (clipped to the frame), at most ``max_side``."""
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * (1.0 + pad)
        h, w = gray.shape
        x0, y0 = np.clip(np.floor(grown.min(axis=0)), 0, [w - 1, h - 1]).astype(int)
        x1, y1 = np.clip(np.ceil(grown.max(axis=0)), 1, [w, h]).astype(int)
        if x1 - x0 < 16 or y1 - y0 < 16:
            return cls.whole(gray, max_side)
        return cls._resized(gray[y0:y1, x0:x1], np.array([x0, y0], np.float32), max_side)

    @classmethod
    def whole(cls, gray: np.ndarray, max_side: int) -> _View:
        return cls._resized(gray, np.zeros(2, np.float32), max_side)

    @classmethod
    def _resized(cls, crop: np.ndarray, offset: np.ndarray, max_side: int) -> _View:
        scale = min(1.0, max_side / max(crop.shape))
        if scale < 1.0:
            crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        return cls(crop, offset, scale)

    def to_view(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, np.float64) - self.offset) * self.scale

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, np.float64) / self.scale + self.offset

    def mask(self, corners: np.ndarray, pad: float) -> np.ndarray:
        """255 inside the grid grown by ``pad``, in view pixels."""
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * (1.0 + pad)
        out = np.zeros(self.image.shape, np.uint8)
        cv2.fillConvexPoly(out, np.round(self.to_view(grown)).astype(np.int32), 255)
        return out


def _match(
    view: _View, ref: Reference, config: ReferenceConfig, scale: np.ndarray, radius: float | None
) -> GridFit:
    """Features of ``view`` matched to ``ref``; the mapped corners (frame px) or a reason.

    With ``radius``, a match counts only if it lands within ``radius`` pixels of where the
    reference point itself was (scaled to this frame by ``scale``).
    """
    points, descriptors = _features(view.image, None, config)
    if len(points) < config.min_inliers:
        return GridFit.failed(f"board not found: only {len(points)} features in the frame")
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    pairs = matcher.knnMatch(ref.descriptors, descriptors, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < config.ratio * p[1].distance]
    if len(good) < config.min_inliers:
        return GridFit.failed(
            f"board not found: {len(good)} features match the reference (need {config.min_inliers})",
            matches=len(good),
        )
    src = ref.points[[m.queryIdx for m in good]].astype(np.float64)
    dst = view.to_frame(points[[m.trainIdx for m in good]])
    if radius is not None:
        near = np.linalg.norm(dst - src * scale, axis=1) <= radius
        src, dst = src[near], dst[near]
        if len(src) < config.min_inliers:
            return GridFit.failed(
                f"board not found: {len(src)} features match the reference near its place",
                matches=len(src),
            )
    cv2.setRNGSeed(config.seed)
    thresh = config.ransac_px / view.scale
    h, inl = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, thresh, maxIters=2000, confidence=0.999)
    if h is None or inl is None:
        return GridFit.failed("board not found: no consistent homography", matches=len(src))
    n_in = int(inl.sum())
    if n_in < config.min_inliers:
        return GridFit.failed(
            f"board not found: {n_in} features agree with the reference (need {config.min_inliers})",
            matches=len(src),
            inliers=n_in,
        )
    inliers = src[inl.ravel().astype(bool)].astype(np.float32)
    spread = cv2.contourArea(cv2.convexHull(inliers)) / max(abs(polygon_area(ref.corners)), 1e-9)
    if spread < config.min_spread:
        return GridFit.failed(
            f"board not found: the matching features cover only {spread:.0%} of the board",
            matches=len(src),
            inliers=n_in,
        )
    corners = apply_homography(h, ref.corners).astype(np.float32)
    if radius is not None:
        moved = float(np.linalg.norm(corners - ref.corners * scale, axis=1).max())
        if moved > 2 * radius:
            return GridFit.failed("board not found: the gated match moved the grid too far", inliers=n_in)
    score = min(1.0, n_in / config.full_inliers)
    return GridFit(corners, score, ref.edition, details={"inliers": n_in, "matches": len(src)})


def _features(gray: np.ndarray, mask: np.ndarray | None, config: ReferenceConfig):
    """ORB keypoints ``(N, 2) float32`` and descriptors ``(N, 32) uint8``."""
    orb = cv2.ORB_create(nfeatures=config.features, fastThreshold=config.fast_threshold)
    kps, desc = orb.detectAndCompute(gray, mask)
    if desc is None or not kps:
        return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    return np.array([k.pt for k in kps], dtype=np.float32), desc


def _implausible(corners: np.ndarray, expected: np.ndarray, config: ReferenceConfig) -> str:
    """A reason when the mapped grid cannot be the board (folded, shrunk, blown up), else ''.

    ``expected`` is the reference grid scaled to this frame's size.
    """
    pts = corners.astype(np.float64)
    if not is_convex(pts):
        return "board not found: the matched homography folds the grid"
    ratio = grid_diagonal(pts) / max(grid_diagonal(expected), 1e-9)
    if not 1.0 / config.max_area_change <= ratio**2 <= config.max_area_change:
        return f"board not found: the matched grid changed size by {ratio:.2f}x"
    return ""
