"""Where hands and arms are over the board, frame by frame, for the live tracker.

A cell a hand covers must be ``unknown``, never ``empty``: a chip hidden by an arm is not a
removal. A hand shows as new skin-coloured pixels, joined to an arm; an arm reaching in over
the grid's edge changes the margin outside it (nothing on the board does), moving or not, even
when it is no skin colour. Skin alone is not enough: a red or orange chip is a lone
skin-coloured cell, and so is a line of white chips under a warm lamp, but no arm joins them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from engine.layout import SIZE
from vision.background import Background
from vision.frame_time import lasted
from vision.motion import (
    Rectifier,
    cell_fraction,
    cell_mean,
    cells_of,
    dilate_cells,
    edge_difference,
    new_skin,
    region_sizes,
    regions_touching,
    ring_baseline,
)
from vision.track_config import TrackConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HandCells:
    """One frame's hands: ``skin`` ``(10, 10)`` bool, the cells a hand covers (new skin joined
    to an arm); ``seeds``, every cell a hand, an arm reaching in or motion covers."""

    skin: np.ndarray
    seeds: np.ndarray


@dataclass
class HandWatch:
    """Finds the hands in each frame and remembers, per edge cell, since when its margin has
    looked reached into with nothing moving near it (a margin the light changed, not an arm)."""

    config: TrackConfig
    reach_still_since: np.ndarray = field(default_factory=lambda: np.full((SIZE, SIZE), np.nan))

    def forget(self) -> None:
        """A new background: no margin has looked reached into for any time yet."""
        self.reach_still_since[:] = np.nan

    def find(self, co: np.ndarray, co_norm: np.ndarray, changed: np.ndarray, moving: np.ndarray, t: float,
             rf: Rectifier, bg: Background, *, index: int = -1) -> HandCells:
        """The hands of one frame. ``co``: its coarse board, ``co_norm`` with the light divided
        out; ``changed``, ``moving``: the cells changed against the background and against the
        last frame; ``index``: the frame's, for the log. A margin long reached into with
        nothing stirring becomes part of ``bg`` (``_absorb_still_margin``)."""
        cfg = self.config
        fresh_skin = new_skin(co, co_norm, bg.coarse, bg.skin, cfg.motion)
        skin = cell_fraction(fresh_skin, rf, inner=cfg.motion.inner_fraction) > cfg.skin_fraction
        reach = reaching_in(co_norm, rf, bg, cfg)
        # A hand is never a lone skin-coloured cell (that is a red or orange chip): its arm joins
        # it, and the arm comes in over the edge (a line of flipped chips under warm light is
        # skin-coloured too, but nothing crosses the edge to it).
        body = changed | skin | moving
        skin &= region_sizes(body) >= cfg.hand_min_cells
        reach = self._absorb_still_margin(co_norm, reach, moving | skin, changed, t, rf, bg, index=index)
        arm = changed & reach
        skin &= regions_touching(body, reach)
        return HandCells(skin=skin, seeds=moving | skin | arm)

    def _absorb_still_margin(self, co_norm: np.ndarray, reach: np.ndarray, stirring: np.ndarray,
                            changed: np.ndarray, t: float, rf: Rectifier, bg: Background, *,
                            index: int = -1) -> np.ndarray:
        """``reach`` less the edge cells whose margin has looked reached into for
        ``arm_still_seconds`` with nothing moving or skin-coloured on or beside them: an arm comes
        in moving; a margin the light changed otherwise than the cells (a lamp dimmed under a
        glare that did not) stays so with nothing moving. Their margin's background becomes its
        current look (game 158006: after a dimmed lamp, the margin beside a corner read as an arm
        for good, and the flipped line beside it, with every chip put down next to it, was unknown
        for 30 s). Beside one changed cell alone, ``lone_arm_still_seconds`` is enough: that is a
        chip overhanging the margin."""
        cfg = self.config
        still = reach & ~dilate_cells(stirring, 1)
        self.reach_still_since[~still] = np.nan
        self.reach_still_since[still & np.isnan(self.reach_still_since)] = t
        if not still.any():
            return reach
        # (The outer strip lends each edge cell its neighbours' value: one cell reaches three.)
        lone = reach & (region_sizes(reach | changed) <= 3) & (region_sizes(reach | changed, changed) == 1)
        wait = np.where(lone, cfg.lone_arm_still_seconds, cfg.arm_still_seconds)
        stale = still & lasted(t - self.reach_still_since, wait)
        if not stale.any():
            return reach
        log.info("frame %d: the margin beside %s has looked reached into, with nothing moving, for "
                 "%.1f s: light or a chip's overhang, no arm", index,
                 cells_of(stale), float(np.max(wait[stale])))
        bg.absorb_margin(rf, co_norm, stale)
        self.reach_still_since[stale] = np.nan
        return reach & ~stale


def reaching_in(co_norm: np.ndarray, rf: Rectifier, bg: Background, cfg: TrackConfig) -> np.ndarray:
    """``(10, 10)`` bool: the edge cells beside which the margin outside the grid changed as
    an arm reaching in changes it (``co_norm``: this frame's coarse board, light divided out).

    Chips lie inside their cells; a change that crosses the grid's edge is an arm reaching
    in, moving or not (a dark hand resting over a cell is no skin, nor motion). An arm crosses
    the edge in one place, light changes the margin along a stretch of it (``ring_baseline``);
    an arm changes the margin's outer half too, a chip overhanging the edge does not; and the
    thresholds fall with the light, down to ``arm_light_floor``."""
    edge, far = edge_difference(co_norm, bg.coarse, rf)
    light = float(np.percentile(cell_mean(bg.coarse, rf, inner=cfg.motion.inner_fraction).mean(axis=2), 75))
    dim = min(1.0, max(cfg.arm_light_floor, light / cfg.arm_light))
    # (``far`` gives each edge cell its neighbours' value too: an arm there is two cells wider.)
    half = cfg.arm_ring_half
    return (edge > dim * cfg.arm_threshold + ring_baseline(edge, half)) & (
        far > dim * cfg.arm_outer_threshold + ring_baseline(far, half + 1)
    )
