"""The detect composition: corners override, falsy result with a reason, JSON shape, text notation."""

import json

import numpy as np
import pytest
from other_hand import other_hand

from vision.detect import Detection, detect, label_grid_text
from vision.sim import random_spec, render


@pytest.fixture(scope="module")
def scene():
    return render(random_spec(7, edition="classic", difficulty="easy"))


def test_corners_given_are_used_and_cells_read(scene):
    det = detect(scene.frame, corners=scene.corners, edition="classic")
    assert det
    assert det.source == "corners"
    assert np.allclose(det.corners, scene.corners)
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])
    assert det.confidence.shape == (10, 10)
    assert {"read", "total"} <= set(det.timings)


def test_corners_clicked_a_little_off_are_brought_onto_the_cards():
    """Corners 0.35 of a cell off, as clicked on a photo, put the chips near the far edges
    on the cell lines (9 cells read wrong here; a quarter cell off served until the patch network
    learned chips placed off centre); brought onto the cards, every cell reads right, and the
    corners returned are where the grid was read."""
    from vision.detect import DetectConfig
    from vision.sim.variety import clicked_corners

    seen = render(random_spec(17024, difficulty="normal"))
    given = clicked_corners(seen.corners, 0.35, 17024)
    truth = np.array(seen.labels)[~seen.occluded]
    as_given = detect(seen.frame, corners=given, config=DetectConfig(given_snap_cells=0))
    assert np.array_equal(as_given.corners, given)
    assert (np.array(as_given.labels)[~seen.occluded] != truth).sum() >= 5
    snapped = detect(seen.frame, corners=given)
    cell = np.linalg.norm(seen.corners[1] - seen.corners[0]) / 10
    assert np.abs(snapped.corners - seen.corners).max() < 0.1 * cell
    assert np.array_equal(np.array(snapped.labels)[~seen.occluded], truth)


def test_corners_given_on_the_cards_or_whole_cells_off_stand_as_given(scene):
    """Corners the cards would barely move are kept exactly; corners a whole cell off lie on
    the card gaps too, so which cell they meant is the person's to say."""
    assert np.array_equal(detect(scene.frame, corners=scene.corners).corners, scene.corners)
    from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography

    cell = np.linalg.norm(scene.corners[1] - scene.corners[0]) / 10
    one_over = GRID_CORNERS_UV + np.array([1.0, 0.0])
    shifted = apply_homography(grid_homography(scene.corners), one_over).astype(np.float32)
    assert np.abs(detect(scene.frame, corners=shifted).corners - shifted).max() < 0.1 * cell


@pytest.mark.parametrize("edition", ["classic", "jumbo"])
def test_corners_alone_tell_the_edition(edition):
    seen = render(random_spec(1001 if edition == "jumbo" else 7, edition=edition, difficulty="easy"))
    det = detect(seen.frame, corners=seen.corners)
    assert det.edition == edition
    visible = ~seen.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(seen.labels)[visible])


def test_to_dict_is_the_json_contract(scene):
    data = json.loads(json.dumps(detect(scene.frame, corners=scene.corners).to_dict()))
    assert len(data["corners"]) == 4 and all(len(p) == 2 for p in data["corners"])
    assert len(data["cells"]) == 10 and all(len(row) == 10 for row in data["cells"])
    assert isinstance(data["orientation_confidence"], float)
    assert set(v for row in data["cells"] for v in row) <= {
        "free", "empty", "blue", "green", "red", "yellow", "flipped"
    }


def test_no_board_is_a_falsy_result_with_a_reason():
    blank = np.full((480, 640, 3), 128, np.uint8)
    det = detect(blank)
    assert not det
    assert det.reason
    assert det.to_dict()["error"]


