"""White (flipped) chips exist only in completed sequences: read them as lines, not cells.

On the Jumbo mat players turn the chips of a completed sequence white side up, so every white
chip on a still board belongs to five in a row (free corners count), and two sequences share at
most one cell. A white chip on a white card is the reader's weakest call; seen as a line, four
clear white chips vouch for a blurred fifth, and a lone "white chip" is a glint on a card. Where
glare has made the frame near-blind, a small network that sees each window whole (how it stands
against the cells flanking it and the frame's other readings) tells a faint line from a row of
lifted cards better than the sum of its cells.

The line reading is used by ``detect`` on still frames only: during a live game the flips arrive
one chip at a time, and the engine, which knows which sequence is being flipped, judges them
there. The live tracker only asks which chips a completed sequence will turn white
(``to_be_flipped``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import SIZE
from engine.rules import most_sequences_on_a_board
from engine.sequences import WINDOWS
from vision.cell_model import ChipNet, load_chip_nets
from vision.cells import CORNER_MASK, NEIGHBOURS, WINDOW_CELLS
from vision.classify import CellReading
from vision.patch_net import CLASSES as PATCH_CLASSES

_CORNER_CELLS = np.flatnonzero(CORNER_MASK)
_WINDOW_PLAIN = ~np.isin(WINDOW_CELLS, _CORNER_CELLS)
"""``(192, 5)`` bool: the window's cells that are not free corners (those hold no chip)."""
_SHARED = np.array([[len(set(a) & set(b)) for b in WINDOWS] for a in WINDOWS], dtype=np.intp)
"""``(192, 192)`` cells each pair of windows shares (two sequences may share at most one)."""


def _beside_and_beyond() -> tuple[np.ndarray, np.ndarray]:
    """``(192, 5, 2)`` flat indices of the two cells flanking each window cell across the line,
    and ``(192, 2)`` of the cells just past the window's two ends; -1 off the board."""
    beside = np.full((len(WINDOWS), 5, 2), -1, np.intp)
    beyond = np.full((len(WINDOWS), 2), -1, np.intp)

    def flat(r: int, c: int) -> int:
        return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else -1

    for w, cells in enumerate(WINDOWS):
        dr, dc = cells[1][0] - cells[0][0], cells[1][1] - cells[0][1]
        across = (dr, -dc) if dr and dc else (dc, dr)
        for k, (r, c) in enumerate(cells):
            beside[w, k] = [flat(r + s * across[0], c + s * across[1]) for s in (1, -1)]
        beyond[w] = [flat(cells[0][0] - dr, cells[0][1] - dc), flat(cells[-1][0] + dr, cells[-1][1] + dc)]
    return beside, beyond


_BESIDE, _BEYOND = _beside_and_beyond()
LINE_CUES = ("gain", "l_min", "l_mean", "pw_min", "pw_mean", "n_white_in", "strays", "lift_mean",
             "beside_light_mean", "beside_light_min", "beside_logit_mean", "beyond_logit_max", "rel_scaled",
             "frame_l90", "frame_white", "n_tinted", "corner")
"""The named window cues of ``line_cues``, the line network's inputs."""
_LOGIT_CAP = 10.0
"""Chip logits beyond this say no more about a line (clear chips and cards read +-20)."""


