"""The rules that hold a surely read change back a while: a region goes whole, moves go in the
order they were played, and new chips side by side wait as a hand resting still would."""

from __future__ import annotations

import numpy as np

from engine.layout import SIZE
from vision.holding import crowded, held_by_region, overtaking
from vision.track_config import TrackConfig

CONFIG = TrackConfig()


def _cells(*where: tuple[int, int]) -> np.ndarray:
    mask = np.zeros((SIZE, SIZE), bool)
    for r, c in where:
        mask[r, c] = True
    return mask


def _cleared(**at: float) -> np.ndarray:
    """``first_clear`` with the cells named ``r{R}c{C}`` cleared at the given times, NaN elsewhere."""
    times = np.full((SIZE, SIZE), np.nan)
    for name, t in at.items():
        r, c = name[1:].split("c")
        times[int(r), int(c)] = t
    return times


def test_a_ready_cell_waits_for_the_rest_of_its_region_unless_that_came_well_later() -> None:
    ready, waiting = _cells((4, 4)), _cells((4, 5))
    candidates = ready | waiting
    together = _cleared(r4c4=10.0, r4c5=10.5)
    later = _cleared(r4c4=10.0, r4c5=10.0 + CONFIG.blob_together_seconds + 0.5)
    unsure, certain = _cells(), ready
    assert held_by_region(ready, waiting, candidates, unsure, later, CONFIG)[4, 4]
    assert held_by_region(ready, waiting, candidates, certain, together, CONFIG)[4, 4]
    assert not held_by_region(ready, waiting, candidates, certain, later, CONFIG)[4, 4]
    apart = _cells((7, 7))
    assert not held_by_region(ready, apart, ready | apart, unsure, together, CONFIG).any()


def test_a_later_move_waits_for_an_older_one_still_being_read_but_not_for_ever() -> None:
    ready, waiting = _cells((2, 2)), _cells((6, 6))
    differs = ready | waiting
    first_clear = _cleared(r2c2=11.0, r6c6=10.0)
    assert overtaking(ready, waiting, differs, first_clear, 11.5, CONFIG)[2, 2]
    after_hold = 11.0 + CONFIG.order_hold_seconds + 0.1
    assert not overtaking(ready, waiting, differs, first_clear, after_hold, CONFIG).any()
    # The older change goes first: nothing holds it back.
    assert not overtaking(waiting, ready, differs, first_clear, 11.5, CONFIG).any()
    # A waiting cell read as what it holds is no move to wait for.
    assert not overtaking(ready, waiting, ready, first_clear, 11.5, CONFIG).any()


def test_new_chips_side_by_side_that_cleared_together_may_be_a_resting_hand() -> None:
    chips = _cells((5, 5), (5, 6))
    certain = chips.copy()
    together = _cleared(r5c5=20.0, r5c6=20.2)
    assert crowded(chips, chips, certain, together, CONFIG)[chips].all()
    # The earlier of two moves, read with certainty, is not held by the later one beside it.
    apart = _cleared(r5c5=20.0, r5c6=20.0 + CONFIG.blob_together_seconds + 1.0)
    held = crowded(chips, chips, certain, apart, CONFIG)
    assert not held[5, 5] and held[5, 6]
    # Unsure chips touching each other wait whatever their times.
    assert crowded(chips, chips, _cells(), apart, CONFIG)[chips].all()


def test_a_lone_new_chip_waits_only_inside_a_region_too_wide_for_a_move() -> None:
    chip = _cells((3, 3))
    first_clear = _cleared(r3c3=5.0)
    assert not crowded(chip, chip, chip, first_clear, CONFIG).any()
    wide = np.zeros((SIZE, SIZE), bool)
    wide[3, 1:1 + CONFIG.blob_region_cells + 1] = True
    assert crowded(chip, wide, chip, first_clear, CONFIG)[3, 3]