def test_profile_supplies_corners_edition_and_colours(scene):
    class FakeProfile:
        edition = "classic"
        corners = scene.corners.tolist()
        colour_model = None

    det = detect(scene.frame, profile=FakeProfile())
    assert det and det.source == "profile"
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"edition": "travel"}, "edition"),
        ({"corners": [[0, 0], [1, 1]]}, "corners"),
    ],
)
def test_bad_arguments_raise_value_error(scene, kwargs, match):
    with pytest.raises(ValueError, match=match):
        detect(scene.frame, **kwargs)


def test_bad_frames_raise_value_error():
    with pytest.raises(ValueError, match="frame"):
        detect(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="frame"):
        detect("not an image")


def test_text_notation_prints_flipped_as_w():
    labels = [["empty"] * 10 for _ in range(10)]
    for r, c in ((0, 0), (0, 9), (9, 9), (9, 0)):
        labels[r][c] = "free"
    labels[1][2], labels[3][4], labels[5][6] = "blue", "flipped", "yellow"
    text = label_grid_text(labels).splitlines()
    assert text[0] == "*........*"
    assert text[1][2] == "B" and text[3][4] == "W" and text[5][6] == "Y"
    assert len(text) == 10 and all(len(line) == 10 for line in text)


def test_a_failed_detection_is_falsy():
    assert not Detection(reason="board not found")


def test_corners_and_reference_compare_each_cell_with_its_empty_look():
    spec = random_spec(77, edition="jumbo", difficulty="easy")
    scene, empty = render(spec), render(spec, empty=True)
    det = detect(scene.frame, corners=scene.corners, reference=empty.frame, edition="jumbo")
    assert det and "ref_change" in det.features
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])


def test_profile_corners_follow_a_change_of_camera_resolution(scene):
    class HalfSizeProfile:
        edition = "classic"
        corners = (scene.corners / 2).tolist()
        frame_size = (scene.frame.shape[1] // 2, scene.frame.shape[0] // 2)
        colour_model = None

    det = detect(scene.frame, profile=HalfSizeProfile())
    assert np.allclose(det.corners, scene.corners, atol=1.5)


def test_green_chips_overrule_a_guessed_jumbo_shape():
    # seed 1006 is a classic board whose grid, seen at this pose, looks as wide as the Jumbo mat's
    seen = render(random_spec(1006, edition="classic", difficulty="easy"))
    labels = [list(row) for row in seen.labels]
    labels[1][1], labels[4][6] = "green", "green"
    seen = render(random_spec(1006, edition="classic", difficulty="easy", labels=labels))
    det = detect(seen.frame, corners=seen.corners)
    assert det.edition == "classic"
    visible = ~seen.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(seen.labels)[visible])


def test_once_the_chips_tell_the_edition_no_chip_of_the_other_set_is_read():
    # A yellow chip (only the Jumbo mat has them) among green ones on the classic board: the
    # green chips say classic, so the yellow one is read again with the classic colours.
    labels = [list(row) for row in render(random_spec(1006, edition="classic", difficulty="easy")).labels]
    for r, c in ((1, 1), (4, 6), (7, 3), (2, 8)):
        labels[r][c] = "green"
    labels[5][5] = "yellow"
    seen = render(random_spec(1006, edition="classic", difficulty="easy", labels=labels))
    det = detect(seen.frame, corners=seen.corners)
    assert det.edition == "classic"
    read = np.array(det.labels)
    assert read[5, 5] in ("blue", "green", "red")  # still a chip, in one of the board's colours
    assert not np.isin(read, ["yellow", "flipped"]).any()


def test_the_edition_follows_the_chips_counted_not_a_stray_misread():
    from vision.detect import _edition_of_chips

    def board(**counts: int) -> list[list[str]]:
        flat = [colour for colour, n in counts.items() for _ in range(n)]
        flat += ["empty"] * (100 - len(flat))
        return [flat[r * 10 : r * 10 + 10] for r in range(10)]

    assert _edition_of_chips(board(yellow=9, green=1, red=4)) == "jumbo"  # one white chip read green
    assert _edition_of_chips(board(green=3, blue=5)) == "classic"
    assert _edition_of_chips(board(green=2, yellow=2)) is None  # no clear witness
    assert _edition_of_chips(board(blue=6, red=6)) is None  # both sets have blue and red


