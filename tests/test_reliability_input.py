"""Bad input everywhere: files to every command, bodies and paths to every route.

CLI: random, truncated, empty, huge and foreign files as the image/source and as ``--profile``
of every command that takes one -> non-zero exit, one line on stderr, no traceback.
HTTP: a hypothesis fuzz over every route of ``app.url_map`` (any method, odd path values,
malformed or oversized bodies, wrong types, out-of-range cells and corners) -> never a 500 or a
traceback, errors are JSON 4xx, and a refused request never changes the game.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webfakes import FakeCamera, FakeStore

from companion_web.app import create_app
from companion_web.cli import main
from companion_web.hub import Hub
from engine.game import Game

PIN = "9182"
SIZE = (640, 480)


# ============================================================================ the command line


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """One good board image and profile, and every kind of bad file, built once."""
    import cv2

    from calibration.profile import Profile, save_profile
    from vision.sim import random_spec, render

    folder = tmp_path_factory.mktemp("inputs")
    scene = render(random_spec(3, size=SIZE))
    good_image = folder / "board.png"
    cv2.imwrite(str(good_image), scene.frame)
    profile = Profile(edition=scene.edition, corners=tuple(map(tuple, scene.corners.tolist())), frame_size=SIZE)
    good_profile = folder / "good.json"
    save_profile(profile, good_profile, reference_image=render(random_spec(3, size=SIZE), empty=True).frame)
    png = good_image.read_bytes()
    text = good_profile.read_text()
    rng = np.random.default_rng(6)

    out = {"image": good_image, "profile": good_profile}

    def put(name: str, data: bytes) -> None:
        out[name] = folder / name
        out[name].write_bytes(data)

    put("random.png", rng.integers(0, 256, 50_000, dtype=np.uint8).tobytes())
    put("truncated.png", png[: len(png) // 3])
    put("header-only.png", png[:64])
    put("empty.png", b"")
    put("random.json", rng.integers(0, 256, 5_000, dtype=np.uint8).tobytes())
    put("truncated.json", text[: len(text) // 2].encode())
    put("empty.json", b"")
    put("foreign.json", json.dumps({"name": "some other program", "settings": [1, 2, 3]}).encode())
    put("array.json", b"[1, 2, 3]")
    put("nested.json", b"[" * 100_000 + b"]" * 100_000)  # a recursion bomb for naive parsers
    put("utf16.json", text.encode("utf-16"))
    for name, size in (("huge.png", 120_000_000), ("huge.json", 30_000_000)):
        out[name] = folder / name
        with open(out[name], "wb") as handle:  # sparse: costs no disk
            handle.truncate(size)
    broken_ref = folder / "broken-ref"
    broken_ref.mkdir()
    save_profile(profile, broken_ref / "p.json", reference_image=np.zeros((SIZE[1], SIZE[0], 3), np.uint8))
    for ref in broken_ref.glob("*.png"):
        ref.write_bytes(png[:100])
    out["broken-ref.json"] = broken_ref / "p.json"
    out["a-folder"] = folder / "a-folder"
    out["a-folder"].mkdir()
    out["missing"] = folder / "missing.json"
    return out


BAD_IMAGES = ("random.png", "truncated.png", "header-only.png", "empty.png", "huge.png", "a-folder", "missing",
              "random.json")
BAD_PROFILES = ("random.json", "truncated.json", "empty.json", "foreign.json", "array.json", "nested.json",
                "utf16.json", "huge.json", "broken-ref.json", "random.png", "a-folder", "missing")


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.err


def assert_one_line_failure(code: int, err: str, what: str) -> None:
    assert code != 0, what
    assert "Traceback" not in err, f"{what}: {err}"
    assert err.count("\n") == 1 and err.startswith("sequence-companion "), f"{what}: {err!r}"


@pytest.mark.parametrize("bad", BAD_IMAGES)
def test_detect_refuses_a_bad_image_in_one_line(files, capsys, bad) -> None:
    code, err = run_cli(capsys, "detect", str(files[bad]))
    assert_one_line_failure(code, err, bad)


@pytest.mark.parametrize("bad", BAD_PROFILES)
def test_detect_refuses_a_bad_profile_in_one_line(files, capsys, bad) -> None:
    code, err = run_cli(capsys, "detect", str(files["image"]), "--profile", str(files[bad]))
    assert_one_line_failure(code, err, bad)


@pytest.mark.parametrize("bad", BAD_PROFILES)  # one-shot commands refuse a broken reference image too
def test_replay_refuses_a_bad_profile_in_one_line(files, capsys, bad) -> None:
    code, err = run_cli(capsys, "replay", str(files["image"]), "--profile", str(files[bad]))
    assert_one_line_failure(code, err, bad)


@pytest.mark.parametrize("bad", ("random.png", "truncated.png", "empty.png", "huge.png", "missing", "random.json"))
def test_replay_and_calibrate_refuse_a_bad_source_in_one_line(files, capsys, tmp_path, bad) -> None:
    code, err = run_cli(capsys, "replay", str(files[bad]))
    assert_one_line_failure(code, err, f"replay {bad}")
    out = tmp_path / "out.json"
    code, err = run_cli(capsys, "calibrate", str(files[bad]), "-o", str(out))
    assert_one_line_failure(code, err, f"calibrate {bad}")
    assert not out.exists()
    code, err = run_cli(capsys, "calibrate", str(files["image"]), "-o", str(out), "--chips", str(files[bad]))
    assert_one_line_failure(code, err, f"calibrate --chips {bad}")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``serve`` as a subprocess: a bad file must stop it before it listens (else the timeout fails)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1",
                           "--port", str(free_port()), "--pin", "2468", *argv], capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_serve_refused(result: subprocess.CompletedProcess, what: str) -> None:
    assert result.returncode != 0, what
    assert "Traceback" not in result.stderr, f"{what}: {result.stderr}"
    assert len(result.stderr.strip().splitlines()) == 1, f"{what}: {result.stderr}"
    assert "--port" not in result.stderr, result.stderr


@pytest.mark.slow
def test_serve_refuses_bad_profiles_in_one_line(files, tmp_path) -> None:
    for bad in ("truncated.json", "foreign.json", "nested.json", "huge.json", "random.png", "a-folder"):
        result = serve("--data-dir", str(tmp_path / "data"), "--profile", str(files[bad]), "--source", "sim")
        assert_serve_refused(result, bad)


def database_files(data_dir: Path) -> list[Path]:
    """The game store's files (whatever their name): every file outside ``profiles/``."""
    return [p for p in data_dir.rglob("*") if p.is_file() and "profiles" not in p.parts
            and not p.name.startswith(".") and not p.name.endswith(("-wal", "-shm", "-journal", ".tmp"))]