@dataclass(frozen=True)
class FlippedPrior:
    """How a line of white chips is weighed (fitted on rendered Jumbo frames of seeds 5000-5239,
    none of them a benchmark's)."""

    bias: float = 1.0
    """Added to each cell's chip logit: a faint white chip in a line of clear ones is still one."""
    cap: float = 3.0
    """Most one cell adds to a line, so one bright glint cannot carry four plain cards."""
    window_cost: float = 2.0
    """What a line must score above to be taken as a sequence."""
    sure_chip: float = 4.0
    """A lone "white" cell with a chip logit above this is a chip of its next-nearest colour."""
    patch_team: float = 0.5
    """A lone "white" chip to which the patch network (``vision.patch_net``, which sees the
    chip's face and shadow, not only its colour) gives a team colour at least this probability
    is a chip of that colour: glare washed it white. Chosen on rendered Jumbo frames of seeds
    6000-6399 (hard) and 8000-8299 (normal), where 0.45 to 0.5 did best."""
    patch_empty: float = 0.9
    """A lone "white" reading the patch network gives "empty" at least this probability is an
    empty card, however sure the cue network was of a chip (above 1: never): a dim, steep mat
    drawn by another hand lit empty cards like white chips (chip logit 5.8 to 8.7), and five
    became blue chips, the next-nearest colour, where the network was sure of empty (1.0)."""
    patch_white: float = 0.99
    """A lone "white" chip (chip logit above ``sure_chip``) the patch network is this sure is white
    stays white: its line is there, partly hidden or read as another colour, not absent. On the
    frames above, such cells were white chips 11 times in 13; the other two were misread anyway."""
    doubt: float = 0.45
    """Confidence given to a cell whose label the line changed (inferred, not seen)."""
    tinted_margin: float = 1.0
    """A chip read as a team colour whose white prototype is at most this much farther (colour
    distance) may be a white chip the light tinted (a warm lamp makes white plastic look pale
    yellow): a line may pass it, scored ``tinted_score``, instead of stopping there. Chosen on
    rendered hard Jumbo frames of seeds 5600-5899 and 8000-8149, where 1.5 did as well; the
    smaller, since a glare-paled blue chip can be as near white."""
    tinted_score: float = -1.0
    lift_gain: float = 1.0
    """A line's score plus this times how much lighter its cells are than their 3x3
    neighbourhoods (mean, L units) must still clear ``window_cost``: glare or overexposure lifts a
    whole region of white cards, which then read as faint white chips in any direction, while a
    chip is lighter than the cards around it, or at least not darker. Chosen with ``stray_gain``
    on rendered hard Jumbo frames of seeds 5600-5899 and 8000-8149 (0.5 to 1.5 did about as well)."""
    lift_cap: float = 10.0
    """Most one cell's lift counts (either sign), so a dark chip beside it cannot carry a line."""
    stray_gain: float = 1.0
    """Also subtracted, for each white reading a line would leave off every line (beyond
    ``stray_free``): on a board that shows white where no sequence can be, its light makes white
    of empty cards, and a faint line there is likelier the same light. A still board holds white
    chips only on lines, so a clean frame leaves few strays."""
    stray_free: int = 1
    """White readings off the lines that cost nothing (a single glint is common on any frame)."""
    max_lines: int = most_sequences_on_a_board()
    """Most lines taken: no game leaves more sequences on the board (two teams: the winners'
    two and one of the others'), so a fourth is light on a block of empty cards."""
    line_gain: float = 1.0
    """Weight of the line network's logit (``line_logit``) in a window's support. Its cues are
    about the line, not the sum of its cells: how the line stands out from the cells flanking it
    and from the frame's other readings. Chosen on rendered hard Jumbo frames of seeds 6000-6399
    and 9000-9299 (1 to 2 did as well; 0 is the rule alone)."""


