"""``sequence-companion serve`` as a user runs it: addresses, QR, PIN, resume, clean Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(data_dir: Path, port: int, *extra: str) -> tuple[subprocess.Popen, list[str]]:
    cmd = [sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--pin", "2468", "--data-dir", str(data_dir), *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("Press Ctrl-C"):
            return proc, lines
    proc.kill()
    raise AssertionError("serve did not start:\n" + "\n".join(lines) + proc.stderr.read())


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def stop(proc: subprocess.Popen) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    return proc.returncode, out, err


def empty_board_folder(folder: Path) -> Path:
    import cv2

    from vision.sim import random_spec, render

    folder.mkdir()
    cv2.imwrite(str(folder / "frame-000.png"), render(random_spec(2, size=(640, 480)), empty=True).frame)
    return folder


def test_serve_prints_how_to_join_resumes_and_stops_cleanly(tmp_path) -> None:
    port = free_port()
    frames = empty_board_folder(tmp_path / "frames")
    data = tmp_path / "data"
    proc, lines = start(data, port, "--source", str(frames))
    try:
        text = "\n".join(lines)
        assert f"http://127.0.0.1:{port}/" in text
        assert "PIN for changes: 2468" in text
        assert "▀" in text or "█" in text  # the terminal QR code
        assert "new game" in text
        state = get_json(f"http://127.0.0.1:{port}/api/state")
        assert len(state["board"].splitlines()) == 10
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/correct", method="POST", headers={"X-PIN": "2468",
            "Content-Type": "application/json"}, data=json.dumps({"cell": [4, 4], "label": "blue"}).encode())
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
    finally:
        code, out, err = stop(proc)
    assert code == 0, err
    assert "stopped" in out and "Traceback" not in err

    proc, lines = start(data, port, "--source", str(frames))
    try:
        assert "resumed game" in "\n".join(lines)
        assert get_json(f"http://127.0.0.1:{port}/api/state")["board"].splitlines()[4][4] == "B"
    finally:
        assert stop(proc)[0] == 0


def test_the_simulated_table_always_starts_a_fresh_game(tmp_path) -> None:
    from engine import Game
    from engine.store import GameStore

    store = GameStore(tmp_path)
    stored = store.new_game(Game())
    store.close()
    port = free_port()
    proc, lines = start(tmp_path, port, "--source", "sim")
    try:
        text = "\n".join(lines)
        assert "simulated table" in text and f"new game {stored + 1}" in text
        assert get_json(f"http://127.0.0.1:{port}/api/state")["game_id"] == stored + 1
    finally:
        assert stop(proc)[0] == 0


def test_camera_names_the_source_and_no_option_is_taken_from_its_first_letters() -> None:
    """``serve --camera 1`` is how people ask for a webcam; it once parsed as --camera-size 1."""
    from companion_web.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["serve", "--camera", "1"]).source == "1"
    for argv in (["serve", "--camera-s", "native"], ["detect", "board.png", "--cor", "1,2,3,4,5,6,7,8"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)


def test_serve_refuses_bad_options_with_one_line(tmp_path) -> None:
    for extra, needle in ((["--pin", "12"], "--pin"), (["--source", "/no/such/file.mp4"], "no such file"),
                          (["--profile", str(tmp_path / "missing.json")], "missing.json"),
                          (["--camera-size", "1280"], "--camera-size")):
        result = subprocess.run(
            [sys.executable, "-m", "companion_web.cli", "serve", "--port", str(free_port()),
             "--data-dir", str(tmp_path), *extra], capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert needle in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
