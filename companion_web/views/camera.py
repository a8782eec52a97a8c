"""The camera view for troubleshooting: MJPEG of the overlay (grid and labels) and snapshots."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app

from companion_web.app import Services, services

bp = Blueprint("camera", __name__, url_prefix="/camera")

BOUNDARY = "frame"
REPEAT_S = 2.0
"""Seconds after which an unchanged overlay is sent again (keeps the view and connection alive)."""


def _part(jpeg: bytes) -> bytes:
    head = f"Content-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode("ascii")
    return head + jpeg + f"\r\n--{BOUNDARY}\r\n".encode("ascii")


def _camera(svc: Services) -> Any:
    if svc.camera is None:
        abort(404, "no camera is running")
    return svc.camera


@bp.get("/snapshot.jpg")
def snapshot() -> Any:
    """The latest overlay frame as one JPEG (404 while no frame has arrived)."""
    jpeg = _camera(services()).latest_overlay_jpeg()
    if not jpeg:
        abort(404, "no camera frame yet")
    response = Response(bytes(jpeg), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/stream.mjpg")
def stream() -> Any:
    """The overlay as a motion-JPEG stream (an ``<img>`` shows it; no script needed)."""
    svc = services()
    _camera(svc)
    # Each viewer holds a server thread; the camera view is for troubleshooting, so few are allowed.
    if not svc.mjpeg_slots.acquire(blocking=False):
        abort(503, "the camera view is open on too many pages")
    interval = 1.0 / float(current_app.config["MJPEG_FPS"])
    response = Response(_frames(svc, interval), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}")
    response.headers["Cache-Control"] = "no-store"
    response.call_on_close(svc.mjpeg_slots.release)  # runs even if the body is never read (HEAD)
    return response


def _frames(svc: Services, interval: float) -> Iterator[bytes]:
    """Browsers show a part only once the next one starts: the first frame goes out twice, and an
    unchanged picture is repeated every ``REPEAT_S`` so a still camera still shows promptly."""
    yield f"--{BOUNDARY}\r\n".encode("ascii")
    last: Any = None
    idle = 0.0
    while not svc.hub.closed and svc.camera is not None:
        jpeg = svc.camera.latest_overlay_jpeg()
        if jpeg and (jpeg is not last or idle >= REPEAT_S):
            part = _part(bytes(jpeg))
            yield part + part if last is None else part
            last, idle = jpeg, 0.0
        time.sleep(interval)
        idle += interval