def flipped_lines(
    chip_logit: np.ndarray,
    team_chip: np.ndarray,
    prior: FlippedPrior = FlippedPrior(),
    tinted: np.ndarray | None = None,
    lift: np.ndarray | None = None,
    white_read: np.ndarray | None = None,
    line_logit: np.ndarray | None = None,
) -> np.ndarray:
    """Cells ``(100,)`` bool covered by the most likely set of white five-in-a-rows.

    ``chip_logit`` ``(100,)``: the reader's chip logit per cell; ``team_chip`` ``(100,)`` bool: the
    cell holds a coloured chip (which no white line can cross), unless ``tinted`` (``(100,)``
    bool) says its colour is nearly white (then a line may cross it at ``prior.tinted_score``).
    ``lift`` ``(100,)``: how much lighter each cell is than its neighbourhood (None: no check);
    ``white_read`` ``(100,)`` bool: the cells read white one by one (None: none), for the strays
    check (see ``FlippedPrior.stray_gain``); ``line_logit`` ``(192,)``: the line network's view of
    each window (None: the rule alone; see ``FlippedPrior.line_gain``).
    Greedy: the best-scoring window first, each later one sharing at most one cell with each
    taken (the sequence-sharing rule), and each one supported (``_supported``).
    """
    score = np.minimum(chip_logit.astype(np.float32) + prior.bias, prior.cap)
    soft = np.zeros_like(team_chip, dtype=bool) if tinted is None else team_chip & tinted
    score[team_chip & ~soft] = -1e6
    score[soft] = np.minimum(score[soft], prior.tinted_score)
    score[_CORNER_CELLS] = 0.0
    # What a window has beyond its cells' score: how it stands out (lift, the line network).
    standing = np.zeros(len(WINDOW_CELLS), np.float32)
    if lift is not None:
        standing += prior.lift_gain * _window_lift(lift, prior)
    if line_logit is not None:
        standing += prior.line_gain * np.asarray(line_logit, np.float32)
    white = np.zeros(SIZE * SIZE, dtype=bool) if white_read is None else np.asarray(white_read, dtype=bool)
    chosen = _better_windows(_greedy_windows(score, prior, standing, white), score)
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    for w in chosen:
        taken[WINDOW_CELLS[w]] = True
    taken[_CORNER_CELLS] = False
    return taken


def _window_lift(lift: np.ndarray, prior: FlippedPrior) -> np.ndarray:
    """``(192,)``: each window's mean lift (``_lift``, capped at ``prior.lift_cap``) over the cells
    that can hold a chip."""
    return _window_mean(np.clip(np.asarray(lift, np.float32), -prior.lift_cap, prior.lift_cap))


def _greedy_windows(score: np.ndarray, prior: FlippedPrior, standing: np.ndarray,
                    white_read: np.ndarray) -> list[int]:
    """Windows taken best first while one adds more than ``window_cost`` of new score and is
    supported, each sharing at most one cell with every window taken before it, and at most
    ``prior.max_lines`` of them."""
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    allowed = np.ones(len(WINDOW_CELLS), dtype=bool)
    chosen: list[int] = []
    while len(chosen) < prior.max_lines:
        gain = np.where(taken[WINDOW_CELLS], 0.0, score[WINDOW_CELLS]).sum(axis=1)
        gain[~allowed] = -np.inf
        gain[~_supported(gain, standing, white_read & ~taken, prior)] = -np.inf
        best = int(gain.argmax())
        if gain[best] <= prior.window_cost:
            return chosen
        chosen.append(best)
        taken[WINDOW_CELLS[best]] = True
        allowed &= _SHARED[best] <= 1
    return chosen


def _supported(gain: np.ndarray, standing: np.ndarray, white_left: np.ndarray,
               prior: FlippedPrior) -> np.ndarray:
    """``(192,)`` bool: windows whose new score, plus how much they stand out (``standing``:
    their cells from their neighbourhoods, and the line network's view), less the white
    readings (``white_left``, ``(100,)`` bool, those no line taken covers yet) they would leave
    off, still clears ``window_cost``: the line must stand out, both from the cards beside it
    and from the frame's other white readings."""
    strays = white_left.sum() - white_left[WINDOW_CELLS].sum(axis=1)
    unexplained = np.maximum(strays - prior.stray_free, 0)
    support = gain + standing - prior.stray_gain * unexplained
    return support > prior.window_cost


