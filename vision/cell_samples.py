"""Which pixels of the rectified grid the cell reader gathers each cell's cues from.

Every set is a fixed array of flat indices for all 100 cells at once (central disc, outer
corners, covered disc, rim samples around each chip-rim hypothesis), computed once per grid
geometry and reader config (``sample_plan``); ``Samples`` holds them as one read uses them,
about each cell's centre or moved onto a chip put down off centre.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from engine.layout import SIZE
from vision.cells import N_CELLS
from vision.reader_config import ReaderConfig
from vision.twins import TWIN
from vision.warp import GridGeometry


def _cell_masks(geom: GridGeometry, cfg: ReaderConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat indices into the rectified grid (``(10h * 10w)`` pixels) of every cell's central disc,
    outer corners and covered disc: int arrays ``(100, n)``, cells row-major."""
    h, w = geom.cell_h, geom.cell_w
    side = min(h, w)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dy, dx = (ys + 0.5 - h / 2) / side, (xs + 0.5 - w / 2) / side
    rho = np.sqrt(dx * dx + dy * dy)
    bh, bw = max(1, round(cfg.border * h)), max(1, round(cfg.border * w))
    inside = np.zeros((h, w), dtype=bool)
    inside[bh : h - bh, bw : w - bw] = True
    out = []
    lattice = np.zeros((h, w), dtype=bool)
    lattice[:: cfg.sparse_stride, :: cfg.sparse_stride] = True
    for mask in (rho <= cfg.core_radius, inside & (rho >= cfg.outer_radius) & lattice,
                 (rho <= cfg.cover_radius) & lattice):
        my, mx = np.nonzero(mask)
        rows, cols = np.divmod(np.arange(N_CELLS), SIZE)
        gy = rows[:, None] * h + my[None, :]
        gx = cols[:, None] * w + mx[None, :]
        out.append((gy * (SIZE * w) + gx).astype(np.intp))
    return out[0], out[1], out[2]


def _ring_samples(geom: GridGeometry, cfg: ReaderConfig, offsets: tuple[float, ...]) -> np.ndarray:
    """Flat rectified-grid indices of samples around every chip-rim hypothesis of every cell.

    One hypothesis per (centre shift, radius); for each, ``A`` angles, sampled at the rim radius
    plus each of ``offsets`` (pixels, negative = inside). Returns ``(len(offsets), 100, n_hyp, A)``.
    """
    h, w = geom.cell_h, geom.cell_w
    side = min(h, w)
    shifts = np.linspace(-cfg.ring_shift, cfg.ring_shift, cfg.ring_shift_steps) * side
    sy, sx = np.meshgrid(shifts, shifts, indexing="ij")
    radii = np.asarray(cfg.ring_radii, dtype=np.float32) * side
    angles = np.linspace(0, 2 * np.pi, cfg.ring_angles, endpoint=False)
    hy = np.repeat(sy.ravel(), len(radii))
    hx = np.repeat(sx.ravel(), len(radii))
    hr = np.tile(radii, sy.size)[None, :, None]
    rows, cols = np.divmod(np.arange(N_CELLS), SIZE)
    cy = rows[:, None, None] * h + h / 2 + hy[None, :, None]
    cx = cols[:, None, None] * w + w / 2 + hx[None, :, None]
    cos, sin = np.cos(angles)[None, None, :], np.sin(angles)[None, None, :]
    out = []
    for off in offsets:
        y = np.clip(np.floor(cy + (hr + off) * sin), 0, SIZE * h - 1).astype(np.intp)
        x = np.clip(np.floor(cx + (hr + off) * cos), 0, SIZE * w - 1).astype(np.intp)
        out.append(y * (SIZE * w) + x)
    return np.stack(out)


def _angles(cfg: ReaderConfig) -> tuple[np.ndarray, np.ndarray]:
    angles = np.linspace(0, 2 * np.pi, cfg.ring_angles, endpoint=False)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


