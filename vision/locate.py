"""Find the 10x10 card grid in a frame with no help: its four outer corners, sub-cell accurate.

The printed grid is a lattice: 11 straight lines in each of two directions (the gaps and edges
of the card pictures), equally spaced on the board. The search exploits exactly that, and
nothing about our renderer:

1. Line segments (LSD) at a reduced resolution.
2. Two vanishing points by RANSAC over pairs of segments: the two families of grid lines.
3. The horizon (the line through both vanishing points) and the family directions give an
   affine rectification in which grid lines are axis-aligned and *equally spaced*; a comb of 11
   teeth is fitted to the segment positions along each axis (period, phase and which 11).
4. Refinement at full resolution: along every grid line the image is sampled across the line,
   the line position found to sub-pixel, and a homography fitted robustly to all of them.
5. A score from how many sampled points sit on the lattice, so a false board is rejected.

Chips, hands and clutter only remove or add segments and samples; every fit is robust
(RANSAC, weighted medians), so occluders degrade the evidence rather than break the fit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import (
    GRID_CORNERS_UV,
    GridFit,
    apply_homography,
    check_frame,
    edition_aspect,
    guess_edition,
    order_as_seen,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocateConfig:
    """Tunable constants of the grid search (all sizes relative, so resolution-independent)."""

    work_long_side: int = 640
    """Long side, in pixels, of the reduced image the segments are found in."""
    min_segment_frac: float = 0.01
    """Shortest segment kept, as a fraction of the reduced long side."""
    max_segments: int = 600
    """Longest segments kept for the vanishing-point search."""
    vp_hypotheses: int = 400
    vp_inlier_deg: float = 2.0
    """A segment supports a vanishing point when it points at it within this angle."""
    vp_candidates: int = 6
    """Vanishing-point pairs tried, best first, until one yields a verified grid."""
    min_family_angle_deg: float = 15.0
    """The two line families must cross at least at this angle where the segments are."""
    period_steps: int = 500
    comb_tolerance: float = 0.12
    """A segment is on a comb tooth when within this fraction of the period."""
    phase_bins: int = 48
    tooth_cap: float = 1.5
    segment_cap: float = 3.0
    """One segment votes at most this many times the median segment length."""
    """A comb tooth counts at most this many times a typical line's support."""
    refine_iterations: int = 3
    refine_search_cells: float = 0.3
    """Half-width of the search across each grid line, in cells (first round; halves each round)."""
    refine_min_search_cells: float = 0.12
    refine_profile_len: int = 31
    along_cells: float = 0.3
    """Each gap sample averages the profile over this many cells either side along the line."""
    along_samples: int = 7
    gap_side_cells: float = 0.07
    """The gap is a valley: both sides this far away (in cells) must be brighter."""
    min_valley_grey: float = 4.0
    min_valley_frac: float = 0.25
    min_gap_points: int = 16
    min_cell_px: float = 4.0
    refine_ransac_cells: float = 0.05
    """RANSAC threshold of the refining homography, in cells (converted to pixels)."""
    support_search_cells: float = 0.3
    inlier_cells: float = 0.04
    """A gap sample supports the final fit within this distance, in cells."""
    full_support: float = 0.7
    """Fraction of gap samples found that counts as full support (chips and hands hide some)."""
    shift_margin: float = 0.03
    min_score: float = 0.3
    seed: int = 0


