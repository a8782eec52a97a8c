"""Find the 10x10 card grid in a frame with no help: its four outer corners, sub-cell accurate.

Two kinds of evidence, both properties of every real board and not of our renderer:

* the *lattice*: 11 straight, equally spaced lines each way (card gaps and borders), found
  from the outline of the card area, combs fitted inside it, or line segments and their
  vanishing points, and registered by the gaps (sub-pixel when resolved) or a local search;
* the *layout*: every card is printed red or black (``engine.layout.INK_MAP``), a pattern
  unlike itself under any shift or turn.

The search runs in stages, cheapest first (outlines, the board network's among them; grids
fitted inside them; the segment lattice) and stops once a placement passes the test. Each
rough candidate is placed by a quick ink read a few cells each way; candidates from the board
agree on a placement, so placements are ranked by their summed evidence, and the leaders are
registered on the lattice.

The test is statistical: the correlation of the cells' red-versus-black ink with the layout,
times the square root of the number of inked cells, is about N(0, 1) for print unrelated to
the board. A placement is the board when that z-score clears ``min_z`` (wrong placements
measured stay below it over all the candidates, shifts and turns tried) *and* beats every
other whole-cell placement and turn by ``min_z_margin`` (a lattice one card off reads the
suits' runs almost as well). Chips, hands and clutter only hide cells; the fits are robust.

Where the card gaps or the card area the board network sees (``vision.board_net``) fix the
whole-cell placement, only the four turns are in question, and a weaker ink (with the court
cards' art) suffices: under glare or most cards under chips the print shows too little for
the full test, while the board's outline still shows where it lies.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.layout import SIZE
from vision.board_net import BoardView, load_board_net
from vision.corner_net import FINE, REACH, CornerView, load_corner_net
from vision.geometry import (
    GRID_CORNERS_UV,
    GridFit,
    apply_homography,
    check_frame,
    edition_aspect,
    grid_diagonal,
    grid_homography,
    guess_edition,
    is_convex,
    metric_aspect,
    order_as_seen,
    roll_rows,
)
from vision.lattice import (
    align_lattice,
    lattice_candidates,
    lattice_contrast,
    lattice_extent,
    lattice_support,
    refine_grid_homography,
)
from vision.locate_config import LocateConfig
from vision.net_climb import climb, net_odds
from vision.orient import (
    OrientConfig,
    ask_turn_net,
    free_corner_scores,
    given_placed,
    ink_lattice,
    lattice_pattern_z,
    net_turn,
    sure_turn,
    sure_turn_given_placed,
    with_court_art,
    with_twin_cards,
)
from vision.outlines import (
    blob_quads,
    lattice_hypotheses,
    mask_quads,
    saturation,
    table_quads,
    texture_quads,
    whiteness,
    with_hypotheses,
    zoomed_quads,
)
from vision.turn_net import NOT_PLACED

log = logging.getLogger(__name__)


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
    h, w = frame.shape[:2]
    if min(h, w) < SIZE * config.min_cell_px:
        return GridFit.failed(f"the picture is {w}x{h} pixels: too small to show the board's {SIZE} cards a side "
                              f"(at least {SIZE * config.min_cell_px:.0f} pixels each way)")
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    raw_white = whiteness(frame)
    sat = saturation(frame)
    white = cv2.GaussianBlur(raw_white, (0, 0), config.white_blur_px)
    board = load_board_net().view(frame) if config.use_net else None
    quads = blob_quads(raw_white, config)
    if config.use_texture:
        quads = texture_quads(raw_white, config, quads)
    # The network's outlines first; the closer look (``zoomed_quads``) is for the others.
    net_outlines = mask_quads(board, config) if board is not None else []
    outlines = net_outlines + quads
    if frame.ndim == 2:
        candidates = [
            c for c in with_hypotheses(outlines, raw_white, sat, config)
            if _plausible(c, (w, h), config, aspect=False)
        ]
        if config.use_segments:
            candidates += [c for c in lattice_candidates(gray, config) if _plausible(c, (w, h), config)]
        if not candidates:
            return GridFit.failed("no board: nothing in the frame looks like a grid of cards")
        return _best_by_lattice(gray, candidates, edition, config)
    # Cheapest evidence first, stopping as soon as a placement passes the test: the outlines
    # of the card area (the board network's first), then grids fitted inside them (a margin
    # or border taken for cards), then the card-gap lattice from line segments (sharp views whose outline is unclear),
    # then the board told apart from the table by colour (a tablecloth as white and busy as
    # the cards, where brightness and print density cannot outline them), and last the
    # outlines of a small board drawn again from a closer look.
    # The last two are searched under a stricter ink test: the usual cues have found no
    # board there, and any outline they suggest is then tried, wherever it lies.
    last_resort = replace(config, min_z=config.table_min_z)
    stages = [
        (lambda: outlines, config),
        (lambda: [g for q in outlines for g in lattice_hypotheses(raw_white, sat, q, config)], config),
        (lambda: lattice_candidates(gray, config) if config.use_segments else [], config),
        (lambda: with_hypotheses(table_quads(frame, config), raw_white, sat, config) if config.use_table else [],
         last_resort),
        (lambda: with_hypotheses(zoomed_quads(raw_white, quads, config), raw_white, sat, config)
         if config.use_zoom else [], replace(config, min_z=max(config.min_z, config.zoom_min_z), use_corners=False)),
    ]
    best, candidates, deferred, runners = None, [], [], []
    top = config.thorough_top if config.thorough else config.refine_top
    for number, (stage, stage_config) in enumerate(stages):
        more = [c for c in stage() if _plausible(c, (w, h), config, aspect=False)]
        candidates += more
        leaders = _leaders(frame, more, stage_config)
        deferred.append((leaders[top : config.deep_top], stage_config))
        found = _stage_result(frame, gray, white, board, leaders[:top], config, stage_config, runners)
        if not _accepted(found, stage_config):
            # The outlines that fit the card borders best, under a stricter ink test: more
            # registrations, more chances for a wrong placement to read the layout by chance.
            strict = replace(stage_config, min_z=max(stage_config.min_z, config.lattice_min_z))
            extra = _lattice_leaders(white, more, leaders[:top], config)
            found = _better(found, _stage_result(frame, gray, white, board, extra, config, strict, runners), config)
        best = _better(best, found, config)
        # A weak pass from the outlines alone may be a lattice bent off the cards in one
        # corner; the grids fitted inside the outlines are tried before settling for it,
        # unless the card gaps have placed it with the ink clear too (then it lies on the
        # lattice, edge to edge: gaps placing a board's outline, margin and all, read z 3.9).
        weak_pass_ok = not config.thorough and (number >= 1 or (best is not None and best.z >= config.full_z))
        settled = best is not None and best.placed and (number >= 1 or config.thorough or best.z >= config.min_z)
        if _accepted(best, config) and (settled or weak_pass_ok):
            break
    if not config.thorough and not _accepted(best, config):
        best = _deep_search(frame, gray, white, board, deferred, best, config, runners)
    if not candidates:
        return GridFit.failed("no board: nothing in the frame looks like a grid of cards")
    fit = _conclude(frame, gray, white, board, best, edition, config)
    if fit:
        return fit
    # The best placement failed (the ink fell short, or the turn network refused it): the
    # others that showed the layout at least faintly, where the network vouches for one.
    for match in _runners(runners, best, config) if best is not None else []:
        if _net_verdict(frame, match.corners, config).vouches:
            rescued = _conclude(frame, gray, white, board, match, edition, config)
            if rescued:
                return rescued
    # Still none: the board network's outlines, pulled onto the grid by the turn network where
    # the print is too faint for the ink to place it (``_rescued_by_climbing``); failing that,
    # its outline of a closer look at the first (``_zoomed_net_outlines``: a small board).
    if config.ink.turn_net_sure > 0 and config.net_climb_outlines > 0 and net_outlines:
        rescued = _rescued_by_climbing(
            frame, gray, white, board, net_outlines[: config.net_climb_outlines], edition, config
        )
        if rescued is None and config.net_zoom > 0:
            zoomed = _zoomed_net_outlines(frame, net_outlines[0], config)[:1]
            rescued = _rescued_by_climbing(frame, gray, white, board, zoomed, edition, config)
        if rescued is not None:
            return rescued
    return fit


def _rescued_by_climbing(frame, gray, white, board, outlines: list[np.ndarray], edition: str | None,
                         config: LocateConfig, *, sure_only: bool = False) -> GridFit | None:
    """The grid the turn network places by climbing from ``outlines`` (``_placed_by_climbing``),
    each from where the corner network puts it first, then as drawn (``_climb_starts``); None
    where it places none.

    The first the network is sure is the board is taken, unless it rates the finished grid
    below ``climb_min_odds`` (the climb left a corner off that the finish could not bring
    home): then the climbs from the other starts are tried for one it rates higher; failing
    that (unless ``sure_only``), the one it rated highest, or the first it is sure how to turn,
    given it is (``climb_placed_sure``: a later climb may lie on the grid where an earlier one
    is bent off).
    """
    kept_on_turn, weak, weak_odds = None, None, float("-inf")
    for quad in outlines:
        for start in _climb_starts(frame, order_as_seen(quad), config):
            corners = _placed_by_climbing(frame, gray, white, start, config)
            if corners is None:
                continue
            match = InkMatch(corners, -1.0, -1.0, 0, framed=True)
            rescued = _conclude(frame, gray, white, board, match, edition, config, by_climbing=True)
            if rescued and not rescued.details["on_turn_alone"]:
                odds = net_odds(frame, rescued.corners)
                if odds >= config.climb_min_odds:
                    return rescued
                if odds > weak_odds:
                    weak, weak_odds = rescued, odds
            elif rescued and kept_on_turn is None:
                kept_on_turn = rescued
    return None if sure_only else weak or kept_on_turn


def _climbed_past_overruled(frame, gray, white, board, corners: np.ndarray, edition: str | None,
                            config: LocateConfig) -> GridFit | None:
    """Where the ink overruled the turn network's refusal of the grid ``corners`` (as seen),
    the grid the network places by climbing from it (``_rescued_by_climbing``), if it vouches
    for that one at ``climb_min_odds`` and the print shows the layout there at least as plainly
    (pattern z at the corners as they are); else None, and the ink's grid stands.

    The ink's plain print is a grid's strongest witness, yet a hand over one edge can leave
    a grid bent a cell off there whose print still reads z 7 (seed 29736: two corners 0.8 and
    1.1 cells off read 7.0, the true grid 8.9; the network refuses the first outright and
    climbs from it to within 0.1 cell). Both witnesses must prefer the climbed grid: where the
    network is wrong (a real board unlike those it learned), the ink keeps its grid.

    The network need not be sure of the climbed grid where the print shows it far more plainly
    (``overruled_ink_margin``): it still prefers that grid to "not the board here", as it did
    not the ink's, and a board covered in chips leaves it little print to be sure on (seed 7018
    at 1920x1080, normal classic, 70 chips: the ink's grid half a cell off read z 7.3, the
    climbed one 9.4 within a pixel, rated at log-odds 2.0)."""
    rescued = _rescued_by_climbing(frame, gray, white, board, [corners], edition, config)
    if rescued is None or rescued.details["on_turn_alone"]:
        return None
    odds = net_odds(frame, rescued.corners)
    gain = ink_match(frame, rescued.corners, config, reach=0).z - ink_match(frame, corners, config, reach=0).z
    sure = odds >= config.climb_min_odds
    if odds <= 0.0 or gain < (0.0 if sure else config.overruled_ink_margin):
        return None
    return rescued


def _zoomed_net_outlines(frame: np.ndarray, quad: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """The board network's outlines ``(4, 2)`` (frame pixels, as seen) of a crop around its
    outline ``quad``, ``net_zoom`` times its extent each way; none where that crop would be
    over ``net_zoom_max_share`` of the frame (no closer a look).

    On the frame's thumbnail a small board spans a few dozen pixels and the network outlines
    it cells off; the crop shows it as large as the boards it learned from."""
    h, w = frame.shape[:2]
    q = np.asarray(quad, np.float64)
    low, high = q.min(axis=0), q.max(axis=0)
    centre, half = (low + high) / 2.0, (high - low) / 2.0 * config.net_zoom
    x0, y0 = np.maximum(np.floor(centre - half), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(centre + half), [w, h]).astype(int)
    if (x1 - x0) * (y1 - y0) > config.net_zoom_max_share * w * h or min(x1 - x0, y1 - y0) < 2:
        return []
    view = load_board_net().view(frame[y0:y1, x0:x1])
    return [outline + np.array([x0, y0], np.float32) for outline in mask_quads(view, config)]


def _placed_by_climbing(frame, gray, white, quad: np.ndarray, config: LocateConfig) -> np.ndarray | None:
    """A rough outline (the board network's) pulled onto the grid by the turn network
    (``vision.net_climb.climb``), then registered on the card borders and gaps where the
    network agrees, to within a fraction of a cell; None where it never grows sure of the board.

    The network places a grid to within about half a cell; the lattice search and the gap fit
    then pull it closer, and each move is kept unless the network's log-odds fall by more than
    ``climb_slack`` (a lattice search on faint borders can slide a cell away, and the network
    sees that). On the board network's outlines of 200 hard rendered frames (seeds 6000-6099,
    8000-8099), of the 357 the first turn network climbed to log-odds 4 or more, 265 ended
    within a quarter cell of the grid, 87 within half a cell and 5 farther.
    """
    corners, odds = climb(frame, quad, config.climb)
    if odds < config.climb_min_odds:
        return None
    aligned, _ = align_lattice(white, corners, config)
    aligned_odds = net_odds(frame, aligned)
    if aligned_odds >= odds - config.climb_slack:
        corners, odds = aligned.astype(np.float32), max(aligned_odds, 0.0)
    gaps, _, _ = _gap_fit(gray, corners, config)
    if gaps is not None and net_odds(frame, gaps) >= odds - config.climb_slack:
        corners = gaps.astype(np.float32)
    return corners


def settle_corners(frame: np.ndarray, corners: np.ndarray, config: LocateConfig = LocateConfig()) -> np.ndarray:
    """A grid's ``corners`` ``(4, 2)`` (any order) brought the last fraction of a cell onto the
    cards, as a located grid is finished: fitted to the card gaps, or where the gaps do not
    register it (blurred, washed out), moved where the fine corner network sees the corners.
    Neither moves a corner farther than ``max_refine_move_cells`` / ``polish_max_move``."""
    frame = check_frame(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seen = order_as_seen(corners)
    settled = np.asarray(_settled(frame, gray, seen, config), np.float32)
    given = np.asarray(corners, np.float32).reshape(4, 2)
    return settled[[int(np.argmin(np.linalg.norm(seen - p, axis=1))) for p in given]]


def _settled(frame: np.ndarray, gray: np.ndarray, corners: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``settle_corners`` for corners as seen, the frame's grey already made."""
    again, _, _ = _gap_fit(gray, corners, config)
    return again if again is not None else _polished(frame, corners, config)


