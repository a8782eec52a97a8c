"""Which printed corner is cell (0, 0): decided from the print itself, with a confidence.

Every card on the board is printed in red or black ink (``engine.layout.INK_MAP``), and that
pattern is far from symmetric: under a quarter or half turn it correlates with itself at
about 0 and -0.5. So the grid is rectified, the ink of each cell is measured near the cell's
corners (chips sit in the middle, and the rank/suit indices of a card are in its corners),
and the measured red-versus-black pattern is correlated with the layout under the four
rotations. Colours are compared within the frame (white-balanced on the board's own white
card faces), so a warm or cool camera does not matter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.layout import COURT_MAP, INK_MAP, SIZE
from vision.geometry import check_corners, check_frame, edition_aspect, metric_aspect, roll_corners, window_index
from vision.turn_net import NOT_PLACED, load_turn_net
from vision.twins import twin_z

_INK_SIGN = np.array(
    [[0.0 if ink is None else (1.0 if ink == "red" else -1.0) for ink in row] for row in INK_MAP]
)
"""+1 red, -1 black, 0 for the free corners."""
_COURT_SIGN = np.where(np.array(COURT_MAP), 1.0, -1.0) * (_INK_SIGN != 0)
"""+1 a Queen's or King's picture, -1 a number card, 0 for the free corners."""
_SIGNS = {"ink": _INK_SIGN, "court": _COURT_SIGN}


@dataclass(frozen=True)
class OrientConfig:
    """Sampling of the rectified grid and how scores become a confidence."""

    cell_px: int = 24
    """Cell size of the rectified lattice the ink is measured in."""
    ring_inner: float = 0.38
    """Pixels closer to the cell centre than this (in cells) are ignored: that is where chips sit."""
    ring_outer: float = 0.44
    """Pixels further than this from the centre along x or y are ignored: the gap between cards."""
    white_percentile: float = 95.0
    local_white: bool = False
    """Balance each cell on the card white around it (the median over the cells within
    ``local_white_reach``), not on one white for the board: a glare spot or a lamp at one side
    lifts one white above most of the board, and then every plain card reads as grey ink."""
    local_white_percentile: float = 90.0
    """A cell's white: this percentile of its pixels (the card, unless a chip or art covers it)."""
    local_white_reach: int = 2
    ink_darkness: float = 0.15
    """A pixel counts as ink once its darkest channel is this far (0..1) below the card white."""
    other_margin: float = 0.1
    """Pixels whose green or blue exceeds red by this much are chips or art, not ink."""
    yellow_margin: float = 0.3
    min_ink_weight: float = 2.0
    """Cells with less ink than this (summed weight, in pixels) are left out of the correlation."""
    min_cells: int = 20
    aspect_weight: float = 0.15
    """Weight of the weak prior from the grid's measured aspect (Jumbo cells are wider than tall)."""
    highpass_cells: int = 0
    """When > 0, correlate only the pattern minus its local mean over this many cells."""
    full_margin: float = 0.45
    """Margin between the best and second-best rotation that counts as full confidence."""
    turn_cell_px: int = 16
    turn_highpass_cells: int = 5
    """How the turns are read as the locator reads the ink (``turn_z``): fine structure only."""
    court_art: bool = True
    """Count the court cards' art as a second cue to the turn of a placed grid (``court_z``):
    where the pips are too small or pale to read (a Jumbo mat far away) or mostly under chips,
    the Queens' and Kings' colourful pictures still show where they are printed. (Not to
    place a grid: pictures come in adjacent pairs, so a cell off still half matches.)"""
    art_radius: float = 0.3
    """The art is read inside this radius (cells) of each cell's centre: a picture fills it."""
    art_saturation: float = 0.35
    art_value: float = 0.25
    """A pixel counts as coloured from this HSV saturation and value (0..1)."""
    art_hues: tuple[tuple[int, int], ...] = ((0, 10), (165, 180), (18, 35), (95, 130))
    """OpenCV hue ranges (0..180) of the art's colours: red (both ends), yellow, blue."""
    twin_cards: bool = True
    """Join the twin cards' pattern (``vision.twins``) to the ink's, per window and turn
    (``with_twin_cards``): it reads the print's arrangement, which outlasts its colours."""
    twin_cost: float = 0.5
    """The joined z is lowered by this much: the better of two scores, taken for every placement
    and turn, reaches higher by chance than either. (Over every placement the locator scored in
    120 rendered frames, seeds 3000-3059 hard and 3100-3159 normal, no wrong one whose ink read
    under 5.5 reached 6.0 joined; without the cost, such placements reached 5.5 in five frames.)"""
    decisive_z: float = 3.0
    decisive_margin: float = 1.0
    """A turn whose ``turn_z`` reaches ``decisive_z`` and beats the others by ``decisive_margin``
    is taken whatever the plain correlation says (which a glare spot or a blurred, pale print
    can tip the wrong way: it reads no fine structure and no twin cards); full confidence at
    twice the margin. (The margin the locator asks of a turn, ``LocateConfig.min_z_margin``:
    on perturbed true corners of 300 rendered frames, seeds 5000-5299, 2.0 turned 24 wrong,
    1.0 turned 23.)"""
    turn_net_sure: float = 0.9
    """How sure the turn network (``vision.turn_net``) must be of one turn, against the others
    and against "not the board here", for its turn to be taken (``net_turn``): by the locator
    where the print's own cues leave a placed grid's turn open, by ``orient_grid`` before
    them; 0 never asks it. (At 0.9, on 400 held-out hard frames,
    seeds 90000-90399, it was sure of the right turn near the true corners on 96.0 %, of a
    wrong one never, and of any turn on none of the grids whole cells off or bent off the
    board. At 0.99 it was sure on 73.8 %.)"""
    turn_net_placed_sure: float = 0.6
    """Where the network is not sure of a turn but names one at this probability and is sure of
    it among the turns (``sure_turn_given_placed``), that turn is taken when the
    print's own turn is not decisive either: the grid ``orient_grid`` turns is placed on the
    cards already, and what the network keeps for "not the board here" is no doubt about the
    turn. (Seeds 27176, normal classic nearly full of chips, and 27341, hard Jumbo: the right
    turn at 0.87, the rest on "not the board"; the plain correlation turned them wrong at
    confidence 0.19 and 0.04.) 1 or more never."""
    turn_net_px: int = 24
    """Cell size of the grid rectified for the turn network (as it was fitted)."""


