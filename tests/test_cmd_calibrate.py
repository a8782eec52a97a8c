"""``sequence-companion calibrate``: a profile file from rendered frames, and clear errors."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.profile import load_profile, load_reference_image
from companion_web.cli import main
from vision.sim import random_spec, render

EMPTY = [["free" if (r, c) in {(0, 0), (0, 9), (9, 9), (9, 0)} else "empty" for c in range(10)] for r in range(10)]


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cal")
    labels = [row[:] for row in EMPTY]
    labels[2][3], labels[6][6] = "blue", "green"
    spec = random_spec(21, edition="classic", difficulty="easy", labels=labels)
    empty, chips = render(spec, empty=True), render(spec)
    cv2.imwrite(str(folder / "empty.png"), empty.frame)
    cv2.imwrite(str(folder / "chips.png"), chips.frame)
    corners = ",".join(f"{v:.2f}" for v in empty.corners.ravel())
    return folder, corners, empty


def test_calibrate_with_corners_and_taught_chips(frames, tmp_path, capsys):
    folder, corners, empty = frames
    out = tmp_path / "table.json"
    code = main(["calibrate", str(folder / "empty.png"), "-o", str(out), "--corners", corners,
                 "--chips", str(folder / "chips.png"), "--chip", "blue=2,3", "--chip", "green=6,6"])
    assert code == 0, capsys.readouterr().err
    profile = load_profile(out)
    assert profile.edition == "classic"
    assert profile.colour_model is not None
    assert load_reference_image(profile, out).shape == empty.frame.shape
    printed = capsys.readouterr().out
    assert "Saved" in printed and "guessed from the board's outline" in printed
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(out), "--corners", corners,
                 "--edition", "classic", "--force"]) == 0
    assert "guessed" not in capsys.readouterr().out


def _calibrated(scene, path, edition, capsys) -> list[str]:
    """What ``calibrate`` prints for a rendered ``scene`` saved at ``path``, with its true corners."""
    cv2.imwrite(str(path), scene.frame)
    spot = ",".join(f"{v:.2f}" for v in scene.corners.ravel())
    assert main(["calibrate", str(path), "-o", str(path.with_suffix(".json")), "--corners", spot,
                 "--edition", edition]) == 0
    printed = capsys.readouterr().out
    assert "Saved" in printed
    return printed.splitlines()


def test_a_clear_close_view_gets_no_camera_advice(frames, tmp_path, capsys):
    folder, corners, _ = frames
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(tmp_path / "plain.json"),
                 "--corners", corners, "--edition", "classic"]) == 0
    printed = capsys.readouterr().out
    assert "Glare" not in printed and "small in the picture" not in printed


def test_calibrating_under_a_glare_spot_says_to_move_the_lamp(tmp_path, capsys):
    from glarescenes import glare_scene

    printed = _calibrated(glare_scene(empty=True), tmp_path / "lamp.png", "jumbo", capsys)
    assert any(line.startswith("Glare: ") and "move the lamp" in line for line in printed)


def test_calibrating_a_board_small_in_the_picture_says_to_bring_the_camera_closer(tmp_path, capsys):
    """Calibration is when the camera is placed: a board whose cells are under 20 pixels is read
    worse, and the person is told so."""
    import dataclasses

    spec = random_spec(21, edition="classic", difficulty="easy")
    far = render(dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, fill=0.25)), empty=True)
    printed = _calibrated(far, tmp_path / "far.png", "classic", capsys)
    assert any("small in the picture" in line and "move the camera closer" in line for line in printed)


def test_calibrating_a_board_the_picture_cuts_names_the_cells_past_its_edge(tmp_path, capsys):
    """A camera that shows all but the last column would give a profile reading those cells from
    the picture's edge pixels all game long: calibration says which and to move the camera."""
    import types

    scene = render(random_spec(25102, edition="classic", difficulty="normal"), empty=True)
    xs = scene.corners[:, 0]
    cut = np.ascontiguousarray(scene.frame[:, : int(xs.max() - (xs.max() - xs.min()) / 10)])
    printed = _calibrated(types.SimpleNamespace(frame=cut, corners=scene.corners), tmp_path / "cut.png",
                          "classic", capsys)
    assert any(line.startswith("Outside the picture: ") and "(1, 9)" in line and "move the camera" in line
               for line in printed), printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--chip", "blue=2,3"], "--chip needs --chips"),
        (["--chips", "x.png"], "--chips needs at least one --chip"),
        (["--chips", "x.png", "--chip", "blue:2:3"], "COLOUR=ROW,COL"),
        (["--corners", "1,2,3"], "--corners"),
        (["--corners", "3000,3000,4000,3000,4000,4000,3000,4000"], "--corners lie far outside"),
        (["--corners", "100,100,300,100,100,300,300,300"], "--corners cross or fold over"),
    ],
)
def test_option_errors_are_one_line(frames, tmp_path, capsys, extra, message):
    folder, _corners, _ = frames
    assert run_cli(["calibrate", str(folder / "empty.png"), "-o", str(tmp_path / "p.json"), *extra]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "p.json").exists()


def run_cli(argv: list[str]) -> int:
    """The exit code, whether argparse (SystemExit) or the command itself refused."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_missing_image_and_existing_output(frames, tmp_path, capsys):
    folder, corners, _ = frames
    assert main(["calibrate", str(tmp_path / "nope.png"), "-o", str(tmp_path / "p.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    existing = tmp_path / "old.json"
    existing.write_text("keep me")
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(existing), "--corners", corners]) == 2
    assert "--force" in capsys.readouterr().err
    assert existing.read_text() == "keep me"


def test_chips_left_on_the_board_are_refused(tmp_path, capsys):
    labels = [row[:] for row in EMPTY]
    for c in range(2, 8):
        labels[5][c] = "red"
    scene = render(random_spec(4, edition="classic", difficulty="easy", labels=labels))
    cv2.imwrite(str(tmp_path / "busy.png"), scene.frame)
    corners = ",".join(f"{v:.2f}" for v in scene.corners.ravel())
    code = main(["calibrate", str(tmp_path / "busy.png"), "-o", str(tmp_path / "p.json"), "--corners", corners])
    assert code == 1
    assert "does not look empty" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


def test_json_output_is_one_object_and_sentences_carry_no_json(frames, tmp_path, capsys):
    """A person reads sentences; a script asks ``--json`` and gets exactly one JSON object: what
    was saved and the advice, or the error."""
    folder, corners, _ = frames
    out = tmp_path / "table.json"
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(out), "--corners", corners]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Saved") and not any(line.lstrip().startswith("{") for line in lines)
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(out), "--corners", corners,
                 "--chips", str(folder / "chips.png"), "--chip", "blue=2,3", "--chip", "green=6,6",
                 "--json", "--force"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"] == str(out) and data["edition"] == load_profile(out).edition
    assert np.allclose(data["corners"], load_profile(out).corners, atol=0.01)
    assert data["colours_learned"] == ["blue", "green"] and any("guessed" in line for line in data["advice"])
    assert main(["calibrate", str(folder / "empty.png"), "-o", str(out), "--json"]) != 0  # (exists, no --force)
    captured = capsys.readouterr()
    assert set(json.loads(captured.out)) == {"error"} and "--force" in captured.err
