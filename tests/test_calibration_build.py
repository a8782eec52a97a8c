"""Building a profile from rendered frames: grid from the empty board, colours from taught chips."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.build import calibrate, learn_colours
from vision.colour import ColourModel
from vision.sim import random_spec, render

EMPTY = [["empty"] * 10 for _ in range(10)]
for r, c in ((0, 0), (0, 9), (9, 9), (9, 0)):
    EMPTY[r][c] = "free"


def corner_error(found, truth) -> float:
    diagonal = float(np.linalg.norm(truth[2] - truth[0]))
    return float(np.max(np.linalg.norm(np.asarray(found) - truth, axis=1))) / diagonal


@pytest.mark.parametrize("seed", [3, 11])
def test_calibrate_finds_the_grid_of_an_empty_board(seed):
    scene = render(random_spec(seed, difficulty="easy", labels=EMPTY))
    profile = calibrate(scene.frame)
    assert profile, getattr(profile, "reason", "")
    assert profile.edition == scene.edition
    assert profile.frame_size == (scene.frame.shape[1], scene.frame.shape[0])
    assert corner_error(profile.corners, scene.corners) < 0.01


def test_calibrate_refuses_a_board_with_chips():
    labels = [row[:] for row in EMPTY]
    for c in range(1, 9):
        labels[4][c] = "blue"
    scene = render(random_spec(5, edition="classic", difficulty="easy", labels=labels))
    result = calibrate(scene.frame, corners=scene.corners)
    assert not result
    assert "does not look empty" in result.reason


def test_calibrate_on_a_blank_frame_says_board_not_found():
    result = calibrate(np.full((480, 640, 3), 90, np.uint8))
    assert not result and "board not found" in result.reason


def taught_scene(seed: int, edition: str, cells: dict):
    labels = [row[:] for row in EMPTY]
    for (r, c), colour in cells.items():
        labels[r][c] = colour
    spec = random_spec(seed, edition=edition, difficulty="easy", labels=labels)
    return render(spec, empty=True), render(spec)


def test_learn_colours_moves_prototypes_towards_the_chips_seen():
    cells = {(2, 3): "blue", (5, 6): "green", (7, 2): "red"}
    empty, chips = taught_scene(8, "classic", cells)
    profile = calibrate(empty.frame, corners=empty.corners)
    assert profile
    learned = learn_colours(profile, chips.frame, cells)
    assert learned, getattr(learned, "reason", "")
    model = ColourModel.from_dict(learned.colour_model)
    assert set(cells.values()) <= set(model.labels)
    # The taught model reads the teaching frame's chips as the colours they were taught as.
    from vision.detect import detect

    det = detect(chips.frame, corners=chips.corners, profile=learned)
    for (r, c), colour in cells.items():
        assert det.labels[r][c] == colour


def test_learn_colours_reports_a_missing_chip_and_bad_cells():
    empty, chips = taught_scene(9, "classic", {(2, 3): "blue"})
    profile = calibrate(empty.frame, corners=empty.corners)
    result = learn_colours(profile, chips.frame, {(2, 3): "blue", (6, 6): "green"})
    assert not result and "no chip seen" in result.reason and "(row 6, col 6)" in result.reason
    with pytest.raises(ValueError, match="not a playing cell"):
        learn_colours(profile, chips.frame, {(0, 0): "blue"})
    with pytest.raises(ValueError, match="unknown team colour"):
        learn_colours(profile, chips.frame, {(2, 3): "purple"})


def test_a_dull_marker_can_be_taught_against_the_empty_board():
    """Coins as the third team's marker: grey, so the default colours see no chip, but the cell
    differs from the empty board, so it is learned (as "red") with its own low-chroma colour."""
    import cv2

    from vision.warp import cell_centres

    empty, _ = taught_scene(12, "classic", {})
    profile = calibrate(empty.frame, corners=empty.corners)
    assert profile
    frame = empty.frame.copy()
    centres = cell_centres(empty.corners)
    cell = (4, 4)
    centre = centres[cell[0], cell[1]]
    radius = 0.3 * float(np.linalg.norm(centres[4, 5] - centres[4, 4]))
    cv2.circle(frame, (int(centre[0]), int(centre[1])), int(radius), (150, 152, 155), -1, cv2.LINE_AA)
    learned = learn_colours(profile, frame, {cell: "red"}, empty_frame=empty.frame)
    assert learned, learned.reason
    mean = ColourModel.from_dict(learned.colour_model).prototypes["red"].mean
    assert np.hypot(mean[1], mean[2]) < 15, "a grey coin is learned as a low-chroma colour"


def test_a_mirroring_webcam_calibrates_and_its_profile_reads_the_board():
    """A profile made from a mirrored picture keeps its corners as seen (anticlockwise on
    screen), and reading later frames from the same camera through it reads the right cells."""
    import cv2

    from vision.detect import detect
    from vision.geometry import mirror_points, mirrored

    cells = {(2, 3): "blue", (5, 6): "green", (7, 2): "red", (1, 8): "blue"}
    empty, chips = taught_scene(8, "classic", cells)
    width = empty.frame.shape[1]
    profile = calibrate(cv2.flip(empty.frame, 1))
    assert profile, getattr(profile, "reason", "")
    assert mirrored(np.asarray(profile.corners))
    assert corner_error(profile.corners, mirror_points(empty.corners, width)) < 0.01
    det = detect(cv2.flip(chips.frame, 1), profile=profile, reference=cv2.flip(empty.frame, 1))
    assert det, det.reason
    assert det.labels == [list(row) for row in chips.labels]


def test_the_next_night_a_board_laid_down_elsewhere_is_tracked_where_it_lies():
    """A profile is made once, but the board is put away after each game: laid down a cell
    away and turned a little, it must be found again, not read through last night's corners
    (which read about half the cells wrong)."""
    import dataclasses

    from vision.track import BoardTracker

    spec = random_spec(21, edition="classic", difficulty="normal")
    empty = render(dataclasses.replace(spec, labels=tuple(map(tuple, EMPTY)), clutter=()))
    profile = calibrate(empty.frame, corners=empty.corners, edition="classic")
    assert profile, getattr(profile, "reason", "")
    tonight = render(dataclasses.replace(spec, board_shift=(1.0, 0.5), board_rot=4.0, clutter=()))
    tracker = BoardTracker(profile=profile, reference=empty.frame)
    committed = None
    for i in range(20):
        update = tracker.update(tonight.frame, t=i / 15.0, index=i)
        committed = update.committed or committed
    assert committed == [list(row) for row in tonight.labels]
    assert np.abs(tracker.corners - tonight.corners).max() < 3.0


def _nights(seed: int, difficulty: str, *, shift: tuple[float, float], turn: float, light_seed: int | None = None):
    """A profile calibrated on the empty board of ``seed`` (true corners, as the wizard's handles
    give them), its empty frame, and a later night's frame: chips on, the board moved by
    ``shift`` cells and ``turn`` degrees, under the lighting of ``light_seed`` if given."""
    import dataclasses

    spec = random_spec(seed, edition="classic", difficulty=difficulty)
    empty = render(dataclasses.replace(spec, labels=tuple(map(tuple, EMPTY)), clutter=()))
    profile = calibrate(empty.frame, corners=empty.corners, edition="classic")
    assert profile, getattr(profile, "reason", "")
    light = spec.lighting
    if light_seed is not None:
        light = random_spec(light_seed, edition="classic", difficulty=difficulty).lighting
    night = render(dataclasses.replace(spec, board_shift=shift, board_rot=turn, lighting=light, clutter=()))
    return profile, empty, night


def test_a_board_found_where_it_was_calibrated_keeps_the_profile_s_corners():
    """They may have been set by hand; a search landing a few hundredths of a cell away must
    not replace them."""
    import dataclasses

    from vision.detect import detect

    profile, empty, night = _nights(21, "normal", shift=(0.0, 0.0), turn=0.0)
    cell = float(np.linalg.norm(empty.corners[1] - empty.corners[0])) / 10
    by_hand = dataclasses.replace(profile, corners=(np.asarray(profile.corners) + 0.04 * cell).tolist())
    for reference in (empty.frame, None):
        det = detect(night.frame, profile=by_hand, reference=reference)
        assert det and det.source == "profile" and np.allclose(det.corners, by_hand.corners, atol=1e-3)


@pytest.mark.parametrize("with_reference", [True, False])
def test_a_board_laid_down_elsewhere_is_read_where_it_lies_not_through_the_profile_s_corners(with_reference):
    from vision.detect import detect

    profile, empty, night = _nights(21, "normal", shift=(1.0, 0.5), turn=4.0)
    det = detect(night.frame, profile=profile, reference=empty.frame if with_reference else None)
    assert det and np.abs(det.corners - night.corners).max() < 3.0
    assert det.labels == [list(row) for row in night.labels]


def test_a_reference_matched_in_a_wrong_place_is_overruled_by_locating_afresh():
    """A small, washed-out hard board under another light: its empty-board picture matched the
    board 19 px from where it lay (about a cell), and its chips were read through that grid."""
    from vision.detect import detect

    profile, empty, night = _nights(43, "hard", shift=(0.0, 0.0), turn=0.0, light_seed=543)
    det = detect(night.frame, profile=profile, reference=empty.frame)
    assert det and np.abs(det.corners - night.corners).max() < 3.0
