"""Calibration profiles: round trip, strict validation, atomic save with the reference image."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.profile import (
    Profile,
    ProfileError,
    load_profile,
    load_reference_image,
    save_profile,
)

CORNERS = ((100.0, 80.0), (700.0, 90.0), (690.0, 600.0), (110.0, 590.0))


def make_profile(**changes) -> Profile:
    return Profile(edition="classic", corners=CORNERS, frame_size=(800, 700), **changes)


def test_round_trip_with_reference_image(tmp_path):
    image = np.zeros((70, 80, 3), np.uint8)
    image[10:20, 5:30] = (10, 200, 30)
    saved = save_profile(make_profile(name="kitchen"), tmp_path / "table.json", reference_image=image)
    assert saved.reference_image == "table.reference.png"
    loaded = load_profile(tmp_path / "table.json")
    assert loaded == saved
    assert np.array_equal(load_reference_image(loaded, tmp_path / "table.json"), image)
    assert not list(tmp_path.glob("*.tmp")), "temporary files must not be left behind"


def write(tmp_path, data) -> str:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(format="other"), "not a sequence-companion profile"),
        (lambda d: d.update(edition="travel"), "edition 'travel'"),
        (lambda d: d.update(corners=[[0, 0], [1, 1]]), "four"),
        (lambda d: d.update(corners=[[0, 0], [10, 0], [0, 10], [10, 10]]), "in order"),
        (lambda d: d.update(corners="abc"), "corners"),
        (lambda d: d.update(frame_size=[0, 10]), "frame_size"),
        (lambda d: d.update(reference_image="../../etc/passwd.png"), "beside the profile"),
        (lambda d: d.update(reference_image="/abs/ref.png"), "beside the profile"),
        (lambda d: d.pop("edition"), "missing 'edition'"),
    ],
)
def test_bad_profiles_are_refused_with_the_reason(tmp_path, mutate, message):
    data = make_profile().to_dict()
    mutate(data)
    with pytest.raises(ProfileError, match=message):
        load_profile(write(tmp_path, data))


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"), ("", "not valid JSON")],
)
def test_unreadable_files(tmp_path, content, message):
    with pytest.raises(ProfileError, match=message):
        load_profile(write(tmp_path, content))


def test_binary_huge_and_missing_files(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ProfileError, match="not UTF-8"):
        load_profile(binary)
    huge = tmp_path / "h.json"
    huge.write_bytes(b" " * 2_000_000)
    with pytest.raises(ProfileError, match="too large"):
        load_profile(huge)
    with pytest.raises(ProfileError, match="no such profile"):
        load_profile(tmp_path / "missing.json")


def test_missing_reference_image_is_reported(tmp_path):
    save_profile(make_profile(reference_image="gone.png"), tmp_path / "p.json")
    profile = load_profile(tmp_path / "p.json")
    with pytest.raises(ProfileError, match="missing"):
        load_reference_image(profile, tmp_path / "p.json")


def test_corners_far_outside_frame_refused():
    with pytest.raises(ProfileError, match="outside"):
        Profile(edition="jumbo", corners=((0, 0), (9000, 0), (9000, 9000), (0, 9000)), frame_size=(640, 480))


def test_profile_with_broken_reference_strict_and_lenient(tmp_path, caplog):
    from calibration.profile import load_profile_and_reference

    saved = save_profile(make_profile(), tmp_path / "p.json", reference_image=np.zeros((40, 40, 3), np.uint8))
    (tmp_path / saved.reference_image).write_bytes(b"not a png")
    with pytest.raises(ProfileError, match="not a readable image"):
        load_profile_and_reference(tmp_path / "p.json")
    profile, reference = load_profile_and_reference(tmp_path / "p.json", strict=False)
    assert profile == saved and reference is None
    assert "reference image not used" in caplog.text
