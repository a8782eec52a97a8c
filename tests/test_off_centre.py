"""Chips put down off centre: found by their coloured middle and read about it, in their own cell."""

from dataclasses import replace

import numpy as np
import pytest

from engine.layout import COURT_MAP, is_corner
from vision.classify import CellReader, _Prepared
from vision.colour import DEFAULT_PROTOTYPES
from vision.detect import detect
from vision.off_centre import chip_middles
from vision.reader_config import ReaderConfig
from vision.sim import random_spec, render
from vision.twins import TWIN
from vision.warp import WarpConfig, grid_geometry

DIAGONALS = ((0.3, 0.3), (-0.3, 0.3), (-0.3, -0.3), (0.3, -0.3))
"""A third of a cell off each way (in cells), in turn: past what a read about the centre sees."""


def _sloppy(seed: int, edition: str, difficulty: str = "easy"):
    """A rendered frame whose every team chip lies a third of a cell off centre along both sides."""
    spec = random_spec(seed, edition=edition, difficulty=difficulty, chip_density=0.35)
    # (Not the white ones: a white chip off centre on a white card is left to the first read.)
    chips = [(r, c) for r in range(10) for c in range(10) if spec.labels[r][c] not in ("empty", "free", "flipped")]
    nudges = tuple(((r, c), DIAGONALS[i % 4]) for i, (r, c) in enumerate(chips))
    return render(replace(spec, chip_jitter=0.0, nudges=nudges))


def _apart(cells):
    """The first of ``cells`` and each next one not beside any already taken: no chip put down
    off centre among them lies over another."""
    apart = []
    for cell in cells:
        if all(max(abs(cell[0] - r), abs(cell[1] - c)) > 1 for r, c in apart):
            apart.append(cell)
    return apart


def _wrong(scene, labels):
    truth = np.array(scene.labels, dtype=object)
    read = np.array(labels, dtype=object)
    return [(int(r), int(c), truth[r, c], read[r, c]) for r, c in np.argwhere((truth != read) & ~scene.occluded)]


@pytest.mark.parametrize(("seed", "edition"), [(148015, "classic"), (148002, "jumbo")])
def test_chips_a_third_of_a_cell_off_centre_are_read_in_their_own_cells(seed, edition):
    scene = _sloppy(seed, edition)
    assert sum(v not in ("empty", "free") for row in scene.labels for v in row) >= 25
    reading = CellReader(edition=edition).read(scene.frame, scene.corners)
    assert _wrong(scene, reading.labels) == []


def test_a_chip_off_centre_on_a_court_card_keeps_its_colour_through_detect():
    # Read about the card's centre, the disc is half chip and half art, greyer than the team's
    # chips: detect's rules would take it for the art, the read about its middle is plain blue.
    spec = random_spec(148003, edition="classic", difficulty="easy", chip_density=0.0)
    courts = [(r, c) for r in range(10) for c in range(10) if COURT_MAP[r][c] and not is_corner((r, c))]
    courts = _apart(courts)[:6]
    assert len(courts) == 6
    teams = ("blue", "green", "red")
    labels = [list(row) for row in spec.labels]
    others = [(r, c) for r in range(10) for c in range(10) if not COURT_MAP[r][c] and not is_corner((r, c))]
    for i, (r, c) in enumerate(courts + others[::4][:24]):  # (and enough clear chips of each team)
        labels[r][c] = teams[i % 3]
    nudges = tuple((cell, DIAGONALS[i % 4]) for i, cell in enumerate(courts))
    scene = render(replace(spec, labels=tuple(map(tuple, labels)), chip_jitter=0.0, nudges=nudges))
    found = detect(scene.frame, corners=scene.corners, edition="classic")
    assert [found.labels[r][c] for r, c in courts] == [scene.labels[r][c] for r, c in courts]


def test_small_chips_a_third_of_a_cell_off_centre_are_read_in_their_own_cells():
    # Chips 60 % of the cell across (the small end of real sets) show a face, inside the blurred
    # rim and the moulded ring, under half the cell across: still a chip's middle, not a pip.
    spec = random_spec(149464, edition="classic", difficulty="normal", chip_density=0.0)
    apart = _apart([(r, c) for r in range(10) for c in range(10) if not is_corner((r, c))])
    labels = [list(row) for row in spec.labels]
    for i, (r, c) in enumerate(apart):
        labels[r][c] = ("blue", "green", "red")[i % 3]
    nudges = tuple((cell, DIAGONALS[i % 4]) for i, cell in enumerate(apart))
    scene = render(replace(spec, labels=tuple(map(tuple, labels)), chip_jitter=0.0, nudges=nudges, chip_radius=0.3))
    assert len(apart) >= 20
    reading = CellReader(edition="classic").read(scene.frame, scene.corners)
    assert _wrong(scene, reading.labels) == []


