"""The printed card-gap lattice: 11 straight, equally spaced lines each way.

Found from line segments and their vanishing points with combs fitted to them
(``lattice_candidates``), registered sub-pixel on the gaps' brightness profiles
(``refine_grid_homography``, ``lattice_extent``), or pulled onto the print by a local search
from rough corners (``align_lattice``). Used by ``vision.locate``; every size is in cells.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE
from vision.geometry import (
    GRID_CORNERS_UV,
    apply_homography,
    grid_diagonal,
    grid_homography,
    line_homography,
)
from vision.locate_config import LocateConfig


def lattice_candidates(gray: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """Grid corners from the card-gap lattice (segments, vanishing points, comb, gap refinement)."""
    h, w = gray.shape
    scale = min(1.0, config.work_long_side / max(h, w))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    segments = find_segments(small, config)
    if len(segments) < 20:
        return []
    rng = np.random.default_rng(config.seed)
    norm = _Normaliser(small.shape[1], small.shape[0])
    to_full = np.diag([1.0 / scale, 1.0 / scale, 1.0]) @ norm.denormalise_homography(np.eye(3))
    out = []
    for h_full in coarse_grids(norm.segments(segments), to_full, rng, config):
        fit = refine_grid_homography(gray, h_full, config)
        if fit is not None and fit[1] >= config.min_score:
            out.append(apply_homography(fit[0], GRID_CORNERS_UV))
            if len(out) >= config.lattice_keep:
                break
    return out


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


def coarse_grids(seg_n: np.ndarray, to_full: np.ndarray, rng: np.random.Generator, config: LocateConfig):
    """Yield coarse homographies grid ``(u, v)`` -> full-resolution image pixels, best first.

    ``to_full`` maps the normalised coordinates of ``seg_n`` to full-resolution pixels. Each
    vanishing-point pair gives one guess: an 11-tooth comb fitted to the segments' positions.
    """
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
        rect = _rectifier(s, va, vb, ma, mb)
        if rect is None:
            continue
        back = to_full @ np.linalg.inv(rect)
        grid = _grid_from_segments(s, rect, ma, mb, config)
        if grid is not None:
            yield back @ grid


def _families_cross(s: _Segments, va, vb, ma, mb, config: LocateConfig) -> bool:
    """True when the two families meet at a real angle where their segments lie."""
    mids = s.mids[ma | mb]
    ea = va[:2] - va[2] * mids
    eb = vb[:2] - vb[2] * mids
    cosang = np.abs(np.sum(ea * eb, axis=1)) / np.maximum(
        np.linalg.norm(ea, axis=1) * np.linalg.norm(eb, axis=1), 1e-12
    )
    return float(np.median(cosang)) < np.cos(np.radians(config.min_family_angle_deg))


def _rectifier(s: _Segments, va, vb, ma, mb) -> np.ndarray | None:
    """Normalised image -> rectified plane in which family a is vertical and family b horizontal.

    The horizon (the line through both vanishing points) is sent to infinity, then an affine
    map turns the two family directions into the axes; equally spaced lines on the board are
    equally spaced there.
    """
    horizon = np.cross(va, vb)
    if abs(horizon[2]) < 1e-9:
        return None
    mids_h = np.hstack([s.mids, np.ones((len(s.mids), 1))])
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
    return affine @ hp


def _grid_from_segments(s: _Segments, rect: np.ndarray, ma, mb, config: LocateConfig) -> np.ndarray | None:
    """Comb-fit the family segments' positions; grid ``(u, v)`` -> rectified plane, or None."""
    mids_h = np.hstack([s.mids, np.ones((len(s.mids), 1))])
    r_mids = mids_h @ rect.T
    r_mids = r_mids[:, :2] / r_mids[:, 2:3]
    xs = _fit_comb(r_mids[ma, 0], s.weights[ma], config)
    ys = _fit_comb(r_mids[mb, 1], s.weights[mb], config)
    if xs is None or ys is None:
        return None
    (x0, px), (y0, py) = xs, ys
    return np.array([[px, 0, x0], [0, py, y0], [0, 0, 1.0]])


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
    gray: np.ndarray, h_grid: np.ndarray, config: LocateConfig = LocateConfig(), *, test_shifts: bool = True
) -> tuple[np.ndarray, float] | None:
    """Pull a rough grid homography onto the printed lattice of ``gray`` (``(H, W) uint8``).

    ``h_grid`` maps grid coordinates ``(u, v)`` in cells to image pixels. The inner grid lines
    (the gaps between cards) are sampled across, one short stretch per cell side, averaged
    along the line so pips and letters wash out; the gap is the darkest valley there. A
    homography is fitted to all gap positions with RANSAC, the search narrowing each round.
    Outer lines are not measured (their print differs between boards); the lattice
    extrapolates to them. With ``test_shifts``, a final test moves the grid one cell each way
    in case the first guess was off by a whole card. Returns the homography and a support
    score in [0, 1], or None when no lattice is there.
    """
    h = np.asarray(h_grid, dtype=np.float64)
    search = config.refine_search_cells
    for _ in range(config.refine_iterations):
        h_new = _fit_lattice(gray, h, search, config)
        if h_new is None:
            return None
        h = h_new
        search = max(search * 0.5, config.refine_min_search_cells)
    best_h, best_score = h, lattice_support(gray, h, config)
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)) if test_shifts else ():
        shifted = h @ np.array([[1, 0, du], [0, 1, dv], [0, 0, 1.0]])
        score = lattice_support(gray, shifted, config)
        if score > best_score + config.shift_margin:
            best_h, best_score = shifted, score
    if best_h is not h:
        refit = _fit_lattice(gray, best_h, config.refine_min_search_cells, config)
        if refit is not None:
            best_h = refit
            best_score = lattice_support(gray, refit, config)
    return best_h, best_score


