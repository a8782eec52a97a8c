"""The simulated camera: deterministic, canonical corners, labels matching what is drawn."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from engine.layout import CORNERS, COURT_MAP, SIZE
from vision.sim import random_spec, render
from vision.sim.board_art import board_art
from vision.sim.chips import CHIP_BGR, OTHER_SET, WHITE_MARKS, ChipLook, chip_sprite
from vision.sim.optics import Optics
from vision.sim.scene import check_labels, empty_labels
from vision.sim.variety import with_chip_piles

RECT = 40  # pixels per cell in rectified test images


def _clean(spec):
    """The same scene without clutter or camera defects (for pixel-level checks)."""
    return dataclasses.replace(spec, clutter=(), optics=Optics(), auto_exposure=1.0)


def _rectify(frame: np.ndarray, corners: np.ndarray, aspect: float = 1.0) -> np.ndarray:
    w, h = round(RECT * SIZE * aspect), RECT * SIZE
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(frame, M, (w, h))


def test_same_seed_same_frame() -> None:
    a = render(random_spec(7, difficulty="hard"))
    b = render(random_spec(7, difficulty="hard"))
    assert np.array_equal(a.frame, b.frame)
    assert np.array_equal(a.corners, b.corners)
    assert a.labels == b.labels
    c = render(random_spec(8, difficulty="hard"))
    assert not np.array_equal(a.frame, c.frame)


def test_frame_shape_and_types() -> None:
    scene = render(random_spec(3, size=(640, 360)))
    assert scene.frame.shape == (360, 640, 3) and scene.frame.dtype == np.uint8
    assert scene.corners.shape == (4, 2) and scene.corners.dtype == np.float32
    assert scene.occluded.shape == (10, 10) and scene.occluded.dtype == bool
    assert len(scene.labels) == 10 and all(len(r) == 10 for r in scene.labels)
    assert all(scene.labels[r][c] == "free" for r, c in CORNERS)


@pytest.mark.parametrize("seed", range(6))
def test_corners_are_canonical_whatever_the_rotation(seed: int) -> None:
    """Rectifying with the corners must reproduce the flat print the right way up."""
    spec = _clean(random_spec(seed, difficulty="easy", edition="classic"))
    spec = dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, roll=37.0 + 90 * seed))
    scene = render(spec, empty=True)
    assert np.all(scene.corners >= 0) and np.all(scene.corners < np.array(spec.size))
    got = cv2.cvtColor(_rectify(scene.frame, scene.corners), cv2.COLOR_BGR2GRAY).astype(np.float32)
    art = board_art(spec.edition, spec.variant)
    flat = cv2.cvtColor(_rectify(art.levels[0], art.grid_corners()), cv2.COLOR_BGR2GRAY).astype(np.float32)
    scores = []
    for k in range(4):
        ref = np.rot90(flat, k)
        scores.append(float(np.corrcoef(got.ravel(), ref.ravel())[0, 1]))
    assert int(np.argmax(scores)) == 0
    assert scores[0] > 0.6 and scores[0] - max(scores[1:]) > 0.2


def test_jumbo_grid_has_the_mat_aspect() -> None:
    scene = render(_clean(random_spec(2, edition="jumbo", difficulty="easy")), empty=True)
    # undo the perspective with the four corners, measure the sides in the flat art instead
    art = board_art("jumbo", scene.spec.variant)
    x0, y0, x1, y1 = art.grid
    assert (x1 - x0) / (y1 - y0) == pytest.approx(32 / 27, rel=0.01)


@pytest.mark.parametrize("seed", range(4))
def test_labels_match_what_is_drawn(seed: int) -> None:
    """Chips show as a big change from the empty board, in their own colour; empty cells don't."""
    spec = _clean(random_spec(seed, difficulty="easy", chip_density=0.5))
    full = render(spec)
    empty = render(spec, empty=True)
    a = _rectify(full.frame, full.corners).astype(np.float32)
    b = _rectify(empty.frame, empty.corners).astype(np.float32)
    m = RECT // 4
    for r in range(SIZE):
        for c in range(SIZE):
            ya, xa = r * RECT + RECT // 2, c * RECT + RECT // 2
            pa = a[ya - m:ya + m, xa - m:xa + m].reshape(-1, 3)
            pb = b[ya - m:ya + m, xa - m:xa + m].reshape(-1, 3)
            diff = float(np.abs(pa - pb).mean())
            label = full.labels[r][c]
            if label in ("free", "empty"):
                assert diff < 1.0, (r, c, label, diff)
                continue
            assert diff > 15.0, (r, c, label, diff)
            bl, gr, rd = np.median(pa, axis=0)
            expect = {"blue": bl > rd + 20, "green": gr > rd + 20 and gr > bl,
                      "red": rd > bl + 40 and rd > gr + 40, "yellow": rd > bl + 60 and gr > bl + 60,
                      "flipped": min(bl, gr, rd) > 120 and max(bl, gr, rd) - min(bl, gr, rd) < 50}
            assert expect[label], (r, c, label, (bl, gr, rd))