def _better_windows(chosen: list[int], score: np.ndarray) -> list[int]:
    """``chosen`` with any window swapped for another that covers more score with the rest.

    Greedy ties are broken blindly: on six white chips in a row that end in a second, crossing
    sequence, it may take the five that leave the sixth uncovered; swapping that window for its
    neighbour covers all of them, which is how the players flipped them.
    """
    chosen = list(chosen)
    for _ in range(2 * len(chosen)):
        swapped = False
        for i in range(len(chosen)):
            others = chosen[:i] + chosen[i + 1 :]
            covered = np.zeros(SIZE * SIZE, dtype=bool)
            for w in others:
                covered[WINDOW_CELLS[w]] = True
            total = np.where(covered[WINDOW_CELLS], 0.0, score[WINDOW_CELLS]).sum(axis=1)
            fits = np.all(_SHARED[others] <= 1, axis=0) if others else np.ones(len(WINDOW_CELLS), dtype=bool)
            total[~fits] = -np.inf
            best = int(total.argmax())
            if total[best] > total[chosen[i]] + 1e-6:
                chosen[i] = best
                swapped = True
        if not swapped:
            break
    return chosen


def read_flipped_as_lines(labels: list[list[str]], confidence: np.ndarray, chip_logit: np.ndarray,
                          proto_dist: np.ndarray, names: tuple[str, ...],
                          prior: FlippedPrior = FlippedPrior(),
                          features: dict[str, np.ndarray] | None = None,
                          line_net: ChipNet | None = None) -> tuple[list[list[str]], np.ndarray]:
    """Labels and confidence ``(10, 10)`` with white chips only on the best white lines.

    ``proto_dist`` ``(10, 10, len(names))``: each cell's distance to each colour prototype, in
    ``names`` order (``"flipped"`` among them). A white reading off every line becomes the
    next-nearest colour when a chip is surely there, else empty; a cell on a line becomes white.
    ``features``: the reading's per-cell cues (``CellReading.features``); with its ``core_lab``
    a line must also be lighter than the cards around it (see ``FlippedPrior.lift_gain``), and
    with its ``patch_probs`` the patch network has a say on the white readings off every line
    (``FlippedPrior.patch_team``, ``FlippedPrior.patch_white``); with both, the line network
    (``line_net``, by default the shipped ``white_line``) weighs each window too
    (``FlippedPrior.line_gain``).
    """
    cells = _cells(labels, chip_logit, proto_dist, names, prior)
    flat, logit, dist = cells.labels, cells.chip_logit, cells.proto_dist
    white = list(names).index("flipped")
    lift = None if features is None or "core_lab" not in features else _lift(features["core_lab"])
    net = line_net or load_chip_nets().get("white_line")
    cues = _cues(cells, features, prior) if prior.line_gain and net is not None else None
    judged = None if cues is None or net is None else net.logit(cues)
    on_line = flipped_lines(logit, cells.team, prior, cells.tinted, lift, cells.white_read, judged)
    out = flat.copy()
    out[on_line] = "flipped"
    stray = cells.white_read & ~on_line
    if stray.any():
        dist = dist.copy()
        dist[:, white] = np.inf
        nearest = np.asarray(names, dtype=object)[dist.argmin(axis=1)]
        out[stray] = np.where(logit[stray] > prior.sure_chip, nearest[stray], "empty")
        if features is not None and "patch_probs" in features:
            says = _patch_says(features["patch_probs"], logit, names, prior)
            firm = stray & (says != "")
            out[firm] = says[firm]
    changed = out != flat
    conf = np.asarray(confidence, dtype=np.float32).reshape(-1).copy()
    conf[changed] = np.minimum(conf[changed], prior.doubt)
    return out.reshape(SIZE, SIZE).tolist(), conf.reshape(SIZE, SIZE)


def _patch_says(patch_probs: np.ndarray, logit: np.ndarray, names: tuple[str, ...],
                prior: FlippedPrior) -> np.ndarray:
    """``(100,)`` object array: what the patch network makes of each cell read white off every
    line, "" where it has no firm view: empty where it is ``prior.patch_empty`` sure, a team
    colour (of ``names``) it gives at least ``prior.patch_team``, or white where it is
    ``prior.patch_white`` sure and the chip logit ``(100,)`` is above ``prior.sure_chip``.
    ``patch_probs``: ``(..., len(patch_net.CLASSES))``."""
    probs = np.asarray(patch_probs, np.float32).reshape(SIZE * SIZE, len(PATCH_CLASSES))
    says = np.full(SIZE * SIZE, "", dtype=object)
    says[probs[:, PATCH_CLASSES.index("empty")] >= prior.patch_empty] = "empty"
    for team in set(TEAM_COLOURS) & set(names):
        says[probs[:, PATCH_CLASSES.index(team)] >= prior.patch_team] = team
    sure_white = (probs[:, PATCH_CLASSES.index("flipped")] >= prior.patch_white) & (logit > prior.sure_chip)
    says[sure_white] = "flipped"
    return says