def _polished(frame: np.ndarray, corners: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``corners`` ``(4, 2)`` moved where the fine corner network (``vision.corner_net.FINE``)
    sees the grid's corners after ``polish_looks`` looks; as they were where it moves one
    farther than ``polish_max_move`` cells (it is then not looking at this grid) or fails."""
    moved = _corner_net_look(frame, corners, FINE, config.polish_looks)
    if moved is None or _moved_cells(moved, corners) > config.polish_max_move:
        return corners
    return moved


def _climb_starts(frame: np.ndarray, quad: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """Where to climb the outline ``quad`` ``(4, 2)`` (as seen) from: where the corner network
    (``vision.corner_net``, ``corner_looks`` times) sees the grid's corners, then as drawn
    (about one outline in twenty that lies within a cell, the network moves farther off).
    Only as drawn where the network moves a corner more than ``corner_max_move`` cells
    (``_move_in_nearer_cells``) or folds the outline."""
    moved = _corner_net_look(frame, quad, REACH, config.corner_looks)
    if moved is None or _move_in_nearer_cells(quad, moved) > config.corner_max_move:
        return [quad]
    return [order_as_seen(moved), quad]


def _move_in_nearer_cells(a: np.ndarray, b: np.ndarray) -> float:
    """How far the grid ``b`` ``(4, 2)`` lies from the grid ``a`` at its farthest corner, in
    cells of whichever of the two grids makes it nearer: an outline drawn over only part of the
    cards (a network's card area with a hole) has cells far smaller than the grid's, one drawn
    around the margin larger. (``_moved_cells`` measures small moves in one mean cell.)"""
    a, b = (np.asarray(q, np.float64) for q in (a, b))
    return float(min(
        np.abs(apply_homography(np.linalg.inv(grid_homography(x.astype(np.float32))), y) - GRID_CORNERS_UV).max()
        for x, y in ((a, b), (b, a))
    ))


def _corner_net_look(frame: np.ndarray, corners: np.ndarray, view: CornerView, looks: int) -> np.ndarray | None:
    """``corners`` ``(4, 2)`` where the corner network for ``view`` sees the grid's after
    ``looks`` looks; None where it is not asked (``looks`` 0) or gives no grid."""
    if looks <= 0:
        return None
    try:
        moved = load_corner_net(view).refine(frame, corners, looks)
    except (ValueError, cv2.error):
        return None
    return moved if np.all(np.isfinite(moved)) else None


def _runners(runners: list[InkMatch], best: InkMatch, config: LocateConfig) -> list[InkMatch]:
    """The placements other than ``best`` worth the turn network's look, one per placement,
    highest ink z first, at most ``net_runners``."""
    kept: list[InkMatch] = []
    for match in sorted(runners, key=lambda m: -m.z):
        seen = order_as_seen(match.corners)
        if any(_same_placement(seen, order_as_seen(m.corners), config) for m in [best, *kept]):
            continue
        kept.append(match)
        if len(kept) >= config.net_runners:
            break
    return kept


def _conclude(frame, gray, white, board, best: InkMatch | None, edition: str | None, config: LocateConfig,
              *, by_climbing: bool = False) -> GridFit:
    """The search's best placement as the located grid, finished to sub-pixel corners, or the
    reason it is not the board. ``by_climbing``: the turn network placed it
    (``_placed_by_climbing``), so it is the network's to vouch for, not the ink's, and it may
    vouch on the turn alone (``_net_verdict``'s ``placed``; the fit's ``on_turn_alone``)."""
    h, w = gray.shape
    verdict = NetVerdict(vouches=by_climbing)
    if best is not None and not _accepted(best, config) and best.z >= config.net_min_z and not by_climbing:
        # The ink shows the layout, faintly: the turn network may vouch for the grid.
        finished = _finish(frame, gray, white, board, best, replace(config, min_z=config.net_min_z))
        verdict = _net_verdict(frame, finished.corners, config)
        if verdict.vouches:
            best = finished
    if best is None or not (_accepted(best, config) or verdict.vouches):
        z = -1.0 if best is None else best.z
        # A board cut by the picture's edge shows too little of its print: where the ink does show
        # the layout faintly (``net_min_z``), say where the grid runs out; the player can mend it.
        cut = [] if best is None or best.z < config.net_min_z else _edges_crossed(best.corners, (w, h), 0.0)
        hint = f"; the likeliest grid runs past the {' and '.join(cut)} edge of the picture" if cut else ""
        return GridFit.failed(
            f"no board: no candidate grid shows the printed red/black card pattern "
            f"(best z {z:.1f} < {config.min_z:.1f}, or not {config.min_z_margin:.1f} above the next placement)"
            f"{hint}",
            score=z,
        )
    by_net = verdict.vouches  # (the ink alone fell short: the network must still vouch at the end)
    if not by_net:
        best = _finish(frame, gray, white, board, best, config)
    # The gap fit moves corners by less than its search each round: once more from where it ended.
    # Where the gaps do not register the grid (blurred, washed out), the fine corner network does.
    best = replace(best, corners=_settled(frame, gray, best.corners, config))
    verdict = _net_verdict(frame, best.corners, config, best.z, placed=by_climbing)
    if verdict.refuses or (by_net and not verdict.vouches):
        return GridFit.failed("no board: the turn network sees no board under the best grid", score=best.z)
    if verdict.overruled and not by_climbing:
        climbed = _climbed_past_overruled(frame, gray, white, board, best.corners, edition, config)
        if climbed is not None:
            return climbed
    # The shape only (no aspect): the print has shown the layout cell by cell, which a grid of
    # the wrong proportions cannot, while the aspect measured from one view can be far off
    # (a cropped photo, a lens whose centre is not the image's).
    # (A grid the free corners placed must look square too: they place, they do not shape;
    # unless the turn network, which refuses a grid bent or scaled off the cards, vouches for it.)
    why = _implausibility(best.corners, (w, h), config, aspect=best.framed and not verdict.vouches)
    if why is not None:
        return GridFit.failed(f"no board: {why}", score=best.z)
    if best.cells < config.min_ink_cells and not verdict.vouches:
        # Too few cells show print for the pattern to have been read at all (washed out).
        return GridFit.failed(
            f"no board: only {best.cells} cells of the best grid show card print "
            f"(need {config.min_ink_cells})", score=best.z
        )
    corners = order_as_seen(best.corners)
    aspect = None
    if edition is None:
        edition, aspect = guess_edition(corners, (w, h))
    z, runner = _evidence(best)
    score = float(np.clip((z - config.min_z) / (config.full_z - config.min_z) * 0.5 + 0.5, 0.0, 1.0))
    if verdict.vouches:  # (as sure as a grid the ink alone just accepts)
        score = max(score, 0.5)
    # What the turn network said of these very corners, for orientation not to ask it again.
    # (The network saw the corners as float32, which is all orientation compares.)
    asked = verdict.probabilities is not None and np.array_equal(corners, np.asarray(best.corners, np.float32))
    return GridFit(corners, score, edition,
                   details={"z": z, "z_next": runner, "ink_z": best.z, "aspect": aspect,
                            "turn_probabilities": verdict.probabilities if asked else None,
                            "on_turn_alone": verdict.on_turn_alone})


@dataclass(frozen=True)
class NetVerdict:
    """What the turn network says of a located grid: it ``vouches`` for it (sure of one turn,
    so the grid lies on the cards) or ``refuses`` it (sure the board is not there)."""

    vouches: bool = False
    refuses: bool = False
    probabilities: np.ndarray | None = None
    """The network's ``(5,)`` probabilities the verdict came from (None: not asked), given
    the board is there where it vouches ``on_turn_alone``."""
    on_turn_alone: bool = False
    """It vouches for a grid it placed itself, sure of the turn but not of the placement."""
    overruled: bool = False
    """It would refuse the grid, but the grid's ink shows the layout too plainly (``net_overruled_z``)."""


def _net_verdict(frame: np.ndarray, corners: np.ndarray, config: LocateConfig, ink_z: float = -1.0,
                 *, placed: bool = False) -> NetVerdict:
    """The turn network's verdict on the grid ``corners`` (as seen) whose ink reads ``ink_z``;
    none where it is not asked (``use_net`` off). It refuses no grid whose ink reads
    ``net_overruled_z`` or more (it is ``overruled`` there), and vouches for none where it may
    not tell turns (``turn_net_sure`` 0, as on an empty board: there it may still refuse a
    grid). ``placed``: the network itself has placed the grid (a climb), so where it is not
    sure of the grid but names one turn at ``climb_placed_sure``, it is asked only which turn
    (``given_placed``; those probabilities are returned)."""
    if not config.use_net:
        return NetVerdict()
    p = ask_turn_net(frame, corners, config.ink)
    doubts = bool(p[NOT_PLACED] >= config.net_refuses)
    refuses = doubts and ink_z < config.net_overruled_z
    vouches = config.ink.turn_net_sure > 0 and sure_turn(p, config.ink) is not None
    if vouches or not placed or config.climb_placed_sure <= 0 or config.ink.turn_net_sure <= 0 \
            or sure_turn_given_placed(p, config.ink, config.climb_placed_sure) is None:
        return NetVerdict(vouches, refuses, p, overruled=doubts and not refuses)
    return NetVerdict(True, refuses, given_placed(p), on_turn_alone=True)


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
    art or the turn network did (``_placed_turns``): the best and next turn's z with them joined in. They count
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
    placed = None if gray is None or r < 1 else _placed_by_gaps(gray, corners, r, config)
    # Unplaced, the best window over every shift and turn, against every other as runner-up.
    dv, du, best, runner = _best_window(z)
    clear = best >= config.min_z and best - runner >= config.min_z_margin
    if not clear and ink.twin_cards:  # the ink alone falls short: the twin cards may tell
        z = with_twin_cards(z, lattice, ink, cells=SIZE + 2 * r)
        dv, du, best, runner = _best_window(z)
        clear = best >= config.min_z and best - runner >= config.min_z_margin
    told: dict[tuple[int, int], np.ndarray] = {}

    def turns_at(window: tuple[int, int]) -> np.ndarray:
        """``_placed_turns`` of one window, asked once: the board network's mask and the free
        corners may frame the same window, and its turn network call is the dear part."""
        if window not in told:
            told[window] = _placed_turns(lattice, r, z, window, config, ink)
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


def _placed_turns(
    lattice: np.ndarray, reach: int, z: np.ndarray, window: tuple[int, int], config: LocateConfig, ink: OrientConfig
) -> np.ndarray:
    """The z of each turn ``(4,)`` of a placed window: once the placement is fixed, only the
    turns are in question. Where the ink alone does not tell them (``min_z_placed``,
    ``min_z_margin``), the court cards' art may (``orient.with_court_art``), and where that
    does not either, the turn network (``orient.net_turn``): the turn it is sure of is given
    the z the test asks for. A turn the ink tells keeps the ink's z, so placements stay ranked
    by the same evidence."""
    if _turns_told(z[window], config):
        return z[window]
    turns = with_court_art(z[window], lattice, ink, cells=SIZE + 2 * reach, window=window, white_border=reach)
    if _turns_told(turns, config) or not config.use_net:
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
    z (``turns_at``, ``_placed_turns`` of a window), if the ink (and art) then show one turn of the layout clearly
    (``min_z_placed``, ``min_z_margin``); else None, and the placement is left to the ink over
    every shift."""
    scores = free_corner_scores(lattice, SIZE + 2 * reach)
    top = np.sort(scores, axis=None)
    margin = top[-1] - top[-2]
    if margin < config.corner_margin:
        return None
    dv, du = (int(v) for v in np.unravel_index(int(np.argmax(scores)), scores.shape))
    turns = turns_at((dv, du))
    if _turns_told(turns, config):
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
    network sees, and its turns' z (``turns_at``, ``_placed_turns`` of a window), if the network says so clearly and the
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
    return ((dv, du), turns) if _turns_told(turns, config) else None


def _placed_by_gaps(gray: np.ndarray, corners: np.ndarray, reach: int, config: LocateConfig) -> tuple[int, int] | None:
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


def _polish(frame, gray, white, board, match: InkMatch, config: LocateConfig) -> InkMatch:
    """Register a placed grid once more from where the ink put it; keep it if the ink agrees.

    The first registration may have fitted the lattice over the wrong cells (a margin, a row
    of cards) and so bent it; placed on the right cells, the lattice search starts close.
    """
    again = _register(frame, gray, white, board, match.corners, config)
    return again if again.z > match.z else match


def _finish(frame, gray, white, board, match: InkMatch, config: LocateConfig) -> InkMatch:
    """Fit the card gaps once more around the accepted placement, for sub-pixel corners.

    A placement moved by whole cells extrapolates the lattice it was registered with; the
    gaps measured around it give the corners directly, kept while the ink still agrees.
    """
    # The final fit samples the gaps as densely as the first locator did (the search is lighter).
    dense = replace(
        config, refine_iterations=config.finish_refine_iterations, along_samples=config.finish_along_samples
    )
    # A lattice bent by a cell or more in one corner still lies on the gaps over most of the
    # board, which the fit follows; so large moves are kept when the gaps place the result
    # edge to edge (``lattice_extent``) or the ink shows the layout clearly better there.
    gaps, far, support = _gap_fit(gray, match.corners, dense)
    if far is not None:
        placed = ink_match(frame, far, config, reach=1, gray=gray, board=board)
        if _accepted(placed, config) and (placed.placed or placed.z >= match.z + config.refine_z_slack):
            return placed
    if gaps is None and support >= config.gap_retry_support and config.use_align:
        # The gaps are there but the placement is too far off for them: the lattice search first.
        aligned, _ = align_lattice(white, match.corners, config)
        gaps, _, _ = _gap_fit(gray, aligned, dense)
    slack = config.refine_z_slack
    if gaps is None and not config.use_align:
        return match
    if gaps is None:
        slack = 0.0  # the lattice search can drift on a blurred board: only if the ink agrees better
        # No gaps to be seen (a blurred board): the lattice search is the finest registration left.
        fine = replace(
            config,
            align_steps_cells=config.finish_align_steps_cells,
            align_rounds=config.finish_align_rounds,
            align_samples=config.finish_align_samples,
        )
        gaps, _ = align_lattice(white, match.corners, fine)
    again = ink_match(frame, gaps, config, reach=1, gray=gray, board=board)
    if _accepted(again, config) and again.z >= match.z - slack and _moved_cells(
        again.corners, match.corners
    ) <= config.max_refine_move_cells:
        return again
    return match


def _deep_search(frame, gray, white, board, deferred: list, best: InkMatch | None,
                 config: LocateConfig, runners: list[InkMatch] | None = None) -> InkMatch | None:
    """Register the placements ranked below the leaders, stage by stage, until one passes.

    The quick look ranks placements roughly (a weak print reads near chance at its resolution),
    so the board can rank below the leaders. ``deferred`` holds each stage's placements and
    config. Many more lattices are tried here, so the looser rules for the leaders are left out:
    the free corners place none (a lattice a fraction of a cell off passed at z 3.5), a grid
    the gaps place needs z ``min_z_placed`` (a turn told at z 2.9 was wrong), and one the ink
    alone placed needs the card gaps along it (``deep_gap_support``: lattices cells off the
    board passed the ink test by chance, with no gaps there). The board network's card area
    still places a grid: it does not grow more permissive with more lattices tried (on 200
    hard frames, seeds 6000-6199, it found two more boards here and no false one).
    """
    for leaders, stage_config in deferred:
        deep = replace(stage_config, use_corners=False, min_z_placed_clear=stage_config.min_z_placed)
        for corners in leaders:
            found = _stage_result(frame, gray, white, board, [corners], config, deep, runners)
            if _accepted(found, config) and not found.placed and _gap_fit(gray, found.corners, config)[2] < (
                config.deep_gap_support
            ):
                found = None
            best = _better(best, found, config)
            if _accepted(best, config):
                return best
    return best


def _stage_result(frame, gray, white, board, leaders: list[np.ndarray], config: LocateConfig,
                  stage_config: LocateConfig, runners: list[InkMatch] | None = None) -> InkMatch | None:
    """Register a stage's ``leaders``; the best placement, or None when it passes only the usual
    test (``config``) and not the stricter one of its stage (``stage_config``), which the stage
    does not trust.

    Before it is dropped, such a placement gets the final, finer registration (``_finish``)
    and is tested again: on a small, blurred board a rough outline registers a fraction of a
    cell off, where the print reads weaker than on the cards themselves (a board that read
    z 6.2 a fifth of a cell off read 8.4 once finished).
    """
    found = _register_leaders(frame, gray, white, board, leaders, stage_config, runners)
    if not _accepted(found, config) or _accepted(found, stage_config):
        return found
    # ``_finish`` keeps a move only where the stage's test then passes; else it returns ``found``.
    finished = _finish(frame, gray, white, board, found, stage_config)
    return finished if _accepted(finished, stage_config) else None


def _better(a: InkMatch | None, b: InkMatch | None, config: LocateConfig) -> InkMatch | None:
    """The better of two placements: an accepted one over one that is not, then one the card
    gaps placed (a grid bent over part of the cards can show the layout as strongly, but the
    gap lattice does not end at its edges), then the higher z."""
    if a is None or b is None:
        return b if a is None else a
    return b if _rank(b, config) > _rank(a, config) else a


def _rank(m: InkMatch, config: LocateConfig) -> tuple[bool, bool, float]:
    """What ``_better`` compares, most important first."""
    return _accepted(m, config), m.placed, m.z


def _accepted(match: InkMatch | None, config: LocateConfig) -> bool:
    """Is this placement the board: the layout clearly there, and clearly here rather than a cell off?"""
    if match is None:
        return False
    z, runner = _evidence(match)
    margin = z - runner
    if match.placed and z >= config.min_z_placed_clear and margin >= config.placed_clear_margin:
        return True
    if match.placed or match.framed:
        return _turn_told(z, runner, config)
    return z >= config.min_z and margin >= config.min_z_margin


def _turn_told(best: float, runner: float, config: LocateConfig) -> bool:
    """Does a placed grid's best turn (z ``best``) show clearly over the next (``runner``)?"""
    return best >= config.min_z_placed and best - runner >= config.min_z_margin


def _turns_told(turns: np.ndarray, config: LocateConfig) -> bool:
    """``_turn_told`` for the z of a placed grid's four turns ``(4,)``."""
    ranked = np.sort(turns)
    return _turn_told(float(ranked[-1]), float(ranked[-2]), config)


def _evidence(match: InkMatch) -> tuple[float, float]:
    """The z of a placement and of its runner-up as accepted: the ink's, or with the court
    cards' art where the ink alone did not tell a placed grid's turn."""
    if match.art_z is not None and match.art_runner is not None:
        return match.art_z, match.art_runner
    return match.z, match.runner_up


def _leaders(frame, candidates: list, config: LocateConfig) -> list[np.ndarray]:
    """The rough candidates worth registering, one per quick placement, the most voted first.

    Every candidate is placed by a quick look at the ink (a few cells each way); the
    candidates that come from the board land on the same placement, so placements are
    ranked by their summed evidence (a vote, steadier than any one rough candidate's score),
    and each is represented by its candidate that read the layout most strongly.
    """
    if not candidates:
        return []
    # Clockwise as seen: a mirrored corner order would read the layout mirrored.
    quick = [ink_match(frame, order_as_seen(c), config, config.rank_reach, config.ink_coarse) for c in candidates]
    clusters: list[list[int]] = []
    seen = [order_as_seen(m.corners) for m in quick]
    for i, m in enumerate(quick):
        if m.z <= 0:
            continue
        for cluster in clusters:
            if _same_placement(seen[cluster[0]], seen[i], config):
                cluster.append(i)
                break
        else:
            clusters.append([i])
    # The strongest read of a placement counts fully, the other candidates on it a little
    # (many weak duplicates must not outvote one candidate that reads the layout clearly).
    clusters.sort(key=lambda cl: -_vote(sorted((quick[i].z for i in cl), reverse=True), config))
    return [order_as_seen(candidates[max(cluster, key=lambda i: quick[i].z)]) for cluster in clusters]


def _same_placement(a: np.ndarray, b: np.ndarray, config: LocateConfig) -> bool:
    """Whether two outlines (corners in the same order) lie within ``vote_cells`` of a cell of
    ``b`` of each other at every corner: one placement, to be counted or registered once."""
    cell = grid_diagonal(b) / (SIZE * np.sqrt(2.0))
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max() < config.vote_cells * cell)


def _lattice_leaders(white: np.ndarray, candidates: list, leaders: list[np.ndarray],
                     config: LocateConfig) -> list[np.ndarray]:
    """The rough candidates whose outlines lie best on a lattice of card borders
    (``lattice_contrast``), up to ``lattice_top``, none within ``vote_cells`` of the
    ``leaders`` or of each other: registered after the leaders.

    The quick ink read that ranks the leaders is noisy on a small, blurred board (its cells
    span a few pixels at that resolution), and there a candidate on the board itself can rank
    far down; how well its outline fits the card borders does not depend on reading the print.
    """
    if config.lattice_top <= 0 or not candidates:
        return []
    quads = [order_as_seen(c) for c in candidates]
    contrast = lattice_contrast(white, quads, config)
    picked: list[np.ndarray] = []
    for i in np.argsort(-contrast):
        if not any(_same_placement(q, quads[i], config) for q in [*leaders, *picked]):
            picked.append(quads[i])
            if len(picked) >= config.lattice_top:
                break
    return picked


def _register_leaders(frame, gray, white, board, leaders: list[np.ndarray], config: LocateConfig,
                      runners: list[InkMatch] | None = None) -> InkMatch | None:
    """Register the given leaders in turn until one passes (``thorough``: until the card gaps
    place one that shows the layout fully, ``full_z``; the first they place can be a cell off,
    showing it weakly, where a later one lies on the board itself); the best placement of those
    registered (``_better``), or None. Every placement registered whose ink reaches
    ``net_min_z`` is added to ``runners``, for the turn network to look at should no
    placement pass."""
    best = None
    size = (frame.shape[1], frame.shape[0])
    for corners in leaders:
        match = _register(frame, gray, white, board, corners, config)
        if not _plausible(match.corners, size, config, aspect=False):
            continue
        if not _accepted(match, config) and match.z >= config.min_z - config.polish_below:
            match = _polish(frame, gray, white, board, match, config)
        if _accepted(match, config) and _net_verdict(frame, match.corners, config, match.z).refuses:
            continue  # (the print read by chance off the board: the search goes on)
        if runners is not None and match.z >= config.net_min_z:
            runners.append(match)
        if match.framed and not _plausible(match.corners, size, config) and not _net_verdict(
            frame, match.corners, config
        ).vouches:
            continue  # (the final test: the free corners place a grid, they do not shape it)
        best = _better(best, match, config)
        if _accepted(best, config) and (not config.thorough or (best.placed and best.z >= config.full_z)):
            break  # (the stages decide whether a weak pass is worth more search)
    return best


def _vote(zs: list[float], config: LocateConfig) -> float:
    """A placement's evidence from the quick z-scores of the candidates on it, strongest first."""
    return zs[0] + config.vote_others * sum(zs[1:])


def _plausible(corners: np.ndarray, size: tuple[int, int], config: LocateConfig, *, aspect: bool = True) -> bool:
    """Could these corners be a photographed 10x10 grid? (convex, big enough, in view, not a sliver)

    The metric aspect (the slowest test) is left out with ``aspect=False``, for rough guesses.
    """
    return _implausibility(corners, size, config, aspect=aspect) is None


def _implausibility(corners: np.ndarray, size: tuple[int, int], config: LocateConfig, *,
                    aspect: bool = True) -> str | None:
    """Why these corners cannot be a photographed 10x10 grid, in words a player can act on;
    None where they can be (see ``_plausible``)."""
    c = np.asarray(corners, dtype=np.float64)
    if c.shape != (4, 2) or not np.isfinite(c).all():
        return "the grid has no four finite corners"
    if not is_convex(c):
        return "the grid it found is folded over itself"
    sides = np.linalg.norm(roll_rows(c) - c, axis=1)
    if sides.min() < SIZE * config.min_cell_px:
        return "the board is too small in the picture: move the camera closer"
    if max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) > config.max_side_ratio:
        return "the board is seen too steeply: raise the camera or tilt it further down"
    outside = _edges_crossed(c, size, config.max_outside)
    if outside:
        return (f"the board runs past the {' and '.join(outside)} edge of the picture: "
                "move the camera so the whole board shows")
    if not aspect:
        return None
    ratio = metric_aspect(order_as_seen(c), size)
    if max(ratio, 1.0 / max(ratio, 1e-9)) > config.max_aspect:
        return "the grid it found is not the board's shape"
    return None