@functools.lru_cache(maxsize=8)
def sample_plan(geom: GridGeometry, cfg: ReaderConfig) -> tuple[np.ndarray, ...]:
    """All index arrays a reader needs, computed once per (geometry, config) and shared
    (read-only) by every reader built with them."""
    core, outer, cover = _cell_masks(geom, cfg)
    step = cfg.ring_step * min(geom.cell_h, geom.cell_w)
    ring_in, ring_mid, ring_out = _ring_samples(geom, cfg, (-step, 0.0, step))
    rim = _ring_samples(geom, cfg, cfg.rim_offsets)
    cos, sin = _angles(cfg)
    plan = (core, outer, cover, ring_in, ring_mid, ring_out, rim, cos, sin)
    for arr in plan:
        arr.setflags(write=False)
    return plan


@dataclass(frozen=True)
class Samples:
    """The flat indices (into the rectified grid) a read gathers each cell's chip cues from."""

    core3: np.ndarray
    """Central disc, ``(3, 100, n)`` into an interleaved ``(10h, 10w, 3)`` image (all channels in one gather)."""
    cover3: np.ndarray
    """Covered disc, likewise ``(3, 100, n)``."""
    cover: np.ndarray
    """Covered disc ``(100, n)``."""
    cover_shifted: np.ndarray
    """The covered disc plus each one-pixel shift ``(9, 100, n)``: the empty look to compare with."""
    twin_shifted: np.ndarray
    """The twin cell's covered disc plus each one-pixel shift ``(9, 100, n)``."""
    ring_in: np.ndarray
    ring_mid: np.ndarray
    ring_out: np.ndarray
    """Inside, on and outside each rim hypothesis, ``(100, n_hyp, A)``."""
    rim: np.ndarray
    """Each rim hypothesis at each radial offset, ``(k, 100, n_hyp, A)``."""

    @classmethod
    def centred(cls, plan: tuple[np.ndarray, ...], row: int) -> Samples:
        """The sets of ``sample_plan`` about each cell's centre (``row``: the grid's width in pixels)."""
        core, _outer, cover, ring_in, ring_mid, ring_out, rim = plan[:7]
        channel = np.arange(3).reshape(3, 1, 1)
        shifts = np.array([dy * row + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)]).reshape(-1, 1, 1)
        return cls(core[None] * 3 + channel, cover[None] * 3 + channel, cover, cover[None] + shifts,
                   cover[TWIN][None] + shifts, ring_in, ring_mid, ring_out, rim)

    def of_cells(self, cells: np.ndarray) -> Samples:
        """The sets of ``cells`` (flat indices ``(k,)``) only, in that order."""
        return Samples(self.core3[:, cells], self.cover3[:, cells], self.cover[cells], self.cover_shifted[:, cells],
                        self.twin_shifted[:, cells], self.ring_in[cells], self.ring_mid[cells], self.ring_out[cells],
                        self.rim[:, cells])

    def moved(self, offsets: np.ndarray, size: tuple[int, int]) -> Samples:
        """These sets with each cell's (row's) moved by its ``offsets`` ``(cells, 2)`` (pixels
        down, across), its twin's by the same (the same place on the same card), clipped to the
        grid ``size`` (width, height)."""
        width, height = size
        dy, dx = (np.asarray(offsets, np.intp)[:, k] for k in (0, 1))

        def move(idx: np.ndarray, cell_axis: int) -> np.ndarray:
            shape = [1] * idx.ndim
            shape[cell_axis] = len(dy)
            y, x = np.divmod(idx, width)
            y = np.clip(y + dy.reshape(shape), 0, height - 1)
            x = np.clip(x + dx.reshape(shape), 0, width - 1)
            return y * width + x

        channel = np.arange(3).reshape(3, 1, 1)
        core = move(self.core3[0] // 3, 0)
        cover = move(self.cover, 0)
        return Samples(core[None] * 3 + channel, cover[None] * 3 + channel, cover,
                        move(self.cover_shifted, 1), move(self.twin_shifted, 1),
                        move(self.ring_in, 0), move(self.ring_mid, 0), move(self.ring_out, 0), move(self.rim, 1))
