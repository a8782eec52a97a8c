"""Rough outlines of the board: four-sided regions where the card area may lie.

From the frame's bright regions (``blob_quads``), its fine texture (``texture_quads``), the
board network's mask (``mask_quads``) and the table around the board (``table_quads``), and the
grids fitted inside an outline by combs of its gaps (``lattice_hypotheses``). Each is only a
candidate: ``vision.locate`` places and tests them by the print.
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from engine.layout import SIZE
from vision.board_net import BoardView
from vision.geometry import (
    apply_homography,
    order_as_seen,
)
from vision.locate_config import LocateConfig

UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)


def whiteness(frame: np.ndarray) -> np.ndarray:
    """Darkest channel (white card faces stay bright; chips, ink, felt and wood do not)."""
    if frame.ndim == 2:
        return frame
    b, g, r = cv2.split(frame)
    return cv2.min(cv2.min(b, g), r)


def saturation(frame: np.ndarray) -> np.ndarray | None:
    """Brightest minus darkest channel (chips and court art are strongly coloured)."""
    if frame.ndim == 2:
        return None
    b, g, r = cv2.split(frame)
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))


def evened_light(frame: np.ndarray, reach: float) -> np.ndarray:
    """``frame`` divided by its local white level, the brightest channel's maximum within
    ``reach`` (a fraction of the frame's width) smoothed: a shadow band across the board, or a
    lamp's fall-off, no longer splits the white card area in two. Shrunk, the frame's own size."""
    h, w = frame.shape[:2]
    s = min(1.0, 320.0 / max(h, w))
    small = cv2.resize(frame, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    brightest = small.max(axis=2) if small.ndim == 3 else small
    k = max(3, int(reach * small.shape[1]) | 1)
    level = cv2.dilate(brightest, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))).astype(np.float32)
    level = cv2.resize(cv2.GaussianBlur(level, (0, 0), k / 2), (w, h), interpolation=cv2.INTER_LINEAR)
    gain = 200.0 / np.maximum(level, 8.0)
    if frame.ndim == 3:
        gain = gain[..., None]
    return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def blob_quads(white: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """Rough quadrilaterals of the largest bright regions: the card area or the whole board.

    At a small size the card faces merge into one white region (the gaps vanish); its convex
    hull is simplified to four corners. ``white`` is the frame's darkest channel
    (``(H, W) uint8``). Returns ``(4, 2) float32`` image-pixel quads, as seen.
    """
    s = config.blob_long_side / max(white.shape)
    small = cv2.resize(white, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return _region_quads(small, s, config.blob_close_px, config, [])


def texture_quads(white: np.ndarray, config: LocateConfig, out: list | None = None) -> list[np.ndarray]:
    """Rough quadrilaterals of the regions dense with small dark print: the card faces.

    A bright table is as bright as the cards, but it is not covered in pips and indices. At a
    thumbnail size, a black-hat (small dark marks on a lighter surround) averaged over about
    a cell is high all over the card area and low on plain table; its largest blobs' hulls
    are board candidates. ``white`` is the frame's darkest channel (``(H, W) uint8``); quads
    close to those already in ``out`` are skipped. Returns ``(4, 2) float32`` quads, as seen.
    """
    s = config.blob_long_side / max(white.shape)
    small = cv2.resize(white, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (config.texture_mark_px, config.texture_mark_px))
    marks = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, k).astype(np.float32)
    size = (config.texture_window_px, config.texture_window_px)
    energy = cv2.blur(marks, size)
    bright = cv2.blur(small.astype(np.float32), size)
    out = [] if out is None else out
    for m in (energy, energy * bright):
        hi = max(float(np.percentile(m, config.blob_bright_percentile)), 1e-6)
        m8 = np.clip(m * (255.0 / hi), 0, 255).astype(np.uint8)
        _region_quads(m8, s, config.texture_close_px, config, out)
    return out


def mask_quads(board: BoardView, config: LocateConfig) -> list[np.ndarray]:
    """Rough quadrilaterals of the card area the board network (``vision.board_net``) sees:
    the hulls of its probability map's largest regions at a few levels (``net_levels``).
    Returns ``(4, 2) float32`` image-pixel quads, as seen."""
    small = np.clip(board.prob * 255.0, 0, 255).astype(np.uint8)
    return _region_quads(small, board.scale, config.blob_close_px, config, [],
                         [255.0 * level for level in config.net_levels], fit_sides=True,
                         min_area=config.net_min_area, uncut=True)


def mask_boxes(board: BoardView, config: LocateConfig) -> list[np.ndarray]:
    """The smallest rectangles around the board network's card area, one per level
    (``net_levels``), its largest region at each: ``(4, 2) float32`` image-pixel quads, as seen.

    Where the card area comes out with its corners rounded off (a small, dim board) or one
    taken off (a mug over it), the hull's quad (``mask_quads``) cuts those corners and lies
    cells off; the rectangle around the area keeps them within a cell or two of the grid's, in
    reach of the corner network and the climb (seeds 25529, 23007, 23025, hard Jumbo: the
    nearest hull quads 3.3, 1.9 and 3.3 cells off, the nearest rectangles 1.1, 1.3 and 1.4)."""
    out: list[np.ndarray] = []
    for region in _largest_regions(board.prob, config.net_levels, min_area=config.net_min_area, count=1):
        box = order_as_seen((cv2.boxPoints(cv2.minAreaRect(region)) / board.scale).astype(np.float32))
        if not _near_any(box, out, config):
            out.append(box)
    return out


def _region_quads(small: np.ndarray, s: float, close_px: int, config: LocateConfig, out: list,
                  thresholds: list[float] | None = None, fit_sides: bool = False,
                  min_area: float | None = None, uncut: bool = False) -> list:
    """Hull quads of the largest regions of ``small`` above ``thresholds`` (default: Otsu's and
    a few higher ones), none under ``min_area`` of it (default ``blob_min_area``); with
    ``fit_sides``, their corners where their sides meet (``_side_fit``); with ``uncut``, also
    of regions with a corner cut off (``_hull_quad``)."""
    min_area = config.blob_min_area if min_area is None else min_area
    if thresholds is None:
        thresholds = [cv2.threshold(small, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[0]]
        hi = float(np.percentile(small, config.blob_bright_percentile))
        thresholds += [thresholds[0] + f * (hi - thresholds[0]) for f in config.blob_levels]
    # Every contour pixel where the sides are fitted (they are counted along each side).
    chain = cv2.CHAIN_APPROX_NONE if fit_sides and config.side_every_pixel else cv2.CHAIN_APPROX_SIMPLE
    # (Over ``blob_max_area``: the table itself.)
    for c in _largest_regions(small, thresholds, min_area=min_area, count=config.blob_count, close_px=close_px,
                              max_area=config.blob_max_area, chain=chain):
        quad = _hull_quad(c, uncut=uncut)
        if quad is not None and fit_sides:
            quad = _side_fit(c, quad, config)
        # (Compared still in its hull's vertex order, so a repeat in another order is kept: 52 of
        # 120 network quads on seed 31500. Ordering it first drops them, but moves which outlines
        # lead: on 300 hard frames it put one board found right before a cell off, and mended none.)
        if quad is not None and not _near_any(quad / s, out, config):
            out.append(order_as_seen(quad / s))
    return out


def _largest_regions(values: np.ndarray, thresholds: list[float], *, min_area: float, count: int,
                     close_px: int = 0, max_area: float | None = None,
                     chain: int = cv2.CHAIN_APPROX_SIMPLE) -> Iterator[np.ndarray]:
    """The outer contours of the ``count`` largest regions of ``values`` above each of
    ``thresholds`` in turn (closed by ``close_px`` first, where it is over 0), largest first,
    none under ``min_area`` of the map nor over ``max_area`` of it (where given)."""
    for t in thresholds:
        binary = (values > t).astype(np.uint8)
        if close_px > 0:
            binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((close_px, close_px), np.uint8))
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, chain)
        for c in sorted(contours, key=cv2.contourArea, reverse=True)[:count]:
            area = cv2.contourArea(c)
            if area < min_area * binary.size:
                break
            if max_area is None or area <= max_area * binary.size:
                yield c


def _near_any(quad: np.ndarray, quads: list[np.ndarray], config: LocateConfig) -> bool:
    """Whether one of ``quads`` lies within ``blob_same_px`` of ``quad`` at every corner (corner
    by corner, as they are ordered)."""
    return any(np.abs(quad - q).max() < config.blob_same_px for q in quads)


def zoomed_quads(white: np.ndarray, quads: list[np.ndarray], config: LocateConfig) -> list[np.ndarray]:
    """The outlines of small boards drawn again from a closer look (the stage then adds the grids
    fitted inside them, ``with_hypotheses``).

    In the frame's thumbnail a board far away spans few pixels: its outline, blurred by the
    print-density window, comes out a cell or two off. Around each small rough quad (its long
    side under ``zoom_below`` of the frame's), the crop is outlined as the frame was
    (``blob_quads``, ``texture_quads``), now at the thumbnail's full size. Returns ``(4, 2)
    float32`` image-pixel quads, as seen, none close to another.
    """
    h, w = white.shape
    out: list[np.ndarray] = []
    for quad in quads[: config.zoom_quads]:
        lo, hi = quad.min(axis=0), quad.max(axis=0)
        if (hi - lo).max() >= config.zoom_below * max(h, w):
            continue
        pad = (hi - lo) * config.zoom_pad
        x0, y0 = np.maximum(lo - pad, 0).astype(int)
        x1, y1 = np.minimum(hi + pad, (w, h)).astype(int)
        crop = white[y0:y1, x0:x1]
        for q in texture_quads(crop, config, blob_quads(crop, config)):
            q = (q + np.array([x0, y0], np.float32)).astype(np.float32)
            if not _near_any(q, out, config):
                out.append(q)
    return out


def table_quads(frame: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """Rough quadrilaterals of the largest regions whose colour is unlike the table's.

    The frame's outer band is mostly table: its colours, clustered, describe it (wood grain,
    a tablecloth's checks, blurred so the checks average out). The board, with its grey or
    dark margin, white cards and coloured chips, stands apart from all of them, also on a
    tablecloth as white and as busy as the cards. ``frame`` is ``(H, W, 3) uint8`` BGR.
    Returns ``(4, 2) float32`` image-pixel quads, as seen.
    """
    s = config.blob_long_side / max(frame.shape[:2])
    small = cv2.resize(frame, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), config.table_blur_px), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    band = max(2, int(config.table_ring * min(h, w)))
    ring = np.ones((h, w), bool)
    ring[band:-band, band:-band] = False
    samples = lab[ring]
    # Start from bands of lightness, not random centres: the same frame gives the same quads.
    k = config.table_colours
    start = (np.argsort(np.argsort(samples[:, 0])) * k // len(samples)).astype(np.int32).reshape(-1, 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    _, _, table = cv2.kmeans(samples, k, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    far2 = np.full((h, w), np.inf, np.float32)
    for colour in table:
        d = lab - colour
        far2 = np.minimum(far2, np.einsum("ijk,ijk->ij", d, d))
    far8 = np.clip(np.sqrt(far2) * config.table_gain, 0, 255).astype(np.uint8)
    return _region_quads(far8, s, config.blob_close_px, config, [])


def with_hypotheses(quads: list[np.ndarray], white: np.ndarray, sat: np.ndarray | None, config: LocateConfig) -> list:
    """Each rough quad followed by the grids fitted inside it (``lattice_hypotheses``)."""
    return [c for q in quads for c in (q, *lattice_hypotheses(white, sat, q, config))]


def _side_fit(contour: np.ndarray, quad: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``quad``'s corners where lines fitted to the contour along each of its sides meet.

    A region's rounded corners (a blurred outline, a probability map) pull the hull's vertices
    inwards; the sides away from the corners are straight and say where the corners are. Each
    side's line is the one most of its points lie on (``_straightest_line``), so a bump in the
    outline (a pile of chips against the board, a hand on its edge) neither bends it nor, where
    the hull reached out to the bump, keeps a corner there. Returns ``quad`` where a side has
    too few points on one line.
    """
    pts = contour.reshape(-1, 2).astype(np.float64)
    size = float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).max())
    out = quad
    for _ in range(config.side_rounds):
        fitted = _sides_met(pts, out, config)
        if fitted is None:
            break
        out = fitted
    # A fit that moves a corner by more than ``side_max_move`` of the quad's size is not trusted.
    return out if np.abs(out - quad).max() <= config.side_max_move * size else quad


