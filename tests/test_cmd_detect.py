"""`sequence-companion detect`: readable and JSON output, overlay, and every bad input."""

import dataclasses
import json

import cv2
import numpy as np
import pytest

from companion_web.cli import main
from vision.sim import random_spec, render


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    scene = render(random_spec(9, edition="classic", difficulty="easy"))
    path = tmp_path_factory.mktemp("detect") / "board.png"
    cv2.imwrite(str(path), scene.frame)
    corners = ",".join(f"{v:.2f}" for v in scene.corners.ravel())
    return scene, path, corners


def test_json_output_with_corners(board, capsys):
    scene, path, corners = board
    assert main(["detect", str(path), "--corners", corners, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert out.count("\n") == 1
    visible = ~scene.occluded
    assert np.array_equal(np.array(data["cells"])[visible], np.array(scene.labels)[visible])
    assert np.allclose(data["corners"], scene.corners, atol=0.01)
    assert 0.0 <= data["orientation_confidence"] <= 1.0


def test_readable_output_is_the_engine_notation(board, capsys):
    scene, path, corners = board
    assert main(["detect", str(path), "--corners", corners]) == 0
    lines = capsys.readouterr().out.splitlines()
    grid = lines[:10]
    assert all(len(line) == 10 and set(line) <= set("*.BGRYW") for line in grid)
    assert grid[0][0] == "*" and grid[9][9] == "*"
    letters = {"empty": ".", "free": "*", "blue": "B", "green": "G", "red": "R"}
    expected = np.array([[letters[v] for v in row] for row in scene.labels])
    visible = ~scene.occluded
    assert np.array_equal(np.array([list(line) for line in grid])[visible], expected[visible])
    assert any(line.startswith("corners:") for line in lines)


def test_readable_output_says_when_the_picture_is_mirrored(board, tmp_path, capsys):
    scene, path, corners = board
    assert main(["detect", str(path), "--corners", corners]) == 0
    assert "mirrored" not in capsys.readouterr().out
    flipped = tmp_path / "mirrored.png"
    cv2.imwrite(str(flipped), cv2.flip(scene.frame, 1))
    assert main(["detect", str(flipped)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("picture is mirrored" in line for line in lines)
    letters = {"empty": ".", "free": "*", "blue": "B", "green": "G", "red": "R"}
    expected = np.array([[letters[v] for v in row] for row in scene.labels])
    visible = ~scene.occluded
    assert np.array_equal(np.array([list(line) for line in lines[:10]])[visible], expected[visible])


def test_readable_output_says_when_the_board_s_turn_is_unsure(board, capsys, monkeypatch):
    """A turn the print barely told (seed 11039, hard, a crowded Jumbo mat in dim light: found
    at the right place, read at 0.08 and wrong) is said, with what to do about it."""
    import vision.detect

    scene, path, corners = board
    assert main(["detect", str(path), "--corners", corners]) == 0
    assert "unsure" not in capsys.readouterr().out
    found = vision.detect.detect(scene.frame, corners=scene.corners)
    unsure = dataclasses.replace(found, orientation_confidence=0.08)
    monkeypatch.setattr(vision.detect, "detect", lambda *a, **k: unsure)
    assert main(["detect", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("turn is unsure" in line and "--corners" in line for line in lines)


def test_overlay_is_written(board, tmp_path, capsys):
    _, path, corners = board
    out = tmp_path / "overlay.png"
    assert main(["detect", str(path), "--corners", corners, "--overlay", str(out)]) == 0
    image = cv2.imread(str(out))
    source = cv2.imread(str(path))
    assert image is not None and image.shape == source.shape
    assert np.any(image != source)


def _bad_inputs(tmp_path, board):
    scene, path, _ = board
    crossed = scene.corners[[0, 1, 3, 2]]  # TL, TR, BL, BR: the outline folds over itself
    elsewhere = scene.corners + 3000.0  # meant for another (much larger) picture
    text = tmp_path / "notes.txt"
    text.write_text("not an image")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 128, np.uint8))
    return {
        "missing file": [str(tmp_path / "nope.png")],
        "not an image": [str(text)],
        "empty image": [str(empty)],
        "board not found": [str(blank)],
        "malformed corners": [str(path), "--corners", "1,2,3"],
        "non-numeric corners": [str(path), "--corners", "a,b,c,d,e,f,g,h"],
        "degenerate corners": [str(path), "--corners", "0,0,1,1,2,2,3,3"],
        "crossed corners": [str(path), "--corners", ",".join(f"{v:.1f}" for v in crossed.ravel())],
        "corners off the picture": [str(path), "--corners", ",".join(f"{v:.1f}" for v in elsewhere.ravel())],
    }


@pytest.mark.parametrize("case", ["missing file", "not an image", "empty image", "board not found",
                                  "malformed corners", "non-numeric corners", "degenerate corners",
                                  "crossed corners", "corners off the picture"])
def test_bad_input_is_one_line_and_non_zero(case, board, tmp_path, capsys):
    args = _bad_inputs(tmp_path, board)[case]
    assert main(["detect", *args]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert main(["detect", *args, "--json"]) != 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert set(data) == {"error"} and data["error"]


@pytest.mark.parametrize(("case", "says"), [("crossed corners", "in order"),
                                            ("corners off the picture", "outside the")])
def test_corners_that_cannot_be_this_pictures_grid_are_refused_saying_why(case, says, board, tmp_path, capsys):
    """Corners in the wrong order, or meant for another picture, would read the frame's edge or a
    folded outline as a board: the user is told what is wrong with them instead."""
    args = _bad_inputs(tmp_path, board)[case]
    assert main(["detect", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sequence-companion detect: --corners ") and says in err


def test_a_greyscale_photo_is_refused_with_what_to_do(board, tmp_path, capsys):
    """Every chip of a greyscale photo would read as one team: the user is told why instead."""
    scene, _, _ = board
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY))
    assert main(["detect", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "no colour" in captured.err
    assert main(["detect", str(path), "--json"]) == 1
    assert "no colour" in json.loads(capsys.readouterr().out)["error"]


def test_readable_output_says_where_glare_blinded_the_board(board, tmp_path, capsys):
    from glarescenes import glare_scene

    _, path, corners = board
    assert main(["detect", str(path), "--corners", corners]) == 0
    assert "glare" not in capsys.readouterr().out
    scene = glare_scene()
    lamp = tmp_path / "lamp.png"
    cv2.imwrite(str(lamp), scene.frame)
    spot = ",".join(f"{v:.2f}" for v in scene.corners.ravel())
    assert main(["detect", str(lamp), "--corners", spot]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("glare:")]
    assert len(said) == 1 and "move the lamp" in said[0]
    assert main(["detect", str(lamp), "--corners", spot, "--json"]) == 0
    blinded = json.loads(capsys.readouterr().out)["glare"]
    assert blinded and all(0 <= r < 10 and 0 <= c < 10 for r, c in blinded)
    assert f"{len(blinded)} cells" in said[0]


def test_cells_past_the_picture_s_edge_are_named_and_read_at_no_confidence(board, tmp_path, capsys):
    """A photo that cuts the board: given the corners (past the right edge), the cells beyond
    it are read from pixels the camera never saw; detect says which, and is not sure of them."""
    from vision.warp import cells_outside

    scene, path, corners = board
    assert main(["detect", str(path), "--corners", corners]) == 0
    assert "outside the picture" not in capsys.readouterr().out
    xs = scene.corners[:, 0]
    cut = scene.frame[:, : int(xs.max() - 1.2 * (xs.max() - xs.min()) / 10)]
    photo = tmp_path / "cut.png"
    cv2.imwrite(str(photo), cut)
    beyond = cells_outside(scene.corners, cut.shape)
    assert beyond.sum() >= 2
    assert main(["detect", str(photo), "--corners", corners]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("outside the picture")]
    assert len(said) == 1 and f"{int(beyond.sum())} cells" in said[0]
    assert main(["detect", str(photo), "--corners", corners, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(map(tuple, data["outside"])) == [tuple(int(v) for v in rc) for rc in np.argwhere(beyond)]
    assert (np.array(data["confidence"])[beyond] == 0.0).all()
    assert (np.array(data["confidence"])[~beyond] > 0.0).any()


def test_a_picture_with_no_board_says_board_not_found_once_and_what_to_check(tmp_path, capsys):
    """A colourful picture of something else goes through the whole search. The user reads
    "board not found" once (not "board not found: no board: ...") and what to check, with the
    print's score in brackets for whoever wants it."""
    picture = np.zeros((240, 320, 3), np.uint8)
    picture[..., 1] = 140
    picture[..., 2] = np.linspace(0, 200, 320)[None, :]
    path = tmp_path / "wall.png"
    cv2.imwrite(str(path), picture)
    assert main(["detect", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sequence-companion detect: board not found: ") and err.count("\n") == 1
    assert "no board" not in err and "whole board is in view" in err