@pytest.mark.slow
def test_serve_refuses_a_corrupt_or_foreign_database_and_leaves_it_untouched(files, tmp_path) -> None:
    import sqlite3
    import time

    data = tmp_path / "data"
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "0.png").write_bytes(files["image"].read_bytes())
    proc = subprocess.Popen([sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1",
                             "--port", str(free_port()), "--pin", "2468", "--data-dir", str(data),
                             "--source", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until it serves: the store is made by then
        line = proc.stdout.readline()
        if not line or line.startswith("Press Ctrl-C"):
            break
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    stores = database_files(data)
    assert stores, "serve created no game store in --data-dir"
    rng = np.random.default_rng(7)
    sqlite_header = b"SQLite format 3\x00"
    corruptions = {
        "random bytes": rng.integers(0, 256, 8192, dtype=np.uint8).tobytes(),
        "truncated": None,  # the real file cut short
        "a text file": b"these are my notes, not a database\n" * 50,
        "header then garbage": sqlite_header + rng.integers(0, 256, 8192, dtype=np.uint8).tobytes(),
    }
    original = {p: p.read_bytes() for p in stores}
    for what, content in corruptions.items():
        for path, data_bytes in original.items():
            path.write_bytes(content if content is not None else data_bytes[: max(100, len(data_bytes) // 3)])
        written = {p: p.read_bytes() for p in stores}
        try:
            result = serve("--data-dir", str(data), "--source", str(folder), timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"serve started on a database that is {what}: {sorted(p.name for p in data.iterdir())}")
        assert_serve_refused(result, what)
        assert {p: p.read_bytes() for p in stores} == written, f"{what}: the file was changed"
    for path in stores:  # a real SQLite database of another program
        path.unlink()
        with sqlite3.connect(path) as con:
            con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
            con.execute("INSERT INTO invoices (amount) VALUES (12.5)")
        con.close()
    written = {p: p.read_bytes() for p in stores}
    result = serve("--data-dir", str(data), "--source", str(folder))
    assert_serve_refused(result, "foreign database")
    assert {p: p.read_bytes() for p in stores} == written, "a foreign database was changed"


# ============================================================================ every HTTP route

STREAMS = {"/api/events", "/camera/stream.mjpg"}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    game = Game(("blue", "green"))
    app = create_app({
        "HUB": Hub(game, store=FakeStore()), "PIN": PIN, "DATA_DIR": tmp_path_factory.mktemp("data"),
        "CAMERA": FakeCamera(np.full((480, 640, 3), 90, np.uint8)),
        "GAME_FACTORY": lambda teams, **kw: Game(teams, **kw),
    })
    client = app.test_client()
    assert client.post("/api/setup/calibration/snapshot", headers={"X-PIN": PIN}).status_code == 200
    return app


def routes(app) -> list:
    return sorted(app.url_map.iter_rules(), key=lambda r: r.rule)


json_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True)
                | st.text(max_size=30) | st.sampled_from(["blue", "green", "flipped", "empty", "../x", "ＢＬＵＥ"]))
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)
cells = st.lists(st.integers(-20, 20) | st.floats(-1, 11) | st.booleans() | st.text(max_size=2), max_size=3)
odd_floats = st.sampled_from([float("nan"), float("inf"), -float("inf")])
points = st.lists(st.lists(st.floats(-1e6, 1e6) | odd_floats | st.integers(-5, 5000) | st.text(max_size=3),
                           max_size=3), max_size=5)
known = st.fixed_dictionaries({}, optional={
    "cell": cells | json_values, "label": json_scalars, "pin": json_scalars,
    "teams": st.lists(json_scalars, max_size=4) | json_values, "edition": json_scalars,
    "track_turns": json_scalars, "players": json_scalars, "corners": points | json_values,
    "name": json_scalars, "extra": json_values,
})


@st.composite
def raw_bodies(draw) -> bytes:
    kind = draw(st.sampled_from(["json", "known", "bytes", "truncated", "huge", "deep", "none"]))
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    if kind == "known":
        return json.dumps(draw(known)).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "truncated":
        text = json.dumps(draw(known))
        return text[: draw(st.integers(0, max(0, len(text) - 1)))].encode()
    if kind == "huge":
        return b'{"cell": [1, 1], "label": "' + b"b" * draw(st.integers(70_000, 300_000)) + b'"}'
    if kind == "deep":
        return b"[" * 5_000 + b"]" * 5_000
    return b""


path_values = st.text(max_size=30) | st.sampled_from(
    ["1", "0", "-1", "99999999999999999999", "..", "../../etc/passwd", "%2e%2e%2f", "a" * 300, "x\x00y"])


def concrete(rule, value: str) -> str:
    path = rule.rule
    for name in rule.arguments:
        for form in (f"<{name}>", f"<path:{name}>", f"<int:{name}>"):
            path = path.replace(form, quote(value, safe="") or "x")
    return path


def state_of(client) -> dict:
    state = client.get("/api/state").get_json()
    state.pop("camera", None)
    return state


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_every_route_never_fails_and_a_refusal_changes_nothing(app, data) -> None:
    client = app.test_client()
    rule = data.draw(st.sampled_from(routes(app)), label="route")
    methods = [*sorted(rule.methods - {"HEAD", "OPTIONS"}), "PUT", "DELETE", "PATCH"]
    method = data.draw(st.sampled_from(methods), label="method")
    path = concrete(rule, data.draw(path_values, label="path value"))
    if data.draw(st.booleans(), label="query"):
        path += "?" + data.draw(st.sampled_from(["players=4&teams=2", "players=x", "teams=-1", "a=%ff", "=&&="]))
    body = data.draw(raw_bodies(), label="body")
    content_type = data.draw(st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                              "multipart/form-data; boundary=x", ""]), label="content type")
    before = state_of(client)
    response = client.open(path, method=method, data=body, content_type=content_type or None,
                           headers={"X-PIN": PIN}, buffered=rule.rule not in STREAMS)
    try:
        status = response.status_code
        assert status < 500, (method, path, status, response.get_data()[:300])
        if rule.rule in STREAMS and status == 200:
            return
        data = response.get_data()
        assert b"Traceback" not in data and b'File "' not in data, (method, path)
        if status >= 400:
            assert response.is_json and response.get_json()["error"], (method, path, status)
    finally:
        response.close()
    if status >= 400:
        assert state_of(client) == before, (method, path, status)


