"""Loading still images: every bad file gets its own clear reason."""

import struct

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
        (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 50, "HEIC photo: save or export it as JPEG"),
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


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with a minimal EXIF block whose Orientation tag is ``orientation`` (as phones write)."""
    tiff = (b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
            + struct.pack(">HHII", 0x0112, 3, 1, orientation << 16) + struct.pack(">I", 0))
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def test_phone_photo_is_turned_as_a_viewer_shows_it(tmp_path):
    image = np.zeros((40, 80, 3), np.uint8)
    image[:, :40] = (0, 0, 255)  # left half red as stored
    ok, jpeg = cv2.imencode(".jpg", image)
    assert ok
    path = tmp_path / "phone.jpg"
    path.write_bytes(_with_exif_orientation(jpeg.tobytes(), 6))  # 6: turn 90 degrees clockwise to view
    shown = load_image(path)
    assert shown.shape == (80, 40, 3)
    assert shown[5, 20, 2] > 200 and shown[75, 20, 2] < 60  # the stored left half is now on top