def _edges_crossed(corners: np.ndarray, size: tuple[int, int], slack: float) -> list[str]:
    """The picture's edges (``"top"``, ``"right"``, ``"bottom"``, ``"left"``) that ``corners``
    ``(4, 2)`` lie beyond by more than ``slack`` of the picture's width or height."""
    w, h = size
    x, y = corners[:, 0], corners[:, 1]
    beyond = {"top": y.min() < -slack * h, "right": x.max() > w + slack * w,
              "bottom": y.max() > h + slack * h, "left": x.min() < -slack * w}
    return [edge for edge, out in beyond.items() if out]


def _register(frame, gray, white, board, corners, config: LocateConfig) -> InkMatch:
    """Bring rough corners onto the printed lattice and place it by the ink; the best of the tries.

    The card gaps give sub-pixel lines when the camera resolves them (checked by how many gap
    samples agree); otherwise the local lattice search (card borders versus cell middles)
    brings the grid within a fraction of a cell, and the gaps are tried again from there. The
    lattice search can also drift off a blurred board, so every stage's result is placed by
    the ink (``ink_match``) and the one that shows the layout best is kept.
    """
    first = ink_match(frame, corners, config, gray=gray, board=board)
    if _accepted(first, config) and first.z >= config.full_z:
        return first  # already on the cards: the final gap fit will make it sub-pixel
    tries = [np.asarray(corners, np.float32)]
    gaps, far, support = _gap_fit(gray, corners, config)
    # A rough outline can be over a cell off in a corner; the gaps over the rest of the board
    # still find the lattice (its placement is then checked like any other).
    gaps = far if gaps is None else gaps
    if gaps is not None:
        tries.append(gaps)
    elif config.use_align:
        aligned, _ = align_lattice(white, corners, config)
        tries.append(aligned)
        if support >= config.gap_retry_support:
            gaps, _, _ = _gap_fit(gray, aligned, config)
            if gaps is not None:
                tries.append(gaps)
    matches = [first] + [ink_match(frame, t, config, gray=gray, board=board) for t in tries[1:]]
    # A placement that passes the test beats one that does not (a grid placed by the card gaps
    # passes with less ink than a rough grid whole cells off may show by chance). Later tries
    # are the finer registrations: take the finest that shows the layout about as strongly as
    # the best (a rougher grid can score a little higher by chance).
    passing = [m for m in matches if _accepted(m, config)] or matches
    top = max(m.z for m in passing)
    return next(m for m in reversed(passing) if m.z >= top - config.refine_z_slack)


