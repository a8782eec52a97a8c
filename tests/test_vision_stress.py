"""The stress benchmark's processings keep the truth: a frame turned, halved or mirrored has its
true corners moved with it, and the colour ones leave the geometry alone."""

import numpy as np
import pytest

from benchmarks import vision_stress

COLOURS = np.array([(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)])


def _marked_frame() -> tuple[np.ndarray, np.ndarray]:
    """A 240x320 grey frame with a differently coloured 8x8 square at each of four "corners",
    and the squares' centres."""
    frame = np.full((240, 320, 3), 128, np.uint8)
    centres = np.array([[40.5, 30.5], [270.5, 50.5], [250.5, 200.5], [60.5, 180.5]])
    for (x, y), colour in zip(centres, COLOURS, strict=True):
        frame[int(y) - 3 : int(y) + 5, int(x) - 3 : int(x) + 5] = colour
    return frame, centres


@pytest.mark.parametrize(("name", "shape"), [
    ("plain", (240, 320)), ("portrait", (320, 240)), ("half_size", (120, 160)), ("mirrored", (240, 320)),
    ("sharpened", (240, 320)), ("tungsten", (240, 320)),
])
def test_a_processed_frame_shows_each_corner_where_its_corners_say(name, shape):
    frame, corners = _marked_frame()
    out, moved = vision_stress.PROCESSING[name](frame, corners)
    assert out.shape[:2] == shape
    for k, (x, y) in enumerate(np.rint(moved).astype(int)):
        pixel = out[y, x].astype(int)
        assert np.abs(pixel - 128).max() > 60, (name, k)  # on a mark, not the grey around it
        assert np.linalg.norm(COLOURS - pixel, axis=1).argmin() == k, (name, k)  # on this corner's mark


def test_an_unknown_processing_is_refused_with_the_names_to_choose_from(capsys):
    with pytest.raises(SystemExit) as exit_info:
        vision_stress.main(["--only", "plain,fisheye"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown processing fisheye" in err and "saturation_x1.6" in err


def test_a_short_run_scores_every_processing_asked(capsys):
    assert vision_stress.main(["--frames", "1", "--only", "plain,portrait"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("plain", "portrait"))]
    assert [row[0] for row in rows] == ["plain", "portrait"]
    assert rows[0][1] == "100.00"  # a normal classic frame is found
