"""Clips on disk: frames plus a truth file that reads back the same events and boards."""

from __future__ import annotations

import cv2
import pytest

from vision.sim import GameSpec, random_spec, render, simulate_game
from vision.sim.clip import labels_at, read_truth, truth_path, write_clip, write_scene

SMALL = (320, 180)


@pytest.fixture(scope="module")
def sim():
    return simulate_game(GameSpec(seed=11, size=SMALL))


def test_folder_clip_round_trips(sim, tmp_path) -> None:
    n = 40
    tp = write_clip(sim, tmp_path / "clip", max_frames=n)
    assert tp == tmp_path / "clip" / "truth.json"
    assert len(list((tmp_path / "clip").glob("frame_*.jpg"))) == n
    truth = read_truth(tmp_path / "clip")
    assert truth["n_frames"] == n and truth["fps"] == sim.spec.fps
    assert truth["events"] == [e for e in sim.events if e["frame"] < n]
    for i in (0, n // 2, n - 1):
        assert labels_at(truth, i) == sim.truth_labels(i)
    assert truth["corners"] and len(truth["corners"][0]["corners"]) == 4
    img = cv2.imread(str(tmp_path / "clip" / "frame_000000.jpg"))
    assert img.shape == (SMALL[1], SMALL[0], 3)


def test_video_clip_plays_back(sim, tmp_path) -> None:
    path = tmp_path / "game.mp4"
    tp = write_clip(sim, path, max_frames=12)
    assert tp == truth_path(path) == tmp_path / "game.truth.json"
    cap = cv2.VideoCapture(str(path))
    count = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        count += 1
        assert frame.shape == (SMALL[1], SMALL[0], 3)
    cap.release()
    assert count == 12
    assert read_truth(path)["n_frames"] == 12


def test_bad_truth_files_give_a_reason(tmp_path) -> None:
    with pytest.raises(ValueError, match="no simulated-clip truth"):
        read_truth(tmp_path / "missing")
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read"):
        read_truth(bad)
    bad.write_text('{"version": 99}')
    with pytest.raises(ValueError, match="version"):
        read_truth(bad)


def test_still_scene_is_saved_with_its_truth(tmp_path) -> None:
    scene = render(random_spec(2, size=SMALL))
    tp = write_scene(scene, tmp_path / "still.png")
    assert tp.name == "still.truth.json"
    assert cv2.imread(str(tmp_path / "still.png")).shape == scene.frame.shape
