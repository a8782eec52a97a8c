"""Why a change the reader is sure of is still held back, for the live tracker.

A cell read surely is not always committed at once: a changed region goes to the engine whole
(never half a flip of five chips), moves reach it in the order they were played, and new chips
on touching cells are more often a hand resting still than moves. Each rule here takes the
cells ready to commit and returns those it holds back this frame; all are pure functions of
``(10, 10)`` arrays. ``first_clear``: when each changed cell was first seen clear of hands
(NaN where it is not changed).
"""

from __future__ import annotations

import numpy as np

from vision.frame_time import lasted
from vision.motion import region_sizes, regions_touching, touching_not_later
from vision.track_config import TrackConfig


def held_by_region(ready: np.ndarray, waiting: np.ndarray, candidates: np.ndarray, certain: np.ndarray,
                   first_clear: np.ndarray, config: TrackConfig) -> np.ndarray:
    """The ready cells whose changed region (of ``candidates``) holds a cell still ``waiting``:
    a region is committed whole. Cells that cleared of hands over ``blob_together_seconds``
    after a ``certain`` ready cell are a later move, not part of its region."""
    held = regions_touching(candidates, waiting) & ready if waiting.any() else np.zeros_like(ready)
    later_by = config.blob_together_seconds
    for r, c in np.argwhere(held & certain):
        with_it = candidates & ~(first_clear > first_clear[r, c] + later_by)
        held[r, c] = regions_touching(with_it, waiting & with_it)[r, c]
    return held


def overtaking(ready: np.ndarray, waiting: np.ndarray, differs: np.ndarray, first_clear: np.ndarray, t: float,
               config: TrackConfig) -> np.ndarray:
    """The ready changes that would overtake an older change still waiting for a sure reading
    (its cell first cleared of hands earlier; a later hand over it does not make it newer):
    they wait with it, at most ``order_hold_seconds`` after they cleared, so the engine sees
    the moves in the order they were played. ``differs``: cells read otherwise than committed
    (a waiting cell read as the label it holds is a nudged look, not a move)."""
    older = waiting & ~np.isnan(first_clear) & differs
    news = ready & differs & ~np.isnan(first_clear)
    if not older.any() or not news.any():
        return np.zeros_like(ready)
    later = news & (first_clear > float(np.min(first_clear[older])))
    return later & ~lasted(t - first_clear, config.order_hold_seconds)


def crowded(new_chips: np.ndarray, changed_candidates: np.ndarray, certain: np.ndarray, first_clear: np.ndarray,
            config: TrackConfig) -> np.ndarray:
    """The ``new_chips`` that may be a hand resting still rather than moves: touching another
    new chip that cleared of hands about as early (``blob_together_seconds``), or touching one
    and not ``certain``, or in a wide region of ``changed_candidates`` (changed past the
    threshold, not only held by hysteresis).

    A new chip read with certainty whose cell cleared well before its new neighbour's is the
    earlier of two moves, whose reading the second move's hand kept back: it goes first, the
    later one after it (game 181002 at 5 frames a second: two such chips held each other
    back while hands kept coming, for 98 s). An unsure one may be a hand that shifted.
    A wide region: a hand whose arm came in at a corner and lay along the margin (taken for
    light there) changes many cells, and only one of them reads as a new chip; the chips it
    covers read as they were (game 175006 of ``live_accuracy``: such a hand over eight cells
    was committed as a red chip). Changed past the threshold, not held: a hand just gone
    leaves cells held a while (game 172000: seven held cells touching a new chip held it
    back 2.3 s)."""
    wide = region_sizes(changed_candidates) > config.blob_region_cells
    return new_chips & (
        touching_not_later(new_chips, first_clear, config.blob_together_seconds)
        | (region_sizes(new_chips) > 1) & ~certain
        | wide
    )