def locate_grid(
    frame: np.ndarray, *, edition: str | None = None, config: LocateConfig = LocateConfig()
) -> GridFit:
    """Find the outer corners of the 10x10 grid in ``frame`` with no help.

    ``frame`` is ``(H, W, 3) uint8`` BGR or ``(H, W)`` grayscale; it is not modified.
    ``edition`` (``"classic"``/``"jumbo"``) is guessed from the grid's aspect when None.
    Returns a truthy ``GridFit`` whose ``corners`` are ``(4, 2) float32`` image pixels ordered
    TL, TR, BR, BL *as seen* (orientation is decided by ``vision.orient``), or a falsy one with
    a ``reason``. Raises ``ValueError`` only for a bad ``frame`` or ``edition``.
    """
    frame = check_frame(frame)
    if edition is not None:
        edition_aspect(edition)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    scale = min(1.0, config.work_long_side / max(h, w))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    segments = find_segments(small, config)
    if len(segments) < 20:
        return GridFit.failed(f"no board: only {len(segments)} straight edges in the frame")
    rng = np.random.default_rng(config.seed)
    norm = _Normaliser(small.shape[1], small.shape[0])
    seg_n = norm.segments(segments)
    best: GridFit | None = None
    for coarse in coarse_grids(seg_n, rng, config):
        h_small = norm.denormalise_homography(coarse)
        h_full = np.diag([1.0 / scale, 1.0 / scale, 1.0]) @ h_small
        fit = refine_grid_homography(gray, h_full, config)
        if fit is None:
            continue
        h_fit, score = fit
        if best is None or score > best.score:
            best = GridFit(apply_homography(h_fit, GRID_CORNERS_UV).astype(np.float32), score, None)
        if score >= 0.6:
            break
    if best is None:
        return GridFit.failed("no board: no two families of equally spaced lines found")
    if best.score < config.min_score:
        return GridFit.failed(
            f"no board: the best lattice is too weakly supported (score {best.score:.2f} "
            f"< {config.min_score:.2f})",
            score=best.score,
        )
    corners = order_as_seen(best.corners)
    if edition is None:
        edition, aspect = guess_edition(corners, (w, h))
    else:
        aspect = None
    return GridFit(corners, float(best.score), edition, details={"aspect": aspect})


def find_segments(gray: np.ndarray, config: LocateConfig) -> np.ndarray:
    """Line segments of a grayscale image as ``(N, 4)`` float64 ``x1, y1, x2, y2``, longest first."""
    found = cv2.createLineSegmentDetector(cv2.LSD_REFINE_NONE).detect(gray)[0]
    if found is None:
        return np.zeros((0, 4))
    seg = found.reshape(-1, 4).astype(np.float64)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    keep = length >= config.min_segment_frac * max(gray.shape)
    seg, length = seg[keep], length[keep]
    order = np.argsort(-length)[: config.max_segments]
    return seg[order]


class _Normaliser:
    """Image pixels <-> centred coordinates scaled by the long side (well-conditioned for lines)."""

    def __init__(self, width: int, height: int) -> None:
        s = 1.0 / max(width, height)
        self.t = np.array([[s, 0, -width / 2 * s], [0, s, -height / 2 * s], [0, 0, 1.0]])

    def segments(self, seg: np.ndarray) -> np.ndarray:
        s = self.t[0, 0]
        out = seg * s
        out[:, [0, 2]] += self.t[0, 2]
        out[:, [1, 3]] += self.t[1, 2]
        return out

    def denormalise_homography(self, h: np.ndarray) -> np.ndarray:
        """A homography into normalised coordinates, re-expressed into pixels."""
        return np.linalg.inv(self.t) @ h


@dataclass(frozen=True)
class _Segments:
    """Segments in normalised coordinates with their homogeneous lines, midpoints, directions."""

    lines: np.ndarray  # (N, 3) unit-normal homogeneous lines
    mids: np.ndarray  # (N, 2)
    dirs: np.ndarray  # (N, 2) unit
    weights: np.ndarray  # (N,) lengths

    @classmethod
    def from_array(cls, seg: np.ndarray) -> _Segments:
        p = np.hstack([seg[:, :2], np.ones((len(seg), 1))])
        q = np.hstack([seg[:, 2:], np.ones((len(seg), 1))])
        lines = np.cross(p, q)
        lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True)
        d = seg[:, 2:] - seg[:, :2]
        length = np.linalg.norm(d, axis=1)
        return cls(lines, 0.5 * (seg[:, :2] + seg[:, 2:]), d / length[:, None], length)