def _lift(core_lab: np.ndarray) -> np.ndarray:
    """``(100,)``: each cell's central lightness minus the median of its 3x3 neighbourhood's
    (edges replicated, as the reader's neighbourhood cues): glare lifts a region, a chip a cell."""
    lightness = np.asarray(core_lab, np.float32).reshape(SIZE * SIZE, -1)[:, 0]
    return lightness - np.median(lightness[NEIGHBOURS], axis=1)


@dataclass(frozen=True)
class _Cells:
    """One reading's per-cell arrays ``(100,)`` as the line reading weighs them."""

    labels: np.ndarray
    """object: each cell's label."""
    chip_logit: np.ndarray
    proto_dist: np.ndarray
    """``(100, len(names))``: distance to each colour prototype."""
    team: np.ndarray
    """bool: read as a team colour."""
    tinted: np.ndarray
    """bool: white is at most ``FlippedPrior.tinted_margin`` farther than the cell's own colour
    (only team colours use it)."""
    white_read: np.ndarray
    """bool: read white."""


def _cells(labels: list[list[str]], chip_logit: np.ndarray, proto_dist: np.ndarray, names: tuple[str, ...],
           prior: FlippedPrior) -> _Cells:
    """The arrays of ``_Cells`` from a reading (arguments as ``read_flipped_as_lines``)."""
    flat = np.asarray(labels, dtype=object).reshape(-1)
    dist = np.asarray(proto_dist, dtype=np.float32).reshape(SIZE * SIZE, -1)
    white = list(names).index("flipped")
    own = np.array([names.index(v) if v in names else white for v in flat])
    tinted = dist[:, white] - dist[np.arange(SIZE * SIZE), own] <= prior.tinted_margin
    return _Cells(flat, np.asarray(chip_logit, dtype=np.float32).reshape(-1), dist, np.isin(flat, TEAM_COLOURS),
                  tinted, flat == "flipped")


def _cues(cells: _Cells, features: dict[str, np.ndarray] | None, prior: FlippedPrior) -> dict[str, np.ndarray] | None:
    """``line_cues`` of a reading; None when ``features`` lack the ``core_lab`` or ``patch_probs``
    they need."""
    if features is None or "core_lab" not in features or "patch_probs" not in features:
        return None
    return line_cues(cells.chip_logit, cells.team, cells.tinted, cells.white_read,
                     _white_prob(features["patch_probs"], cells.white_read), features["core_lab"], prior)


def line_inputs(labels: list[list[str]], chip_logit: np.ndarray, proto_dist: np.ndarray, names: tuple[str, ...],
                features: dict[str, np.ndarray] | None, prior: FlippedPrior = FlippedPrior()
                ) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """The line network's cues of one reading (``line_cues``; arguments as ``read_flipped_as_lines``)
    and ``(192,)`` bool: the windows no coloured chip closes, the only ones a line may take.
    None when ``features`` lack the ``core_lab`` or ``patch_probs`` the cues need."""
    cells = _cells(labels, chip_logit, proto_dist, names, prior)
    cues = _cues(cells, features, prior)
    if cues is None:
        return None
    return cues, ~(_window_sum((cells.team & ~cells.tinted).astype(np.float32)) > 0)


