"""A grid placement and how plainly its cells show the printed layout (``InkMatch``,
``ink_match``), and the test that takes one for the board (``accepted``).

A registered lattice lies on the card gaps but may be whole cells off, or turned: the ink of
a wider lattice is read once and every 10x10 window and turn scored against the layout's
red/black pattern. Where the card gaps, the board network's card area or the four free corners
fix the window, only the turns are in question and fainter evidence suffices (the court
cards' art, the turn network). ``vision.locate`` searches with these; the evidence and the
rules for it live here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import SIZE
from vision.board_net import BoardView
from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography
from vision.lattice import lattice_extent
from vision.locate_config import LocateConfig
from vision.orient import (
    OrientConfig,
    free_corner_scores,
    ink_lattice,
    lattice_pattern_z,
    net_turn,
    with_court_art,
    with_twin_cards,
)


@dataclass(frozen=True)
class InkMatch:
    """A grid placement and how strongly its cells show the layout's red/black print.

    ``z`` is the pattern z-score of the best placement (see ``vision.orient.pattern_z``),
    ``runner_up`` the best z of any other whole-cell placement or quarter turn, ``cells`` how
    many cells of the placement show ink. ``placed`` says the card gaps fixed the whole-cell
    placement (see ``lattice_extent``): then only the other turns are runners-up.
    """

    corners: np.ndarray
    z: float
    runner_up: float
    cells: int
    placed: bool = False
    framed: bool = False
    """The board network's card area or the free corners (not the gaps) placed it: only the
    turns are runners-up."""
    art_z: float | None = None
    art_runner: float | None = None
    """Where the ink alone did not tell the turn of a placed or framed grid and the court cards'
    art or the turn network did (``placed_turns``): the best and next turn's z with them joined in. They count
    for acceptance only; placements are always ranked by the ink's ``z``."""


def ink_match(
    frame: np.ndarray,
    corners: np.ndarray,
    config: LocateConfig,
    reach: int | None = None,
    ink: OrientConfig | None = None,
    gray: np.ndarray | None = None,
    board: BoardView | None = None,
) -> InkMatch:
    """The whole-cell placement of a registered lattice that best shows the printed layout.

    A registration lands on the card gaps but may be whole cells off (a margin or a row of
    cards taken for the edge): the ink of a wider lattice (``reach`` cells more each side) is
    read once and every 10x10 window of it scored against the layout. Given ``gray``, where
    the card gaps end places the grid instead when they say so clearly; where they do not and
    the ink alone falls short, the card area the board network sees (``board``) or the four
    free corners may place it, and then the ink and art need only tell its turn.
    """
    r = config.shift_reach if reach is None else reach
    ink = config.ink if ink is None else ink
    h = grid_homography(np.asarray(corners, np.float32))
    ext = apply_homography(h, np.array([[-r, -r], [SIZE + r, -r], [SIZE + r, SIZE + r], [-r, SIZE + r]], float))
    try:
        lattice = ink_lattice(frame, ext.astype(np.float32), ink.cell_px, SIZE + 2 * r)
        z, rednesses = lattice_pattern_z(
            lattice, ink, cells=SIZE + 2 * r, white_border=r, both_whites=config.ink_both_whites
        )
    except (ValueError, cv2.error):
        return InkMatch(np.asarray(corners, np.float32), -1.0, -1.0, 0)
    placed = None if gray is None or r < 1 else placed_by_gaps(gray, corners, r, config)
    # Unplaced, the best window over every shift and turn, against every other as runner-up.
    dv, du, best, runner = _best_window(z)
    clear = best >= config.min_z and best - runner >= config.min_z_margin
    if not clear and ink.twin_cards:  # the ink alone falls short: the twin cards may tell
        z = with_twin_cards(z, lattice, ink, cells=SIZE + 2 * r)
        dv, du, best, runner = _best_window(z)
        clear = best >= config.min_z and best - runner >= config.min_z_margin
    told: dict[tuple[int, int], np.ndarray] = {}

    def turns_at(window: tuple[int, int]) -> np.ndarray:
        """``placed_turns`` of one window, asked once: the board network's mask and the free
        corners may frame the same window, and its turn network call is the dear part."""
        if window not in told:
            told[window] = placed_turns(lattice, r, z, window, config, ink)
        return told[window]

    framed = None
    if placed is None and board is not None and config.place_by_net and r >= 1 and not clear:
        framed = _placed_by_mask(board, h, r, turns_at, config)
    if framed is None and placed is None and gray is not None and r >= 1 and config.use_corners and not clear:
        framed = _placed_by_corners(lattice, r, z, turns_at, config, ink)  # (only where the ink alone falls short)
    art = None
    if placed is not None or framed is not None:
        dv, du = placed if placed is not None else framed[0]
        ink_turns = np.sort(z[dv, du])
        best, runner = float(ink_turns[-1]), float(ink_turns[-2])
        turns = np.sort(turns_at((dv, du)) if framed is None else framed[1])
        if turns[-1] > best:
            art = float(turns[-1]), float(turns[-2])
    shift = np.array([[1, 0, du - r], [0, 1, dv - r], [0, 0, 1.0]])
    placed_corners = apply_homography(h @ shift, GRID_CORNERS_UV).astype(np.float32)
    cells = max(int(np.isfinite(red[dv : dv + SIZE, du : du + SIZE]).sum()) for red in rednesses)
    return InkMatch(placed_corners, best, runner, cells, placed is not None, framed is not None,
                    *(art if art is not None else (None, None)))