def _vp_support(vps: np.ndarray, s: _Segments, sin_tol: float) -> np.ndarray:
    """``(K, N)`` bool: segment n points at vanishing point k (finite or at infinity)."""
    # Direction from each midpoint towards each VP, valid for points at infinity too.
    e = vps[:, None, :2] - vps[:, None, 2:3] * s.mids[None, :, :]
    e_norm = np.linalg.norm(e, axis=2)
    cross = np.abs(e[..., 0] * s.dirs[None, :, 1] - e[..., 1] * s.dirs[None, :, 0])
    return cross < sin_tol * np.maximum(e_norm, 1e-12)


def _refine_vp(s: _Segments, mask: np.ndarray) -> np.ndarray:
    """Least-squares vanishing point of the masked segments (smallest eigenvector)."""
    lw = s.lines[mask] * np.sqrt(s.weights[mask])[:, None]
    _, _, vt = np.linalg.svd(lw, full_matrices=False)
    v = vt[-1]
    return v / np.linalg.norm(v)


def _vanishing_points(s: _Segments, rng: np.random.Generator, config: LocateConfig, count: int) -> list:
    """Up to ``count`` distinct vanishing points, strongest first, each with its support mask."""
    n = len(s.weights)
    p = s.weights / s.weights.sum()
    i = rng.choice(n, size=config.vp_hypotheses, p=p)
    j = rng.choice(n, size=config.vp_hypotheses, p=p)
    ok = i != j
    vps = np.cross(s.lines[i[ok]], s.lines[j[ok]])
    norms = np.linalg.norm(vps, axis=1)
    vps = vps[norms > 1e-12] / norms[norms > 1e-12, None]
    sin_tol = np.sin(np.radians(config.vp_inlier_deg))
    support = _vp_support(vps, s, sin_tol)
    scores = support.astype(np.float64) @ s.weights
    out = []
    taken = np.zeros(n, dtype=bool)
    for k in np.argsort(-scores):
        mask = support[k] & ~taken
        if mask.sum() < 6 or scores[k] <= 0:
            continue
        # Distinct from those already kept: most of its support must be new.
        if s.weights[mask].sum() < 0.5 * s.weights[support[k]].sum():
            continue
        v = _refine_vp(s, support[k])
        mask = _vp_support(v[None], s, sin_tol)[0]
        out.append((v, mask))
        taken |= mask
        if len(out) >= count:
            break
    return out


def coarse_grids(seg_n: np.ndarray, rng: np.random.Generator, config: LocateConfig):
    """Yield coarse homographies grid ``(u, v)`` -> normalised image coordinates, best first."""
    s = _Segments.from_array(seg_n)
    vps = _vanishing_points(s, rng, config, config.vp_candidates + 1)
    pairs = []
    for a in range(len(vps)):
        for b in range(a + 1, len(vps)):
            va, ma = vps[a]
            vb, mb = vps[b]
            both = ma & mb
            ma, mb = ma & ~both, mb & ~both
            if ma.sum() < 6 or mb.sum() < 6:
                continue
            if not _families_cross(s, va, vb, ma, mb, config):
                continue
            pairs.append((s.weights[ma].sum() * s.weights[mb].sum(), va, vb, ma, mb))
    pairs.sort(key=lambda t: -t[0])
    for _, va, vb, ma, mb in pairs[: config.vp_candidates]:
        h = _grid_from_families(s, va, vb, ma, mb, config)
        if h is not None:
            yield h


def _families_cross(s: _Segments, va, vb, ma, mb, config: LocateConfig) -> bool:
    """True when the two families meet at a real angle where their segments lie."""
    mids = s.mids[ma | mb]
    ea = va[:2] - va[2] * mids
    eb = vb[:2] - vb[2] * mids
    cosang = np.abs(np.sum(ea * eb, axis=1)) / np.maximum(
        np.linalg.norm(ea, axis=1) * np.linalg.norm(eb, axis=1), 1e-12
    )
    return float(np.median(cosang)) < np.cos(np.radians(config.min_family_angle_deg))


