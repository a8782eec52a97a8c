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

This module is the search; its parts live beside it: ranking the rough candidates
(``vision.leaders``), placing a lattice by the print and the test for it (``vision.placement``),
the turn network's word on a grid (``vision.net_verdict``), whether corners can be a grid at all
(``vision.plausible``), and the last fraction of a cell (``vision.settle``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace

import cv2
import numpy as np

from engine.layout import SIZE
from vision.board_net import BoardView, load_board_net
from vision.corner_net import REACH
from vision.geometry import (
    NO_BOARD,
    GridFit,
    check_frame,
    edition_aspect,
    grid_homography,
    guess_edition,
    move_in_nearer_cells,
    moved_cells,
    order_as_seen,
)
from vision.lattice import align_lattice, lattice_candidates, lattice_support
from vision.leaders import lattice_leaders, rank_leaders, same_placement
from vision.locate_config import LocateConfig
from vision.net_climb import climb, net_odds
from vision.net_verdict import NetVerdict, net_verdict
from vision.outlines import (
    blob_quads,
    evened_light,
    lattice_hypotheses,
    mask_boxes,
    mask_quads,
    saturation,
    table_quads,
    texture_quads,
    whiteness,
    with_hypotheses,
    zoomed_quads,
)
from vision.placement import InkMatch, accepted, better, evidence, ink_match
from vision.plausible import edges_crossed, implausibility, plausible
from vision.settle import corner_net_look, gap_fit, settle_seen
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
    net = load_board_net() if config.use_net else None
    board = net.view(frame) if net is not None else None
    quads = blob_quads(raw_white, config)
    if config.use_texture:
        quads = texture_quads(raw_white, config, quads)
    fit = _search(frame, gray, raw_white, sat, white, board, quads, edition, config)
    if fit or board is None or config.even_light_reach <= 0:
        return fit
    # A shadow band across the board (a player leaning over, a lamp's edge) can cut part of the
    # card area off what the network sees; that area, extended by what it sees with the light
    # evened out, is outlined and searched again (its outlines alone).
    extended = board.extended_by(net.view(evened_light(frame, config.even_light_reach)), config.even_light_gain)
    if extended is None:
        return fit
    again = _search(frame, gray, raw_white, sat, white, extended, [], edition,
                    replace(config, use_segments=False, use_table=False, use_zoom=False))
    return again if again else fit


def _search(frame, gray, raw_white, sat, white, board: BoardView | None, quads: list[np.ndarray],
            edition: str | None, config: LocateConfig) -> GridFit:
    """The search of ``locate_grid`` from the board network's view ``board`` and the rough
    outlines ``quads`` (bright or finely printed regions)."""
    h, w = frame.shape[:2]
    # The network's outlines first; the closer look (``zoomed_quads``) is for the others.
    net_outlines = mask_quads(board, config) if board is not None else []
    outlines = net_outlines + quads
    if frame.ndim == 2:
        candidates = [
            c for c in with_hypotheses(outlines, raw_white, sat, config)
            if plausible(c, (w, h), config, aspect=False)
        ]
        if config.use_segments:
            candidates += [c for c in lattice_candidates(gray, config) if plausible(c, (w, h), config)]
        if not candidates:
            return GridFit.failed(f"{NO_BOARD}nothing in the picture looks like a grid of cards")
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
    best, candidates, deferred, runners, refused = None, [], [], [], []
    top = config.thorough_top if config.thorough else config.refine_top
    for number, (stage, stage_config) in enumerate(stages):
        more = [c for c in stage() if plausible(c, (w, h), config, aspect=False)]
        candidates += more
        leaders = rank_leaders(frame, more, stage_config)
        deferred.append((leaders[top : config.deep_top], stage_config))
        found = _stage_result(frame, gray, white, board, leaders[:top], config, stage_config, runners, refused)
        if not accepted(found, stage_config):
            # The outlines that fit the card borders best, under a stricter ink test: more
            # registrations, more chances for a wrong placement to read the layout by chance.
            strict = replace(stage_config, min_z=max(stage_config.min_z, config.lattice_min_z))
            extra = lattice_leaders(white, more, leaders[:top], config)
            found = better(found, _stage_result(frame, gray, white, board, extra, config, strict, runners, refused),
                           config)
        best = better(best, found, config)
        # A weak pass from the outlines alone may be a lattice bent off the cards in one
        # corner; the grids fitted inside the outlines are tried before settling for it,
        # unless the card gaps have placed it with the ink clear too (then it lies on the
        # lattice, edge to edge: gaps placing a board's outline, margin and all, read z 3.9).
        weak_pass_ok = not config.thorough and (number >= 1 or (best is not None and best.z >= config.full_z))
        settled = best is not None and best.placed and (number >= 1 or config.thorough or best.z >= config.min_z)
        if accepted(best, config) and (settled or weak_pass_ok):
            break
    if not config.thorough and not accepted(best, config):
        best = _deep_search(frame, gray, white, board, deferred, best, config, runners, refused)
    if not candidates:
        return GridFit.failed(f"{NO_BOARD}nothing in the picture looks like a grid of cards")
    fit = _conclude(frame, gray, white, board, best, edition, config)
    if fit:
        return fit
    # The best placement failed (the ink fell short, or the turn network refused it): the
    # others that showed the layout at least faintly, where the network vouches for one.
    for match in _runners(runners, best, config) if best is not None else []:
        if net_verdict(frame, match.corners, config).vouches:
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
        if rescued is None and config.net_boxes:
            rescued = _rescued_by_climbing(frame, gray, white, board, mask_boxes(board, config), edition, config)
        if rescued is not None:
            return rescued
    return _kept_against_the_network(frame, gray, white, board, [*refused, best], edition, config) or fit


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
    gaps, _, _ = gap_fit(gray, corners, config)
    if gaps is not None and net_odds(frame, gaps) >= odds - config.climb_slack:
        corners = gaps.astype(np.float32)
    return corners


def _climb_starts(frame: np.ndarray, quad: np.ndarray, config: LocateConfig) -> list[np.ndarray]:
    """Where to climb the outline ``quad`` ``(4, 2)`` (as seen) from: where the corner network
    (``vision.corner_net``, ``corner_looks`` times) sees the grid's corners, then as drawn
    (about one outline in twenty that lies within a cell, the network moves farther off).
    Only as drawn where the network moves a corner more than ``corner_max_move`` cells
    (``move_in_nearer_cells``) or folds the outline."""
    moved = corner_net_look(frame, quad, REACH, config.corner_looks)
    if moved is None or move_in_nearer_cells(quad, moved) > config.corner_max_move:
        return [quad]
    return [order_as_seen(moved), quad]


def _runners(runners: list[InkMatch], best: InkMatch | None, config: LocateConfig) -> list[InkMatch]:
    """The placements other than ``best`` (None: any) worth the turn network's look, one per
    placement, highest ink z first, at most ``net_runners``."""
    kept: list[InkMatch] = []
    for match in sorted(runners, key=lambda m: -m.z):
        seen = order_as_seen(match.corners)
        if any(same_placement(seen, order_as_seen(m.corners), config) for m in [best, *kept] if m is not None):
            continue
        kept.append(match)
        if len(kept) >= config.net_runners:
            break
    return kept


def _cut_hint(board: BoardView | None, best: InkMatch | None, size: tuple[int, int], config: LocateConfig) -> str:
    """Where no board was found: the edges of the picture the board runs past, in words the
    player can act on ("" where none shows). A board cut by the picture's edge shows too little
    of its print. The board network's card area reaching an edge is the witness
    (``BoardView.edges_reached``). Without the network, the edges the likeliest grid crosses,
    where its ink shows the layout faintly (``net_min_z``), a weaker one: of 39 normal and hard
    boards cut 3 cells short by the right edge and not found (seeds 26000-26039), it named that
    edge alone on 11, with the bottom one on 1 and another edge on 3, and it named an edge of a
    board wholly in view (seed 25409, hard Jumbo, under 70 chips)."""
    if board is not None:
        cut = board.edges_reached(config.cut_edge_share, config.cut_min_solidity)
    else:
        cut = [] if best is None or best.z < config.net_min_z else edges_crossed(best.corners, size, 0.0)
    if not cut:
        return ""
    return f"the board seems to run past the {' and '.join(cut)} edge of the picture: move the camera so it all shows"


def _conclude(frame, gray, white, board, best: InkMatch | None, edition: str | None, config: LocateConfig,
              *, by_climbing: bool = False) -> GridFit:
    """The search's best placement as the located grid, finished to sub-pixel corners, or the
    reason it is not the board. ``by_climbing``: the turn network placed it
    (``_placed_by_climbing``), so it is the network's to vouch for, not the ink's, and it may
    vouch on the turn alone (``net_verdict``'s ``placed``; the fit's ``on_turn_alone``)."""
    h, w = gray.shape
    verdict = NetVerdict(vouches=by_climbing)
    if best is not None and not accepted(best, config) and best.z >= config.net_min_z and not by_climbing:
        # The ink shows the layout, faintly: the turn network may vouch for the grid.
        finished = _finish(frame, gray, white, board, best, replace(config, min_z=config.net_min_z))
        verdict = net_verdict(frame, finished.corners, config)
        if verdict.vouches:
            best = finished
    if best is None or not (accepted(best, config) or verdict.vouches):
        z = -1.0 if best is None else best.z
        shown = math.floor(z * 100.0) / 100.0  # cut, not rounded: 5.496 is not the 5.5 asked
        hint = (_cut_hint(board, best, (w, h), config)
                or "check that the whole board is in view, in focus, evenly lit and clear of hands")
        return GridFit.failed(
            f"{NO_BOARD}no grid in the picture shows a Sequence board's cards plainly enough (their red and "
            f"black print reads z {shown:.2f} where {config.min_z:.1f} is needed, {config.min_z_margin:.1f} clear "
            f"of any other placement); {hint}",
            score=z,
        )
    by_net = verdict.vouches  # (the ink alone fell short: the network must still vouch at the end)
    if not by_net:
        best = _finish(frame, gray, white, board, best, config)
    # The gap fit moves corners by less than its search each round: once more from where it ended.
    # Where the gaps do not register the grid (blurred, washed out), the fine corner network does.
    best = replace(best, corners=settle_seen(frame, gray, best.corners, config))
    verdict = net_verdict(frame, best.corners, config, best.z, placed=by_climbing)
    if verdict.refuses or (by_net and not verdict.vouches):
        return GridFit.failed(f"{NO_BOARD}the grid that fits best does not look like a Sequence board "
                              "(the turn network's verdict)", score=best.z)
    if verdict.overruled and not by_climbing:
        climbed = _climbed_past_overruled(frame, gray, white, board, best.corners, edition, config)
        if climbed is not None:
            return climbed
    # The shape, with a loose aspect (``sliver_aspect``): the print has shown the layout cell by
    # cell, which a grid of the wrong proportions cannot, while the aspect measured from one view
    # can be far off (a cropped photo, a lens whose centre is not the image's).
    # (A grid the free corners placed must look square too: they place, they do not shape;
    # unless the turn network, which refuses a grid bent or scaled off the cards, vouches for it.)
    framed = best.framed and not verdict.vouches
    why = implausibility(best.corners, (w, h), config,
                         max_aspect=config.max_aspect if framed else config.sliver_aspect)
    if why is not None:
        return GridFit.failed(f"{NO_BOARD}{why}", score=best.z)
    if best.cells < config.min_ink_cells and not verdict.vouches:
        # Too few cells show print for the pattern to have been read at all (washed out).
        return GridFit.failed(
            f"{NO_BOARD}only {best.cells} cells of the grid that fits best show card print "
            f"(need {config.min_ink_cells}): is the board washed out by a lamp or glare?", score=best.z
        )
    corners = order_as_seen(best.corners)
    aspect = None
    if edition is None:
        edition, aspect = guess_edition(corners, (w, h))
    z, runner = evidence(best)
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


def _kept_against_the_network(frame, gray, white, board, matches: list[InkMatch | None], edition: str | None,
                              config: LocateConfig) -> GridFit | None:
    """The first of ``matches`` (highest ink z first, the ink's test passed) that, finished with
    the turn network heard but not obeyed, a second witness keeps: the board network's card
    area lies on it (``card_area_overrules``), or its print shows the layout plainly
    (``net_doubt_overruled_z``) while the turn network doubts it short of certainty
    (``net_certain``); None where neither does.

    Where the search finds no board, the turn network may have refused the board itself: it
    learned the boards we render, and a board printed by another hand can look to it like none.
    The print's statistics and the card area hold for any printing, so together they outweigh
    it; so does plain print alone where the network is not certain. Only here, once the search
    is over: refused while it runs, such a grid sends the search on, to registrations the
    network vouches for or whose print is plainer still (taken at once instead, such grids
    lost four boards of sets 5 and 6 that the search had gone on to find).
    """
    if board is None:
        return None  # (the networks are not asked: none refused a grid)
    heard = replace(config, net_overruled_z=-math.inf)
    for match in _runners([m for m in matches if accepted(m, config)], None, config):
        fit = _conclude(frame, gray, white, board, match, edition, heard)
        if not fit:
            continue
        if config.card_area_overrules > 0 and board.centred_on(fit.corners, config.card_area_overrules):
            return replace(fit, details={**fit.details, "card_area_overruled": True})
        if fit.details["ink_z"] >= config.net_doubt_overruled_z:
            doubt = net_verdict(frame, fit.corners, config).probabilities
            if doubt is not None and doubt[NOT_PLACED] < config.net_certain:
                return replace(fit, details={**fit.details, "print_overruled": True})
    return None


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
    gaps, far, support = gap_fit(gray, match.corners, dense)
    if far is not None:
        placed = ink_match(frame, far, config, reach=1, gray=gray, board=board)
        if accepted(placed, config) and (placed.placed or placed.z >= match.z + config.refine_z_slack):
            return placed
    if gaps is None and support >= config.gap_retry_support and config.use_align:
        # The gaps are there but the placement is too far off for them: the lattice search first.
        aligned, _ = align_lattice(white, match.corners, config)
        gaps, _, _ = gap_fit(gray, aligned, dense)
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
    if accepted(again, config) and again.z >= match.z - slack and moved_cells(
        again.corners, match.corners
    ) <= config.max_refine_move_cells:
        return again
    return match


def _deep_search(frame, gray, white, board, deferred: list, best: InkMatch | None,
                 config: LocateConfig, runners: list[InkMatch] | None = None,
                 refused: list[InkMatch] | None = None) -> InkMatch | None:
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
            found = _stage_result(frame, gray, white, board, [corners], config, deep, runners, refused)
            if accepted(found, config) and not found.placed and gap_fit(gray, found.corners, config)[2] < (
                config.deep_gap_support
            ):
                found = None
            best = better(best, found, config)
            if accepted(best, config):
                return best
    return best


def _stage_result(frame, gray, white, board, leaders: list[np.ndarray], config: LocateConfig,
                  stage_config: LocateConfig, runners: list[InkMatch] | None = None,
                  refused: list[InkMatch] | None = None) -> InkMatch | None:
    """Register a stage's ``leaders``; the best placement, or None when it passes only the usual
    test (``config``) and not the stricter one of its stage (``stage_config``), which the stage
    does not trust.

    Before it is dropped, such a placement gets the final, finer registration (``_finish``)
    and is tested again: on a small, blurred board a rough outline registers a fraction of a
    cell off, where the print reads weaker than on the cards themselves (a board that read
    z 6.2 a fifth of a cell off read 8.4 once finished).
    """
    found = _register_leaders(frame, gray, white, board, leaders, stage_config, runners, refused)
    if not accepted(found, config) or accepted(found, stage_config):
        return found
    # ``_finish`` keeps a move only where the stage's test then passes; else it returns ``found``.
    finished = _finish(frame, gray, white, board, found, stage_config)
    return finished if accepted(finished, stage_config) else None


def _register_leaders(frame, gray, white, board, leaders: list[np.ndarray], config: LocateConfig,
                      runners: list[InkMatch] | None = None, refused: list[InkMatch] | None = None
                      ) -> InkMatch | None:
    """Register the given leaders in turn until one passes (``thorough``: until the card gaps
    place one that shows the layout fully, ``full_z``; the first they place can be a cell off,
    showing it weakly, where a later one lies on the board itself); the best placement of those
    registered (``better``), or None. Every placement registered whose ink reaches
    ``net_min_z`` is added to ``runners``, for the turn network to look at should no
    placement pass; every one the ink accepts and the network refuses, to ``refused``
    (``_kept_against_the_network``)."""
    best = None
    size = (frame.shape[1], frame.shape[0])
    for corners in leaders:
        match = _register(frame, gray, white, board, corners, config)
        if not plausible(match.corners, size, config, aspect=False):
            continue
        if not accepted(match, config) and match.z >= config.min_z - config.polish_below:
            match = _polish(frame, gray, white, board, match, config)
        if accepted(match, config) and net_verdict(frame, match.corners, config, match.z).refuses:
            if refused is not None:
                refused.append(match)
            continue  # (the print read by chance off the board: the search goes on)
        if runners is not None and match.z >= config.net_min_z:
            runners.append(match)
        if match.framed and not plausible(match.corners, size, config) and not net_verdict(
            frame, match.corners, config
        ).vouches:
            continue  # (the final test: the free corners place a grid, they do not shape it)
        best = better(best, match, config)
        if accepted(best, config) and (not config.thorough or (best.placed and best.z >= config.full_z)):
            break  # (the stages decide whether a weak pass is worth more search)
    return best


def _register(frame, gray, white, board, corners, config: LocateConfig) -> InkMatch:
    """Bring rough corners onto the printed lattice and place it by the ink; the best of the tries.

    The card gaps give sub-pixel lines when the camera resolves them (checked by how many gap
    samples agree); otherwise the local lattice search (card borders versus cell middles)
    brings the grid within a fraction of a cell, and the gaps are tried again from there. The
    lattice search can also drift off a blurred board, so every stage's result is placed by
    the ink (``ink_match``) and the one that shows the layout best is kept.
    """
    first = ink_match(frame, corners, config, gray=gray, board=board)
    if accepted(first, config) and first.z >= config.full_z:
        return first  # already on the cards: the final gap fit will make it sub-pixel
    tries = [np.asarray(corners, np.float32)]
    gaps, far, support = gap_fit(gray, corners, config)
    # A rough outline can be over a cell off in a corner; the gaps over the rest of the board
    # still find the lattice (its placement is then checked like any other).
    gaps = far if gaps is None else gaps
    if gaps is not None:
        tries.append(gaps)
    elif config.use_align:
        aligned, _ = align_lattice(white, corners, config)
        tries.append(aligned)
        if support >= config.gap_retry_support:
            gaps, _, _ = gap_fit(gray, aligned, config)
            if gaps is not None:
                tries.append(gaps)
    matches = [first] + [ink_match(frame, t, config, gray=gray, board=board) for t in tries[1:]]
    # A placement that passes the test beats one that does not (a grid placed by the card gaps
    # passes with less ink than a rough grid whole cells off may show by chance). Later tries
    # are the finer registrations: take the finest that shows the layout about as strongly as
    # the best (a rougher grid can score a little higher by chance).
    passing = [m for m in matches if accepted(m, config)] or matches
    top = max(m.z for m in passing)
    return next(m for m in reversed(passing) if m.z >= top - config.refine_z_slack)


def _best_by_lattice(gray: np.ndarray, candidates: list, edition: str | None, config: LocateConfig) -> GridFit:
    """Grayscale frames carry no ink colour: rank candidates by card-gap support alone."""
    best, best_score = None, -1.0
    for c in candidates:
        score = lattice_support(gray, grid_homography(np.asarray(c, np.float32)), config)
        if score > best_score:
            best, best_score = c, score
    if best is None or best_score < config.min_score:
        return GridFit.failed(f"{NO_BOARD}the card gaps of the best grid are too faint (support {best_score:.2f})")
    corners = order_as_seen(best)
    aspect = None
    if edition is None:
        edition, aspect = guess_edition(corners, (gray.shape[1], gray.shape[0]))
    return GridFit(corners, best_score, edition, details={"aspect": aspect})