def refine_corners(frame: np.ndarray, corners: np.ndarray, config: LocateConfig = LocateConfig()) -> np.ndarray:
    """``corners`` (any order) moved onto the card-gap lattice near them, sub-pixel, when enough
    gaps agree; else unchanged. For corners found another way (an empty-board reference's
    feature match is a few pixels off, which the cell reader's comparisons cannot absorb)."""
    frame = check_frame(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    refined, _, _ = _gap_fit(gray, corners, config)
    return np.asarray(corners if refined is None else refined, dtype=np.float32)


def _gap_fit(
    gray: np.ndarray, corners: np.ndarray, config: LocateConfig
) -> tuple[np.ndarray | None, np.ndarray | None, float]:
    """Fit the card-gap lattice near ``corners``: the fitted corners as usually trusted
    (``gap_accept`` support, a move of at most ``max_refine_move_cells``) or None, the same
    corners under the looser far limits (``placed_gap_support``, ``max_placed_move_cells``;
    to be kept only when checked otherwise) or None, and the support."""
    # Whole-cell shifts are settled by the ink pattern afterwards, not by the gaps.
    fit = refine_grid_homography(gray, grid_homography(np.asarray(corners, np.float32)), config, test_shifts=False)
    if fit is None:
        return None, None, 0.0
    refined, support = apply_homography(fit[0], GRID_CORNERS_UV), float(fit[1])
    moved = _moved_cells(refined, corners)
    near = refined if support >= config.gap_accept and moved <= config.max_refine_move_cells else None
    far = refined if support >= config.placed_gap_support and moved <= config.max_placed_move_cells else None
    return near, far, support


def _best_by_lattice(gray: np.ndarray, candidates: list, edition: str | None, config: LocateConfig) -> GridFit:
    """Grayscale frames carry no ink colour: rank candidates by card-gap support alone."""
    best, best_score = None, -1.0
    for c in candidates:
        score = lattice_support(gray, grid_homography(np.asarray(c, np.float32)), config)
        if score > best_score:
            best, best_score = c, score
    if best is None or best_score < config.min_score:
        return GridFit.failed(f"no board: the best lattice is too weakly supported (score {best_score:.2f})")
    corners = order_as_seen(best)
    aspect = None
    if edition is None:
        edition, aspect = guess_edition(corners, (gray.shape[1], gray.shape[0]))
    return GridFit(corners, best_score, edition, details={"aspect": aspect})


def _moved_cells(a: np.ndarray, b: np.ndarray) -> float:
    """Largest corner move between two corner sets, in cells (a tenth of the mean side)."""
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b), axis=1).max() / (grid_diagonal(b) / 14.14))


