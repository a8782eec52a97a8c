"""The camera view for troubleshooting: MJPEG of the overlay (grid and labels) and snapshots."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app

from companion_web.app import Services, services

bp = Blueprint("camera", __name__, url_prefix="/camera")

BOUNDARY = "frame"


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
    return response


def _frames(svc: Services, interval: float) -> Iterator[bytes]:
    try:
        last: Any = None
        idle = 0.0
        while not svc.hub.closed and svc.camera is not None:
            jpeg = svc.camera.latest_overlay_jpeg()
            if jpeg and (jpeg is not last or idle >= 5.0):
                last, idle = jpeg, 0.0
                head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
                yield head.encode("ascii") + bytes(jpeg) + b"\r\n"
            time.sleep(interval)
            idle += interval
    finally:
        svc.mjpeg_slots.release()
