"""Cheap per-frame board views for live tracking: a small rectified board and per-cell change.

Live tracking must look at every camera frame, so nothing here runs the full cell reader.
A frame is downscaled once (integer ``INTER_AREA`` factor), warped once into a small
rectified board image (``Rectifier``), and every statistic is a whole-array reduction over
a ``(10, cell_h, 10, cell_w, 3)`` view of it: per-cell mean absolute difference (motion
between consecutive frames, change against the last still board), per-cell fraction of new
skin-like pixels (a hand or an arm), a global gain (lamp flicker), and the alignment of the
board against the last still board (phase correlation every frame, ECC after a bump).

Rectified images are ``(H, W, 3) float32`` BGR in 0..255, with a margin of
``margin_cells`` around the 10x10 grid so the printed border helps alignment.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engine.layout import EDITIONS, SIZE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MotionConfig:
    """Sizes and thresholds of the cheap per-frame views."""

    cell_px: int = 16
    """Height of one cell in the rectified board (width follows the edition's aspect)."""
    block_px: int = 4
    """Change statistics compare means of blocks this size (sensor noise averages out)."""
    skin_change: float = 30.0
    """A skin-like pixel counts as new only if it differs this much from the background."""
    margin_cells: float = 0.5
    """Margin kept around the grid, in cells: the printed border anchors the alignment."""
    inner_fraction: float = 0.8
    """Central fraction of a cell used for change statistics (grid lines excluded)."""
    oversample: float = 1.5
    """The downscaled frame keeps at least this many pixels per rectified pixel (no aliasing)."""
    skin_cr: tuple[int, int] = (138, 178)
    """YCrCb Cr range of skin-like pixels."""
    skin_cb: tuple[int, int] = (80, 128)
    """YCrCb Cb range of skin-like pixels."""
    skin_min_luma: int = 50
    """Darker pixels are never called skin (shadows)."""
    ecc_iterations: int = 60
    ecc_epsilon: float = 1e-4
    ecc_blur: int = 5
    """Gaussian kernel ECC smooths both images with (odd)."""


@dataclass(frozen=True)
class Rectifier:
    """Warps frames of one camera into the small rectified board for fixed ``corners``.

    ``corners`` are the canonical outer grid corners (TL, TR, BR, BL) in full-frame pixels.
    """

    corners: np.ndarray
    size: tuple[int, int]
    cell_w: int
    cell_h: int
    margin_x: int
    margin_y: int
    block: int
    scale: int
    to_small: np.ndarray
    """3x3 homography mapping rectified pixels to downscaled-frame pixels."""

    @classmethod
    def build(
        cls, corners: np.ndarray, *, edition: str, frame_shape: tuple[int, ...], config: MotionConfig
    ) -> Rectifier:
        """Rectifier for ``corners`` in frames of ``frame_shape`` ``(H, W[, 3])``."""
        corners = np.asarray(corners, dtype=np.float32).reshape(4, 2)
        aspect = EDITIONS[edition].grid_aspect if edition in EDITIONS else 1.0
        b = int(config.block_px)
        cell_h = max(1, round(config.cell_px / b)) * b
        cell_w = max(1, round(cell_h * aspect / b)) * b
        mx = round(config.margin_cells * cell_w / b) * b
        my = round(config.margin_cells * cell_h / b) * b
        size = (SIZE * cell_w + 2 * mx, SIZE * cell_h + 2 * my)
        # Pixels per cell in the frame (shortest grid side) decide how far the frame may shrink.
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        frame_cell = float(sides.min()) / SIZE
        scale = max(1, int(frame_cell / (config.oversample * max(cell_w, cell_h))))
        scale = min(scale, max(1, min(frame_shape[0], frame_shape[1]) // 64))
        grid = grid_rect_corners(cell_w, cell_h, mx, my)
        to_full = cv2.getPerspectiveTransform(grid, corners)
        shrink = np.diag([1.0 / scale, 1.0 / scale, 1.0])
        # INTER_AREA with an integer factor maps pixel centres by (x + 0.5) / s - 0.5.
        centre = np.array([[1, 0, 0.5 / scale - 0.5], [0, 1, 0.5 / scale - 0.5], [0, 0, 1]])
        to_small = centre @ shrink @ to_full
        return cls(corners, size, cell_w, cell_h, mx, my, b, scale, to_small)

    def rectify(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` (H, W, 3) uint8 BGR -> rectified board (h, w, 3) float32 BGR."""
        small = frame
        if self.scale > 1:
            h, w = frame.shape[:2]
            small = cv2.resize(frame, (w // self.scale, h // self.scale), interpolation=cv2.INTER_AREA)
        rect = cv2.warpPerspective(
            small,
            self.to_small,
            self.size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return rect.astype(np.float32)

    def coarse(self, rect: np.ndarray) -> np.ndarray:
        """Block means of a rectified board (``block`` x ``block`` pixels each): noise averaged."""
        w, h = self.size
        return cv2.resize(rect, (w // self.block, h // self.block), interpolation=cv2.INTER_AREA)

    def moved(self, rect_warp: np.ndarray) -> np.ndarray:
        """Canonical corners after a rectified-space warp ``W`` (``new_rect(x) = old_rect(W x)``)."""
        grid = grid_rect_corners(self.cell_w, self.cell_h, self.margin_x, self.margin_y)
        to_full = cv2.getPerspectiveTransform(grid, self.corners).astype(np.float64)
        h = to_full @ np.asarray(rect_warp, dtype=np.float64)
        pts = cv2.perspectiveTransform(grid.reshape(-1, 1, 2).astype(np.float64), h)
        return pts.reshape(4, 2).astype(np.float32)

    def cell_mask(self, cells: np.ndarray, *, coarse: bool) -> np.ndarray:
        """``(h, w, 1)`` float32 mask of the rectified (or coarse) pixels of ``cells`` (10x10 bool)."""
        return self._spread(np.pad(cells, 1).astype(np.float32), coarse=coarse)

    def margin_mask(self, cells: np.ndarray) -> np.ndarray:
        """``(h, w, 1)`` float32 mask of the coarse margin pixels beside the edge cells among
        ``cells`` (10x10 bool; a corner cell's two sides and the margin's corner)."""
        ring = np.pad(cells, 1, mode="edge").astype(np.float32)
        ring[1:-1, 1:-1] = 0.0
        return self._spread(ring, coarse=True)

    def _spread(self, blocks: np.ndarray, *, coarse: bool) -> np.ndarray:
        """``(h, w, 1)`` float32: a ``(12, 12)`` array (the margin round the 10x10 cells) spread
        over the rectified (or coarse) board's pixels, each margin side one block deep."""
        f = self.block if coarse else 1
        w, h = self.size
        ch, cw, y, x = self.cell_h // f, self.cell_w // f, self.margin_y // f, self.margin_x // f
        rows = [y, *[ch] * SIZE, h // f - y - SIZE * ch]
        cols = [x, *[cw] * SIZE, w // f - x - SIZE * cw]
        return np.repeat(np.repeat(blocks, rows, axis=0), cols, axis=1)[..., None]

    def cells(self, image: np.ndarray, *, inner: float) -> np.ndarray:
        """View of the grid part of ``image`` as ``(10, ch, 10, cw, ...)``, central ``inner`` only."""
        ch, cw = self.cell_h, self.cell_w
        grid = image[self.margin_y : self.margin_y + SIZE * ch, self.margin_x : self.margin_x + SIZE * cw]
        cells = grid.reshape(SIZE, ch, SIZE, cw, *image.shape[2:])
        py = round(ch * (1 - inner) / 2)
        px = round(cw * (1 - inner) / 2)
        return cells[:, py : ch - py, :, px : cw - px]


def grid_rect_corners(cell_w: int, cell_h: int, mx: int, my: int) -> np.ndarray:
    """Outer grid corners (TL, TR, BR, BL) in rectified pixels, ``(4, 2) float32``."""
    w, h = SIZE * cell_w, SIZE * cell_h
    return np.array([[mx, my], [mx + w, my], [mx + w, my + h], [mx, my + h]], dtype=np.float32)


@lru_cache(maxsize=16)
def _inner_mask(cell_h: int, cell_w: int, inner: float) -> tuple[np.ndarray, float]:
    """``(10 ch, 10 cw) float32`` mask of each cell's central part, and that part's area fraction."""
    py, px = int(cell_h * (1 - inner) / 2), int(cell_w * (1 - inner) / 2)
    one = np.zeros((cell_h, cell_w), np.float32)
    one[py : cell_h - py, px : cell_w - px] = 1.0
    mask = np.tile(one, (SIZE, SIZE))
    mask.setflags(write=False)
    return mask, float(one.mean())


def grid_part(image: np.ndarray, rectifier: Rectifier) -> tuple[np.ndarray, int, int]:
    """The 10x10 grid of a rectified board or of its ``coarse`` view (told apart by its
    height), margin cut off, and one cell's height and width in its pixels."""
    r = rectifier
    f = r.size[1] // image.shape[0]  # 1 for a rectified board, ``block`` for its coarse view
    ch, cw, my, mx = r.cell_h // f, r.cell_w // f, r.margin_y // f, r.margin_x // f
    return image[my : my + SIZE * ch, mx : mx + SIZE * cw], ch, cw


def cell_mean(image: np.ndarray, rectifier: Rectifier, *, inner: float) -> np.ndarray:
    """Mean of each cell's central ``inner`` part: ``(10, 10)`` or ``(10, 10, C)`` float32.

    ``image`` is a rectified board or its ``coarse`` view (told apart by its height).

    Masked, then averaged by ``INTER_AREA`` with an integer factor (an exact block mean).
    """
    grid, ch, cw = grid_part(image, rectifier)
    mask, frac = _inner_mask(ch, cw, inner)
    weighted = grid * (mask[..., None] if grid.ndim == 3 else mask)
    return cv2.resize(weighted, (SIZE, SIZE), interpolation=cv2.INTER_AREA) / frac


def relative_gain(rect: np.ndarray, base: np.ndarray, rectifier: Rectifier, *, inner: float) -> np.ndarray:
    """Per-channel gain ``(3,)`` of ``rect`` over ``base``: the median of per-cell ratios.

    The median ignores the cells a hand covers, so flicker and slow light changes divide
    out while a chip or a hand does not.
    """
    a = cell_mean(rect, rectifier, inner=inner).reshape(-1, 3)
    b = cell_mean(base, rectifier, inner=inner).reshape(-1, 3)
    ratio = (a + 1.0) / (b + 1.0)
    return np.median(ratio, axis=0).astype(np.float32)


def cell_difference(a: np.ndarray, b: np.ndarray, rectifier: Rectifier, *, inner: float) -> np.ndarray:
    """Per-cell mean absolute difference ``(10, 10)`` of two rectified boards (0..255 scale)."""
    return cell_mean(cv2.absdiff(a, b), rectifier, inner=inner).mean(axis=2)


def structural_difference(a: np.ndarray, b: np.ndarray, rectifier: Rectifier, *, max_gain: float) -> np.ndarray:
    """Per-cell change ``(10, 10)`` of two coarse boards after each cell's own gain divides out.

    Each cell of ``a`` is divided, per channel, by the ratio of its mean to the same cell's mean
    in ``b`` (clipped to ``[1 / max_gain, max_gain]``), so light, shadows and flicker leave it
    near zero while a chip, a hand or a shifted grid (new structure) do not. 0..255 scale.
    """
    grid_a, ch, cw = grid_part(a, rectifier)
    ga = grid_a.reshape(SIZE, ch, SIZE, cw, -1)
    gb = grid_part(b, rectifier)[0].reshape(SIZE, ch, SIZE, cw, -1)
    ma = ga.mean(axis=(1, 3), keepdims=True)
    mb = gb.mean(axis=(1, 3), keepdims=True)
    gain = np.clip((ma + 1.0) / (mb + 1.0), 1.0 / max_gain, max_gain)
    return np.abs(ga / gain - gb).mean(axis=(1, 3, 4))


CHROMA_OFFSET = 8.0
"""Added to both boards before the log ratio of ``chroma_change``: sensor noise in dark pixels
is no colour."""


def chroma_change(a: np.ndarray, b: np.ndarray, rectifier: Rectifier, *, inner: float) -> np.ndarray:
    """Per-cell change of colour, not of lightness, ``(10, 10)``, between two coarse boards.

    The per-pixel log ratio ``a / b`` of each channel, less the board's median ratio (the white
    balance may have changed since ``b``), is compared with its mean over the three channels:
    any neutral gain, a smooth light change or the sharp edge of an arm's shadow, leaves it near
    zero; a coloured chip on a card does not. Natural-log units, averaged over each cell's
    central ``inner`` part.
    """
    ratio = np.log(a + CHROMA_OFFSET) - np.log(b + CHROMA_OFFSET)
    grid = grid_part(ratio, rectifier)[0]
    ratio -= np.median(grid.reshape(-1, grid.shape[-1]), axis=0)
    stray = np.abs(ratio - ratio.mean(axis=2, keepdims=True)).mean(axis=2)
    return cell_mean(stray, rectifier, inner=inner)


def skin_mask(rect: np.ndarray, config: MotionConfig) -> np.ndarray:
    """Boolean ``(h, w)`` mask of skin-like pixels of a rectified BGR board."""
    ycc = cv2.cvtColor(np.clip(rect, 0, 255).astype(np.uint8), cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    return (
        (cr >= config.skin_cr[0])
        & (cr <= config.skin_cr[1])
        & (cb >= config.skin_cb[0])
        & (cb <= config.skin_cb[1])
        & (y >= config.skin_min_luma)
    )


def new_skin(rect: np.ndarray, norm: np.ndarray, base: np.ndarray, base_skin: np.ndarray,
             config: MotionConfig) -> np.ndarray:
    """Skin-like pixels of ``rect`` that were not skin-like in ``base`` and clearly changed.

    Works on rectified boards or their coarse views alike. ``norm`` is ``rect`` divided by
    its gain over ``base``; the change test keeps noise and half-red ink edges (skin-like in
    colour) from flickering in and out.
    """
    changed = cv2.absdiff(norm, base).max(axis=2) > config.skin_change
    return skin_mask(rect, config) & changed & ~base_skin


def cell_fraction(mask: np.ndarray, rectifier: Rectifier, *, inner: float) -> np.ndarray:
    """Per-cell fraction ``(10, 10)`` of true pixels of a boolean ``(h, w)`` mask."""
    return cell_mean(mask.astype(np.float32), rectifier, inner=inner)


def edge_difference(a: np.ndarray, b: np.ndarray, rectifier: Rectifier) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell ``(10, 10)`` mean absolute difference of the margin just outside each edge cell:
    of the whole strip, and of its outer half beside the cell or a neighbour along the edge.

    ``a`` and ``b`` are coarse (or full) rectified boards, light already divided out. An edge
    cell gets the difference of the strip of margin beside it (a corner cell the larger of its
    two); inner cells get 0. Nothing on the board changes the margin: an arm reaching in does.
    A chip on an edge cell may overhang the strip's inner half (off centre, or its top face seen
    at an angle on the far row); an arm crosses the outer half too, at a slant beside a neighbour.
    """
    r = rectifier
    f = r.size[1] // a.shape[0]
    diff = cv2.absdiff(a, b).mean(axis=2)
    my, mx = r.margin_y // f, r.margin_x // f
    whole = _margin_strips(diff, r, f, my, mx, lambda strip: strip)
    outer = _margin_strips(diff, r, f, my - my // 2, mx - mx // 2, _with_neighbours)
    return whole, outer


def _margin_strips(
    diff: np.ndarray, r: Rectifier, f: int, oy: int, ox: int, spread: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``edge_difference`` of ``diff`` over the ``oy``/``ox`` margin rows/columns furthest from
    the grid, each edge's 10 values passed through ``spread``."""
    ch, cw, my, mx = r.cell_h // f, r.cell_w // f, r.margin_y // f, r.margin_x // f
    gy, gx = my + SIZE * ch, mx + SIZE * cw
    out = np.zeros((SIZE, SIZE), dtype=np.float32)
    if my > 0:
        out[0, :] = spread(diff[:oy, mx:gx].reshape(oy, SIZE, cw).mean(axis=(0, 2)))
        bottom = diff[gy + my - oy : gy + my, mx:gx].reshape(oy, SIZE, cw).mean(axis=(0, 2))
        out[-1, :] = np.maximum(out[-1, :], spread(bottom))
    if mx > 0:
        left = diff[my:gy, :ox].reshape(SIZE, ch, ox).mean(axis=(1, 2))
        right = diff[my:gy, gx + mx - ox : gx + mx].reshape(SIZE, ch, ox).mean(axis=(1, 2))
        out[:, 0] = np.maximum(out[:, 0], spread(left))
        out[:, -1] = np.maximum(out[:, -1], spread(right))
    return out


def _with_neighbours(strip: np.ndarray) -> np.ndarray:
    """Each of the 10 strip values along an edge, or its neighbour's along the edge if larger."""
    out = strip.copy()
    out[1:] = np.maximum(out[1:], strip[:-1])
    out[:-1] = np.maximum(out[:-1], strip[1:])
    return out


def _ring_order() -> np.ndarray:
    """Flat indices of the 36 edge cells in order round the grid (clockwise from (0, 0))."""
    top = [(0, c) for c in range(SIZE)]
    right = [(r, SIZE - 1) for r in range(1, SIZE - 1)]
    bottom = [(SIZE - 1, c) for c in range(SIZE - 1, -1, -1)]
    left = [(r, 0) for r in range(SIZE - 2, 0, -1)]
    order = np.array([r * SIZE + c for r, c in top + right + bottom + left], dtype=np.intp)
    order.setflags(write=False)
    return order


_RING = _ring_order()


def ring_baseline(edge: np.ndarray, half: int) -> np.ndarray:
    """``(10, 10)``: for each edge cell, the median of a ``(10, 10)`` ``edge_difference`` over
    the ``2 * half + 1`` edge cells centred on it round the grid (0 inside): what the light did
    to the margin there. An arm changes the margin over a cell or two, a lamp or a cast shadow
    over a side or a stretch of it, so an arm stands out of its neighbours along the edge where
    it would not stand out of the median all round (game 153002: a shadow over one side)."""
    ring = edge.ravel()[_RING]
    padded = np.concatenate([ring[-half:], ring, ring[:half]])
    local = np.median(np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1), axis=1)
    out = np.zeros(SIZE * SIZE, dtype=np.float32)
    out[_RING] = local
    return out.reshape(SIZE, SIZE)


def grey(rect: np.ndarray) -> np.ndarray:
    """Rectified board as ``(h, w) float32`` luminance."""
    return cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)


def phase_shift(current: np.ndarray, base: np.ndarray) -> tuple[float, float, float]:
    """Translation ``(dx, dy)`` of ``current`` against ``base`` (grey, same size) and its response."""
    (dx, dy), response = cv2.phaseCorrelate(base.astype(np.float64), current.astype(np.float64))
    return float(dx), float(dy), float(response)


def largest_shift(current: np.ndarray, base: np.ndarray) -> tuple[float, float]:
    """Phase-correlation shift of ``current`` against ``base`` (grey, same size) over the whole
    board, and the largest over its four quarters: a turn of the board about its middle moves
    opposite quarters opposite ways and the whole hardly at all (game 157005: a 1.6 degree
    bump showed 0.5 px over the whole board and 2.6 px in one quarter)."""
    h, w = current.shape[:2]
    whole = math.hypot(*phase_shift(current, base)[:2])
    quarters = [
        math.hypot(*phase_shift(np.ascontiguousarray(current[ys, xs]), np.ascontiguousarray(base[ys, xs]))[:2])
        for ys in (slice(0, h // 2), slice(h // 2, h))
        for xs in (slice(0, w // 2), slice(w // 2, w))
    ]
    return whole, max(quarters)


def align(current: np.ndarray, base: np.ndarray, config: MotionConfig) -> tuple[np.ndarray, float] | None:
    """Homography ``W`` with ``current(W x) ~ base(x)`` (grey rectified boards), and its correlation.

    Refines a Euclidean motion, then the full homography, from the phase-correlation shift and
    from no shift, and keeps the better fit. A board knocked a degree or two round smears the
    phase correlation's peak, and its shift may then point a cell away, where the periodic
    cards hold the refinement (game 198301 of ``live_accuracy`` at 7.5 frames a second: a bump
    turned the board 1.3 degrees; from the phase shift the fit reached 0.33, from no shift 0.99,
    and the grid stayed a third of a cell off for 130 frames). Returns None when neither converges.
    """
    dx, dy, _ = phase_shift(current, base)
    starts = [(dx, dy), (0.0, 0.0)] if (dx, dy) != (0.0, 0.0) else [(0.0, 0.0)]
    fits = [fit for fit in (_ecc(current, base, start, config) for start in starts) if fit is not None]
    return max(fits, key=lambda fit: fit[1], default=None)


def _ecc(current: np.ndarray, base: np.ndarray, start: tuple[float, float], config: MotionConfig
         ) -> tuple[np.ndarray, float] | None:
    """``align`` from the shift ``start``: ECC's homography and correlation, or None."""
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, config.ecc_iterations, config.ecc_epsilon)
    euclid = np.array([[1, 0, start[0]], [0, 1, start[1]]], dtype=np.float32)
    try:
        _, euclid = cv2.findTransformECC(
            base, current, euclid, cv2.MOTION_EUCLIDEAN, criteria, None, config.ecc_blur
        )
        warp = np.vstack([euclid, [0, 0, 1]]).astype(np.float32)
        cc, warp = cv2.findTransformECC(
            base, current, warp, cv2.MOTION_HOMOGRAPHY, criteria, None, config.ecc_blur
        )
    except cv2.error as exc:
        log.debug("ECC alignment did not converge: %s", str(exc).strip().splitlines()[-1])
        return None
    return warp, float(cc)


def warp_displacement(warp: np.ndarray, rectifier: Rectifier) -> float:
    """Largest displacement in rectified pixels that ``warp`` gives the four grid corners."""
    grid = grid_rect_corners(rectifier.cell_w, rectifier.cell_h, rectifier.margin_x, rectifier.margin_y)
    moved = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), np.asarray(warp, dtype=np.float32))
    return float(np.linalg.norm(moved.reshape(4, 2) - grid, axis=1).max())


def dilate_cells(mask: np.ndarray, steps: int = 1) -> np.ndarray:
    """Grow a boolean ``(10, 10)`` mask by ``steps`` cells in all eight directions."""
    if steps <= 0 or not mask.any():
        return mask.copy()
    kernel = np.ones((2 * steps + 1, 2 * steps + 1), np.uint8)
    return cv2.dilate(mask.astype(np.uint8), kernel).astype(bool)


def touching_not_later(mask: np.ndarray, times: np.ndarray, by: float) -> np.ndarray:
    """Cells of ``mask`` (``(10, 10)`` bool) touching (8 ways) another ``mask`` cell whose time in
    ``times`` is at most ``by`` after their own: what came with them or before, not well after."""
    if not mask.any():
        return np.zeros_like(mask)
    t = np.where(mask, times, np.inf).astype(np.float32)
    ring = np.ones((3, 3), np.uint8)
    ring[1, 1] = 0
    earliest = cv2.erode(t, ring, borderType=cv2.BORDER_CONSTANT, borderValue=np.inf)
    return mask & (earliest <= t + by)


def regions_touching(changed: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Cells of ``changed`` whose 8-connected region contains or touches a ``seeds`` cell."""
    if not changed.any() or not seeds.any():
        return np.zeros_like(changed)
    grown = dilate_cells(seeds, 1)
    _n, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
    hit = np.unique(labels[grown & changed])
    hit = hit[hit > 0]
    return np.isin(labels, hit)


def large_regions(mask: np.ndarray, max_cells: int) -> np.ndarray:
    """Cells of ``mask`` in 8-connected regions of more than ``max_cells`` cells."""
    if mask.sum() <= max_cells:
        return np.zeros_like(mask)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    big = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] > max_cells]
    return np.isin(labels, big)


def changed_alike(change: np.ndarray, spread: float, *, settled: bool = False) -> bool:
    """Did every cell's look (``change`` ``(10, 10)``) move alike, as light moves it: the 90th
    percentile within ``spread`` times the median, the 10th within it below?

    The lower bound tells light from a bump (which moves the print, blank card hardly) and from
    a shadow over part of the board. Where the caller knows the board unmoved and the change
    ``settled`` (no longer growing, as a sweeping shadow's does), it is not asked: a warmer lamp
    moves coloured print more than blank card too. The upper bound still tells light from a
    hand or a sleeve over a region."""
    low, mid, high = np.percentile(change, (10, 50, 90))
    return bool(mid > 0 and high <= spread * mid and (settled or low * spread >= mid))


@lru_cache(maxsize=1)
def _smooth_basis() -> np.ndarray:
    """``(100, 6)``: a quadratic surface's terms at each cell (rows and columns scaled to 0..1)."""
    y, x = (a.ravel() / (SIZE - 1) for a in np.mgrid[0:SIZE, 0:SIZE].astype(np.float64))
    return np.stack([np.ones_like(x), y, x, y * y, x * x, x * y], axis=1)


def regional_share(change: np.ndarray) -> float:
    """How much of the spread of the cells' ``change`` (``(10, 10)``) a smooth surface over the
    board explains, 0 to 1. A shadow or a lamp's gradient changes a region (high); a new white
    balance moves each card by its own ink (low)."""
    values = change.astype(np.float64).ravel()
    spread = float(values.var())
    if spread <= 1e-9:
        return 0.0
    basis = _smooth_basis()
    coef, *_ = np.linalg.lstsq(basis, values, rcond=None)
    return float(1.0 - (values - basis @ coef).var() / spread)


def region_sizes(mask: np.ndarray, counting: np.ndarray | None = None) -> np.ndarray:
    """``(10, 10)`` int: the size (cells) of the 8-connected region of ``mask`` each cell is in, 0
    outside; or, given ``counting`` (bool, same shape), how many of its cells are ``counting`` ones."""
    if not mask.any():
        return np.zeros(mask.shape, dtype=int)
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    which = mask if counting is None else mask & counting
    sizes = np.bincount(labels[which], minlength=n)
    sizes[0] = 0
    return sizes[labels]


def cells_of(mask: np.ndarray, labels: np.ndarray | None = None) -> list[tuple]:
    """``[(r, c), ...]`` of a 10x10 mask (with each cell's label when ``labels`` is given), for logs."""
    rows, cols = np.nonzero(mask)
    if labels is None:
        return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True)]
    return [(int(r), int(c), str(labels[r, c])) for r, c in zip(rows, cols, strict=True)]