def test_chip_density_and_team_colours() -> None:
    none = random_spec(1, chip_density=0.0)
    assert all(v in ("free", "empty") for row in none.labels for v in row)
    full = random_spec(1, chip_density=1.0, edition="classic")
    colours = {v for row in full.labels for v in row} - {"free"}
    assert colours <= {"blue", "green", "red"} and len(colours) in (2, 3)
    jumbo = [random_spec(s, chip_density=0.5, edition="jumbo").labels for s in range(10)]
    seen = {v for lab in jumbo for row in lab for v in row}
    assert "flipped" in seen and "green" not in seen


def test_given_labels_are_used_and_checked() -> None:
    labels = [list(r) for r in empty_labels()]
    labels[4][4] = "red"
    spec = random_spec(5, labels=labels)
    assert spec.labels[4][4] == "red" and render(spec).labels[4][4] == "red"
    labels[0][0] = "blue"
    with pytest.raises(ValueError, match="corners"):
        check_labels(labels)
    with pytest.raises(ValueError, match="difficulty"):
        random_spec(1, difficulty="brutal")
    with pytest.raises(ValueError, match="seed"):
        random_spec(-1)
    with pytest.raises(ValueError, match="edition"):
        random_spec(1, edition="travel")


def test_clutter_hides_only_a_few_cells() -> None:
    for seed in range(8):
        scene = render(random_spec(seed, difficulty="hard"))
        assert int(scene.occluded.sum()) <= 6


