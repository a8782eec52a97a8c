"""The grid search's tunable constants (``LocateConfig``), apart from the search itself so the
lattice and outline modules it drives can take them without importing the search."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from vision.net_climb import ClimbConfig
from vision.orient import (
    OrientConfig,
)


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
    """A comb tooth counts at most this many times a typical line's support."""
    segment_cap: float = 3.0
    """One segment votes at most this many times the median segment length."""
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
    even_light_reach: float = 0.04
    even_light_gain: float = 0.1
    """Where the search finds no board, the network looks again at the frame divided by its
    local white level over this fraction of its width (``evened_light``); where what it sees
    then adds at least ``even_light_gain`` to the card area it saw, joined on, the outlines of
    the area so extended are searched (0 reach: never). A shadow band across a board cut the
    area short (set 5's 5023: the area matched the grid at IoU 0.70, evened 0.89)."""
    net_levels: tuple[float, ...] = (0.5, 0.3, 0.7)
    """Probability levels the network's map is outlined at."""
    net_min_area: float = 0.006
    """Smallest card area the network's map is outlined for (share of its thumbnail): a board
    with 12-pixel cells in a 1280x720 frame covers 1.5 %, under ``blob_min_area``, and a
    wrong outline only costs its registration."""
    side_trim: float = 0.15
    """The network's outlines are fitted along each side leaving out this fraction at each end
    (its corners come out rounded)."""
    side_every_pixel: bool = True
    """The network's outlines are traced pixel by pixel for the side fit (False: only the turning
    points OpenCV keeps, which the fit then weighs alike however long the run between them)."""
    side_rounds: int = 2
    """Rounds of fitting the sides: the points are given to the sides of the last round's quad."""
    side_tries: int = 32
    """Lines tried along each side (through pairs of its points), the one most points lie on kept
    (0: the line is fitted through every point along the side)."""
    side_tol: float = 0.03
    """A contour point lies on a side's line within this fraction of the side's length."""
    side_support: float = 0.5
    """A side's line is trusted where this many contour points per pixel of its trimmed length lie on it."""
    side_max_move: float = 0.2
    """A fitted corner further than this fraction of the quad's longest side from the hull's is not trusted."""
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
    net_doubt_overruled_z: float = 6.0
    net_certain: float = 0.999
    """Where the search finds no board, a grid the network refused is the board after all if
    its print shows the layout this clearly (z) and the network's "not the board" stays under
    ``net_certain`` (``_kept_against_the_network``). On boards drawn by other hands
    (independent sets 5 and 6, 240 frames) it doubted grids lying on the cards whose print read
    z 6 to 7 60 times, on 13 boards, at 0.50 to 0.9975, and one of those boards was then not
    found at all; grids it doubted there half a cell or more off, print as plain: three, 0.5
    to 0.9 cells off, one at 0.94. On 300 of our own rendered frames (seeds 148400-148699) it
    doubted one grid with print that plain, 2.6 cells off, and was certain of it (0.999999); and
    the four it doubted at z 5.5 to 6, all cells off, it was certain of too (0.9995 and more)."""
    card_area_overrules: float = 0.85
    """... and where the search finds no board else, a grid the network refused is the board
    after all if its print passed the ink's test and the board network's card area lies on it
    (``BoardView.centred_on``) at this agreement or more (0: never): two witnesses that hold for
    any printing against one that learned our boards. On 120 boards drawn by another hand, the
    network refused the very grid (within 2.4 pixels, print at z 5.5 to 6.9) on 5, which were
    then not found; their card areas agreed 0.94 to 0.97 with it."""
    net_climb_outlines: int = 3
    """Where no placement passes, this many of the board network's outlines are pulled onto the
    grid by the turn network (``_placed_by_climbing``; 0: none, nor the closer look's) ..."""
    corner_looks: int = 2
    """... each first from where the corner network (``vision.corner_net``) sees the grid's
    corners after this many looks (0: only as drawn): the climb brings an outline home from
    about a cell off, and the board network's lie two or three cells off on small, far or
    washed-out boards (on 600 hard rendered frames, seeds 6000-6199, 6400-6499 and
    8000-8299, boards found went from 548 to 576, boards put in the wrong place from 4 to 2) ..."""
    corner_max_move: float = 6.0
    """... unless it moves a corner farther than this, in the outline's cells or the grid's it
    moved to, whichever are larger (it sees three cells around the outline each look; an
    outline drawn over part of the cards has cells far smaller than the grid's: on seed 28215
    the board network's card area has a hole, and the corner network's grid lay 7 to 12 of
    the outline's cells away, 3.5 to 4.8 of its own): farther is a look at something else ..."""
    climb: ClimbConfig = field(default_factory=ClimbConfig)
    climb_min_odds: float = 3.0
    """... and one is kept from these log-odds (with the first turn network, of 502 climbed
    outlines 357 reached 4 or more, and 340 of those lay within half a cell of the grid; the
    network must still vouch for the grid once polished, so a climb to 3 is tried too: on 600
    hard rendered frames, seeds 21000-21599, that found 3 more boards, none in the wrong place;
    with the refitted network, every board found there is found with the bar at 4 too). A
    climbed grid the network rates below this once finished (the climb left a corner about a
    cell off, where the finish cannot bring it home) gives way to the climbs from the other
    starts, and the one it rates highest is kept (seed 28053: a corner 0.9 cells off rated
    2.8, then every corner within 0.14 cells rated 6.8) ..."""
    overruled_ink_margin: float = 1.5
    """Where the ink overruled the network's refusal of its grid, the grid the network climbs to
    from there replaces it, rated above "not the board here" but below ``climb_min_odds``, when
    its print reads this much plainer (z) (``_climbed_past_overruled``)."""
    climb_slack: float = 3.0
    """... and registered finer where the network's log-odds then fall by at most this much."""
    climb_placed_sure: float = 0.6
    """Where the network is sure of no climbed grid, once registered, that it is the board, the
    first it names one turn of with this probability, and is sure of among the turns
    (``OrientConfig.turn_net_sure``), is kept: it doubts the placement (the rest is "not the
    board here"), not the turn, and the climb, its own search, has placed the grid (registered
    on the cards, a grid can read lower odds than the climb reached a fraction of a cell off).
    0: it must be sure of the placement too. (Of 3000 rendered frames, seeds 8000-8299,
    20000-20299, 24000-24599 and 26000-26599 in the benchmark's cycle and 21000-21599 and
    22000-22599 hard, this found 6 of the 41 boards left unfound, in the right place and
    turned right, and put none in the wrong place. Taken before a later climb the network is
    sure of, one board came back 1.2 cells off; keeping climbs that reached log-odds 2 to 3
    for it too found 5 more and put 2 in the wrong place.)"""
    net_zoom: float = 1.6
    """Where no outline climbs onto the grid, the board network looks again at a crop this
    many times the extent of its first outline each way (0: never), and the first outline it
    draws there is climbed the same way: on the thumbnail of the whole frame a small board
    spans a few dozen pixels, outlined cells off. (On the 20 boards left unfound in 2200
    rendered frames, seeds 21000-21599, 27000-27599 and 28000-28599 in the benchmark's cycle
    and 8000-8399 hard, this found 4, every corner within 0.16 cells, and put one 0.75 cells
    off; boards found before are found as before, since it runs only where they are not.) ..."""
    net_zoom_max_share: float = 0.5
    """... unless the crop would cover more than this share of the frame (no closer look)."""
    net_boxes: bool = True
    """Where that finds none either, the smallest rectangles around the board network's card
    area (``outlines.mask_boxes``) are climbed the same way: where the card area comes out with
    its corners rounded or taken off, its outlines lie cells off, the rectangle within a cell or
    two. (Of the 12 boards left unfound in the benchmark's cycle at seeds 22900-23199, 25200-25799
    and 26800-27599, it found 3 (23007, 23025, 25529), within 0.09, 0.088 and 0.037 of a cell
    and turned right, and changed nothing else there: no board put in a wrong place.)"""
    polish_looks: int = 2
    """Looks the fine corner network (``vision.corner_net.FINE``) takes at a located grid the
    card gaps do not register (0: none). On the hard rendered frames of seeds 6000-6199 and
    8000-8199 (351 found), those were a median 0.118 cells off, 0.250 at the 90th
    percentile; polished, 0.055 and 0.116 (124 frames closer, 20 farther by 0.02 cells or
    more). Where the gaps did register the grid (181 frames, median 0.027) it would do worse."""
    polish_max_move: float = 1.0
    """Most cells a polish may move a corner. The network was fitted on grids up to about half a
    cell off, but its two looks bring most corners 0.5 to 0.7 cells off home too: on 600 hard
    rendered frames, seeds 21000-21599, a limit of 1.0 rather than 0.5 took the grids returned
    with a corner over half a cell off from 10 to 2, and lost none (its two looks alone put 8
    of the 10 within 0.12 cells)."""
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
    ``vision.placement._placed_by_mask``) and beats the next by ``mask_margin``; the ink and art must then tell
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
    (``vision.leaders.lattice_leaders``) when its leading placements fail, under the leaders' rules (the free
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
    the best (``vision.placement.better``), instead of stopping at the first that passes: several times slower,
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
    cut_edge_share: float = 0.01
    cut_min_solidity: float = 0.85
    """Where no board is found, an edge of the picture that a solid patch of the board network's
    card area (this share of its convex hull) reaches along this share of its length is named
    as one the board runs past (``BoardView.edges_reached``)."""
    max_aspect: float = 2.0
    """Largest width/height (either way) of the measured grid (``metric_aspect``) placed by its
    frame; the Jumbo mat is 1.19, but one view measures it loosely (its focal length guessed
    from the grid's own vanishing points): on 300 rendered frames, seeds 148700-148999, 10 true
    grids measured over 1.6 (up to 3.3, 1.89 at the 99th percentile), and at a bound of 1.6 a hard
    Jumbo board its card area placed 0.29 cells off (148867) was refused for its shape. At 2.0
    that board is found; no other frame of those 300, of seeds 149000-149299 and 145900-146199,
    or of the independent sets 4, 5 and 6 changed."""
    sliver_aspect: float = 3.0
    """Largest measured width/height (either way) of a grid the print or the turn network placed,
    whose shape is otherwise not asked (``max_aspect`` is for grids placed by their frame): the
    true grids of the independent sets 4 and 5 measure up to 1.73, while a strip of a wood-plank
    table that the turn network vouched for on the turn alone measured 8.9."""
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
        placed six grids 0.6 to 4 cells off, for seven boards found that the ink alone missed).
        The turn network tells no turn here, but still refuses a grid it is sure is not on the
        board (``net_refuses``): on 300 rendered empty boards, seeds 6000-6299, that took the
        boards found from 237 to 243 and those put in the wrong place from 4 (one on a
        gingham cloth, 28 cells off) to 2."""
        plain = cls()
        return cls(thorough=True, min_z=7.0, full_z=8.5, use_corners=False, place_by_net=False,
                   ink=replace(plain.ink, court_art=False, turn_net_sure=0.0))