def white_windows(white: np.ndarray) -> np.ndarray:
    """``(192,)`` bool: the windows whose every cell is in ``white`` ``(100,)`` bool (free corners
    count): the lines a board with those white chips shows."""
    covered = np.asarray(white, bool).reshape(-1).copy()
    covered[_CORNER_CELLS] = True
    return covered[WINDOW_CELLS].all(axis=1)


def _completed_windows(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``labels`` flattened ``(100,)`` and ``(192,)`` bool: the windows that are five in a row of
    one team (free corners count, and chips of it already turned white)."""
    flat = np.asarray(labels, dtype=object).reshape(-1)
    windows = flat[WINDOW_CELLS]
    white = (windows == "flipped") | ~_WINDOW_PLAIN
    line = np.zeros(len(windows), bool)
    for team in TEAM_COLOURS:
        own = windows == team
        line |= (own | white).all(axis=1) & own.any(axis=1)
    return flat, line


def _team_chips_of(flat: np.ndarray, line: np.ndarray) -> np.ndarray:
    """``(10, 10)`` bool: the team chips in the windows ``line`` ``(192,)`` marks."""
    out = np.zeros(SIZE * SIZE, bool)
    out[WINDOW_CELLS[line]] = True
    return (out & np.isin(flat, TEAM_COLOURS)).reshape(SIZE, SIZE)


def to_be_flipped(labels: np.ndarray) -> np.ndarray:
    """``(10, 10)`` bool: the chips of every five in a row of one team (free corners count, and
    chips of it already turned white): a completed sequence, whose chips players turn white next.
    A white reading there is what the tracker expects (``vision.track``)."""
    return _team_chips_of(*_completed_windows(labels))


def being_flipped(labels: np.ndarray, white: np.ndarray) -> np.ndarray:
    """``(10, 10)`` bool: the chips of every completed sequence (``to_be_flipped``) whose five
    hold a white chip, one in ``white`` ``(10, 10)`` bool or one ``labels`` already has: a line
    the players are turning over."""
    flat, line = _completed_windows(labels)
    turned = np.asarray(white, bool).reshape(-1) | (flat == "flipped")
    return _team_chips_of(flat, line & turned[WINDOW_CELLS].any(axis=1))


def _white_prob(patch_probs: np.ndarray, white_read: np.ndarray) -> np.ndarray:
    """``(100,)``: the patch network's white-chip probability where it was asked (its
    probabilities are zero elsewhere), else 1 for a cell read white (``white_read`` ``(100,)``
    bool) and 0 for any other."""
    probs = np.asarray(patch_probs, np.float32).reshape(SIZE * SIZE, len(PATCH_CLASSES))
    asked = probs.sum(axis=1) > 0
    return np.where(asked, probs[:, PATCH_CLASSES.index("flipped")], white_read.astype(np.float32))


def line_cues(chip_logit: np.ndarray, team_chip: np.ndarray, tinted: np.ndarray, white_read: np.ndarray,
              white_prob: np.ndarray, core_lab: np.ndarray, prior: FlippedPrior = FlippedPrior()
              ) -> dict[str, np.ndarray]:
    """The line network's inputs (``LINE_CUES``), each ``(192,)`` float32, one per window.

    Per cell ``(100,)``: ``chip_logit``; ``team_chip``, ``tinted`` and ``white_read`` bool (as in
    ``flipped_lines``); ``white_prob``, the patch network's view (``_white_prob``); ``core_lab``
    ``(100, 3)``. A window's cues say what its cells are (their logits and white probabilities),
    how they stand out from the cells flanking them across the line (a row of chips is lighter
    than the cards beside it; glare lifts both), what lies just past its ends, and where it ranks
    among the frame's readings (on a frame the glare has made near-blind, the best it has).
    """
    logit = np.clip(np.asarray(chip_logit, np.float32), -_LOGIT_CAP, _LOGIT_CAP)
    lightness = np.asarray(core_lab, np.float32).reshape(SIZE * SIZE, -1)[:, 0]
    white = np.asarray(white_read, bool)
    plain = np.ones(SIZE * SIZE, dtype=bool)
    plain[_CORNER_CELLS] = False
    card_logits = logit[plain & ~np.asarray(team_chip, bool)]
    l50, l90 = np.percentile(card_logits, (50, 90)) if card_logits.size else (0.0, 0.0)
    score = np.minimum(logit + prior.bias, prior.cap)
    n_white = float(white[plain].sum())
    n_white_in = _window_sum(white.astype(np.float32))
    l_mean = _window_mean(logit)
    beside_light = _beside_contrast(lightness)
    beyond = np.where(_BEYOND >= 0, logit[np.maximum(_BEYOND, 0)], -_LOGIT_CAP)
    cues = {
        "gain": _window_sum(score),
        "l_min": _window_min(logit),
        "l_mean": l_mean,
        "pw_min": _window_min(np.asarray(white_prob, np.float32)),
        "pw_mean": _window_mean(np.asarray(white_prob, np.float32)),
        "n_white_in": n_white_in,
        "strays": n_white - n_white_in,
        "lift_mean": _window_lift(_lift(core_lab), prior),
        "beside_light_mean": _window_mean(beside_light, per_cell=True),
        "beside_light_min": _window_min(beside_light, per_cell=True),
        "beside_logit_mean": _window_mean(_beside_contrast(logit), per_cell=True),
        "beyond_logit_max": beyond.max(axis=1),
        "rel_scaled": (l_mean - l50) / (l90 - l50 + 1.0),
        "frame_l90": np.full(len(WINDOW_CELLS), l90),
        "frame_white": np.full(len(WINDOW_CELLS), n_white),
        "n_tinted": _window_sum((np.asarray(team_chip, bool) & np.asarray(tinted, bool)).astype(np.float32)),
        "corner": (~_WINDOW_PLAIN).any(axis=1),
    }
    return {name: np.asarray(cues[name], np.float32) for name in LINE_CUES}


def _window_sum(values: np.ndarray) -> np.ndarray:
    """``(192,)``: each window's sum of ``values`` ``(100,)`` over the cells that can hold a chip."""
    return (values[WINDOW_CELLS] * _WINDOW_PLAIN).sum(axis=1)


