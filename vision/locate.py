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

import functools
import logging
from dataclasses import dataclass, field, replace

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
    line_homography,
    metric_aspect,
    order_as_seen,
    roll_rows,
)
from vision.net_climb import ClimbConfig, climb, net_odds
from vision.orient import (
    OrientConfig,
    free_corner_scores,
    ink_lattice,
    lattice_pattern_z,
    net_probabilities,
    net_turn,
    sure_turn,
    with_court_art,
    with_twin_cards,
)
from vision.turn_net import NOT_PLACED

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
    vp_candidates: int = 3
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
    refine_iterations: int = 2
    refine_search_cells: float = 0.3
    """Half-width of the search across each grid line, in cells (first round; halves each round)."""
    refine_min_search_cells: float = 0.12
    profile_step_cells: float = 0.015
    along_cells: float = 0.3
    """Each line sample averages the profile over this many cells either side along the line."""
    along_samples: int = 4
    gap_core_cells: float = 0.04
    """Half-width of the gap itself, left out of the bright band beside it."""
    band_inner_cells: float = 0.12
    """The white card borders reach this far either side of a line."""
    band_outer_cells: float = 0.3
    gap_widths_cells: tuple[float, ...] = (0.03, 0.05, 0.08)
    """Half-widths of the dark gap looked for (boards differ: a hairline, or a band of the board's grey)."""
    band_weight: float = 0.5
    valley_weight: float = 1.0
    min_line_grey: float = 3.0
    min_line_frac: float = 0.1
    min_gap_points: int = 16
    min_cell_px: float = 4.0
    refine_ransac_cells: float = 0.05
    """RANSAC threshold of the refining homography, in cells."""
    min_fit_px: float = 1.0
    """The fit and support thresholds never go below this many pixels (small, blurred boards)."""
    extent_search_cells: float = 0.06
    """How far from each predicted line its strength is looked for when finding where the lattice ends."""
    extent_min_grey: float = 8.0
    """Inner lines weaker than this (grey levels of line evidence) say nothing about the lattice's extent."""
    extent_min: float = 0.6
    extent_margin: float = 0.25
    """The lattice's end places the grid when the best shift scores this much, and this much above the next."""
    min_z_placed: float = 3.5
    """Ink z-score that suffices when the card gaps have placed the grid (only the four turns are then
    in question, not every placement: the chance level is far lower)."""
    min_z_placed_clear: float = 2.0
    placed_clear_margin: float = 2.0
    """A placed grid whose best turn beats the other three by ``placed_clear_margin`` needs only
    this z: chips covering most cards leave little print, but the turns still differ clearly."""
    use_corners: bool = True
    corner_margin: float = 3.0
    """Where the card gaps say nothing, the four free corners (one logo, no card) place the grid
    when the best window's ``orient.free_corner_scores`` beats the next by this much; the ink
    must then show one turn at ``min_z_placed`` (the looser turn rule is for the gaps alone)."""
    corner_art_margin: float = 5.0
    art_turn_margin: float = 1.5
    """Where the corners frame a window by ``corner_art_margin`` and the ink does not tell its turn
    (a Jumbo mat's pips washed out, most cards under chips), the court cards' art may tell it
    on its own: the ink and art joined per turn must reach ``min_z_placed`` and beat the next
    turn by ``art_turn_margin``, where the art places the grid there too. (Over every
    registration of 400 rendered frames, seeds 3000-3099 normal and hard, 5000-5099 easy and
    5100-5199 normal, no window passing that rule was off the board or wrongly turned.)"""
    refine_ransac_iters: int = 100
    """RANSAC iterations of the refining homography (the rough grid already puts most samples on the
    right line, so a few dozen draws find the consensus; 500 cost 15 % of the locate time)."""
    support_search_cells: float = 0.3
    inlier_cells: float = 0.04
    """A gap sample supports the final fit within this distance, in cells."""
    full_support: float = 0.7
    """Fraction of gap samples found that counts as full support (chips and hands hide some)."""
    shift_margin: float = 0.03
    blob_long_side: int = 320
    """Long side of the thumbnail the bright card area is segmented in."""
    use_zoom: bool = True
    """Last, outline small boards once more from a closer look (``zoomed_quads``)."""
    zoom_min_z: float = 6.5
    """The ink z a placement those closer outlines led to needs when the ink alone chose it
    (and the free corners do not frame it): they are more lattices tried where nothing passed,
    so more chance passes (one, at z 6.0 four cells off, among 100 rendered hard frames)."""
    zoom_below: float = 0.6
    """Rough quads whose long side is under this fraction of the frame's are outlined once more
    from a crop around them (``zoomed_quads``): a small board spans few thumbnail pixels."""
    zoom_pad: float = 0.25
    """The crop reaches this fraction of the quad's size beyond it on each side."""
    zoom_quads: int = 6
    """At most this many rough quads (the first found, the largest) are looked at closer."""
    blob_bright_percentile: float = 99.0
    blob_levels: tuple[float, ...] = (0.4, 0.65, 0.85)
    """Extra thresholds between Otsu's and the brightest pixels (fractions of the way)."""
    blob_count: int = 2
    blob_min_area: float = 0.02
    blob_max_area: float = 0.9
    blob_same_px: float = 12.0
    blob_close_px: int = 3
    """Closing of the bright-area mask (thumbnail pixels), bridging the card gaps."""
    texture_mark_px: int = 5
    """Largest print mark (pip, index) at the thumbnail size, in pixels (black-hat element)."""
    texture_window_px: int = 9
    """Print density is averaged over this window of the thumbnail (about a small board's cell)."""
    texture_close_px: int = 5
    """Closing of the print-density mask (thumbnail pixels), bridging chips and gaps."""
    use_net: bool = True
    """Also take the card area the board network sees as outlines (``mask_quads``)."""
    net_levels: tuple[float, ...] = (0.5, 0.3, 0.7)
    """Probability levels the network's map is outlined at."""
    side_trim: float = 0.15
    """The network's outlines are fitted along each side leaving out this fraction at each end
    (its corners come out rounded)."""
    net_refuses: float = 0.5
    """The turn network's probability of "not the board here" (``vision.turn_net``) from which
    a located grid is dropped. (With the network's first fit, of 400 rendered frames, seeds
    6000-6399, every board the locator returned in the wrong place, 10 of them 0.57 to 12.7
    cells off, read 0.83 or more, save one 0.68 cells off; no board returned in the right place
    read above 0.5. That fit was still sure of grids bent 0.5 to 1.3 cells off; refitted on
    such grids too, it leaves 4 boards in the wrong place on 600 hard and normal frames, seeds
    6000-6499 and 8000-8199, where the first fit left 9.)"""
    net_overruled_z: float = 7.0
    """... unless its ink shows the layout this clearly (z): the ink's test is statistical and
    holds for any printing of the board, while the network learned the boards we render; a
    real board whose print is plain must not be dropped because the network has never seen one
    like it. (On hard frames 6000-6199 and 6400-6499 this guard changed nothing, with the
    network's first fit.)"""
    net_climb_outlines: int = 3
    """Where no placement passes, this many of the board network's outlines are pulled onto the
    grid by the turn network (``_placed_by_climbing``) ..."""
    corner_looks: int = 2
    """... each first from where the corner network (``vision.corner_net``) sees the grid's
    corners after this many looks (0: only as drawn): the climb brings an outline home from
    about a cell off, and the board network's lie two or three cells off on small, far or
    washed-out boards (on 600 hard rendered frames, seeds 6000-6199, 6400-6499 and
    8000-8299, boards found went from 548 to 576, boards put in the wrong place from 4 to 2) ..."""
    corner_max_move: float = 6.0
    """... unless it moves a corner farther than this, in the outline's cells (it sees three
    around the outline, and an outline drawn inside the cards has cells smaller than the
    grid's): that is a look at something else ..."""
    climb: ClimbConfig = field(default_factory=ClimbConfig)
    climb_min_odds: float = 4.0
    """... and one is kept from these log-odds (of 502 climbed outlines, 357 reached 4 or more,
    and 340 of those lay within half a cell of the grid) ..."""
    climb_slack: float = 3.0
    """... and registered finer where the network's log-odds then fall by at most this much."""
    polish_looks: int = 2
    """Looks the fine corner network (``vision.corner_net.FINE``) takes at a located grid the
    card gaps do not register (0: none). On the hard rendered frames of seeds 6000-6199 and
    8000-8199 (351 found), those were a median 0.118 cells off, 0.250 at the 90th
    percentile; polished, 0.055 and 0.116 (124 frames closer, 20 farther by 0.02 cells or
    more). Where the gaps did register the grid (181 frames, median 0.027) it would do worse."""
    polish_max_move: float = 0.5
    """Most cells a polish may move a corner (it was fitted on grids up to about half a cell off)."""
    net_runners: int = 8
    """Where the best placement fails, the next best this many (by ink z, from ``net_min_z``) are
    shown to the turn network, and the first it vouches for is taken as the best. (With the
    outlines climbed as well, this found 2 boards more on 100 hard rendered frames, seeds
    6400-6499, and none on 500 others, seeds 6000-6199 and 8000-8299, with the network's
    first fit.)"""
    net_min_z: float = 4.0
    """Where the turn network is sure of a turn of the best placement (``OrientConfig.turn_net_sure``:
    the grid lies on the cards), that placement is the board from this ink z, the layout's
    print seen however faintly, instead of ``min_z`` and its margin; and it need not pass the
    metric-aspect and inked-cell tests, which a steep or washed-out view of the board fails."""
    place_by_net: bool = True
    mask_cell_px: int = 4
    mask_min: float = 0.6
    mask_margin: float = 0.2
    """Where the card gaps say nothing and the ink alone falls short, the board network's card
    area places a grid when the best whole-cell shift scores ``mask_min`` (see
    ``_placed_by_mask``) and beats the next by ``mask_margin``; the ink and art must then tell
    its turn (``min_z_placed``, ``min_z_margin``), as for the free corners."""
    use_texture: bool = True
    """Also take the regions dense with small dark print as board outlines (see ``texture_quads``)."""
    use_segments: bool = True
    """Also look for the card-gap lattice with line segments (only resolved on sharp, large boards)."""
    use_table: bool = True
    """Last, take the regions unlike the table around them as board outlines (see ``table_quads``)."""
    table_ring: float = 0.06
    """The table's colours are sampled in this outer band of the frame (fraction of its short side)."""
    table_colours: int = 4
    """How many colour clusters describe the table (wood grain, the two checks of a tablecloth)."""
    table_blur_px: float = 2.0
    """Blur of the thumbnail before comparing colours: a tablecloth's checks average out."""
    table_gain: float = 4.0
    """Lab distance from the nearest table colour is scaled by this into 0..255 for thresholding."""
    table_min_z: float = 6.0
    """The ink z a placement the ink alone chose needs when only the table's colours outlined it."""
    hyp_pad: float = 0.2
    hyp_px: int = 256
    hyp_band: tuple[float, float] = (0.15, 0.85)
    hyp_min_width: float = 0.6
    hyp_max_width: float = 1.1
    """The grid spans this fraction of a rough quad (the quad may be the whole board)."""
    hyp_period_step: float = 0.25
    hyp_per_axis: int = 3
    hyp_keep: int = 4
    """Best axis combinations per rough quad that go on to the (slower) ink test."""
    ink: OrientConfig = field(
        default_factory=lambda: OrientConfig(cell_px=16, aspect_weight=0.0, min_cells=20, highpass_cells=5)
    )
    """How the printed ink is read when scoring a candidate grid (see ``vision.orient``)."""
    ink_both_whites: bool = True
    """Read the ink against the board's one white and against each cell's local white, and
    keep the stronger z per placement: the local white sees through a glare spot or a lamp at
    one side; the board's white is steadier on small, blurred cells."""
    ink_coarse: OrientConfig = field(
        default_factory=lambda: OrientConfig(
            cell_px=8, aspect_weight=0.0, min_cells=20, highpass_cells=5, twin_cards=False
        )
    )
    """The same, at a low resolution, for the quick placement of rough candidates."""
    vote_others: float = 0.25
    """Weight of a placement's other candidates in its vote, relative to its strongest."""
    vote_cells: float = 0.5
    """Quick placements whose corners agree within this many cells vote together."""
    rank_reach: int = 2
    """Whole-cell placements tried each way when ranking rough candidates (they may be cells off)."""
    refine_top: int = 3
    thorough_top: int = 8
    """How many leading placements a ``thorough`` search registers (``refine_top`` otherwise)."""
    lattice_top: int = 3
    """Each stage also registers this many of its candidates that fit the card borders best
    (``_lattice_leaders``) when its leading placements fail, under the leaders' rules (the free
    corners may frame them): on 350 hard frames of seeds 3000-3099 and 7100-7349 that found 21
    more boards and framed one wrongly (7337), where the deeper look's rules found 5."""
    lattice_min_z: float = 6.5
    """The ink z those need where the ink alone places them (``min_z`` otherwise): on seeds
    3000-3099 normal, one placed 1.7 cells off read z 5.7."""
    deep_top: int = 12
    """When no stage's leading placements pass, each stage's placements ranked up to this are
    registered too (in stage order), before the search gives up (see ``_deep_search``)."""
    deep_gap_support: float = 0.25
    """Gap-lattice support a placement found that way needs when the ink alone placed it."""
    white_blur_px: float = 0.7
    align_steps_cells: tuple[float, ...] = (0.2, 0.1, 0.05)
    """Step sizes (in cells) of the local lattice search, coarse to fine."""
    finish_refine_iterations: int = 3
    finish_along_samples: int = 7
    """The final gap fit samples more densely than the ones used while searching."""
    finish_align_steps_cells: tuple[float, ...] = (0.1, 0.05, 0.025)
    finish_align_rounds: int = 8
    finish_align_samples: int = 24
    """The final lattice search (no gaps to fit) is finer than the one used while searching."""
    use_align: bool = True
    """Try the local lattice search when the card gaps do not register the grid."""
    align_rounds: int = 5
    align_samples: int = 16
    align_band_cells: tuple[float, ...] = (-0.1, 0.1)
    """Card borders are sampled this far either side of each inner cell boundary."""
    align_blur: float = 0.5
    """The image is blurred by this many step sizes for each step (smooth basin first)."""
    shift_reach: int = 3
    """Whole-cell placements tried each way around a registered lattice (see ``ink_match``)."""
    min_z: float = 5.5
    """Pattern z-score from which a placement is the board (print unrelated to the layout stays
    below about 4.5 over all the placements and turns tried)."""
    min_z_margin: float = 1.0
    """The best placement must beat every other (a cell off, or turned) by this much z."""
    polish_below: float = 2.0
    """Placements within this much z of acceptance are registered again from where they landed."""
    full_z: float = 7.0
    """A z-score this high ends the search of a stage early and counts as full confidence."""
    thorough: bool = False
    """Search more leading placements and every stage unless the card gaps place one, keeping
    the best (``_better``), instead of stopping at the first that passes: several times slower,
    for a one-off look such as the empty-board reference, where a lattice bent over part of
    the cards can pass the ink test but is beaten by the board itself."""
    min_ink_cells: int = 20
    """Cells of the final grid that must show red or black print for the match to count: as
    many as a pattern needs to be read at all (``OrientConfig.min_cells``). The z-score already
    weighs how many cells it rests on; grids rejected by a stricter count (50) on seeds
    4000-4399 hard and 4400-4699 normal were all on the board, under chips or glare."""
    max_refine_move_cells: float = 1.0
    max_placed_move_cells: float = 2.0
    placed_gap_support: float = 0.4
    """The final fit may move a corner this far (cells), with this much gap support, when the card
    gaps then place the grid edge to edge and the ink agrees."""
    gap_accept: float = 0.6
    """Gap-lattice support from which the gap fit is trusted for the final corners."""
    gap_retry_support: float = 0.25
    """The gaps are fitted again after the lattice search only if the first fit found this much support."""
    refine_z_slack: float = 0.5
    """A finer registration is kept unless a rougher one shows the layout this much more strongly."""
    lattice_keep: int = 1
    max_side_ratio: float = 3.0
    """Perspective never makes one side of the grid this many times its opposite."""
    max_outside: float = 0.05
    """Corners may lie this fraction of the frame size outside it (a board at the very edge)."""
    max_aspect: float = 1.6
    """Largest width/height (either way) of the measured grid; the Jumbo mat is 1.19."""
    min_score: float = 0.3
    seed: int = 0

    @classmethod
    def for_empty_board(cls) -> LocateConfig:
        """The search for a one-off look at the empty board (calibration, a reference image):
        thorough, and the ink alone must show the layout as an uncovered board does (z 7).
        A reference it misplaces would misplace every frame read with it, while one it does not
        find leaves the frames to be located on their own; so the weaker cues that rescue
        boards under chips are left out: the court cards' art telling the turn where the ink
        does not, and the free corners placing the grid (on 600 rendered empty boards they
        placed six grids 0.6 to 4 cells off, for seven boards found that the ink alone missed)."""
        plain = cls()
        return cls(thorough=True, min_z=7.0, full_z=8.5, use_corners=False, place_by_net=False,
                   ink=replace(plain.ink, court_art=False, turn_net_sure=0.0))


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
    raw_white = _whiteness(frame)
    sat = _saturation(frame)
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
            c for c in _with_hypotheses(outlines, raw_white, sat, config)
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
        (lambda: _with_hypotheses(table_quads(frame, config), raw_white, sat, config) if config.use_table else [],
         last_resort),
        (lambda: _with_hypotheses(zoomed_quads(raw_white, quads, config), raw_white, sat, config)
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
    # the print is too faint for the ink to place it (``_placed_by_climbing``), each from where
    # the corner network puts it first, then as drawn (``_climb_starts``).
    if config.ink.turn_net_sure > 0:
        for quad in net_outlines[: config.net_climb_outlines]:
            for start in _climb_starts(frame, order_as_seen(quad), config):
                corners = _placed_by_climbing(frame, gray, white, start, config)
                if corners is None:
                    continue
                match = InkMatch(corners, -1.0, -1.0, 0, framed=True)
                rescued = _conclude(frame, gray, white, board, match, edition, config, by_climbing=True)
                if rescued:
                    return rescued
    return fit


def _placed_by_climbing(frame, gray, white, quad: np.ndarray, config: LocateConfig) -> np.ndarray | None:
    """A rough outline (the board network's) pulled onto the grid by the turn network
    (``vision.net_climb.climb``), then registered on the card borders and gaps where the
    network agrees, to within a fraction of a cell; None where it never grows sure of the board.

    The network places a grid to within about half a cell; the lattice search and the gap fit
    then pull it closer, and each move is kept unless the network's log-odds fall by more than
    ``climb_slack`` (a lattice search on faint borders can slide a cell away, and the network
    sees that). On the board network's outlines of 200 hard rendered frames (seeds 6000-6099,
    8000-8099), of the 357 climbed to log-odds 4 or more, 265 ended within a quarter cell of the
    grid, 87 within half a cell and 5 farther.
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
    Only as drawn where the network moves a corner more than ``corner_max_move`` of the
    outline's cells or folds the outline."""
    moved = _corner_net_look(frame, quad, REACH, config.corner_looks)
    if moved is None:
        return [quad]
    uv = apply_homography(np.linalg.inv(grid_homography(quad)), moved.astype(np.float64))
    if np.abs(uv - GRID_CORNERS_UV).max() > config.corner_max_move:
        return [quad]
    return [order_as_seen(moved), quad]


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
    (``_placed_by_climbing``), so it is the network's to vouch for, not the ink's."""
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
        return GridFit.failed(
            f"no board: no candidate grid shows the printed red/black card pattern "
            f"(best z {z:.1f} < {config.min_z:.1f}, or not {config.min_z_margin:.1f} above the next placement)",
            score=z,
        )
    by_net = verdict.vouches  # (the ink alone fell short: the network must still vouch at the end)
    if not by_net:
        best = _finish(frame, gray, white, board, best, config)
    # The gap fit moves corners by less than its search each round: once more from where it ended.
    # Where the gaps do not register the grid (blurred, washed out), the fine corner network does.
    again, _, _ = _gap_fit(gray, best.corners, config)
    best = replace(best, corners=again if again is not None else _polished(frame, best.corners, config))
    verdict = _net_verdict(frame, best.corners, config, best.z)
    if verdict.refuses or (by_net and not verdict.vouches):
        return GridFit.failed("no board: the turn network sees no board under the best grid", score=best.z)
    # The shape only (no aspect): the print has shown the layout cell by cell, which a grid of
    # the wrong proportions cannot, while the aspect measured from one view can be far off
    # (a cropped photo, a lens whose centre is not the image's).
    # (A grid the free corners placed must look square too: they place, they do not shape;
    # unless the turn network, which refuses a grid bent or scaled off the cards, vouches for it.)
    if not _plausible(best.corners, (w, h), config, aspect=best.framed and not verdict.vouches):
        return GridFit.failed("no board: the best grid is not a plausible view of the board", score=best.z)
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
    return GridFit(corners, score, edition,
                   details={"z": z, "z_next": runner, "ink_z": best.z, "aspect": aspect})


@dataclass(frozen=True)
class NetVerdict:
    """What the turn network says of a located grid: it ``vouches`` for it (sure of one turn,
    so the grid lies on the cards) or ``refuses`` it (sure the board is not there)."""

    vouches: bool = False
    refuses: bool = False


def _net_verdict(frame: np.ndarray, corners: np.ndarray, config: LocateConfig, ink_z: float = -1.0) -> NetVerdict:
    """The turn network's verdict on the grid ``corners`` (as seen) whose ink reads ``ink_z``;
    none where it is not asked. It refuses no grid whose ink reads ``net_overruled_z`` or more."""
    p = net_probabilities(frame, corners, config.ink) if config.use_net else None
    if p is None:
        return NetVerdict()
    refuses = p[NOT_PLACED] >= config.net_refuses and ink_z < config.net_overruled_z
    return NetVerdict(sure_turn(p, config.ink) is not None, bool(refuses))


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
    framed = None
    if placed is None and board is not None and config.place_by_net and r >= 1 and not clear:
        framed = _placed_by_mask(board, lattice, h, r, z, config, ink)
    if framed is None and placed is None and gray is not None and r >= 1 and config.use_corners and not clear:
        framed = _placed_by_corners(lattice, r, z, config, ink)  # (only where the ink alone falls short)
    art = None
    if placed is not None or framed is not None:
        dv, du = placed if placed is not None else framed[0]
        ink_turns = np.sort(z[dv, du])
        best, runner = float(ink_turns[-1]), float(ink_turns[-2])
        turns = np.sort(_placed_turns(lattice, r, z, (dv, du), config, ink) if framed is None else framed[1])
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
    lattice: np.ndarray, reach: int, z: np.ndarray, config: LocateConfig, ink: OrientConfig
) -> tuple[tuple[int, int], np.ndarray] | None:
    """The whole-cell shift ``(dv, du)`` that the four free corners frame clearly, and its turns'
    z (``_placed_turns``), if the ink (and art) then show one turn of the layout clearly
    (``min_z_placed``, ``min_z_margin``); else None, and the placement is left to the ink over
    every shift."""
    scores = free_corner_scores(lattice, SIZE + 2 * reach)
    top = np.sort(scores, axis=None)
    margin = top[-1] - top[-2]
    if margin < config.corner_margin:
        return None
    dv, du = (int(v) for v in np.unravel_index(int(np.argmax(scores)), scores.shape))
    turns = _placed_turns(lattice, reach, z, (dv, du), config, ink)
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
    board: BoardView, lattice: np.ndarray, h: np.ndarray, reach: int, z: np.ndarray, config: LocateConfig,
    ink: OrientConfig,
) -> tuple[tuple[int, int], np.ndarray] | None:
    """The whole-cell shift ``(dv, du)`` at which the grid covers the card area the board
    network sees, and its turns' z (``_placed_turns``), if the network says so clearly and the
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
    turns = _placed_turns(lattice, reach, z, (dv, du), config, ink)
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
    (``_lattice_contrast``), up to ``lattice_top``, none within ``vote_cells`` of the
    ``leaders`` or of each other: registered after the leaders.

    The quick ink read that ranks the leaders is noisy on a small, blurred board (its cells
    span a few pixels at that resolution), and there a candidate on the board itself can rank
    far down; how well its outline fits the card borders does not depend on reading the print.
    """
    if config.lattice_top <= 0 or not candidates:
        return []
    quads = [order_as_seen(c) for c in candidates]
    contrast = _lattice_contrast(white, quads, config)
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
    c = np.asarray(corners, dtype=np.float64)
    if c.shape != (4, 2) or not np.isfinite(c).all():
        return False
    edges = roll_rows(c) - c
    cross = edges[:, 0] * roll_rows(edges)[:, 1] - edges[:, 1] * roll_rows(edges)[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)):
        return False
    sides = np.linalg.norm(edges, axis=1)
    if sides.min() < SIZE * config.min_cell_px:
        return False
    if max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) > config.max_side_ratio:
        return False
    slack = config.max_outside * np.array(size, dtype=np.float64)
    if np.any(c < -slack) or np.any(c > np.array(size) + slack):
        return False
    if not aspect:
        return True
    aspect = metric_aspect(order_as_seen(c), size)
    return max(aspect, 1.0 / max(aspect, 1e-9)) <= config.max_aspect


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


def _best_by_lattice(gray: np.ndarray, candidates: list, edition: str | None, config: LocateConfig) -> GridFit:
    """Grayscale frames carry no ink colour: rank candidates by card-gap support alone."""
    best, best_score = None, -1.0
    for c in candidates:
        score = _lattice_support(gray, grid_homography(np.asarray(c, np.float32)), config)
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
    best_h, best_score = h, _lattice_support(gray, h, config)
    for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1)) if test_shifts else ():
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
    vertical = _on_vertical(grid_pts)
    k = np.where(vertical, grid_pts[:, 0], grid_pts[:, 1])
    thresh = max(config.refine_ransac_cells, config.min_fit_px / cell_px)
    return line_homography(k, vertical, img_pts, thresh, config.refine_ransac_iters, config.seed)


def _on_vertical(grid_pts: np.ndarray) -> np.ndarray:
    """Which gap samples lie on a line ``u = k`` (the others on ``v = k``): their u is whole."""
    return np.abs(grid_pts[:, 0] - np.round(grid_pts[:, 0])) < 1e-6


def _lattice_support(gray: np.ndarray, h: np.ndarray, config: LocateConfig) -> float:
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


UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)


def _whiteness(frame: np.ndarray) -> np.ndarray:
    """Darkest channel (white card faces stay bright; chips, ink, felt and wood do not)."""
    if frame.ndim == 2:
        return frame
    b, g, r = cv2.split(frame)
    return cv2.min(cv2.min(b, g), r)


def _saturation(frame: np.ndarray) -> np.ndarray | None:
    """Brightest minus darkest channel (chips and court art are strongly coloured)."""
    if frame.ndim == 2:
        return None
    b, g, r = cv2.split(frame)
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))


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
                         [255.0 * level for level in config.net_levels], fit_sides=True)


def _region_quads(small: np.ndarray, s: float, close_px: int, config: LocateConfig, out: list,
                  thresholds: list[float] | None = None, fit_sides: bool = False) -> list:
    """Hull quads of the largest regions of ``small`` above ``thresholds`` (default: Otsu's and
    a few higher ones); with ``fit_sides``, their corners where their sides meet (``_side_fit``)."""
    if thresholds is None:
        thresholds = [cv2.threshold(small, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[0]]
        hi = float(np.percentile(small, config.blob_bright_percentile))
        thresholds += [thresholds[0] + f * (hi - thresholds[0]) for f in config.blob_levels]
    for t in thresholds:
        binary = (small > t).astype(np.uint8)
        binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((close_px, close_px), np.uint8))
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contours = sorted(contours, key=cv2.contourArea, reverse=True)[: config.blob_count]
        for c in contours:
            area = cv2.contourArea(c)
            if area < config.blob_min_area * binary.size:
                break
            if area > config.blob_max_area * binary.size:
                continue  # the table itself
            quad = _hull_quad(c)
            if quad is not None and fit_sides:
                quad = _side_fit(c, quad, config)
            if quad is not None and not any(np.abs(quad / s - q).max() < config.blob_same_px for q in out):
                out.append(order_as_seen(quad / s))
    return out


def zoomed_quads(white: np.ndarray, quads: list[np.ndarray], config: LocateConfig) -> list[np.ndarray]:
    """The outlines of small boards drawn again from a closer look (the stage then adds the grids
    fitted inside them, ``_with_hypotheses``).

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
            if not any(np.abs(q - o).max() < config.blob_same_px for o in out):
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


def _with_hypotheses(quads: list[np.ndarray], white: np.ndarray, sat: np.ndarray | None, config: LocateConfig) -> list:
    """Each rough quad followed by the grids fitted inside it (``lattice_hypotheses``)."""
    return [c for q in quads for c in (q, *lattice_hypotheses(white, sat, q, config))]


def _side_fit(contour: np.ndarray, quad: np.ndarray, config: LocateConfig) -> np.ndarray:
    """``quad``'s corners where lines fitted to the contour along each of its sides meet.

    A region's rounded corners (a blurred outline, a probability map) pull the hull's vertices
    inwards; the sides away from the corners are straight and say where the corners are.
    Returns ``quad`` where a side has too few points to fit.
    """
    pts = contour.reshape(-1, 2).astype(np.float64)
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
        if keep.sum() < 3:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(pts[keep].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append(np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0]))
    out = []
    for k in range(4):
        p = np.cross(lines[k - 1], lines[k])
        if abs(p[2]) < 1e-9:
            return quad
        out.append(p[:2] / p[2])
    out = np.array(out)
    # A fit that moves a corner by more than a tenth of the quad's size is not trusted.
    return out if np.abs(out - quad).max() <= 0.1 * length.max() else quad


def _hull_quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of a contour's convex hull (Douglas-Peucker with a growing tolerance)."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05, 0.07, 0.1):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
    return None


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
        current = _lattice_contrast(img, [quad], config)[0]
        for _ in range(config.align_rounds):
            h = grid_homography(quad.astype(np.float32))
            trials = [_corners_of(h @ move) for move in _grid_moves(frac)]
            scores = _lattice_contrast(img, trials, config)
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


def _lattice_contrast(white: np.ndarray, quads: list, config: LocateConfig) -> np.ndarray:
    """Boundary-minus-midline brightness of the lattice for each quad (see ``align_lattice``)."""
    grid, n_on = _contrast_points(config.align_samples, tuple(config.align_band_cells))
    maps = [cv2.perspectiveTransform(grid, grid_homography(q.astype(np.float32))) for q in quads]
    # One interleaved (x, y) map, as remap reads it, rather than two strided planes.
    xy = np.concatenate(maps).reshape(len(quads), -1, 2).astype(np.float32)
    vals = cv2.remap(white, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    vals = vals.astype(np.float32)
    return (vals[:, :n_on].mean(axis=1) - vals[:, n_on:].mean(axis=1)) / np.maximum(vals.std(axis=1), 1.0)