def _sides_met(pts: np.ndarray, quad: np.ndarray, config: LocateConfig) -> np.ndarray | None:
    """One round of ``_side_fit``: each side's line through the contour points nearest it,
    met at the corners; None where a side has too few points on one line."""
    a, b = quad, np.roll(quad, -1, axis=0)
    d = b - a
    length = np.linalg.norm(d, axis=1)
    # Each point's position along, and distance from, each side.
    t = np.einsum("pkj,kj->pk", pts[:, None] - a[None], d) / length**2
    rel = pts[:, None] - a[None]
    off = np.abs(d[None, :, 0] * rel[..., 1] - d[None, :, 1] * rel[..., 0]) / length
    side = np.argmin(np.where((t > -0.1) & (t < 1.1), off, np.inf), axis=1)
    lines = []
    for k in range(4):
        keep = (side == k) & (t[:, k] > config.side_trim) & (t[:, k] < 1.0 - config.side_trim)
        line = _straightest_line(pts[keep], float(length[k]), config)
        if line is None:
            return None
        lines.append(line)
    out = []
    for k in range(4):
        p = np.cross(lines[k - 1], lines[k])
        if abs(p[2]) < 1e-9:
            return None
        out.append(p[:2] / p[2])
    return np.array(out)


def _straightest_line(pts: np.ndarray, length: float, config: LocateConfig) -> np.ndarray | None:
    """Homogeneous line ``(3,)`` through most of ``pts`` ``(n, 2)`` (the points along one side
    of an outline ``length`` long): of the lines through ``side_tries`` pairs of points, the one
    with most points within ``side_tol`` of ``length``, refitted to those (Huber). None where
    under ``side_support`` of the side's trimmed length lies on it (a contour point per pixel),
    or there are under 3 points. With no tries, the line is fitted to every point."""
    if len(pts) < 3:
        return None
    if config.side_tries > 0:
        on = _most_on_one_line(pts, length, config)
        if on is None or on.sum() < config.side_support * length * (1.0 - 2.0 * config.side_trim):
            return None
        pts = pts[on]
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0])


