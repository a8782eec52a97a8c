"""The twin cards as a layout pattern: every card printed twice, pairs alike only where the board is."""

from __future__ import annotations

import numpy as np
import pytest

from engine.layout import CARD_CELLS, SIZE
from vision.sim import random_spec, render
from vision.twins import TWIN, twin_z

PX = 8


def _card_lattice(cells: int, offset: tuple[int, int], turn: int, rng: np.random.Generator) -> np.ndarray:
    """A grey lattice of random cell pictures, with the board's 100 cells at ``offset``, the
    layout seen turned (``np.rot90(layout, turn)``): both cells of a card share one picture."""
    pictures = rng.integers(60, 250, (cells, cells, PX, PX), dtype=np.uint8)
    card = rng.integers(60, 250, (SIZE * SIZE, PX, PX), dtype=np.uint8)
    layout = np.arange(SIZE * SIZE).reshape(SIZE, SIZE)
    first = np.minimum(layout, TWIN.reshape(SIZE, SIZE))  # one picture per card
    seen = np.rot90(first, turn)
    dv, du = offset
    pictures[dv : dv + SIZE, du : du + SIZE] = card[seen]
    grey = pictures.transpose(0, 2, 1, 3).reshape(cells * PX, cells * PX)
    return np.repeat(grey[:, :, None], 3, axis=2)


def test_every_card_has_one_twin():
    assert len(CARD_CELLS) == 48
    assert (TWIN[TWIN] == np.arange(SIZE * SIZE)).all()
    assert (np.arange(SIZE * SIZE) != TWIN).sum() == 96  # all but the four corners


@pytest.mark.parametrize("turn", range(4))
def test_twin_z_finds_the_board_at_its_offset_and_turn(turn):
    rng = np.random.default_rng(turn)
    lattice = _card_lattice(16, (2, 3), turn, rng)
    # Noise on every cell, so the twins are alike but not identical (a camera, not a copy).
    lattice = np.clip(lattice + rng.normal(0, 25, lattice.shape), 0, 255).astype(np.uint8)
    z = twin_z(lattice, PX, 16)
    dv, du, k = np.unravel_index(np.argmax(z), z.shape)
    assert (dv, du) == (2, 3)
    # vision.orient.pattern_z's convention: the seen lattice turned by k quarter turns is the layout.
    assert (turn + k) % 4 == 0
    top = np.sort(z, axis=None)
    assert top[-1] > 8.0 and top[-1] - top[-2] > 4.0


def test_twin_z_of_unrelated_pictures_stays_low():
    rng = np.random.default_rng(7)
    worst = max(float(twin_z(rng.integers(0, 255, (16 * PX, 16 * PX, 3), dtype=np.uint8), PX, 16).max())
                for _ in range(20))
    assert worst < 5.5  # the locator's acceptance threshold (LocateConfig.min_z)


def test_chips_on_twin_cells_are_not_taken_for_print():
    """Two chips of one colour look alike wherever they lie: a chip on both cells of many
    cards (under a wrong turn) must not pass for the board's pairs."""
    rng = np.random.default_rng(3)
    lattice = rng.integers(100, 200, (10 * PX, 10 * PX, 3), dtype=np.uint8)
    cells = lattice.reshape(10, PX, 10, PX, 3)
    yy, xx = np.mgrid[:PX, :PX] - (PX - 1) / 2
    disc = yy**2 + xx**2 <= (PX * 0.4) ** 2
    colours = [(40, 40, 220), (200, 60, 30), (40, 200, 60)]
    for i, (a, b) in enumerate([(p, TWIN[p]) for p in range(SIZE * SIZE) if p < TWIN[p]][:15]):
        for p in (a, b):
            cells[p // SIZE, :, p % SIZE][disc] = colours[i % 3]
    assert twin_z(lattice, PX, 10)[0, 0, 0] < 3.0


def test_a_rendered_board_shows_its_twins_at_the_true_corners():
    from vision.geometry import apply_homography, grid_homography
    from vision.orient import ink_lattice

    scene = render(random_spec(5200, edition="classic", difficulty="normal"))
    reach = 2
    box = np.array([[-reach, -reach], [10 + reach, -reach], [10 + reach, 10 + reach], [-reach, 10 + reach]], float)
    ext = apply_homography(grid_homography(np.asarray(scene.corners, np.float32)), box).astype(np.float32)
    z = twin_z(ink_lattice(scene.frame, ext, 16, 10 + 2 * reach), 16, 10 + 2 * reach)
    assert np.unravel_index(np.argmax(z), z.shape) == (reach, reach, 0)
    top = np.sort(z, axis=None)
    assert top[-1] > 5.0 and top[-1] - top[-2] > 2.0
