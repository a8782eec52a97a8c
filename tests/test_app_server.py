"""The app under waitress (as ``serve`` runs it): live SSE delivery and a clean stop."""

from __future__ import annotations

import http.client
import json
import time

import pytest
from webfakes import FakeGame

from companion_web.app import create_app
from companion_web.cmd_serve import WebServer
from companion_web.hub import Hub


@pytest.fixture
def server(tmp_path):
    hub = Hub(FakeGame())
    app = create_app({"HUB": hub, "PIN": "1234", "DATA_DIR": tmp_path, "SSE_MAX_CLIENTS": 3})
    server = WebServer(app, port=0, threads=8).start()
    yield server
    server.stop()


def open_stream(server: WebServer) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    return conn, response


def next_update(response: http.client.HTTPResponse) -> dict:
    lines = []
    while True:
        line = response.fp.readline().decode("utf-8").rstrip("\n")
        if line == "" and lines:
            data = "\n".join(x[6:] for x in lines if x.startswith("data: "))
            if data:
                return json.loads(data)
            lines = []
            continue
        if line:
            lines.append(line)


def test_events_reach_every_open_stream_quickly(server) -> None:
    streams = [open_stream(server) for _ in range(2)]
    for _, response in streams:
        assert next_update(response)["reason"] == "sync"
    hub = server.app.extensions["companion"].hub
    start = time.monotonic()
    hub.correct((4, 4), "green")
    for _, response in streams:
        update = next_update(response)
        assert update["events"][0]["type"] == "corrected"
        assert update["state"]["board"].splitlines()[4][4] == "G"
    assert time.monotonic() - start < 0.2
    for conn, _ in streams:
        conn.close()


def test_too_many_streams_get_a_clear_503_and_closing_frees_a_place(server) -> None:
    streams = [open_stream(server) for _ in range(3)]
    for _, response in streams:
        next_update(response)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/events")
    refused = conn.getresponse()
    assert refused.status == 503 and "too many" in json.loads(refused.read())["error"]
    conn.close()
    for conn, _ in streams:
        conn.close()


def test_stop_ends_open_streams(tmp_path) -> None:
    app = create_app({"HUB": Hub(FakeGame()), "PIN": "1234", "DATA_DIR": tmp_path})
    server = WebServer(app, port=0, threads=4).start()
    conn, response = open_stream(server)
    next_update(response)
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < 4
    assert response.fp.read().endswith(b"0\r\n\r\n")  # the last chunk: the stream ended
    conn.close()


def test_camera_view_streams_jpeg_parts_and_limits_viewers(tmp_path) -> None:
    from webfakes import FakeCamera

    app = create_app({"HUB": Hub(FakeGame()), "PIN": "1234", "DATA_DIR": tmp_path, "CAMERA": FakeCamera()})
    server = WebServer(app, port=0, threads=8).start()
    try:
        viewers = []
        for _ in range(4):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("GET", "/camera/stream.mjpg")
            response = conn.getresponse()
            assert response.status == 200
            assert response.getheader("Content-Type") == "multipart/x-mixed-replace; boundary=frame"
            viewers.append((conn, response))
        head = viewers[0][1].read(200)
        assert b"--frame\r\nContent-Type: image/jpeg" in head and b"\xff\xd8" in head
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", "/camera/stream.mjpg")
        assert conn.getresponse().status == 503
        conn.close()
        for conn, response in viewers:
            response.close()
            conn.close()
        slots = server.app.extensions["companion"].mjpeg_slots
        deadline = time.monotonic() + 10  # each stream notices its closed socket at its next write
        while slots._value < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert slots._value == 4
        for _ in range(6):  # HEAD requests never read the body, and must not keep a place
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("HEAD", "/camera/stream.mjpg")
            assert conn.getresponse().status == 200
            conn.close()
    finally:
        server.stop()


def test_head_and_aborted_streams_release_their_place(server) -> None:
    svc = server.app.extensions["companion"]
    for _ in range(5):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("HEAD", "/api/events")
        assert conn.getresponse().status == 200
        conn.close()
    deadline = time.monotonic() + 2
    while (svc.sse_clients or svc.hub.subscriber_count) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert svc.sse_clients == 0 and svc.hub.subscriber_count == 0