def _most_on_one_line(pts: np.ndarray, length: float, config: LocateConfig) -> np.ndarray | None:
    """``(n,)`` bool: the points within ``side_tol`` of ``length`` of the line through one of
    ``side_tries`` pairs of ``pts`` ``(n, 2)`` that most lie on; None where no pair spans a line."""
    n = len(pts)
    # Pairs half the side apart, spread along it (the contour runs in order): the same every time.
    i = np.linspace(0, n // 2 - 1, config.side_tries).astype(int)
    p, q = pts[i], pts[i + n // 2]
    normal = np.stack([q[:, 1] - p[:, 1], p[:, 0] - q[:, 0]], axis=1)
    norm = np.linalg.norm(normal, axis=1, keepdims=True)
    ok = norm[:, 0] > 1e-9
    if not ok.any():
        return None
    normal, p = normal[ok] / norm[ok], p[ok]
    inliers = np.abs(np.einsum("tnj,tj->tn", pts[None] - p[:, None], normal)) <= config.side_tol * length
    return inliers[int(np.argmax(inliers.sum(axis=1)))]


def _hull_quad(contour: np.ndarray, *, uncut: bool = False) -> np.ndarray | None:
    """Four corners of a contour's convex hull (Douglas-Peucker with a growing tolerance).

    With ``uncut``, where no tolerance gives four (a box or a mug over one corner of the board
    cuts it off the card area, and the hull goes from five sides straight to three), the first
    five-sided one with its shortest side taken for the cut and drawn together at its middle: a
    rough quad whose other sides still lie along the board's, for ``_side_fit`` to finish (seed
    29804, hard classic: no outline at all before, 1.6 cells off so, found after the climb).
    Only for the board network's card area, where it was measured: on the whiteness and
    print-density outlines it changes which outline is tried first on other frames too (the
    empty board of seed 6186 on gingham), and that was not measured."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    five = None
    for eps in (0.02, 0.035, 0.05, 0.07, 0.1):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) == 5 and five is None:
            five = approx.reshape(5, 2).astype(np.float64)
    if five is None or not uncut:
        return None
    cut = int(np.argmin(np.linalg.norm(five - np.roll(five, -1, axis=0), axis=1)))  # side cut -> cut + 1
    five[cut] = (five[cut] + five[(cut + 1) % 5]) / 2.0
    return np.delete(five, (cut + 1) % 5, axis=0)


def lattice_hypotheses(
    white_full: np.ndarray, sat_full: np.ndarray | None, quad: np.ndarray, config: LocateConfig
) -> list[np.ndarray]:
    """Grid corner guesses inside (or just around) a rough quad, best first.

    The quad's neighbourhood is rectified; along each axis, a profile of "white card border
    minus coloured cell content" (chips and art sit in cell centres, white borders between
    cells) is matched against an 11-line comb of every period and phase; the best few per axis
    are combined. Returns ``(4, 2)`` image-pixel corner sets.
    """
    e, n = config.hyp_pad, config.hyp_px
    h_q = cv2.getPerspectiveTransform(UNIT_SQUARE, quad.astype(np.float32))
    step = (1 + 2 * e) / n
    roi_to_unit = np.array([[step, 0, -e], [0, step, -e], [0, 0, 1.0]])
    m = h_q @ roi_to_unit
    flags = cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
    white = cv2.warpPerspective(white_full, m, (n, n), flags=flags).astype(np.float32)
    sat = None if sat_full is None else cv2.warpPerspective(sat_full, m, (n, n), flags=flags).astype(np.float32)
    r0, r1 = int((e + config.hyp_band[0]) / step), int((e + config.hyp_band[1]) / step)
    per_axis = []
    for axis in (0, 1):
        w = white if axis == 0 else white.T
        prof = _z(w[r0:r1].mean(axis=0))
        if sat is not None:
            s_ = sat if axis == 0 else sat.T
            prof = prof - _z(s_[r0:r1].mean(axis=0))
        per_axis.append(_comb_candidates(prof, (config.hyp_min_width / step, config.hyp_max_width / step), config))
    combos = [
        (sx + sy, (x0, x1, y0, y1)) for sx, x0, x1 in per_axis[0] for sy, y0, y1 in per_axis[1]
    ]
    combos.sort(key=lambda t: -t[0])
    out = []
    for _, (x0, x1, y0, y1) in combos[: config.hyp_keep]:
        pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        out.append(apply_homography(m, pts))
    return out


def _z(p: np.ndarray) -> np.ndarray:
    return (p - p.mean()) / max(float(p.std()), 1e-6)


def _comb_candidates(
    prof: np.ndarray, widths: tuple[float, float], config: LocateConfig
) -> list[tuple[float, float, float]]:
    """Best distinct ``(score, start, end)`` of a 10-cell comb on a profile (lines bright, cells dark)."""
    n = len(prof)
    x = np.arange(n, dtype=np.float64)
    cells = np.arange(widths[0] / SIZE, widths[1] / SIZE, config.hyp_period_step)
    x0 = np.arange(0, n, 1.0)
    c = cells[:, None, None]
    start = x0[None, None, :]
    on = np.interp(start + np.arange(SIZE + 1)[None, :, None] * c, x, prof, left=np.nan, right=np.nan)
    off = np.interp(start + (np.arange(SIZE) + 0.5)[None, :, None] * c, x, prof, left=np.nan, right=np.nan)
    score = on.mean(axis=1) - off.mean(axis=1)
    score = np.where(np.isfinite(score), score, -np.inf)
    picks = []
    flat = np.argsort(-score, axis=None)
    for idx in flat[: 2000]:
        i, j = np.unravel_index(idx, score.shape)
        if not np.isfinite(score[i, j]):
            break
        s0, w = x0[j], cells[i] * SIZE
        if any(abs(s0 - a) < 0.3 * w / SIZE and abs(s0 + w - b) < 0.3 * w / SIZE for _, a, b in picks):
            continue
        picks.append((float(score[i, j]), s0, s0 + w))
        if len(picks) >= config.hyp_per_axis:
            break
    return picks