@pytest.mark.parametrize(("seed", "difficulty"), [(9223, "normal"), (9299, "normal")])
def test_white_chips_the_classic_reader_misses_still_tell_the_jumbo_mat(seed, difficulty):
    """A Jumbo mat whose grid looks classic in shape, with blue and red chips (both sets have
    them) and a white sequence: read with classic colours, the white chips come out as no chips
    (or one blue), so nothing said Jumbo. The patch network still sees white chips; so do the
    round chips' outlines, on their own (``vision.roundness``)."""
    from dataclasses import replace

    from vision.detect import DetectConfig
    from vision.reader_config import ReaderConfig

    scene = render(random_spec(seed, edition="jumbo", difficulty=difficulty))
    visible = ~scene.occluded
    assert (np.array(scene.labels) == "flipped").sum() >= 5
    no_patch = replace(ReaderConfig(), patch_doubt=0.0)
    blind = detect(scene.frame, config=DetectConfig(reader=no_patch, roundness=None))
    assert blind.edition == "classic"
    for config in (DetectConfig(roundness=None), DetectConfig(reader=no_patch), DetectConfig()):
        det = detect(scene.frame, config=config)
        assert det.edition == "jumbo"
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])


def test_white_chips_are_possible_on_a_guessed_edition_only_with_the_empty_board_to_compare():
    from vision.detect import _colour_model, _edition_of_chips

    assert "flipped" in _colour_model(None, "classic", False, white_possible=True).prototypes
    assert "flipped" not in _colour_model(None, "classic", False).prototypes  # white cards, no reference
    assert "flipped" not in _colour_model(None, "classic", True, white_possible=True).prototypes  # told classic
    flat = ["flipped"] * 5 + ["blue"] * 3 + ["empty"] * 92
    assert _edition_of_chips([flat[r * 10 : r * 10 + 10] for r in range(10)]) == "jumbo"


def test_a_reference_that_shows_no_board_does_not_lose_the_board_in_the_frame(scene):
    """A spoiled reference shot (here: out of focus) must not make detect worse than no
    reference at all: the grid is located in the frame itself."""
    import cv2

    empty = render(random_spec(7, edition="classic", difficulty="easy"), empty=True)
    spoiled = cv2.GaussianBlur(empty.frame, (0, 0), 12)
    det = detect(scene.frame, reference=spoiled)
    assert det, det.reason
    assert det.source == "located"
    assert np.abs(det.corners - scene.corners).max() < 2.0
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])


def test_no_board_in_the_reference_nor_the_frame_says_both():
    table = np.full((360, 640, 3), 120, np.uint8)
    det = detect(table, reference=table)
    assert not det
    assert "reference image" in det.reason and "nor in the frame" in det.reason


def test_a_profile_calibrated_on_frames_of_another_shape_leaves_the_board_to_be_found(scene):
    class SquareFrameProfile:  # calibrated on a square frame, scaled corners would lie elsewhere
        edition = "classic"
        corners = (scene.corners * 0.8).tolist()
        frame_size = (scene.frame.shape[1], scene.frame.shape[1])
        colour_model = None

    det = detect(scene.frame, profile=SquareFrameProfile())
    assert det and det.source == "located"
    assert np.allclose(det.corners, scene.corners, atol=1.5)


def _mirrored(seen):
    """A webcam's mirrored picture of ``seen``, and where its canonical corners lie in it."""
    import cv2

    from vision.geometry import mirror_points

    return cv2.flip(seen.frame, 1), mirror_points(seen.corners, seen.frame.shape[1])


def test_a_mirroring_webcam_s_board_is_found_and_read(scene):
    """Many webcams mirror their picture by default; the print then matches no turn of the
    layout, and without a second look the board is never found."""
    frame, corners = _mirrored(scene)
    det = detect(frame)
    assert det, det.reason
    assert det.mirrored and det.to_dict()["mirrored"] is True
    assert np.abs(det.corners - corners).max() < 2.0
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])
    assert not detect(scene.frame, corners=scene.corners).mirrored