def _grid_from_families(s: _Segments, va, vb, ma, mb, config: LocateConfig) -> np.ndarray | None:
    """Affine-rectify with the horizon, fit an 11-tooth comb per axis; grid -> normalised image."""
    horizon = np.cross(va, vb)
    mids_h = np.hstack([s.mids, np.ones((len(s.mids), 1))])
    side = mids_h[ma | mb] @ horizon
    sign = np.sign(np.median(side))
    if sign == 0 or abs(horizon[2]) < 1e-9:
        return None
    # Projective part: send the horizon to infinity, keeping the segments' side positive.
    hp = np.eye(3)
    hp[2] = horizon / horizon[2]
    if np.median(mids_h[ma | mb] @ hp[2]) <= 0:
        return None
    da = (hp @ va)[:2]
    db = (hp @ vb)[:2]
    basis = np.column_stack([db / np.linalg.norm(db), da / np.linalg.norm(da)])
    if abs(np.linalg.det(basis)) < 1e-3:
        return None
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(basis)
    rect = affine @ hp  # normalised image -> rectified: family a vertical (x), family b horizontal (y)
    r_mids = mids_h @ rect.T
    r_mids = r_mids[:, :2] / r_mids[:, 2:3]
    xs = _fit_comb(r_mids[ma, 0], s.weights[ma], config)
    ys = _fit_comb(r_mids[mb, 1], s.weights[mb], config)
    if xs is None or ys is None:
        return None
    (x0, px), (y0, py) = xs, ys
    to_rect = np.array([[px, 0, x0], [0, py, y0], [0, 0, 1.0]])
    return np.linalg.inv(rect) @ to_rect


def _fit_comb(pos: np.ndarray, weight: np.ndarray, config: LocateConfig) -> tuple[float, float] | None:
    """Fit ``x0 + k * p`` (k = 0..10) to weighted 1-D line positions; returns ``(x0, p)``.

    Every candidate period is scored at once: its best phase (a weighted phase histogram),
    then the support of each tooth (saturated, so one long board edge counts like one line),
    then the best run of 11 consecutive teeth. The winner is refined by least squares.
    """
    if len(pos) < 6:
        return None
    # A long board edge is still one line: cap each segment's vote.
    weight = np.minimum(weight, config.segment_cap * np.median(weight))
    lo, hi = np.percentile(pos, [1, 99])
    span = hi - lo
    if span <= 0:
        return None
    periods = np.geomspace(span / 60.0, span / 8.0, config.period_steps)
    n_p = len(periods)
    rows = np.arange(n_p)
    phase = ((pos[None, :] - lo) / periods[:, None]) % 1.0
    nb = config.phase_bins
    bins = np.minimum((phase * nb).astype(np.int64), nb - 1)
    hist = np.bincount((bins + rows[:, None] * nb).ravel(), np.tile(weight, n_p), n_p * nb).reshape(n_p, nb)
    smooth = hist + 0.5 * (np.roll(hist, 1, axis=1) + np.roll(hist, -1, axis=1))
    centre = (np.argmax(smooth, axis=1) + 0.5) / nb
    d = (phase - centre[:, None] + 0.5) % 1.0 - 0.5
    near = np.abs(d) < 2 * config.comb_tolerance
    wn = weight[None, :] * near
    centre = centre + (wn * d).sum(axis=1) / np.maximum(wn.sum(axis=1), 1e-12)
    t = (pos[None, :] - lo) / periods[:, None] - centre[:, None]
    k = np.round(t)
    inl = np.abs(t - k) < config.comb_tolerance
    k = np.clip(k.astype(np.int64) + 2, 0, None)
    n_k = int(k.max()) + 1
    flat = (k + rows[:, None] * n_k).ravel()
    per_line = np.bincount(flat, (weight[None, :] * inl).ravel(), n_p * n_k).reshape(n_p, n_k)
    typical = weight.sum() / (2 * (SIZE + 1))
    strength = np.minimum(per_line / typical, config.tooth_cap)
    if n_k < SIZE + 1:
        strength = np.pad(strength, ((0, 0), (0, SIZE + 1 - n_k)))
    cs = np.concatenate([np.zeros((n_p, 1)), np.cumsum(strength, axis=1)], axis=1)
    window = cs[:, SIZE + 1 :] - cs[:, : -(SIZE + 1)]
    start = np.argmax(window, axis=1)
    score = window[rows, start]
    best = int(np.argmax(score))
    sel = inl[best] & (k[best] >= start[best]) & (k[best] <= start[best] + SIZE)
    if sel.sum() < 6:
        return None
    kk = (k[best][sel] - start[best]).astype(np.float64)
    sw = np.sqrt(weight[sel])
    a = np.column_stack([np.ones_like(kk), kk]) * sw[:, None]
    sol, *_ = np.linalg.lstsq(a, pos[sel] * sw, rcond=None)
    x0, p = float(sol[0]), float(sol[1])
    if p <= 0:
        return None
    return x0, p