def _best_window(z: np.ndarray) -> tuple[int, int, float, float]:
    """The window ``(dv, du)`` and z of the best placement and turn in ``z`` ``(S-9, S-9, 4)``,
    and the runner-up: the best of every other window and of this window's other turns."""
    dv, du, _ = (int(i) for i in np.unravel_index(int(np.argmax(z)), z.shape))
    others = z.copy()
    others[dv, du] = -np.inf
    best = float(z[dv, du].max())
    return dv, du, best, max(float(others.max()), float(np.sort(z[dv, du])[-2]))


def placed_turns(
    lattice: np.ndarray, reach: int, z: np.ndarray, window: tuple[int, int], config: LocateConfig, ink: OrientConfig
) -> np.ndarray:
    """The z of each turn ``(4,)`` of a placed window: once the placement is fixed, only the
    turns are in question. Where the ink alone does not tell them (``min_z_placed``,
    ``min_z_margin``), the court cards' art may (``orient.with_court_art``), and where that
    does not either, the turn network (``orient.net_turn``): the turn it is sure of is given
    the z the test asks for. A turn the ink tells keeps the ink's z, so placements stay ranked
    by the same evidence."""
    if turns_told(z[window], config):
        return z[window]
    turns = with_court_art(z[window], lattice, ink, cells=SIZE + 2 * reach, window=window, white_border=reach)
    if turns_told(turns, config) or not config.use_net:
        return turns
    (dv, du), px = window, ink.cell_px
    told = net_turn(lattice[dv * px : (dv + SIZE) * px, du * px : (du + SIZE) * px], ink)
    if told is None:
        return turns
    k = told[0]
    lifted = turns.copy()
    lifted[k] = max(float(turns[k]), config.min_z_placed, float(np.delete(turns, k).max()) + config.min_z_margin)
    return lifted


def _placed_by_corners(
    lattice: np.ndarray, reach: int, z: np.ndarray, turns_at: Callable[[tuple[int, int]], np.ndarray],
    config: LocateConfig, ink: OrientConfig,
) -> tuple[tuple[int, int], np.ndarray] | None:
    """The whole-cell shift ``(dv, du)`` that the four free corners frame clearly, and its turns'
    z (``turns_at``, ``placed_turns`` of a window), if the ink (and art) then show one turn of the layout clearly
    (``min_z_placed``, ``min_z_margin``); else None, and the placement is left to the ink over
    every shift."""
    scores = free_corner_scores(lattice, SIZE + 2 * reach)
    top = np.sort(scores, axis=None)
    margin = top[-1] - top[-2]
    if margin < config.corner_margin:
        return None
    dv, du = (int(v) for v in np.unravel_index(int(np.argmax(scores)), scores.shape))
    turns = turns_at((dv, du))
    if turns_told(turns, config):
        return (dv, du), turns
    if margin < config.corner_art_margin or not ink.court_art:
        return None
    # Clearly framed: the art may tell the turn even where the ink's (faint) best turn differs.
    turns = with_court_art(z[dv, du], lattice, ink, cells=SIZE + 2 * reach, window=(dv, du), white_border=reach,
                           agree=False)
    ranked = np.sort(turns)
    if ranked[-1] < config.min_z_placed or ranked[-1] - ranked[-2] < config.art_turn_margin:
        return None
    return (dv, du), turns