def test_a_mirrored_board_is_not_looked_for_when_told_not_to(scene):
    from vision.detect import DetectConfig

    frame, _ = _mirrored(scene)
    assert not detect(frame, config=DetectConfig(look_both_ways=False))


def test_a_mirrored_jumbo_mat_that_passes_for_a_board_as_seen_is_read_mirrored():
    """The turn network, which never saw a mirrored board, was sure of a wrong turn of this
    mirrored Jumbo mat as seen; its print reads far better flipped back."""
    import cv2

    from vision.geometry import mirror_points
    from vision.sim import random_spec, render

    seen = render(random_spec(96097, edition="jumbo", difficulty="normal"))
    frame = cv2.flip(seen.frame, 1)
    det = detect(frame)
    assert det and det.mirrored
    assert np.abs(det.corners - mirror_points(seen.corners, frame.shape[1])).max() < 2.0


def test_a_mirrored_mat_found_as_seen_on_a_doubtful_turn_is_looked_for_mirrored_too():
    """Seed 96035 (hard Jumbo, the picture mirrored): the card area's outline places the grid as
    seen, where the faint print passes the weaker test of a placed grid, but its turn is a guess
    (orientation confidence 0.24). Flipped back, the board is found sure of its turn (0.98), and
    that is the board returned; not looking the other way, the as-seen guess would be."""
    from dataclasses import replace

    import cv2

    from vision.detect import DetectConfig
    from vision.geometry import mirror_points
    from vision.sim import random_spec, render

    seen = render(random_spec(96035, edition="jumbo", difficulty="hard"))
    frame = cv2.flip(seen.frame, 1)
    truth = mirror_points(seen.corners, frame.shape[1])
    guess = detect(frame, config=replace(DetectConfig(), mirror_doubt_confidence=0.0))
    assert guess and not guess.mirrored and guess.orientation_confidence < 0.5
    det = detect(frame)
    assert det and det.mirrored and det.orientation_confidence > 0.9
    assert np.abs(det.corners - truth).max() < 3.0


def test_a_board_found_only_mirrored_whose_print_reads_better_as_seen_is_turned_as_seen():
    """Seed 22717 (normal Jumbo, nearly every card under a chip) through a dim webcam's washed
    colours: as seen the faint print missed the bar for a board found from nothing (z 4.7 of
    5.5), and flipped it passed, sure (0.98) of a turn that swapped two corners. At the quad
    found, the print reads far better as seen (turn z 5.1 against 3.1): it is the same board,
    not mirrored."""
    from benchmarks.camera_processing import PROCESSING
    from vision.sim import random_spec, render

    seen = render(random_spec(22717, edition="jumbo", difficulty="normal"))
    frame, truth = PROCESSING["saturation_x0.5"](seen.frame, np.asarray(seen.corners, np.float64))
    det = detect(frame)
    assert det and not det.mirrored
    assert np.abs(det.corners - truth).max() < 3.0


def test_a_camera_known_to_mirror_is_looked_at_mirrored_first(scene):
    """The tracker's search once its board was seen mirrored: one look finds it, and that look
    alone finds no board in a picture that is not mirrored."""
    from vision.detect import DetectConfig

    frame, corners = _mirrored(scene)
    only_mirrored = DetectConfig(mirrored_first=True, look_both_ways=False)
    det = detect(frame, config=only_mirrored)
    assert det and det.mirrored and np.abs(det.corners - corners).max() < 2.0
    assert "mirrored" in det.timings and "locate" not in det.timings
    assert not detect(scene.frame, config=only_mirrored)
    assert detect(scene.frame, config=DetectConfig(mirrored_first=True)).corners is not None