def refine_grid_homography(
    gray: np.ndarray, h_grid: np.ndarray, config: LocateConfig = LocateConfig()
) -> tuple[np.ndarray, float] | None:
    """Pull a rough grid homography onto the printed lattice of ``gray`` (``(H, W) uint8``).

    ``h_grid`` maps grid coordinates ``(u, v)`` in cells to image pixels. The inner grid lines
    (the gaps between cards) are sampled across, one short stretch per cell side, averaged
    along the line so pips and letters wash out; the gap is the darkest valley there. A
    homography is fitted to all gap positions with RANSAC, the search narrowing each round.
    Outer lines are not measured (their print differs between boards); the lattice
    extrapolates to them. A final test moves the grid one cell each way in case the first
    guess was off by a whole card. Returns the homography and a support score in [0, 1], or
    None when no lattice is there.
    """
    h = np.asarray(h_grid, dtype=np.float64)
    search = config.refine_search_cells
    for _ in range(config.refine_iterations):
        h_new = _fit_lattice(gray, h, search, config)
        if h_new is None:
            return None
        h = h_new
        search = max(search * 0.5, config.refine_min_search_cells)
    best_h, best_score = h, _lattice_support(gray, h, config)
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        shifted = h @ np.array([[1, 0, du], [0, 1, dv], [0, 0, 1.0]])
        score = _lattice_support(gray, shifted, config)
        if score > best_score + config.shift_margin:
            best_h, best_score = shifted, score
    if best_h is not h:
        refit = _fit_lattice(gray, best_h, config.refine_min_search_cells, config)
        if refit is not None:
            best_h = refit
            best_score = _lattice_support(gray, refit, config)
    return best_h, best_score


def _fit_lattice(gray: np.ndarray, h: np.ndarray, search: float, config: LocateConfig) -> np.ndarray | None:
    """One refinement round: measure gap positions within ``search`` cells and fit a homography."""
    measured = _measure_gaps(gray, h, search, config)
    if measured is None:
        return None
    grid_pts, img_pts, _, cell_px = measured
    if len(grid_pts) < config.min_gap_points:
        return None
    thresh = max(config.refine_ransac_cells * cell_px, 0.5)
    h_new, _ = cv2.findHomography(grid_pts, img_pts, cv2.RANSAC, thresh, maxIters=500, confidence=0.995)
    return h_new


def _lattice_support(gray: np.ndarray, h: np.ndarray, config: LocateConfig) -> float:
    """Fraction of inner gap samples (inside the frame) found where ``h`` predicts them."""
    measured = _measure_gaps(gray, h, config.support_search_cells, config)
    if measured is None:
        return 0.0
    grid_pts, img_pts, n_inside, cell_px = measured
    if n_inside == 0:
        return 0.0
    err = np.linalg.norm(apply_homography(h, grid_pts) - img_pts, axis=1)
    ok = err < config.inlier_cells * cell_px
    # Both families must be there: a wood floor or a striped cloth gives only one.
    per_family = (SIZE - 1) * SIZE
    across_u = np.abs(grid_pts[:, 0] - np.round(grid_pts[:, 0])) < 1e-6
    frac_u = float(np.sum(ok & across_u)) / per_family
    frac_v = float(np.sum(ok & ~across_u)) / per_family
    return min(1.0, min(frac_u, frac_v) / config.full_support)