@dataclass(frozen=True)
class Orientation:
    """The grid's corners in canonical order, and how sure we are.

    ``corners`` ``(4, 2) float32`` start at the outer corner of cell (0, 0); ``rotation`` is how
    many places the input corners were rolled (0..3); ``scores`` are the four correlations.
    """

    corners: np.ndarray
    rotation: int
    confidence: float
    scores: tuple[float, float, float, float]


def orient_grid(
    frame: np.ndarray, corners: np.ndarray, *, edition: str, config: OrientConfig = OrientConfig(),
    turn_probabilities: np.ndarray | None = None,
) -> Orientation:
    """Roll ``corners`` (TL, TR, BR, BL as seen) so the first is the corner of cell (0, 0).

    ``frame`` is ``(H, W, 3) uint8`` BGR (colour is needed: red versus black ink). Raises
    ``ValueError`` for a bad frame, corners or edition. With too little ink visible the
    rotation is the aspect prior's best guess and the confidence is 0.
    ``turn_probabilities``: what ``ask_turn_net`` gives for these ``corners`` and
    ``config``, when the caller has it already (the locator asked the network about the grid
    it returns; ``given_placed`` of it for a climbed grid kept on its turn alone); None: the
    network is asked here.

    The turn network decides first where it is sure (``net_probabilities``): at perturbed true
    corners (up to 0.3 cells) of 300 hard frames, seeds 8000-8299, it was sure on 262 and never
    wrong, while the print's decisive turn (``turn_z``) was wrong on 3 of 185. Then that turn,
    then the network's turn where it doubts only the placement (``turn_net_placed_sure``),
    then the plain correlation.
    """
    frame = check_frame(frame, allow_gray=False)
    seen = check_corners(corners)
    target = edition_aspect(edition)
    redness = cell_redness(frame, seen, config)
    valid = np.isfinite(redness) & (_INK_SIGN != 0)
    scores = np.zeros(4)
    if config.aspect_weight:
        prior = _aspect_prior(seen, (frame.shape[1], frame.shape[0]), target)
        scores += np.array(prior, dtype=np.float64) * config.aspect_weight
    enough = int(valid.sum()) >= config.min_cells
    if enough:
        f = np.where(valid, redness, 0.0)
        pattern = _INK_SIGN
        if config.highpass_cells:
            # Compare fine structure only: a colour cast drifting across the board (a warm lamp
            # on one side, a reddish table under a wrong grid) must not look like the layout.
            f = np.where(valid, f - _local_mean(f, valid, config.highpass_cells), 0.0)
            pattern = _INK_SIGN - _local_mean(_INK_SIGN, _INK_SIGN != 0, config.highpass_cells)
        mu = f[valid].mean()
        sd = f[valid].std()
        if sd > 1e-9:
            z = np.where(valid, (f - mu) / sd, 0.0)
            for k in range(4):
                # The seen lattice rotated by k quarter turns is the canonical one when the
                # canonical corner (0, 0) is the k-th seen corner.
                canon = np.rot90(z, k)
                mask = np.rot90(valid, k) & (_INK_SIGN != 0)
                p = pattern[mask]
                norm = max(float(np.sqrt((canon[mask] ** 2).sum() * (p**2).sum())), 1e-9)
                scores[k] += float((canon[mask] * p).sum() / norm)
        else:
            enough = False
    order = np.argsort(-scores)
    best, second = int(order[0]), int(order[1])
    margin = float(scores[best] - scores[second])
    confidence = float(np.clip(margin / config.full_margin, 0.0, 1.0)) if enough else 0.0
    p = net_probabilities(frame, seen, config) if turn_probabilities is None or config.turn_net_sure <= 0 \
        else np.asarray(turn_probabilities, np.float64)
    told = None if p is None else sure_turn(p, config)
    if told is not None:
        best, confidence = told
        return Orientation(roll_corners(seen, best), best, confidence, tuple(float(s) for s in scores))
    tz = turn_z(frame, seen, config)
    ranked = np.argsort(-tz)
    z_margin = float(tz[ranked[0]] - tz[ranked[1]])
    if tz[ranked[0]] >= config.decisive_z and z_margin >= config.decisive_margin:
        sure = float(np.clip(z_margin / (2.0 * config.decisive_margin), 0.0, 1.0))
        confidence = max(confidence, sure) if int(ranked[0]) == best else sure
        best = int(ranked[0])
    elif p is not None and (named := sure_turn_given_placed(p, config, config.turn_net_placed_sure)) is not None:
        best, confidence = named
    return Orientation(roll_corners(seen, best), best, confidence, tuple(float(s) for s in scores))


