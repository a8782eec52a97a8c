"""White (flipped) chips exist only in completed sequences: read them as lines, not cells.

On the Jumbo mat players turn the chips of a completed sequence white side up, so every white
chip on a still board belongs to five in a row (free corners count), and two sequences share at
most one cell. A white chip on a white card is the reader's weakest call; seen as a line, four
clear white chips vouch for a blurred fifth, and a lone "white chip" is a glint on a card.

Used by ``detect`` on still frames only: during a live game the flips arrive one chip at a time,
and the engine, which knows which sequence is being flipped, judges them there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import CORNERS, SIZE
from engine.sequences import WINDOWS
from vision.classify import NEIGHBOURS
from vision.patch_net import CLASSES as PATCH_CLASSES

_WINDOW_CELLS = np.array([[r * SIZE + c for r, c in window] for window in WINDOWS], dtype=np.intp)
"""``(192, 5)`` flat cell indices of every five-in-a-row window (the engine's list)."""
_CORNER_CELLS = np.array([r * SIZE + c for r, c in CORNERS], dtype=np.intp)
_WINDOW_PLAIN = ~np.isin(_WINDOW_CELLS, _CORNER_CELLS)
"""``(192, 5)`` bool: the window's cells that are not free corners (those hold no chip)."""
_SHARED = np.array([[len(set(a) & set(b)) for b in WINDOWS] for a in WINDOWS], dtype=np.intp)
"""``(192, 192)`` cells each pair of windows shares (two sequences may share at most one)."""


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


def flipped_lines(
    chip_logit: np.ndarray,
    team_chip: np.ndarray,
    prior: FlippedPrior = FlippedPrior(),
    tinted: np.ndarray | None = None,
    lift: np.ndarray | None = None,
    white_read: np.ndarray | None = None,
) -> np.ndarray:
    """Cells ``(100,)`` bool covered by the most likely set of white five-in-a-rows.

    ``chip_logit`` ``(100,)``: the reader's chip logit per cell; ``team_chip`` ``(100,)`` bool: the
    cell holds a coloured chip (which no white line can cross), unless ``tinted`` (``(100,)``
    bool) says its colour is nearly white (then a line may cross it at ``prior.tinted_score``).
    ``lift`` ``(100,)``: how much lighter each cell is than its neighbourhood (None: no check);
    ``white_read`` ``(100,)`` bool: the cells read white one by one (None: none), for the strays
    check (see ``FlippedPrior.stray_gain``).
    Greedy: the best-scoring window first, each later one sharing at most one cell with each
    taken (the sequence-sharing rule), and each one supported (``_supported``).
    """
    score = np.minimum(chip_logit.astype(np.float32) + prior.bias, prior.cap)
    soft = np.zeros_like(team_chip, dtype=bool) if tinted is None else team_chip & tinted
    score[team_chip & ~soft] = -1e6
    score[soft] = np.minimum(score[soft], prior.tinted_score)
    score[_CORNER_CELLS] = 0.0
    if lift is None:
        window_lift = np.zeros(len(_WINDOW_CELLS), np.float32)
    else:
        capped = np.clip(np.asarray(lift, np.float32), -prior.lift_cap, prior.lift_cap)[_WINDOW_CELLS]
        window_lift = (capped * _WINDOW_PLAIN).sum(axis=1) / _WINDOW_PLAIN.sum(axis=1)
    white = np.zeros(SIZE * SIZE, dtype=bool) if white_read is None else np.asarray(white_read, dtype=bool)
    chosen = _better_windows(_greedy_windows(score, prior, window_lift, white), score)
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    for w in chosen:
        taken[_WINDOW_CELLS[w]] = True
    taken[_CORNER_CELLS] = False
    return taken


def _greedy_windows(score: np.ndarray, prior: FlippedPrior, window_lift: np.ndarray,
                    white_read: np.ndarray) -> list[int]:
    """Windows taken best first while one adds more than ``window_cost`` of new score and is
    supported, each sharing at most one cell with every window taken before it."""
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    allowed = np.ones(len(_WINDOW_CELLS), dtype=bool)
    chosen: list[int] = []
    while True:
        gain = np.where(taken[_WINDOW_CELLS], 0.0, score[_WINDOW_CELLS]).sum(axis=1)
        gain[~allowed] = -np.inf
        gain[~_supported(gain, window_lift, white_read & ~taken, prior)] = -np.inf
        best = int(gain.argmax())
        if gain[best] <= prior.window_cost:
            return chosen
        chosen.append(best)
        taken[_WINDOW_CELLS[best]] = True
        allowed &= _SHARED[best] <= 1


def _supported(gain: np.ndarray, window_lift: np.ndarray, white_left: np.ndarray,
               prior: FlippedPrior) -> np.ndarray:
    """``(192,)`` bool: windows whose new score, plus how much their cells stand out from their
    neighbourhoods, less the white readings (``white_left``, ``(100,)`` bool, those no line
    taken covers yet) they would leave off, still clears ``window_cost``: the line must stand
    out, both from the cards beside it and from the frame's other white readings."""
    strays = white_left.sum() - white_left[_WINDOW_CELLS].sum(axis=1)
    unexplained = np.maximum(strays - prior.stray_free, 0)
    support = gain + prior.lift_gain * window_lift - prior.stray_gain * unexplained
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
                covered[_WINDOW_CELLS[w]] = True
            total = np.where(covered[_WINDOW_CELLS], 0.0, score[_WINDOW_CELLS]).sum(axis=1)
            fits = np.all(_SHARED[others] <= 1, axis=0) if others else np.ones(len(_WINDOW_CELLS), dtype=bool)
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
                          features: dict[str, np.ndarray] | None = None) -> tuple[list[list[str]], np.ndarray]:
    """Labels and confidence ``(10, 10)`` with white chips only on the best white lines.

    ``proto_dist`` ``(10, 10, len(names))``: each cell's distance to each colour prototype, in
    ``names`` order (``"flipped"`` among them). A white reading off every line becomes the
    next-nearest colour when a chip is surely there, else empty; a cell on a line becomes white.
    ``features``: the reading's per-cell cues (``CellReading.features``); with its ``core_lab``
    a line must also be lighter than the cards around it (see ``FlippedPrior.lift_gain``), and
    with its ``patch_probs`` the patch network has a say on the white readings off every line
    (``FlippedPrior.patch_team``, ``FlippedPrior.patch_white``).
    """
    flat = np.asarray(labels, dtype=object).reshape(-1)
    logit = np.asarray(chip_logit, dtype=np.float32).reshape(-1)
    dist = np.asarray(proto_dist, dtype=np.float32).reshape(SIZE * SIZE, -1)
    white = list(names).index("flipped")
    # How much nearer white is than each cell's own colour (only team colours use it).
    own = np.array([names.index(v) if v in names else white for v in flat])
    tinted = dist[:, white] - dist[np.arange(SIZE * SIZE), own] <= prior.tinted_margin
    lift = None if features is None or "core_lab" not in features else _lift(features["core_lab"])
    on_line = flipped_lines(logit, np.isin(flat, TEAM_COLOURS), prior, tinted, lift, flat == "flipped")
    out = flat.copy()
    out[on_line] = "flipped"
    stray = (flat == "flipped") & ~on_line
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
    line, "" where it has no firm view: a team colour (of ``names``) it gives at least
    ``prior.patch_team``, or white where it is ``prior.patch_white`` sure and the chip logit
    ``(100,)`` is above ``prior.sure_chip``. ``patch_probs``: ``(..., len(patch_net.CLASSES))``."""
    probs = np.asarray(patch_probs, np.float32).reshape(SIZE * SIZE, len(PATCH_CLASSES))
    says = np.full(SIZE * SIZE, "", dtype=object)
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