def _fit_lattice(gray: np.ndarray, h: np.ndarray, search: float, config: LocateConfig) -> np.ndarray | None:
    """One refinement round: measure gap positions within ``search`` cells and fit a homography."""
    measured = _measure_gaps(gray, h, search, config)
    if measured is None:
        return None
    grid_pts, img_pts, _, cell_px = measured
    if len(grid_pts) < config.min_gap_points:
        return None
    vertical = _on_vertical(grid_pts)
    k = np.where(vertical, grid_pts[:, 0], grid_pts[:, 1])
    thresh = max(config.refine_ransac_cells, config.min_fit_px / cell_px)
    return line_homography(k, vertical, img_pts, thresh, config.refine_ransac_iters, config.seed)


def _on_vertical(grid_pts: np.ndarray) -> np.ndarray:
    """Which gap samples lie on a line ``u = k`` (the others on ``v = k``): their u is whole."""
    return np.abs(grid_pts[:, 0] - np.round(grid_pts[:, 0])) < 1e-6


def lattice_support(gray: np.ndarray, h: np.ndarray, config: LocateConfig) -> float:
    """Fraction of inner gap samples (inside the frame) found where ``h`` predicts them."""
    measured = _measure_gaps(gray, h, config.support_search_cells, config)
    if measured is None:
        return 0.0
    grid_pts, img_pts, n_inside, cell_px = measured
    if n_inside == 0:
        return 0.0
    err = np.linalg.norm(apply_homography(h, grid_pts) - img_pts, axis=1)
    ok = err < max(config.inlier_cells * cell_px, config.min_fit_px)
    # Both families must be there: a wood floor or a striped cloth gives only one.
    per_family = (SIZE - 1) * SIZE
    across_u = _on_vertical(grid_pts)
    frac_u = float(np.sum(ok & across_u)) / per_family
    frac_v = float(np.sum(ok & ~across_u)) / per_family
    return min(1.0, min(frac_u, frac_v) / config.full_support)


@dataclass(frozen=True)
class _Profiles:
    """Line-boundary evidence sampled across grid lines, one stretch per line and cell.

    Rows are the vertical lines ``u = k`` (each ``k`` of ``ks``, then each cell ``t``) followed by
    the horizontal lines ``v = k`` in the same order; ``resp`` holds ``_line_response`` across
    each stretch at offsets ``offs`` (cells), ``inside`` whether the stretch is in the frame.
    """

    kk: np.ndarray
    tt: np.ndarray
    offs: np.ndarray
    prof: np.ndarray
    resp: np.ndarray
    inside: np.ndarray
    cell_px: float