def test_out_of_range_cells_and_corners_are_refused_and_change_nothing(app) -> None:
    client = app.test_client()
    before = state_of(client)
    cells_bad = ([10, 0], [0, 10], [-1, 5], [5, -1], [2**63, 0], [1e308, 1], [float("nan"), 1], [True, False],
                 ["3", "4"], [3], [3, 4, 5], [[3], [4]], None, "3,4", {"r": 3, "c": 4}, [0, 0])
    for cell in cells_bad:
        body = json.dumps({"cell": cell, "label": "blue"}, allow_nan=True)
        response = client.post("/api/correct", data=body, content_type="application/json", headers={"X-PIN": PIN})
        assert response.status_code == 400, cell
        assert response.get_json()["error"], cell
    inside = [[20, 20], [600, 20], [600, 460], [20, 460]]
    corners_bad = (
        [[-1, 20], *inside[1:]], [*inside[:3], [20, 481]], [*inside[:3], [641, 460]],
        [[float("inf"), 20], *inside[1:]], [[float("nan"), 20], *inside[1:]], inside[:3], [*inside, [1, 1]],
        [[20, 20], [21, 20], [21, 21], [20, 21]], [["20", 20], *inside[1:]], [[True, 20], *inside[1:]],
        [[2**80, 20], *inside[1:]], "tl,tr,br,bl", None, [[20, 20, 3], *inside[1:]],
    )
    files_before = sorted(Path(app.extensions["companion"].data_dir).rglob("*"))
    for route in ("/api/setup/calibration/test", "/api/setup/calibration/save", "/api/setup/calibration/colours"):
        for corners in corners_bad:
            body = json.dumps({"corners": corners}, allow_nan=True)
            response = client.post(route, data=body, content_type="application/json", headers={"X-PIN": PIN})
            assert response.status_code == 400, (route, corners)
    assert sorted(Path(app.extensions["companion"].data_dir).rglob("*")) == files_before
    assert state_of(client) == before


def test_a_refused_correction_on_a_locked_cell_or_corner_changes_nothing(tmp_path) -> None:
    """Valid JSON the engine must refuse: the hub gets the error as a 400, the position is kept."""
    game = Game(("blue", "green"), track_turns=False)
    for c in range(1, 6):
        game.correct((1, c), "blue")
    app = create_app({"HUB": Hub(game, store=FakeStore()), "PIN": PIN, "DATA_DIR": tmp_path})
    client = app.test_client()
    before = state_of(client)
    assert before["locked"], "five in a row should have locked"
    for cell, label in (([0, 0], "blue"), ([9, 9], "empty"), ([0, 9], "green")):
        response = client.post("/api/correct", json={"cell": cell, "label": label}, headers={"X-PIN": PIN})
        assert response.status_code in (200, 400), (cell, label)
        if response.status_code == 400:
            assert state_of(client) == before