def turn_z(frame: np.ndarray, corners: np.ndarray, config: OrientConfig = OrientConfig()) -> np.ndarray:
    """``pattern_z`` of each quarter turn of the grid ``corners`` (as seen), ``(4,)``: the
    layout's fine red/black structure, read as the locator reads it when it places a grid
    (``lattice_pattern_z``), joined with the twin cards (``with_twin_cards``) and the court
    cards' art. The grid is placed already, so the art counts even where the ink's own best
    turn differs (``agree=False``): a washed-out Jumbo mat the locator framed and turned by its
    art shows too little ink to turn it again."""
    ink = replace(config, cell_px=config.turn_cell_px, highpass_cells=config.turn_highpass_cells)
    lattice = ink_lattice(frame, corners, ink.cell_px, SIZE)
    z, _ = lattice_pattern_z(lattice, ink)
    z = with_twin_cards(z, lattice, ink)
    return with_court_art(z[0, 0], lattice, ink, agree=False)


def net_turn(grid: np.ndarray, config: OrientConfig) -> tuple[int, float] | None:
    """The quarter turn ``k`` (as ``orient_grid`` counts) of a rectified 10x10 ``grid`` that the
    turn network is sure of (``turn_net_sure``), and its probability; None where it is not sure
    or not asked."""
    if config.turn_net_sure <= 0:
        return None
    return sure_turn(load_turn_net().probabilities(grid), config)


def sure_turn(p: np.ndarray, config: OrientConfig) -> tuple[int, float] | None:
    """The turn the network's probabilities ``p`` ``(5,)`` are sure of, and its probability, or None."""
    k = int(np.argmax(p[:NOT_PLACED]))
    return (k, float(p[k])) if p[k] >= config.turn_net_sure else None


def net_probabilities(frame: np.ndarray, corners: np.ndarray, config: OrientConfig) -> np.ndarray | None:
    """``ask_turn_net``, or None where the network may not tell turns (``turn_net_sure`` 0)."""
    if config.turn_net_sure <= 0:
        return None
    return ask_turn_net(frame, corners, config)


def given_placed(p: np.ndarray) -> np.ndarray:
    """The turn network's probabilities ``p`` ``(5,)`` given that the grid lies on the cards:
    the turns' renormalised, ``NOT_PLACED`` 0."""
    turns = np.asarray(p, np.float64)[:NOT_PLACED]
    return np.append(turns / max(float(turns.sum()), 1e-12), 0.0)