def _line_profiles(
    gray: np.ndarray, h: np.ndarray, ks: np.ndarray, search: float, config: LocateConfig
) -> _Profiles | None:
    """Sample across the grid lines ``ks`` (both families) within ``search`` cells of where ``h`` puts them.

    Each profile across a line takes, at every offset, the brightest of ``along_samples``
    samples along a stretch of the line: a gap is dark all along, a row of pips or a letter
    is not, so print next to a gap cannot outweigh it (a mean would let it). None when the
    grid is degenerate or its cells are too small to measure.
    """
    step = config.profile_step_cells
    reach = search + config.band_outer_cells
    half = int(np.ceil(reach / step))
    offs = np.arange(-half, half + 1) * step
    m = len(offs)
    along = np.linspace(-config.along_cells, config.along_cells, config.along_samples)
    ts = np.arange(SIZE, dtype=np.float64) + 0.5
    kk, tt = (a.ravel() for a in np.meshgrid(np.asarray(ks, np.float64), ts, indexing="ij"))
    n = len(kk)
    # (2n, A, m, 2) grid points: vertical lines u = k then horizontal lines v = k.
    across = kk[:, None, None] + offs[None, None, :]
    on = tt[:, None, None] + along[None, :, None]
    grid = np.empty((2 * n, config.along_samples, m, 2))  # filled in place: no stacked copies
    grid[:n, ..., 0] = grid[n:, ..., 1] = across
    grid[:n, ..., 1] = grid[n:, ..., 0] = on
    img = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(grid.shape)
    if not np.isfinite(img).all():
        return None
    centre_line = img[:, config.along_samples // 2]
    cell_px = float(np.median(np.linalg.norm(centre_line[:, -1] - centre_line[:, 0], axis=1)) / (2 * reach))
    if cell_px < config.min_cell_px:
        return None
    hgt, wid = gray.shape
    inside = (
        (img[..., 0].min(axis=(1, 2)) >= 0)
        & (img[..., 0].max(axis=(1, 2)) <= wid - 1)
        & (img[..., 1].min(axis=(1, 2)) >= 0)
        & (img[..., 1].max(axis=(1, 2)) <= hgt - 1)
    )
    # One two-channel map (x, y interleaved, as remap reads it) rather than two strided planes.
    flat = img.reshape(2 * n * config.along_samples, m, 2).astype(np.float32)
    prof = cv2.remap(gray, flat, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.reshape(2 * n, config.along_samples, m).max(axis=1).astype(np.float32)
    return _Profiles(kk, tt, offs, prof, _line_response(prof, step, config), inside, cell_px)


def _measure_gaps(gray: np.ndarray, h: np.ndarray, search: float, config: LocateConfig):
    """Find every inner grid line across its width, once per cell side.

    Evidence for a line between two cards (``_line_response``): a *bright band* (the white
    borders of both cards) and a *valley* inside it (the gap itself, when the camera resolves
    it), both symmetric about the line whatever is printed further in. Returns
    ``(grid_pts, img_pts, n_inside, cell_px)``: grid points ``(k, t)`` on the lines, image
    points where the line was found (``(N, 2) float32`` each), how many samples fell inside
    the frame, and the median cell size in pixels; None when degenerate.
    """
    p = _line_profiles(gray, h, np.arange(1, SIZE), search, config)
    if p is None:
        return None
    step = config.profile_step_cells
    half = (len(p.offs) - 1) // 2
    lo, hi = half - round(search / step), half + round(search / step)
    win = p.resp[:, lo : hi + 1]
    j = np.argmax(win, axis=1)
    rows = np.arange(len(win))
    peak = win[rows, j]
    contrast = p.prof.max(axis=1) - p.prof.min(axis=1)
    strong = (peak >= config.min_line_grey) & (peak >= config.min_line_frac * contrast)
    jc = np.clip(j, 1, win.shape[1] - 2)
    a, b, c = win[rows, jc - 1], win[rows, jc], win[rows, jc + 1]
    denom = a - 2 * b + c
    safe = np.where(np.abs(denom) > 1e-6, denom, 1.0)
    sub = np.clip(np.where(np.abs(denom) > 1e-6, 0.5 * (a - c) / safe, 0.0), -0.5, 0.5)
    off = (jc + sub - (hi - lo) / 2) * step
    keep = p.inside & strong & (j > 0) & (j < win.shape[1] - 1)
    n = len(p.kk)
    base = np.concatenate([np.stack([p.kk, p.tt], 1), np.stack([p.tt, p.kk], 1)])
    hit = base.copy()
    hit[:n, 0] += off[:n]
    hit[n:, 1] += off[n:]
    return (
        base[keep].astype(np.float32),
        apply_homography(h, hit[keep]).astype(np.float32),
        int(p.inside.sum()),
        p.cell_px,
    )


def lattice_extent(gray: np.ndarray, corners: np.ndarray, reach: int, config: LocateConfig = LocateConfig()):
    """Where the printed card lattice ends, as whole-cell shifts of the grid ``corners``.

    The ink pattern tells a board from a cell off poorly along a row (the layout runs suits
    along its rows), but the card gaps say it plainly: the 9 inner lines of the true grid are
    gaps, its two edges and everything beyond are not (board margin, table). Each line's
    strength is the median over its 10 stretches of the boundary evidence (chips and hands
    hide a few). For each shift ``d`` in ``-reach..reach`` and each family (``v`` = rows, then
    ``u`` = columns), the score is ``(inner - outer) / inner``: the mean strength of lines
    ``d+1..d+9`` less the stronger of lines ``d`` and ``d+10``, relative; about 1 at the true
    grid and 0 or below a cell off (one of its edges is then a real gap). Returns
    ``(2, 2 * reach + 1)`` scores and the inner lines' strength of the best shifts (grey
    levels; small when no gap is visible), or None when unmeasurable.
    """
    ks = np.arange(-reach, SIZE + reach + 1)
    p = _line_profiles(gray, grid_homography(np.asarray(corners, np.float32)), ks, config.extent_search_cells, config)
    if p is None:
        return None
    half = (len(p.offs) - 1) // 2
    s = round(config.extent_search_cells / config.profile_step_cells)
    peak = p.resp[:, half - s : half + s + 1].max(axis=1)
    # Median over each line's stretches inside the frame; rows (v = k) first, as shifts are (dv, du).
    strength = _masked_median(peak.reshape(2, len(ks), SIZE)[::-1], p.inside.reshape(2, len(ks), SIZE)[::-1])
    inner = _nanmean(np.lib.stride_tricks.sliding_window_view(strength, SIZE - 1, axis=1)[:, 1 : 2 * reach + 2])
    outer = np.fmax(strength[:, : 2 * reach + 1], strength[:, SIZE:])
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(inner > 0, (inner - outer) / inner, np.nan)
    best = np.nanargmax(np.where(np.isfinite(scores), scores, -np.inf), axis=1)
    return scores, float(np.nan_to_num(inner[np.arange(2), best]).min())


def _masked_median(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Median over the last axis of the ``keep`` entries of ``values`` (NaN where none are kept):
    ``np.ma.median``'s numbers (the mean of the two middle ones for an even count), without its
    masked-array machinery, which cost more than the profiles it summarised."""
    ordered = np.sort(np.where(keep, values, np.inf), axis=-1)
    count = keep.sum(axis=-1, keepdims=True)
    high = count // 2
    low = np.where(count % 2 == 1, high, high - 1)
    pair = np.take_along_axis(ordered, np.concatenate([np.maximum(low, 0), high], axis=-1), axis=-1)
    median = (pair[..., 0] + pair[..., 1]) / 2.0
    return np.where(count[..., 0] > 0, median, np.nan)


def _nanmean(a: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring NaN (NaN where all are), without numpy's warning."""
    ok = np.isfinite(a)
    return np.where(ok.any(axis=-1), np.where(ok, a, 0.0).sum(axis=-1) / np.maximum(ok.sum(axis=-1), 1), np.nan)


@functools.lru_cache(maxsize=256)
def _box_count(m: int, a: int, b: int) -> np.ndarray:
    """How many of samples ``i+a .. i+b-1`` lie in ``0..m-1``, at least 1, for each ``i`` (``(m,)`` int)."""
    idx = np.arange(m)
    count = np.maximum(np.clip(idx + b, 0, m) - np.clip(idx + a, 0, m), 1)
    count.setflags(write=False)
    return count


def _line_response(prof: np.ndarray, step: float, config: LocateConfig) -> np.ndarray:
    """Per-sample evidence of a card boundary on ``(L, m)`` profiles (same shape back).

    ``band``: how much brighter the card borders either side of the line (from
    ``gap_core_cells`` to ``band_inner_cells``) are than the print further in (out to
    ``band_outer_cells``), the weaker side counting, so only a line with a border on both
    sides scores; it carries the fit where blur has erased the gap. ``valley``: how much
    darker a sample is than both samples a gap half-width away, for the widest gap that fits.
    """
    rows, m = prof.shape
    gi = max(1, round(config.gap_core_cells / step))
    bi = max(gi + 1, round(config.band_inner_cells / step))
    bo = max(bi + 1, round(config.band_outer_cells / step))
    # Cumulative sums, edge-padded by ``bo + 1`` each side, so a clamped window is a plain slice.
    pad = bo + 1
    cs = np.zeros((rows, m + 1 + 2 * pad), np.float32)
    np.cumsum(prof, axis=1, out=cs[:, pad + 1 : pad + 1 + m])
    cs[:, pad + 1 + m :] = cs[:, pad + m : pad + 1 + m]

    def box(a: int, b: int) -> np.ndarray:  # mean of samples idx+a .. idx+b-1, clamped
        return (cs[:, pad + b : pad + b + m] - cs[:, pad + a : pad + a + m]) / _box_count(m, a, b)

    band = np.minimum(box(-bi, -gi) - box(-bo, -bi), box(gi + 1, bi + 1) - box(bi + 1, bo + 1))
    valley = np.zeros_like(prof)
    widest = max(max(1, round(half / step)) for half in config.gap_widths_cells)
    edges = np.repeat(prof[:, [0, -1]], widest, axis=1)  # np.pad(mode="edge") without its overhead
    padded = np.concatenate([edges[:, :widest], prof, edges[:, widest:]], axis=1)
    for half in config.gap_widths_cells:
        d = max(1, round(half / step))
        left, right = padded[:, widest - d : widest - d + m], padded[:, widest + d : widest + d + m]
        valley = np.maximum(valley, np.minimum(left, right) - prof)
    return band * config.band_weight + valley * config.valley_weight


def align_lattice(white: np.ndarray, corners: np.ndarray, config: LocateConfig) -> tuple[np.ndarray, float]:
    """Pull rough grid corners onto the printed lattice by local search; returns corners, contrast.

    The contrast is the mean brightness along the inner cell boundaries (white card borders)
    minus the mean along the cell mid-lines (pips, art and chips sit there), over the 10-90 %
    brightness range of the board. It peaks when the lattice is registered, with a basin of
    about half a cell. Corners move one coordinate at a time, steepest first, with shrinking
    steps; all trial moves of a round are sampled in one remap.
    """
    quad = np.asarray(corners, dtype=np.float64).copy()
    cell_px = grid_diagonal(quad) / (SIZE * np.sqrt(2.0))
    # Work on a crop around the grid (blurring the whole frame at every step is wasted time).
    pad = 2.0 * cell_px
    hgt, wid = white.shape
    x0, y0 = np.clip(np.floor(quad.min(axis=0) - pad), 0, [wid - 1, hgt - 1]).astype(int)
    x1, y1 = np.clip(np.ceil(quad.max(axis=0) + pad), 1, [wid, hgt]).astype(int)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return quad, 0.0
    base = white[y0:y1, x0:x1]
    origin = np.array([x0, y0], dtype=np.float64)
    quad -= origin
    current = 0.0
    for frac in config.align_steps_cells:
        step = frac * cell_px
        img = cv2.GaussianBlur(base, (0, 0), max(config.align_blur * step, 0.5))
        current = lattice_contrast(img, [quad], config)[0]
        for _ in range(config.align_rounds):
            h = grid_homography(quad.astype(np.float32))
            trials = [_corners_of(h @ move) for move in _grid_moves(frac)]
            scores = lattice_contrast(img, trials, config)
            k = int(np.argmax(scores))
            if scores[k] <= current + 1e-6:
                break
            quad, current = trials[k], float(scores[k])
    return quad + origin, current


_CORNERS_H = np.hstack([GRID_CORNERS_UV.astype(np.float64), np.ones((4, 1))])
"""The grid's outer corners in homogeneous grid coordinates, ``(4, 3)``."""


def _corners_of(h: np.ndarray) -> np.ndarray:
    """``apply_homography(h, GRID_CORNERS_UV)`` (the same arithmetic) for a float64 ``h``, without
    its per-call conversions: ``align_lattice`` maps 16 trial grids per round."""
    q = _CORNERS_H @ h.T
    return q[:, :2] / q[:, 2:3]


@functools.lru_cache(maxsize=16)
def _grid_moves(d: float) -> tuple[np.ndarray, ...]:
    """Small moves of the lattice in grid space (cells): shifts, stretches, shears, tilts, both ways.

    Each moves the outer lines by about ``d`` cells; the whole grid shifting is one move,
    which corner-by-corner steps could only make in eight.
    """
    c = SIZE / 2.0
    centre = np.array([[1, 0, c], [0, 1, c], [0, 0, 1.0]])
    back = np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1.0]])
    e = d / c
    moves = []
    for sign in (-1.0, 1.0):
        for m in (
            [[1, 0, sign * d], [0, 1, 0], [0, 0, 1]],
            [[1, 0, 0], [0, 1, sign * d], [0, 0, 1]],
            [[1 + sign * e, 0, 0], [0, 1, 0], [0, 0, 1]],
            [[1, 0, 0], [0, 1 + sign * e, 0], [0, 0, 1]],
            [[1, sign * e, 0], [0, 1, 0], [0, 0, 1]],
            [[1, 0, 0], [sign * e, 1, 0], [0, 0, 1]],
            [[1, 0, 0], [0, 1, 0], [sign * e / c, 0, 1]],
            [[1, 0, 0], [0, 1, 0], [0, sign * e / c, 1]],
        ):
            move = centre @ np.array(m, dtype=np.float64) @ back
            move.setflags(write=False)
            moves.append(move)
    return tuple(moves)


