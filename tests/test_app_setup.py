"""The calibration wizard's endpoints on a simulated empty board: snapshot, test read, teach, save."""

from __future__ import annotations

import json

import numpy as np
import pytest
from webfakes import FakeCamera, FakeGame

from companion_web.app import create_app
from companion_web.hub import Hub

PIN = "9753"


@pytest.fixture(scope="module")
def scene():
    from vision.sim import random_spec, render

    return render(random_spec(11, size=(800, 600)), empty=True)


@pytest.fixture
def client(scene, tmp_path):
    app = create_app({"HUB": Hub(FakeGame()), "PIN": PIN, "DATA_DIR": tmp_path, "CAMERA": FakeCamera(scene.frame)})
    return app.test_client()


def post(client, path, body=None):
    return client.post(path, data=json.dumps(body) if body is not None else None,
                       content_type="application/json", headers={"X-PIN": PIN})


def test_steps_before_a_snapshot_are_refused_clearly(client, scene) -> None:
    corners = scene.corners.tolist()
    for path in ("/api/setup/calibration/test", "/api/setup/calibration/save", "/api/setup/calibration/colours"):
        response = post(client, path, {"corners": corners})
        assert response.status_code == 409 and "snapshot" in response.get_json()["error"]
    assert client.get("/api/setup/calibration/snapshot.jpg").status_code == 404


def test_snapshot_test_read_and_save(client, scene, tmp_path) -> None:
    snap = post(client, "/api/setup/calibration/snapshot")
    assert snap.status_code == 200
    info = snap.get_json()
    assert (info["width"], info["height"]) == (800, 600)
    assert set(info["teach_cells"]) == {"blue", "green", "red"}
    image = client.get("/api/setup/calibration/snapshot.jpg")
    assert image.mimetype == "image/jpeg" and image.data[:2] == b"\xff\xd8"

    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in scene.corners]
    read = post(client, "/api/setup/calibration/test", {"corners": corners}).get_json()
    labels = read["labels"]
    assert labels is not None and len(labels) == 10
    assert labels[0][0] == "free"
    assert sum(row.count("empty") for row in labels) >= 90  # an empty board reads empty

    for bad in ({"corners": corners[:3]}, {"corners": [[-5, 0], *corners[1:]]}, {"corners": corners, "x": 1}):
        assert post(client, "/api/setup/calibration/test", bad).status_code == 400
    for name in ("../evil", "a/b", "", "x" * 41):
        response = post(client, "/api/setup/calibration/save", {"name": name, "corners": corners})
        assert response.status_code == 400 and "profile name" in response.get_json()["error"]
    assert not (tmp_path / "evil.json").exists()

    saved = post(client, "/api/setup/calibration/save", {"name": "kitchen", "corners": corners})
    assert saved.status_code == 200
    profile = json.loads((tmp_path / "profiles" / "kitchen.json").read_text())
    assert [v for p in profile["corners"] for v in p] == pytest.approx([v for p in corners for v in p])
    assert profile["frame_size"] == [800, 600]
    assert client.get("/api/setup/profiles").get_json() == {"profiles": ["kitchen"]}


def test_teaching_colours_on_an_empty_board_says_which_chip_is_missing(client, scene) -> None:
    post(client, "/api/setup/calibration/snapshot")
    response = post(client, "/api/setup/calibration/colours", {"corners": scene.corners.tolist()})
    assert response.status_code == 400
    assert "no chip seen" in response.get_json()["error"]


def test_the_test_read_says_when_the_board_is_small_in_the_picture(scene, tmp_path) -> None:
    """The wizard is where the camera is placed: a board with cells under 20 pixels is told to
    come closer; the usual board is not."""
    import dataclasses

    from vision.sim import random_spec, render

    spec = random_spec(11, size=(800, 600))
    far = render(dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, fill=0.25)), empty=True)
    for shown, small in ((scene, False), (far, True)):
        camera = FakeCamera(shown.frame)
        client = create_app({"HUB": Hub(FakeGame()), "PIN": PIN, "DATA_DIR": tmp_path, "CAMERA": camera}).test_client()
        post(client, "/api/setup/calibration/snapshot")
        dragged = [[round(float(x), 1), round(float(y), 1)] for x, y in shown.corners]
        read = post(client, "/api/setup/calibration/test", {"corners": dragged}).get_json()
        assert ("small in the picture" in read["message"]) == small, read["message"]


def test_the_test_read_says_where_glare_blinded_the_board(scene, tmp_path) -> None:
    from glarescenes import glare_scene

    plain = create_app({"HUB": Hub(FakeGame()), "PIN": PIN, "DATA_DIR": tmp_path, "CAMERA": FakeCamera(scene.frame)})
    post(plain.test_client(), "/api/setup/calibration/snapshot")
    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in scene.corners]
    read = post(plain.test_client(), "/api/setup/calibration/test", {"corners": corners}).get_json()
    assert "Glare" not in read["message"]

    lamp = glare_scene(empty=True)
    app = create_app({"HUB": Hub(FakeGame(edition="jumbo")), "PIN": PIN, "DATA_DIR": tmp_path,
                      "CAMERA": FakeCamera(lamp.frame)})
    client = app.test_client()
    post(client, "/api/setup/calibration/snapshot")
    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in lamp.corners]
    read = post(client, "/api/setup/calibration/test", {"corners": corners}).get_json()
    assert read["labels"] is not None
    assert "Glare: " in read["message"] and "move the lamp" in read["message"]


def test_the_test_read_brings_dragged_handles_onto_the_cards(client, scene, tmp_path) -> None:
    """Handles dropped a quarter cell off the grid's corners come back where the grid was read,
    and the page is told so; the profile saved from them then holds the grid's corners."""
    post(client, "/api/setup/calibration/snapshot")
    cell = float(np.linalg.norm(scene.corners[1] - scene.corners[0])) / 10
    dropped = [[round(float(x) + dx, 1), round(float(y) + dy, 1)]
               for (x, y), (dx, dy) in zip(scene.corners, 0.25 * cell * np.array([[1, 0], [0, 1], [-1, 0], [0, -1]]),
                                           strict=True)]
    read = post(client, "/api/setup/calibration/test", {"corners": dropped}).get_json()
    assert np.abs(np.asarray(read["corners"]) - scene.corners).max() < 0.1 * cell
    assert "moved onto the cards" in read["message"]
    saved = post(client, "/api/setup/calibration/save", {"name": "snapped", "corners": read["corners"]})
    assert saved.status_code == 200
    exact = [[round(float(x), 1), round(float(y), 1)] for x, y in scene.corners]
    again = post(client, "/api/setup/calibration/test", {"corners": exact}).get_json()
    assert "moved" not in again["message"]
