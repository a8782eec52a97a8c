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

_WINDOW_CELLS = np.array([[r * SIZE + c for r, c in window] for window in WINDOWS], dtype=np.intp)
"""``(192, 5)`` flat cell indices of every five-in-a-row window (the engine's list)."""
_CORNER_CELLS = np.array([r * SIZE + c for r, c in CORNERS], dtype=np.intp)
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
    doubt: float = 0.45
    """Confidence given to a cell whose label the line changed (inferred, not seen)."""
    tinted_margin: float = 1.0
    """A chip read as a team colour whose white prototype is at most this much farther (colour
    distance) may be a white chip the light tinted (a warm lamp makes white plastic look pale
    yellow): a line may pass it, scored ``tinted_score``, instead of stopping there. Chosen on
    rendered hard Jumbo frames of seeds 5600-5899 and 8000-8149, where 1.5 did as well; the
    smaller, since a glare-paled blue chip can be as near white."""
    tinted_score: float = -1.0


def flipped_lines(
    chip_logit: np.ndarray,
    team_chip: np.ndarray,
    prior: FlippedPrior = FlippedPrior(),
    tinted: np.ndarray | None = None,
) -> np.ndarray:
    """Cells ``(100,)`` bool covered by the most likely set of white five-in-a-rows.

    ``chip_logit`` ``(100,)``: the reader's chip logit per cell; ``team_chip`` ``(100,)`` bool: the
    cell holds a coloured chip (which no white line can cross), unless ``tinted`` (``(100,)``
    bool) says its colour is nearly white (then a line may cross it at ``prior.tinted_score``).
    Greedy: the best-scoring window first, each later one sharing at most one cell with each
    taken (the sequence-sharing rule).
    """
    score = np.minimum(chip_logit.astype(np.float32) + prior.bias, prior.cap)
    soft = np.zeros_like(team_chip, dtype=bool) if tinted is None else team_chip & tinted
    score[team_chip & ~soft] = -1e6
    score[soft] = np.minimum(score[soft], prior.tinted_score)
    score[_CORNER_CELLS] = 0.0
    chosen = _better_windows(_greedy_windows(score, prior), score)
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    for w in chosen:
        taken[_WINDOW_CELLS[w]] = True
    taken[_CORNER_CELLS] = False
    return taken


def _greedy_windows(score: np.ndarray, prior: FlippedPrior) -> list[int]:
    """Windows taken best first while one adds more than ``window_cost`` of new score, each
    sharing at most one cell with every window taken before it."""
    taken = np.zeros(SIZE * SIZE, dtype=bool)
    allowed = np.ones(len(_WINDOW_CELLS), dtype=bool)
    chosen: list[int] = []
    while True:
        gain = np.where(taken[_WINDOW_CELLS], 0.0, score[_WINDOW_CELLS]).sum(axis=1)
        gain[~allowed] = -np.inf
        best = int(gain.argmax())
        if gain[best] <= prior.window_cost:
            return chosen
        chosen.append(best)
        taken[_WINDOW_CELLS[best]] = True
        allowed &= _SHARED[best] <= 1


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
                          prior: FlippedPrior = FlippedPrior()) -> tuple[list[list[str]], np.ndarray]:
    """Labels and confidence ``(10, 10)`` with white chips only on the best white lines.

    ``proto_dist`` ``(10, 10, len(names))``: each cell's distance to each colour prototype, in
    ``names`` order (``"flipped"`` among them). A white reading off every line becomes the
    next-nearest colour when a chip is surely there, else empty; a cell on a line becomes white.
    """
    flat = np.asarray(labels, dtype=object).reshape(-1)
    logit = np.asarray(chip_logit, dtype=np.float32).reshape(-1)
    dist = np.asarray(proto_dist, dtype=np.float32).reshape(SIZE * SIZE, -1)
    white = list(names).index("flipped")
    # How much nearer white is than each cell's own colour (only team colours use it).
    own = np.array([names.index(v) if v in names else white for v in flat])
    tinted = dist[:, white] - dist[np.arange(SIZE * SIZE), own] <= prior.tinted_margin
    on_line = flipped_lines(logit, np.isin(flat, TEAM_COLOURS), prior, tinted)
    out = flat.copy()
    out[on_line] = "flipped"
    stray = (flat == "flipped") & ~on_line
    if stray.any():
        dist = dist.copy()
        dist[:, white] = np.inf
        nearest = np.asarray(names, dtype=object)[dist.argmin(axis=1)]
        out[stray] = np.where(logit[stray] > prior.sure_chip, nearest[stray], "empty")
    changed = out != flat
    conf = np.asarray(confidence, dtype=np.float32).reshape(-1).copy()
    conf[changed] = np.minimum(conf[changed], prior.doubt)
    return out.reshape(SIZE, SIZE).tolist(), conf.reshape(SIZE, SIZE)