def _window_mean(values: np.ndarray, per_cell: bool = False) -> np.ndarray:
    """``(192,)``: each window's mean over its plain cells, of ``values`` ``(100,)`` per board cell
    or (``per_cell``) ``(192, 5)`` per window cell."""
    v = values if per_cell else values[WINDOW_CELLS]
    return (v * _WINDOW_PLAIN).sum(axis=1) / _WINDOW_PLAIN.sum(axis=1)


def _window_min(values: np.ndarray, per_cell: bool = False) -> np.ndarray:
    """``(192,)``: each window's least value over its plain cells (as ``_window_mean``)."""
    v = values if per_cell else values[WINDOW_CELLS]
    return np.where(_WINDOW_PLAIN, v, np.inf).min(axis=1)


def _beside_contrast(values: np.ndarray) -> np.ndarray:
    """``(192, 5)``: each window cell's value less the mean of the cells flanking it across the
    line (those on the board)."""
    on_board = _BESIDE >= 0
    flank = np.where(on_board, values[np.maximum(_BESIDE, 0)], 0.0).sum(axis=2) / np.maximum(on_board.sum(axis=2), 1)
    return values[WINDOW_CELLS] - flank


def with_flipped_lines(reading: CellReading, names: tuple[str, ...], prior: FlippedPrior | None) -> CellReading:
    """``reading`` with white chips only on the best white lines (``read_flipped_as_lines``);
    as it is where no prior is given, the colours ``names`` (the reader's, in its order) have
    no white chip, or the reading carries no per-cell features (a stand-in reader)."""
    features = getattr(reading, "features", None) or {}
    if prior is None or "flipped" not in names or "chip_logit" not in features:
        return reading
    labels, confidence = read_flipped_as_lines(reading.labels, reading.confidence, features["chip_logit"],
                                               features["proto_dist"], names, prior, features)
    return replace(reading, labels=labels, confidence=confidence)
