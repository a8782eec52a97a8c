"""Loading still images: every bad file gets its own clear reason."""

import cv2
import numpy as np
import pytest

from vision.images import ImageError, load_image


def test_png_grey_and_alpha_become_bgr(tmp_path):
    grey = np.full((40, 50), 128, np.uint8)
    cv2.imwrite(str(tmp_path / "g.png"), grey)
    rgba = np.zeros((40, 50, 4), np.uint8)
    rgba[..., 1] = 200
    cv2.imwrite(str(tmp_path / "a.png"), rgba)
    assert load_image(tmp_path / "g.png").shape == (40, 50, 3)
    image = load_image(tmp_path / "a.png")
    assert image.shape == (40, 50, 3) and image[0, 0, 1] == 200


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty"),
        (b"hello, not an image" * 10, "not an image"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 50, "not an image"),
    ],
)
def test_bad_files(tmp_path, content, reason):
    path = tmp_path / "x.png"
    path.write_bytes(content)
    with pytest.raises(ImageError, match=reason):
        load_image(path)


def test_missing_folder_and_tiny(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="folder"):
        load_image(tmp_path)
    cv2.imwrite(str(tmp_path / "t.png"), np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ImageError, match="too small"):
        load_image(tmp_path / "t.png")


def test_truncated_jpeg_is_refused_or_partial_not_crash(tmp_path):
    ok, data = cv2.imencode(".jpg", np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8))
    assert ok
    (tmp_path / "cut.jpg").write_bytes(data.tobytes()[:300])
    try:
        image = load_image(tmp_path / "cut.jpg")
    except ImageError as exc:
        assert "cut.jpg" in str(exc)
    else:
        assert image.shape == (200, 200, 3)