def _measure_gaps(gray: np.ndarray, h: np.ndarray, search: float, config: LocateConfig):
    """Find the gap across every inner grid line, once per cell side.

    Returns ``(grid_pts, img_pts, n_inside, cell_px)``: grid points ``(k, t)`` on the lines,
    the image points where the gap was found (``(N, 2) float32`` each), the number of samples
    that fell inside the frame, and the median cell size in pixels; None when degenerate.
    """
    m = config.refine_profile_len
    offs = np.linspace(-search, search, m)
    along = np.linspace(-config.along_cells, config.along_cells, config.along_samples)
    ks = np.arange(1, SIZE, dtype=np.float64)
    ts = np.arange(SIZE, dtype=np.float64) + 0.5
    kk, tt = (a.ravel() for a in np.meshgrid(ks, ts, indexing="ij"))
    n = len(kk)
    # (2n, A, m, 2) grid points: vertical lines u = k then horizontal lines v = k.
    across = kk[:, None, None] + offs[None, None, :]
    on = tt[:, None, None] + along[None, :, None]
    across, on = np.broadcast_arrays(across, on)
    grid = np.concatenate([np.stack([across, on], -1), np.stack([on, across], -1)], axis=0)
    img = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(grid.shape)
    if not np.isfinite(img).all():
        return None
    centre_line = img[:, config.along_samples // 2]
    cell_px = float(np.median(np.linalg.norm(centre_line[:, -1] - centre_line[:, 0], axis=1)) / (2 * search))
    if cell_px < config.min_cell_px:
        return None
    hgt, wid = gray.shape
    inside = (
        (img[..., 0].min(axis=(1, 2)) >= 0)
        & (img[..., 0].max(axis=(1, 2)) <= wid - 1)
        & (img[..., 1].min(axis=(1, 2)) >= 0)
        & (img[..., 1].max(axis=(1, 2)) <= hgt - 1)
    )
    flat = img.reshape(2 * n * config.along_samples, m, 2).astype(np.float32)
    prof = cv2.remap(gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.reshape(2 * n, config.along_samples, m).astype(np.float32).mean(axis=1)
    step = 2 * search / (m - 1)  # cells per sample
    d = max(1, round(config.gap_side_cells / step))
    left = np.pad(prof, ((0, 0), (d, 0)), mode="edge")[:, :m]
    right = np.pad(prof, ((0, 0), (0, d)), mode="edge")[:, d:]
    valley = np.minimum(left, right) - prof
    j = np.argmax(valley, axis=1)
    rows = np.arange(2 * n)
    peak = valley[rows, j]
    contrast = prof.max(axis=1) - prof.min(axis=1)
    strong = (peak >= config.min_valley_grey) & (peak >= config.min_valley_frac * contrast)
    jc = np.clip(j, 1, m - 2)
    a, b, c = valley[rows, jc - 1], valley[rows, jc], valley[rows, jc + 1]
    denom = a - 2 * b + c
    safe = np.where(np.abs(denom) > 1e-6, denom, 1.0)
    sub = np.clip(np.where(np.abs(denom) > 1e-6, 0.5 * (a - c) / safe, 0.0), -0.5, 0.5)
    off = -search + (jc + sub) * step
    keep = inside & strong & (j > 0) & (j < m - 1)
    base = np.concatenate([np.stack([kk, tt], 1), np.stack([tt, kk], 1)])
    hit = base.copy()
    hit[:n, 0] += off[:n]
    hit[n:, 1] += off[n:]
    return (
        base[keep].astype(np.float32),
        apply_homography(h, hit[keep]).astype(np.float32),
        int(inside.sum()),
        cell_px,
    )