def sure_turn_given_placed(p: np.ndarray, config: OrientConfig, named_at: float) -> tuple[int, float] | None:
    """The turn the network is sure of among the turns (``sure_turn`` of ``given_placed``) and
    names at ``named_at`` or more in ``p`` ``(5,)`` itself, with that probability; None
    otherwise. For a grid known to lie on the cards, where "not the board here" is no doubt
    about the turn."""
    told = sure_turn(given_placed(p), config)
    if told is None or p[told[0]] < named_at:
        return None
    return told[0], float(p[told[0]])


def ask_turn_net(frame: np.ndarray, corners: np.ndarray, config: OrientConfig) -> np.ndarray:
    """The turn network's ``(5,)`` probabilities for the grid ``corners`` (as seen) of ``frame``:
    each turn, and ``NOT_PLACED``."""
    return load_turn_net().probabilities(ink_lattice(frame, corners, config.turn_net_px))


def with_twin_cards(z: np.ndarray, lattice: np.ndarray, config: OrientConfig, *, cells: int = SIZE) -> np.ndarray:
    """The ink's ``pattern_z`` of every window and turn ``(S-9, S-9, 4)`` joined with the twin
    cards' (``vision.twins.twin_z``) where ``config.twin_cards`` asks for it.

    The two read different things (the suits' colours; the cards' pictures, pair by pair), so
    they add up (Stouffer's sum over the square root of two, less ``twin_cost``); where the
    twins show nothing (chips on most cards) the ink alone stands. For print unrelated to the
    layout the joined score is about N(0, 1) like each, so the locator's thresholds keep their
    meaning.
    """
    if not config.twin_cards:
        return z
    twins = twin_z(lattice, config.cell_px, cells)
    return np.maximum(z, (z + twins) / np.sqrt(2.0) - config.twin_cost)


def with_court_art(turns: np.ndarray, lattice: np.ndarray, config: OrientConfig, *, cells: int = SIZE,
                   window: tuple[int, int] = (0, 0), white_border: int = 0, agree: bool = True) -> np.ndarray:
    """The ink's z of each turn ``(4,)`` of one placed 10x10 ``window`` of ``lattice``, joined
    with the court cards' art (``court_z``) where ``config.court_art`` asks for it.

    Independent evidence adds up (Stouffer's sum over the square root of two), but art that
    is not there (every picture under a chip) must not dilute the ink: per turn, the ink alone
    stands where it is stronger. The art counts only where it places the grid itself (no other
    window of the lattice matches it better) and the ink's best turn is its best turn too:
    pictures come in adjacent pairs, so a grid placed a cell off still half matches them, and
    must not borrow their strength unless two independent cues agree. (``agree=False`` drops
    that last condition, for a window something else has placed firmly.)
    """
    if not config.court_art:
        return turns
    art = court_z(lattice, config, cells=cells, white_border=white_border)
    here = art[window[0], window[1]]
    elsewhere = art.copy()
    elsewhere[window[0], window[1]] = -np.inf
    if elsewhere.size > here.size and here.max() <= elsewhere.max():
        return turns
    if not agree and not turns.any():
        return here  # too few cells show print to read the ink at all: it must not dilute the art either
    if agree and int(np.argmax(here)) != int(np.argmax(turns)):
        return turns
    return np.maximum(turns, (turns + here) / np.sqrt(2.0))


def court_z(lattice: np.ndarray, config: OrientConfig, *, cells: int = SIZE, white_border: int = 0) -> np.ndarray:
    """``pattern_z`` of the court cards' art (``lattice_art``) against the layout's 16 picture
    cells, for every 10x10 window and turn of a rectified lattice, ``(cells-9, cells-9, 4)``."""
    art = lattice_art(lattice, config, cells=cells, white_border=white_border)
    return pattern_z(art, 0, config.min_cells, kind="court")


def lattice_pattern_z(
    lattice: np.ndarray, config: OrientConfig, *, cells: int = SIZE, white_border: int = 0, both_whites: bool = True
) -> tuple[np.ndarray, list[np.ndarray]]:
    """``pattern_z`` of a rectified lattice (``ink_lattice``), and the rednesses it came from.

    With ``both_whites`` the ink is read against the board's one white and against each cell's
    local white, and the stronger z kept per window and turn: the local white sees through a
    glare spot or a lamp at one side, the board's white is steadier on small, blurred cells.
    """
    configs = [config, replace(config, local_white=not config.local_white)] if both_whites else [config]
    rednesses = [lattice_redness(lattice, c, cells=cells, white_border=white_border) for c in configs]
    z = np.maximum.reduce([pattern_z(red, config.highpass_cells, config.min_cells) for red in rednesses])
    return z, rednesses