def test_lens_distortion_moves_the_truth_with_the_picture() -> None:
    """With barrel distortion the corners move inwards, and the rectified print still lines up."""
    spec = _clean(random_spec(4, difficulty="easy", edition="classic"))
    spec = dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, fill=0.9))
    straight = render(spec, empty=True)
    bent_spec = dataclasses.replace(spec, optics=Optics(distortion=0.05))
    bent = render(bent_spec, empty=True)
    centre = np.array(spec.size, np.float32) / 2
    d0 = np.linalg.norm(straight.corners - centre, axis=1)
    d1 = np.linalg.norm(bent.corners - centre, axis=1)
    assert np.all(d1 < d0 - 2)
    # each corner's neighbourhood looks the same in both frames around its truth point
    g0 = cv2.cvtColor(straight.frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g1 = cv2.cvtColor(bent.frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    for (x0, y0), (x1, y1) in zip(straight.corners, bent.corners, strict=True):
        a = g0[round(y0) - 10:round(y0) + 11, round(x0) - 10:round(x0) + 11]
        b = g1[round(y1) - 10:round(y1) + 11, round(x1) - 10:round(x1) + 11]
        assert float(np.corrcoef(a.ravel(), b.ravel())[0, 1]) > 0.8


def test_a_folded_board_bends_at_the_crease_only() -> None:
    """The outer corners barely move (they sit near the board's edge); the middle of the grid rises."""
    spec = _clean(random_spec(6, difficulty="easy", edition="classic"))
    spec = dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, tilt=40.0, fill=0.9), fold=0.0,
                               table="felt_green", variant="modern")
    flat = render(spec, empty=True)
    bent = render(dataclasses.replace(spec, fold=3.0), empty=True)
    assert np.abs(flat.corners - bent.corners).max() < 5.0
    a = cv2.cvtColor(flat.frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    b = cv2.cvtColor(bent.frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    assert np.abs(a - b).mean() > 1.0  # the print moved inside the grid
    # the two halves meet: no line of the green table shows through at the crease
    mid_l = (flat.corners[0] + flat.corners[3]) / 2
    mid_r = (flat.corners[1] + flat.corners[2]) / 2
    colour = bent.frame.astype(np.int32)
    for f in np.linspace(0.02, 0.98, 25):
        x, y = mid_l + (mid_r - mid_l) * f
        patch = colour[int(y) - 8:int(y) + 9, int(x) - 1:int(x) + 2].reshape(-1, 3)
        green = (patch[:, 1] > patch[:, 2] + 40) & (patch[:, 1] > patch[:, 0] + 40)
        assert not green.any(), (x, y)


def test_a_moving_hand_is_smeared_but_hides_the_same_cells() -> None:
    from vision.sim.clutter import Clutter
    from vision.sim.scene import render_with

    spec = _clean(random_spec(5, difficulty="easy", edition="classic"))
    still = Clutter("hand", 5.0, 5.0, -90.0, 1.0, (120, 160, 215), 1.0, (120, 60, 40))
    moving = dataclasses.replace(still, motion=(0.0, -1.5))
    a = render_with(spec, spec.labels, (still,))
    b = render_with(spec, spec.labels, (moving,))
    assert np.array_equal(a.occluded, b.occluded) and a.occluded.any()
    diff = np.abs(a.frame.astype(np.int16) - b.frame.astype(np.int16)).max(axis=2)
    assert (diff > 30).sum() > 200  # edges smeared along the motion
    untouched = render(spec)
    far = diff[untouched.frame.shape[0] - 5:, :]  # the bottom rows, far from the hand: unchanged
    assert far.max() <= 1


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
def test_many_random_scenes_keep_the_grid_in_view(difficulty: str) -> None:
    from vision.sim.variety import DIFFICULTIES

    limit = DIFFICULTIES[difficulty].max_occluded
    for seed in range(12):
        scene = render(random_spec(seed, difficulty=difficulty, size=(320, 180)))
        assert np.all(scene.corners >= -0.5) and np.all(scene.corners <= np.array([319.5, 179.5]))
        assert int(scene.occluded.sum()) <= limit + 1  # measured at another resolution when fitted
        # the grid is a proper quadrilateral: convex, in TL TR BR BL order (clockwise on screen)
        c = scene.corners.astype(np.float64)
        d = np.roll(c, -1, axis=0) - c  # edge vectors
        nxt = np.roll(d, -1, axis=0)
        cross = d[:, 0] * nxt[:, 1] - d[:, 1] * nxt[:, 0]
        assert all(x > 0 for x in cross) or all(x < 0 for x in cross)


def test_another_printing_changes_the_print_and_nothing_else() -> None:
    """The ``other`` printing redraws the cards (the court art most of all), not the scene: the
    same corners and chips, the same frame outside the grid."""
    spec = _clean(random_spec(7, edition="classic", difficulty="easy", chip_density=0.0))
    standard, other = render(spec), render(dataclasses.replace(spec, printing="other"))
    assert np.array_equal(standard.corners, other.corners) and standard.labels == other.labels
    a, b = (_rectify(s.frame, s.corners).astype(np.int16) for s in (standard, other))
    changed = (np.abs(a - b).max(axis=2) > 40).reshape(SIZE, RECT, SIZE, RECT).mean(axis=(1, 3))
    court = np.array(COURT_MAP)
    assert changed[court].min() > 0.1 and changed[~court].max() < changed[court].min()
    differs = np.abs(standard.frame.astype(np.int16) - other.frame).max(axis=2) > 0
    grid = np.zeros(differs.shape, np.uint8)
    cv2.fillConvexPoly(grid, np.round(standard.corners).astype(np.int32), 1)
    assert not (differs & (cv2.dilate(grid, np.ones((9, 9), np.uint8)) == 0)).any()
    with pytest.raises(ValueError, match="printing"):
        random_spec(7, printing="fancy")


def test_another_chip_set_turns_each_colours_hue_and_changes_nothing_else() -> None:
    """The ``other`` chip set recolours the chips within ``OTHER_SET`` (a red still red), each
    team's apart, and draws the scene as it was."""
    standard = random_spec(39555, edition="jumbo", difficulty="normal")
    other = random_spec(39555, edition="jumbo", difficulty="normal", chips="other")
    assert dataclasses.replace(other, chip_tints=standard.chip_tints, white_mark=standard.white_mark) == standard
    hues = []
    for seed in range(40):
        tints = dict(random_spec(seed, chips="other").chip_tints)
        bgr = {name: np.clip(np.float32(CHIP_BGR[name]) * tints[name], 0, 255) for name in CHIP_BGR}
        hsv = {name: _hsv(v) for name, v in bgr.items()}
        turned = {name: (hsv[name][0] - _hsv(CHIP_BGR[name])[0] + 180.0) % 360.0 - 180.0 for name in CHIP_BGR}
        assert all(abs(turned[name]) <= OTHER_SET["hue"] + 0.5 for name in ("blue", "green", "red", "yellow"))
        assert hsv["flipped"][1] < 0.05  # white stays white
        hues.append([turned[name] for name in ("blue", "green", "red", "yellow")])
    hues = np.array(hues)
    assert (hues.max(axis=0) > 10).all() and (hues.min(axis=0) < -10).all()  # both ways, every colour
    assert np.corrcoef(hues[:, 0], hues[:, 2])[0, 1] < 0.5  # each team's own turn
    with pytest.raises(ValueError, match="chip set"):
        random_spec(7, chips="fancy")


def test_another_chip_set_prints_any_mark_on_the_white_side_and_the_standard_one_its_own() -> None:
    """The white side of another set's chips shows a ring and a dot, a faint ring, a dot or
    nothing; the standard set always its ring and dot. A sprite's darkest ink follows the mark."""
    marks = {random_spec(seed, edition="jumbo", chips="other").white_mark for seed in range(40)}
    assert marks == set(WHITE_MARKS)
    assert {random_spec(seed, edition="jumbo").white_mark for seed in range(10)} == {"ring_dot"}
    look = ChipLook(edge_offset=(0.0, 0.0), shadow_offset=(0.0, 0.0), shadow_blur=0.25, shadow_strength=0.5,
                    light_angle=0.0, gloss=0.0)
    darkest = {}
    for mark in WHITE_MARKS:
        colour, alpha, _ = chip_sprite(CHIP_BGR["flipped"], 40.0, dataclasses.replace(look, white_mark=mark), True)
        yy, xx = np.indices(alpha.shape) - (np.array(alpha.shape) // 2)[:, None, None]
        inner = np.hypot(yy, xx) < 0.5 * 40.0  # the mark's ring lies at 0.42 of the radius
        darkest[mark] = int(colour[inner].astype(int).sum(axis=1).min())
    assert darkest["ring_dot"] < darkest["faint_ring"] < darkest["none"]
    assert darkest["dot"] < darkest["faint_ring"]


def _hsv(bgr) -> np.ndarray:
    """Hue (degrees), saturation and value (0..1) of one BGR colour (0..255)."""
    return cv2.cvtColor(np.float32(bgr).reshape(1, 1, 3) / 255.0, cv2.COLOR_BGR2HSV)[0, 0]


def test_piles_of_chips_lie_beside_the_board_in_each_team_colour() -> None:
    """``with_chip_piles`` lays a pile of each team's chips on the table beside the grid,
    the same each time, and changes nothing else in the scene."""
    spec = _clean(random_spec(11, edition="classic", difficulty="easy", chip_density=0.0))
    piled = with_chip_piles(spec, 3)
    assert [it.kind for it in piled.clutter[len(spec.clutter):]] == ["chips"] * 3
    assert piled.clutter[: len(spec.clutter)] == spec.clutter and piled.labels == spec.labels
    assert with_chip_piles(spec, 3) == piled
    plain, frame = render(spec), render(piled).frame.astype(np.int16)
    changed = np.abs(frame - plain.frame).max(axis=2) > 30
    grid = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(grid, np.round(plain.corners).astype(np.int32), 1)
    assert changed.sum() > 1000 and (changed & (grid == 1)).sum() < 0.2 * changed.sum()
    b, g, r = (frame[..., i][changed] for i in range(3))
    for mine, a, c in ((b, g, r), (g, b, r), (r, b, g)):  # blue, green and red chips all show
        assert ((mine > a + 40) & (mine > c + 40)).sum() > 100
