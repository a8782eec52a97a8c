"""Chips are round: their outlines measure the board's cell aspect and tell the edition."""

import numpy as np
import pytest

from engine.labels import TEAM_COLOURS
from engine.layout import EDITIONS
from vision.roundness import ChipRoundness, RoundnessConfig, chip_roundness, edition_by_roundness, sure_chips
from vision.sim import random_spec, render


def _chip_cells(scene) -> list[tuple[int, int]]:
    return [
        (r, c) for r in range(10) for c in range(10) if scene.labels[r][c] in TEAM_COLOURS and not scene.occluded[r, c]
    ]


@pytest.mark.parametrize(("seed", "edition"), [(7, "classic"), (1001, "jumbo")])
def test_the_chips_measure_the_cells_aspect_and_tell_the_edition(seed, edition):
    scene = render(random_spec(seed, edition=edition, difficulty="normal"))
    measured = chip_roundness(scene.frame, scene.corners, _chip_cells(scene))
    assert measured is not None and measured.chips >= 5
    assert measured.aspect == pytest.approx(EDITIONS[edition].grid_aspect, rel=0.03)
    assert edition_by_roundness(measured) == edition


def test_a_quarter_turned_grid_measures_the_inverse_aspect():
    """The aspect is the canonical one (row 0 along the width): the same board with its corners
    rolled a quarter turn reads one over it, so it is not folded away."""
    scene = render(random_spec(1001, edition="jumbo", difficulty="normal"))
    cells = _chip_cells(scene)
    turned = np.roll(np.asarray(scene.corners), -1, axis=0)  # TR first: the grid's columns become rows
    measured = chip_roundness(scene.frame, turned, [(9 - c, r) for r, c in cells])
    assert measured is not None
    assert measured.aspect == pytest.approx(1.0 / EDITIONS["jumbo"].grid_aspect, rel=0.03)


def test_nothing_is_told_from_too_few_chips_or_between_the_editions():
    scene = render(random_spec(7, edition="classic", difficulty="normal"))
    assert chip_roundness(scene.frame, scene.corners, _chip_cells(scene)[:2]) is None
    assert chip_roundness(scene.frame, scene.corners, []) is None
    assert edition_by_roundness(None) is None
    midpoint = float(np.sqrt(EDITIONS["classic"].grid_aspect * EDITIONS["jumbo"].grid_aspect))
    assert edition_by_roundness(ChipRoundness(midpoint * 1.02, 30)) is None
    assert edition_by_roundness(ChipRoundness(0.9, 30)) == "classic"


def test_only_chips_read_surely_in_a_team_colour_are_outlined():
    labels = [["empty"] * 10 for _ in range(10)]
    labels[2][3], labels[4][4], labels[5][5], labels[0][0] = "blue", "red", "flipped", "free"
    confidence = np.ones((10, 10), np.float32)
    confidence[4, 4] = RoundnessConfig().min_confidence - 0.1
    assert sure_chips(labels, confidence) == [(2, 3)]
    many = [["blue"] * 10 for _ in range(10)]
    confidence = np.linspace(0.95, 1.0, 100, dtype=np.float32).reshape(10, 10)
    kept = sure_chips(many, confidence, RoundnessConfig(max_chips=5))
    assert kept == [(9, 9), (9, 8), (9, 7), (9, 6), (9, 5)]