def _planes(discs, strips=()):
    """White-balanced a and b planes of a classic grid holding blue ``discs`` (centre x, y,
    radius in pixels) and red ``strips`` (x0, y0, x1, y1 boxes)."""
    geom = grid_geometry("classic", WarpConfig())
    width, height = geom.size
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = np.zeros((height, width), np.float32)
    b = np.zeros((height, width), np.float32)
    blue, red = DEFAULT_PROTOTYPES["blue"].mean, DEFAULT_PROTOTYPES["red"].mean
    for x, y, radius in discs:
        inside = (xx - x) ** 2 + (yy - y) ** 2 <= radius**2
        a[inside], b[inside] = blue[1], blue[2]
    for x0, y0, x1, y1 in strips:
        a[y0:y1, x0:x1], b[y0:y1, x0:x1] = red[1], red[2]
    return a, b, geom


def _middles(a, b, geom):
    names = ("blue", "green", "red")
    hues = np.array([np.degrees(np.arctan2(DEFAULT_PROTOTYPES[n].mean[2], DEFAULT_PROTOTYPES[n].mean[1])) % 360
                     for n in names])
    floors = np.array([22.0] * len(names), np.float32)
    return chip_middles(a, b, hues, floors, geom, ReaderConfig()).reshape(10, 10, 3), names


def test_a_chip_middle_is_found_where_the_disc_lies_and_named_by_its_colour():
    # Cell (4, 4) spans pixels 128..159 each way: its centre is at 143.5.
    a, b, geom = _planes([(143.5 + 9, 143.5 - 8, 11.0)])
    middles, names = _middles(a, b, geom)
    dy, dx, colour = middles[4, 4]
    assert abs(dy + 8) <= 1.5 and abs(dx - 9) <= 1.5
    assert names[int(colour)] == "blue"
    others = np.ones((10, 10), bool)
    others[4, 4] = False
    assert (middles[others][:, 2] == -1).all()


def test_a_small_chip_s_face_gives_a_middle_and_a_pip_does_not():
    # Radius 8 pixels of a 32-pixel cell: the face of a chip 60 % of the cell across; radius 5:
    # an ace's big pip.
    a, b, geom = _planes([(143.5 + 9, 143.5 - 8, 8.0), (207.5, 143.5, 5.0)])
    middles, _ = _middles(a, b, geom)
    dy, dx, _ = middles[4, 4]
    assert abs(dy + 8) <= 1.5 and abs(dx - 9) <= 1.5
    assert middles[4, 6, 2] == -1


def test_two_touching_chips_of_one_team_give_a_middle_each_and_an_arm_gives_none():
    # Cells (6, 3) and (6, 4): centres x 111.5 and 143.5, y 207.5; each chip 0.3 cell towards the other.
    a, b, geom = _planes([(111.5 + 9.6, 207.5, 11.0), (143.5 - 9.6, 207.5, 11.0)], strips=[(0, 40, 320, 58)])
    middles, _ = _middles(a, b, geom)
    assert abs(middles[6, 3, 1] - 9.6) <= 2 and abs(middles[6, 4, 1] + 9.6) <= 2
    assert (middles[1, :, 2] == -1).all() and (middles[2, :, 2] == -1).all()  # (the strip: rows 1 and 2)


def test_cues_read_about_a_moved_middle_are_those_of_the_grid_moved_under_a_centred_read():
    scene = render(random_spec(148004, edition="classic", difficulty="normal"))
    reader = CellReader(edition="classic")
    prep = reader._prepared(reader.rectify(scene.frame, scene.corners))
    dy, dx = 5, -7
    cells = np.array([r * 10 + c for r in range(2, 8) for c in range(2, 8)])
    moved = reader._disc_cues(prep, reader._samples.of_cells(cells).moved(np.tile([dy, dx], (len(cells), 1)),
                                                                          reader.geometry.size))
    rolled = _Prepared(*(np.roll(v, (-dy, -dx), axis=(0, 1)) for v in (prep.grid, prep.lab)),
                       tuple(np.roll(p, (-dy, -dx), axis=(0, 1)) for p in prep.lab_planes), prep.white, prep.levels)
    centred = reader._disc_cues(rolled, reader._samples.of_cells(cells))
    twin_row, twin_col = np.divmod(TWIN[cells], 10)
    twin_inside = (twin_row >= 1) & (twin_row <= 8) & (twin_col >= 1) & (twin_col <= 8)  # (no pixel rolled round)
    assert twin_inside.sum() >= 10
    for name in ("core_lab", "spread", "texture", "ring", "rim", "saturated", "chroma_high"):
        np.testing.assert_allclose(moved[name], centred[name], rtol=1e-5, atol=1e-4, err_msg=name)
    for name in ("twin_change", "twin_ncc"):
        np.testing.assert_allclose(moved[name][twin_inside], centred[name][twin_inside],
                                   rtol=1e-5, atol=1e-4, err_msg=name)
