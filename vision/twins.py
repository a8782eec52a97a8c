"""The layout's twin cards as a pattern: every card is printed twice, so a placed grid's cells
come in 48 pairs that look alike, and no other placement or turn pairs them.

This is a cue to where the board is and which way up, independent of how readable the suits'
red and black are: on a small, blurred or dim board the pips' colours wash out long before
their arrangement (two pips or ten, a picture or pips) does. For each 10x10 window and quarter
turn of a rectified lattice (``vision.orient.ink_lattice``), the mean similarity (normalised
cross-correlation of the cells' pictures) over the pairs the layout prints with the same card
is compared with the mean over every pair of the window's cells: for cells unrelated to the
layout (the wrong placement or turn, a table) the difference, in standard errors, is about
N(0, 1), like the ink's ``pattern_z``. Cells that look like a chip (a strongly coloured disc)
are left out: chips say nothing about the print under them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE, twin_of
from vision.geometry import window_index

N_CELLS = SIZE * SIZE


def _twin_index() -> np.ndarray:
    """For each cell (row-major), the flat index of its twin (corners: themselves)."""
    twins = [twin_of((r, c)) for r in range(SIZE) for c in range(SIZE)]
    index = np.array([r * SIZE + c for r, c in twins])
    index.setflags(write=False)
    return index


TWIN = _twin_index()
"""Every card is printed twice: a cell's twin shows the same print, a free reference of its look."""


@dataclass(frozen=True)
class TwinConfig:
    """How the cells' pictures are compared."""

    inset: float = 0.17
    """Each side of a cell left out (a fraction of the cell): the gaps, the same in every cell."""
    chip_saturation: float = 1.2
    chip_offset: float = 10.0
    """A cell is a chip, not print, when its mean saturation exceeds this many times the
    median cell's plus this offset (grey levels): most cells show card, and cards are white."""
    min_pairs: int = 8
    """Fewer pairs left than this (chips on most cards) say nothing."""


@functools.lru_cache(maxsize=1)
def _turned_pairs() -> tuple[np.ndarray, ...]:
    """For each quarter turn ``k`` (as ``vision.orient.pattern_z`` counts them: the window seen
    against ``rot90(layout, -k)``), the ``(48, 2)`` window positions printed with one card."""
    layout = np.arange(N_CELLS).reshape(SIZE, SIZE)
    pairs = []
    for k in range(4):
        seen = np.rot90(layout, -k).ravel()  # the layout cell at each seen position
        where = np.argsort(seen)  # the seen position of each layout cell
        first = [p for p in range(N_CELLS) if TWIN[seen[p]] != seen[p] and p < where[TWIN[seen[p]]]]
        pairs.append(np.array([(p, where[TWIN[seen[p]]]) for p in first]))
    return tuple(pairs)


def cell_pictures(
    lattice: np.ndarray, cell_px: int, cells: int, config: TwinConfig = TwinConfig()
) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's picture as a unit vector (each channel's mean removed), ``(cells * cells, D)``
    float32, and whether the cell shows print rather than a chip, ``(cells * cells,)`` bool."""
    m = round(config.inset * cell_px)
    side = cell_px - 2 * m
    printed = np.ones(cells * cells, bool)
    if lattice.ndim == 3:
        b, g, r = cv2.split(lattice)
        spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
        saturation = _cell_sums(spread.astype(np.float32), cell_px, cells, m)
        printed = saturation < np.median(saturation) * config.chip_saturation + config.chip_offset * side * side
    grid = lattice.reshape(cells, cell_px, cells, cell_px, -1)[:, m : cell_px - m, :, m : cell_px - m]
    pics = np.ascontiguousarray(grid.transpose(0, 2, 1, 3, 4), dtype=np.float32)
    pics = pics.reshape(cells * cells, side * side, -1)
    # Each channel's own mean goes: a lamp's colour cast is common to every cell, not a picture.
    pics -= pics.sum(axis=1, keepdims=True) * (1.0 / (side * side))
    pics = pics.reshape(cells * cells, -1)
    pics /= np.sqrt(np.einsum("ij,ij->i", pics, pics))[:, None] + 1e-6
    return pics, printed


def _cell_sums(plane: np.ndarray, cell_px: int, cells: int, inset: int) -> np.ndarray:
    """Sum of each cell's inner square (``inset`` pixels in from each side) of a ``(cells *
    cell_px)``-square plane, ``(cells * cells,)`` row-major: two reductions along rows."""
    rows = plane.reshape(cells * cell_px, cells, cell_px)[:, :, inset : cell_px - inset].sum(axis=2)
    return rows.reshape(cells, cell_px, cells)[:, inset : cell_px - inset].sum(axis=1).ravel()


def twin_z(lattice: np.ndarray, cell_px: int, cells: int = SIZE, config: TwinConfig = TwinConfig()) -> np.ndarray:
    """How strongly each 10x10 window and turn of a rectified lattice shows the twin pairs, as
    z-scores ``(cells-9, cells-9, 4)`` indexed like ``vision.orient.pattern_z`` (0 where too
    few pairs show print)."""
    pics, printed = cell_pictures(lattice, cell_px, cells, config)
    sim = pics @ pics.T
    shape, windows = window_index((cells, cells))
    # Every pair of print cells in each window: their count, mean similarity and its spread.
    both = np.outer(printed, printed).astype(np.float32)
    np.fill_diagonal(both, 0.0)
    count, total, squares = _window_pair_sums(_inside((cells, cells)), [both, both * sim, both * sim * sim])
    count = np.maximum(count, 2.0)
    mean = total / count
    var = np.maximum(squares / count - mean * mean, 1e-9)
    z = np.zeros((len(windows), 4))
    for k, pairs in enumerate(_turned_pairs()):
        a, b = windows[:, pairs[:, 0]], windows[:, pairs[:, 1]]
        ok = printed[a] & printed[b]
        n = ok.sum(axis=1)
        twin_mean = np.where(ok, sim[a, b], 0.0).sum(axis=1) / np.maximum(n, 1)
        z[:, k] = np.where(n >= config.min_pairs, (twin_mean - mean) / np.sqrt(var / np.maximum(n, 1)), 0.0)
    return z.reshape(*shape, 4)


@functools.lru_cache(maxsize=8)
def _inside(shape: tuple[int, int]) -> np.ndarray:
    """``(W, cells)`` 0/1: which lattice cells each 10x10 window (``window_index``) holds."""
    _, windows = window_index(shape)
    inside = np.zeros((len(windows), shape[0] * shape[1]), np.float32)
    np.put_along_axis(inside, windows, 1.0, axis=1)
    inside.setflags(write=False)
    return inside


def _window_pair_sums(inside: np.ndarray, pair_values: list[np.ndarray]) -> list[np.ndarray]:
    """For each value per pair of lattice cells ``(n, n)``, its sum over the pairs inside each
    window (``inside``: ``(W, n)`` 0/1), ``(W,)``: ``inside @ values @ inside.T``'s diagonal."""
    stacked = inside @ np.concatenate(pair_values, axis=1)  # (W, n * len(pair_values))
    n = inside.shape[1]
    return [(stacked[:, i * n : (i + 1) * n] * inside).sum(axis=1) for i in range(len(pair_values))]