def lattice_art(lattice: np.ndarray, config: OrientConfig, *, cells: int = SIZE, white_border: int = 0) -> np.ndarray:
    """How much each cell of a rectified lattice looks like a court card's picture, ``(cells, cells)``.

    A picture is several strong colours in one cell; a chip is one colour, a number card's pips
    one colour on white. The score is the second-largest share of the cell's centre covered by
    one of the art's hues (``art_hues``), after balancing the lattice on the board's white (the
    brightest pixels inside ``white_border``) so a warm lamp does not colour every card. Only
    the centre discs are converted (a quarter of the lattice).
    """
    n = config.cell_px
    white = np.maximum(_board_white(_inner(lattice, n, cells, white_border), config), 1.0)
    index = _disc_index(cells, n, config.art_radius)  # (cells * cells, P)
    px = np.take(lattice.reshape(-1, 3), index.ravel(), axis=0).astype(np.float32)
    px *= 255.0 / white
    hsv = cv2.cvtColor(np.clip(px, 0.0, 255.0).astype(np.uint8).reshape(1, -1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    coloured = (hsv[:, 1] >= config.art_saturation * 255) & (hsv[:, 2] >= config.art_value * 255)
    colour = np.where(coloured, _hue_classes(config.art_hues)[hsv[:, 0]], 0)
    cell = np.repeat(np.arange(cells * cells), index.shape[1])
    counts = np.bincount(cell * 4 + colour, minlength=cells * cells * 4).reshape(cells * cells, 4)
    shares = np.sort(counts[:, 1:], axis=1) / index.shape[1]  # (red, yellow, blue), ordered
    return shares[:, -2].reshape(cells, cells).astype(np.float64)


@functools.lru_cache(maxsize=8)
def _disc_index(cells: int, cell_px: int, radius: float) -> np.ndarray:
    """Flat pixel indices of each cell's centre disc (within ``radius`` cells of its centre) in
    a ``cells`` x ``cells`` lattice of ``cell_px`` pixels per cell, ``(cells * cells, P)``."""
    ys, xs = np.mgrid[0:cell_px, 0:cell_px]
    rho = np.hypot(ys + 0.5 - cell_px / 2, xs + 0.5 - cell_px / 2) / cell_px
    dy, dx = np.nonzero(rho < radius)
    rows, cols = np.divmod(np.arange(cells * cells), cells)
    index = (rows[:, None] * cell_px + dy) * (cells * cell_px) + cols[:, None] * cell_px + dx
    index.setflags(write=False)
    return index


@functools.lru_cache(maxsize=4)
def _hue_classes(hues: tuple[tuple[int, int], ...]) -> np.ndarray:
    """OpenCV hue (0..179) -> 1 red, 2 yellow, 3 blue, 0 none: the first two ranges of ``hues``
    are red (it wraps around 0), then yellow, then blue."""
    lut = np.zeros(256, dtype=np.intp)
    for k, (lo, hi) in enumerate(hues):
        lut[lo:hi] = max(1, k)
    lut.setflags(write=False)
    return lut


def cell_redness(
    frame: np.ndarray,
    corners: np.ndarray,
    config: OrientConfig = OrientConfig(),
    *,
    cells: int = SIZE,
    white_border: int = 0,
) -> np.ndarray:
    """Red-versus-black ink of each cell, ``(cells, cells)`` float (NaN where too little ink shows).

    Cells are indexed as seen (row 0 along the first two ``corners``); ``corners`` bound a
    ``cells`` x ``cells`` lattice (the 10x10 grid, or a wider search area around it; then
    ``white_border`` cells along each side are left out of the white balance, which is the
    board's). The frame is
    white-balanced on the brightest board pixels (with ``local_white``, on the card white
    around each cell), then each cell's corner regions are
    weighted by how dark each pixel is and scored by ``R - max(G, B)`` relative to the
    pixel's darkness: red ink is near +1, black ink near 0.
    """
    grid = ink_lattice(frame, corners, config.cell_px, cells)
    return lattice_redness(grid, config, cells=cells, white_border=white_border)


def ink_lattice(frame: np.ndarray, corners: np.ndarray, cell_px: int, cells: int = SIZE) -> np.ndarray:
    """The ``cells`` x ``cells`` lattice bounded by ``corners``, rectified at ``cell_px`` per cell."""
    side = cells * cell_px
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    h = cv2.getPerspectiveTransform(np.asarray(corners, dtype=np.float32), dst)
    return cv2.warpPerspective(frame, h, (side, side), flags=cv2.INTER_AREA)


def lattice_redness(grid: np.ndarray, config: OrientConfig, *, cells: int = SIZE, white_border: int = 0) -> np.ndarray:
    """``cell_redness`` of an already rectified lattice (``ink_lattice``), so one warp serves
    several ways of reading it."""
    n = config.cell_px
    inner = _inner(grid, n, cells, white_border)
    # Only the pixels of each cell's corner ring are read (a fifth of the lattice).
    # Channels as rows throughout (``(3, P)``): each is then contiguous for what follows.
    planar, cell_of = _ring_channels(n, config.ring_inner, config.ring_outer, cells)
    if config.local_white:
        whites = _cell_whites(inner, cells - 2 * white_border, white_border, config).reshape(-1, 3)
        white = np.take(whites.T, cell_of, axis=1)
    else:
        white = _board_white(inner, config)[:, None]
    px = np.take(grid, planar).astype(np.float32) / np.maximum(white, 1.0)
    np.clip(px, 0.0, 1.0, out=px)
    b, g, r = px
    darkest = np.minimum(np.minimum(b, g), r)
    weight = np.clip((1.0 - darkest - config.ink_darkness) / config.ink_darkness, 0.0, 1.0)
    # Blue, green or yellow pixels (chips, court art) are neither red nor black ink.
    other = (np.maximum(g, b) - r > config.other_margin) | (np.minimum(r, g) - b > config.yellow_margin)
    weight[other] = 0.0
    red = (r - np.maximum(g, b)) / np.maximum(1.0 - darkest, 0.05)
    cells_w = np.bincount(cell_of, weight, cells * cells).reshape(cells, cells)
    cells_r = np.bincount(cell_of, weight * red, cells * cells).reshape(cells, cells)
    out = np.full((cells, cells), np.nan)
    ok = cells_w >= config.min_ink_weight
    out[ok] = cells_r[ok] / cells_w[ok]
    return out


def _inner(lattice: np.ndarray, cell_px: int, cells: int, white_border: int) -> np.ndarray:
    """Every second pixel of a rectified lattice inside ``white_border`` cells (the board's own
    cells, where its white is read; a wider search lattice's border is table or margin)."""
    lo, hi = white_border * cell_px, (cells - white_border) * cell_px
    return lattice[lo:hi:2, lo:hi:2]


def _board_white(inner: np.ndarray, config: OrientConfig) -> np.ndarray:
    """The board's one white, ``(3,)`` float32 BGR: a high percentile of each channel of ``inner``."""
    channels = np.ascontiguousarray(inner.transpose(2, 0, 1)).reshape(3, -1)
    return _row_percentile(channels, config.white_percentile).astype(np.float32)


def _row_percentile(values: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(values, q, axis=1)`` for a 2-D integer array, the same float64 numbers
    (its default linear interpolation, step by step) from one partition: NumPy's general
    machinery cost four times the partition on the locator's lattices."""
    n = values.shape[1]
    virtual = (n - 1) * np.true_divide(q, 100)
    lo = min(int(np.floor(virtual)), n - 1)
    hi = min(lo + 1, n - 1)
    part = np.partition(values, (lo, hi), axis=1)
    below, above = part[:, lo], part[:, hi]
    gamma = float(virtual - lo)
    diff = above - below  # sorted, so no wrap-around in an unsigned type
    return above - diff * (1 - gamma) if gamma >= 0.5 else below + diff * gamma


def _cell_whites(inner: np.ndarray, cells: int, border: int, config: OrientConfig) -> np.ndarray:
    """The card white around each cell, ``(cells + 2 * border, cells + 2 * border, 3)`` float32,
    from ``inner``, the board's ``cells`` x ``cells`` lattice sampled every other pixel.

    The bright end of each cell is its card, unless a chip or art covers it; the median over
    the cells around it is the card white there. Cells outside the board (``border``) take
    the nearest board cell's white, as they took the board's before.
    """
    m = inner.shape[0] // cells
    # (cells, cells, 3, m * m): each cell's pixels along the last, contiguous axis (fast partition).
    blocks = inner[: m * cells, : m * cells].reshape(cells, m, cells, m, 3).transpose(0, 2, 4, 1, 3)
    blocks = blocks.reshape(cells, cells, 3, m * m)
    k = int(config.local_white_percentile / 100.0 * (m * m - 1))
    own = np.partition(blocks, k, axis=-1)[..., k].astype(np.float32)
    # The median over the (2e+1)^2 cells around (edges replicated): the middle of an odd count,
    # gathered with clipped indices instead of padding and stacking shifted copies.
    e = config.local_white_reach
    near = np.clip(np.arange(cells)[:, None] + np.arange(-e, e + 1), 0, cells - 1)  # (cells, 2e+1)
    around = own[near][:, :, near].transpose(0, 2, 4, 1, 3).reshape(cells, cells, 3, -1)
    mid = around.shape[-1] // 2
    white = np.partition(around, mid, axis=-1)[..., mid]
    edge = np.clip(np.arange(cells + 2 * border) - border, 0, cells - 1)
    return white[edge][:, edge]


@functools.lru_cache(maxsize=32)
def _ring_pixels(n: int, inner: float, outer: float, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices of the ring pixels of a ``cells`` x ``cells`` lattice of ``n``-pixel cells, and their cell."""
    c = (np.arange(n) + 0.5) / n - 0.5
    dx, dy = np.meshgrid(c, c)
    ring = (np.hypot(dx, dy) >= inner) & (np.maximum(np.abs(dx), np.abs(dy)) <= outer)
    mask = np.tile(ring, (cells, cells))
    rows, cols = np.nonzero(mask)
    pixels = rows * (cells * n) + cols
    cell_of = (rows // n) * cells + cols // n
    return pixels, cell_of


@functools.lru_cache(maxsize=32)
def _ring_channels(n: int, inner: float, outer: float, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """``_ring_pixels`` as indices into the interleaved BGR lattice, one row per channel
    (``(3, P)``), and each pixel's cell."""
    pixels, cell_of = _ring_pixels(n, inner, outer, cells)
    planar = pixels[None] * 3 + np.arange(3)[:, None]
    planar.setflags(write=False)
    return planar, cell_of


def pattern_z(redness: np.ndarray, highpass_cells: int = 5, min_cells: int = 20, kind: str = "ink") -> np.ndarray:
    """How strongly each 10x10 window of a wider cell lattice shows the layout, as z-scores.

    ``redness`` is ``(S, S)`` (see ``cell_redness``, NaN where no ink shows). For every window
    offset ``(dv, du)`` and quarter turn ``k`` (as in ``orient_grid``), the Pearson correlation
    ``r`` of the window's (high-passed) redness with the layout's red/black pattern over its
    ``n`` inked cells, times ``sqrt(n)``: about N(0, 1) for print unrelated to the layout, so
    it answers "is this the board" at a known false-alarm rate. Returns ``(S-9, S-9, 4)``.
    ``kind="court"`` matches a per-cell art score (``lattice_art``) with the picture cells instead.
    """
    valid = np.isfinite(redness)
    f = np.where(valid, redness, 0.0)
    if highpass_cells:
        f = np.where(valid, f - _local_mean(f, valid, highpass_cells), 0.0)
    shape, windows = window_index(f.shape)
    x = np.take(f, windows)
    inked = np.take(valid.astype(np.float64), windows)
    pattern, printed = _pattern_matrices(highpass_cells, kind)  # (100, 4) each
    # Per window and turn, over the cells both inked and printed: n, sums, cross products.
    n = inked @ printed
    s1 = x @ printed
    s2 = (x * x) @ printed
    sp = x @ pattern
    p1 = inked @ pattern
    p2 = inked @ (pattern * pattern)
    mean = s1 / np.maximum(n, 1)
    cov = sp - mean * p1
    var_x = np.maximum(s2 - n * mean * mean, 0.0)
    r = cov / np.maximum(np.sqrt(var_x * p2), 1e-12)
    z = np.where(n >= min_cells, r * np.sqrt(n), 0.0)
    return z.reshape(*shape, 4)


@functools.lru_cache(maxsize=8)
def _pattern_matrices(highpass_cells: int, kind: str = "ink") -> tuple[np.ndarray, np.ndarray]:
    """``(100, 4)`` layout pattern and printed-cell mask, one column per quarter turn."""
    turned = _turned_patterns(highpass_cells, kind)
    pattern = np.stack([p.ravel() for p, _ in turned], axis=1)
    printed = np.stack([m.ravel() for _, m in turned], axis=1).astype(np.float64)
    return pattern * printed, printed


def _turned_patterns(highpass_cells: int, kind: str = "ink") -> list[tuple[np.ndarray, np.ndarray]]:
    """The layout's ink (or ``"court"``: picture) pattern as seen under each quarter turn ``k``
    (``orient_grid``'s), and its mask."""
    sign = _SIGNS[kind]
    printed = sign != 0
    pattern = sign
    if highpass_cells:
        pattern = np.where(printed, sign - _local_mean(sign, printed, highpass_cells), 0.0)
    # orient_grid compares rot90(seen, k) with the layout, i.e. seen with rot90(layout, -k).
    return [(np.rot90(pattern, -k), np.rot90(printed, -k)) for k in range(4)]


def _local_mean(values: np.ndarray, valid: np.ndarray, size: int) -> np.ndarray:
    """Mean of the valid neighbours within a ``size`` x ``size`` window (normalised convolution)."""
    w = valid.astype(np.float64)
    num = cv2.blur(values * w, (size, size), borderType=cv2.BORDER_REFLECT)
    den = cv2.blur(w, (size, size), borderType=cv2.BORDER_REFLECT)
    return num / np.maximum(den, 1e-9)


def _aspect_prior(seen: np.ndarray, image_size: tuple[int, int], target: float) -> list[float]:
    """Per rotation, minus how far the measured aspect is (in log) from the edition's."""
    aspect = metric_aspect(seen, image_size)
    even = -abs(np.log(max(aspect, 1e-6) / target))
    odd = -abs(np.log(max(1.0 / max(aspect, 1e-6), 1e-6) / target))
    return [even, odd, even, odd]


CORNER_CELL_PX = 12
"""Cell size at which ``free_corner_scores`` compares cells."""


@functools.lru_cache(maxsize=4)
def _ring_weights(cell_px: int) -> np.ndarray:
    """``(cell_px**2, 3)``: averaging weights of a cell's centre disc and two rings around it
    (round, so a logo turned by any angle gives the same numbers)."""
    c = (np.arange(cell_px) + 0.5) / cell_px - 0.5
    rad = np.hypot(*np.meshgrid(c, c, indexing="ij")).ravel()
    masks = np.stack([rad < 0.2, (rad >= 0.2) & (rad < 0.35), (rad >= 0.35) & (rad < 0.48)], axis=1)
    return (masks / masks.sum(axis=0)).astype(np.float32)


def free_corner_scores(lattice: np.ndarray, cells: int) -> np.ndarray:
    """How much each 10x10 window of a rectified lattice looks framed by the four free corners.

    The four corner cells carry the same printed logo and no card: alike one another, unlike
    the typical cell. Each cell is described by the Lab means of a centre disc and two rings
    (turn-invariant), scaled by the lattice's robust spread; a window scores the mean distance
    of its corners from the typical cell minus their mean distance from each other. Returns
    ``(cells - 9, cells - 9)`` float (higher: more like the board's corners). Needs no ink, so
    it places a grid whose print is too fine or too covered to show the layout.
    """
    px = CORNER_CELL_PX  # a logo is large: a coarse look suffices, and costs a quarter
    small = cv2.resize(lattice, (cells * px, cells * px), interpolation=cv2.INTER_AREA)
    per_channel = small.reshape(cells, px, cells, px, 3).transpose(0, 2, 4, 1, 3).reshape(-1, px * px)
    # Mean colours of each ring first, then Lab (a tiny image): the same answer at a fraction of the cost.
    means = (per_channel.astype(np.float32) @ (_ring_weights(px) / 255.0)).reshape(cells * cells, 3, 3)
    rings = cv2.cvtColor(np.ascontiguousarray(means.transpose(0, 2, 1)), cv2.COLOR_BGR2LAB).reshape(cells * cells, -1)
    med = np.median(rings, axis=0)
    mad = np.median(np.abs(rings - med), axis=0) + 1e-3
    d = ((rings - med) / mad).reshape(cells, cells, -1)
    n = cells - SIZE + 1
    corners = np.stack(  # (4, n, n, F): the corner cells of every window
        [d[:n, :n], d[:n, SIZE - 1 :], d[SIZE - 1 :, SIZE - 1 :], d[SIZE - 1 :, :n]]
    )
    apart = np.linalg.norm(corners, axis=3).min(axis=0)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    alike = np.max([np.linalg.norm(corners[a] - corners[b], axis=2) for a, b in pairs], axis=0)
    return apart - alike