def _placed_by_mask(
    board: BoardView, h: np.ndarray, reach: int, turns_at: Callable[[tuple[int, int]], np.ndarray],
    config: LocateConfig,
) -> tuple[tuple[int, int], np.ndarray] | None:
    """The whole-cell shift ``(dv, du)`` at which the grid covers the card area the board
    network sees, and its turns' z (``turns_at``, ``placed_turns`` of a window), if the network says so clearly and the
    ink (and art) then show one turn at ``min_z_placed``; else None.

    Each shifted window scores the mean probability of its own edge cells less that of the
    ring of cells just outside it: about 1 on the card area's outline, about 0.4 a cell off
    (a row of cards outside, a row of table on one edge). ``h`` maps grid cells to frame pixels.
    """
    r, px = reach + 1, config.mask_cell_px
    cells = SIZE + 2 * r
    ext = apply_homography(h, np.array([[-r, -r], [SIZE + r, -r], [SIZE + r, SIZE + r], [-r, SIZE + r]], float))
    side = float(cells * px)
    to_cells = cv2.getPerspectiveTransform((ext * board.scale).astype(np.float32),
                                           np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32))
    prob = cv2.warpPerspective(board.prob, to_cells, (cells * px, cells * px), flags=cv2.INTER_LINEAR)
    per_cell = prob.reshape(cells, px, cells, px).mean(axis=(1, 3), dtype=np.float64)
    sums = cv2.integral(per_cell)
    n = 2 * reach + 1
    v, u = np.mgrid[0:n, 0:n]

    def box(offset: int, size: int) -> np.ndarray:
        """Summed probability of the ``size``-cell square ``offset`` cells into each window."""
        a, b = v + offset, u + offset
        return sums[a + size, b + size] - sums[a, b + size] - sums[a + size, b] + sums[a, b]

    # The grid's own edge cells against the ring of cells just outside it.
    edge = (box(1, SIZE) - box(2, SIZE - 2)) / (SIZE**2 - (SIZE - 2) ** 2)
    ring = (box(0, SIZE + 2) - box(1, SIZE)) / ((SIZE + 2) ** 2 - SIZE**2)
    score = edge - ring
    top = np.sort(score, axis=None)
    if top[-1] < config.mask_min or top[-1] - top[-2] < config.mask_margin:
        return None
    dv, du = (int(i) for i in np.unravel_index(int(np.argmax(score)), score.shape))
    turns = turns_at((dv, du))
    return ((dv, du), turns) if turns_told(turns, config) else None


def placed_by_gaps(gray: np.ndarray, corners: np.ndarray, reach: int, config: LocateConfig) -> tuple[int, int] | None:
    """The whole-cell shift ``(dv, du)`` (0..2*reach, as ``pattern_z`` indexes) at which the card
    lattice ends on both axes, when the gaps are visible and say so clearly; else None."""
    found = lattice_extent(gray, corners, reach, config)
    if found is None:
        return None
    scores, strength = found
    if strength < config.extent_min_grey or not np.isfinite(scores).all():
        return None
    top = np.sort(scores, axis=1)
    if (top[:, -1] < config.extent_min).any() or (top[:, -1] - top[:, -2] < config.extent_margin).any():
        return None
    dv, du = np.argmax(scores, axis=1)
    return int(dv), int(du)


def better(a: InkMatch | None, b: InkMatch | None, config: LocateConfig) -> InkMatch | None:
    """The better of two placements: an accepted one over one that is not, then one the card
    gaps placed (a grid bent over part of the cards can show the layout as strongly, but the
    gap lattice does not end at its edges), then the higher z."""
    if a is None or b is None:
        return b if a is None else a
    return b if _rank(b, config) > _rank(a, config) else a


def _rank(m: InkMatch, config: LocateConfig) -> tuple[bool, bool, float]:
    """What ``better`` compares, most important first."""
    return accepted(m, config), m.placed, m.z


def accepted(match: InkMatch | None, config: LocateConfig) -> bool:
    """Is this placement the board: the layout clearly there, and clearly here rather than a cell off?"""
    if match is None:
        return False
    z, runner = evidence(match)
    margin = z - runner
    if match.placed and z >= config.min_z_placed_clear and margin >= config.placed_clear_margin:
        return True
    if match.placed or match.framed:
        return turn_told(z, runner, config)
    return z >= config.min_z and margin >= config.min_z_margin


def turn_told(best: float, runner: float, config: LocateConfig) -> bool:
    """Does a placed grid's best turn (z ``best``) show clearly over the next (``runner``)?"""
    return best >= config.min_z_placed and best - runner >= config.min_z_margin


def turns_told(turns: np.ndarray, config: LocateConfig) -> bool:
    """``turn_told`` for the z of a placed grid's four turns ``(4,)``."""
    ranked = np.sort(turns)
    return turn_told(float(ranked[-1]), float(ranked[-2]), config)


def evidence(match: InkMatch) -> tuple[float, float]:
    """The z of a placement and of its runner-up as accepted: the ink's, or with the court
    cards' art where the ink alone did not tell a placed grid's turn."""
    if match.art_z is not None and match.art_runner is not None:
        return match.art_z, match.art_runner
    return match.z, match.runner_up