def test_round_chips_tell_a_classic_board_its_outline_takes_for_the_jumbo_mat():
    """A hard classic frame whose grid outline measures like the Jumbo mat, with only blue and
    red chips (both sets have them): nothing else told the edition, and glare on two cards was
    read as white chips, which only the Jumbo mat has. The chips' outlines are round on square
    cells (``vision.roundness``)."""
    from vision.detect import DetectConfig
    from vision.geometry import guess_edition

    scene = render(random_spec(98218, edition="classic", difficulty="hard"))
    assert guess_edition(scene.corners, (scene.frame.shape[1], scene.frame.shape[0]))[0] == "jumbo"
    assert {v for row in scene.labels for v in row} == {"free", "empty", "blue", "red"}
    outline_only = detect(scene.frame, config=DetectConfig(roundness=None))
    assert outline_only.edition == "jumbo" and any("flipped" in row for row in outline_only.labels)
    det = detect(scene.frame)
    assert det.edition == "classic"
    visible = ~scene.occluded
    assert np.array_equal(np.array(det.labels)[visible], np.array(scene.labels)[visible])


def test_a_board_found_running_past_the_picture_s_edge_says_which_cells_it_could_not_see():
    """Seed 25102 (normal, classic) cut a cell short of the grid's right: the grid is found from
    what shows, a corner 1.5 cells past the edge; the cells beyond are named and read unsure."""
    from vision.warp import cells_outside

    scene = render(random_spec(25102, edition="classic", difficulty="normal"))
    xs = scene.corners[:, 0]
    cut = np.ascontiguousarray(scene.frame[:, : int(xs.max() - (xs.max() - xs.min()) / 10)])
    det = detect(cut)
    assert det, det.reason
    beyond = cells_outside(scene.corners, cut.shape)
    assert beyond.any()
    assert np.array_equal(det.outside, beyond)
    assert (det.confidence[beyond] == 0.0).all()
    whole = detect(scene.frame)
    assert whole and not whole.outside.any() and whole.to_dict()["outside"] == []


def test_a_mat_drawn_by_another_hand_is_found_though_the_turn_network_refuses_it():
    """A Jumbo mat under 60 chips from a renderer written apart from ``vision.sim`` (navy vinyl,
    its own card art), cropped from a 1280x720 frame. The turn network refused its grid, found
    within half a pixel, and the board was "not found"; its print and the board network's card
    area keep it, and every cell is read as drawn."""
    frame, truth = other_hand("mat_other_hand")
    det = detect(frame)
    assert det, det.reason
    assert np.abs(np.asarray(det.corners) - np.float32(truth["corners"])).max() < 2.0
    assert det.edition == truth["edition"]
    assert det.labels == truth["cells"]


def test_bright_green_chips_of_another_set_tell_the_classic_board_not_the_mat(monkeypatch):
    """A classic board (navy border) from a third renderer written apart from ``vision.sim``,
    its green chips a bright paint (hue 133), cropped from a 1280x720 frame. With no edition
    given, the chips tell it and every cell is read as drawn. The patch network once was sure
    some of them were yellow, the Jumbo mat's colour (every green chip was read yellow at
    confidence 1.0); their hue is a green's, so even a network sure of yellow everywhere leaves
    them green in the edition vote."""
    from vision import patch_net
    from vision.classify import CellReader

    frame, truth = other_hand("bright_greens_other_hand")
    det = detect(frame)
    assert det, det.reason
    assert det.edition == "classic"
    assert det.labels == truth["cells"]

    cells = np.asarray(truth["cells"])
    chips = np.isin(cells, ["blue", "green", "red"])
    reader = CellReader(edition="classic")
    corners = np.float32(truth["corners"])
    reading = reader.read(frame, corners)
    yellow = np.where(np.array(patch_net.CLASSES) == "yellow", 20.0, 0.0).astype(np.float32)
    monkeypatch.setattr(patch_net.PatchNet, "class_logits", lambda self, patches: np.tile(yellow, (len(patches), 1)))
    seen = np.asarray(reader.seen_colours(frame, corners, reading))
    assert (cells == "green").sum() >= 5
    assert (seen[chips] == cells[chips]).all()