@functools.lru_cache(maxsize=4)
def _contrast_points(n: int, band: tuple[float, ...]) -> tuple[np.ndarray, int]:
    """Grid points on the inner cell boundaries then on the cell mid-lines, ``(N, 1, 2)`` (as
    perspectiveTransform takes them), ``n`` per line and band offset; and how many are boundary."""
    t = (np.arange(n) + 0.5) / n * SIZE
    across = np.array(band)
    lines = np.arange(1, SIZE, dtype=np.float64)
    mids = np.arange(SIZE) + 0.5

    def points(pos: np.ndarray) -> np.ndarray:
        p = (pos[:, None, None] + across[None, :, None]) + 0 * t[None, None, :]
        q = np.broadcast_to(t[None, None, :], p.shape)
        vert = np.stack([p, q], -1).reshape(-1, 2)
        horiz = np.stack([q, p], -1).reshape(-1, 2)
        return np.concatenate([vert, horiz])

    on, off = points(lines), points(mids)
    grid = np.concatenate([on, off]).reshape(-1, 1, 2)
    grid.setflags(write=False)
    return grid, len(on)


def lattice_contrast(white: np.ndarray, quads: list, config: LocateConfig) -> np.ndarray:
    """Boundary-minus-midline brightness of the lattice for each quad (see ``align_lattice``)."""
    grid, n_on = _contrast_points(config.align_samples, tuple(config.align_band_cells))
    maps = [cv2.perspectiveTransform(grid, grid_homography(q.astype(np.float32))) for q in quads]
    # One interleaved (x, y) map, as remap reads it, rather than two strided planes.
    xy = np.concatenate(maps).reshape(len(quads), -1, 2).astype(np.float32)
    vals = cv2.remap(white, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    vals = vals.astype(np.float32)
    return (vals[:, :n_on].mean(axis=1) - vals[:, n_on:].mean(axis=1)) / np.maximum(vals.std(axis=1), 1.0)
