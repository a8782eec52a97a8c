"""The Flask application factory: services in ``app.extensions``, a blueprint per surface.

Nothing is opened at import time. ``create_app(config)`` builds (or receives) the ``Hub``
that owns the game, the PIN guard and the camera handle; waitress serves the result
(see ``cmd_serve``), never Flask's development server.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from companion_web.hub import Hub
from companion_web.security import SECURITY_HEADERS, BadInput, GuardConfig, PinGuard, new_pin

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "PIN": None,  # generated (and logged) when not given
    "DATA_DIR": None,  # engine.paths.default_data_dir() when not given
    "HUB": None,  # a ready Hub (tests, serve); else one is built from the store in DATA_DIR
    "CAMERA": None,  # pipeline-like: latest_frame(), latest_overlay_jpeg(), pause(), resume()
    "JOIN_URL": None,  # the address shown as a QR code on the page
    "ON_PROFILE_SAVED": None,  # callback(path) after the calibration wizard saves a profile
    "EDITION": "classic",
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "SSE_MAX_CLIENTS": 48,
    "MJPEG_FPS": 8.0,
    "GUARD": None,  # a GuardConfig
    "GAME_FACTORY": None,  # callable(teams, *, edition, track_turns) -> Game; engine.Game by default
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
}


@dataclass
class Services:
    """Long-lived objects the views share (``app.extensions["companion"]``)."""

    hub: Hub
    guard: PinGuard
    data_dir: Path
    join_url: str | None = None
    camera: Any = None
    on_profile_saved: Callable[[Path], None] | None = None
    calibration: Any = None
    make_game: Callable[..., Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    sse_clients: int = 0
    mjpeg_slots: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(4))


def services() -> Services:
    """The services of the current app (inside a request)."""
    from flask import current_app

    return current_app.extensions["companion"]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the companion app. ``config`` keys: see ``DEFAULTS`` (plus any Flask setting)."""
    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if config:
        app.config.from_mapping(config)

    data_dir = Path(app.config["DATA_DIR"]) if app.config["DATA_DIR"] else _default_data_dir()
    pin = app.config["PIN"] or new_pin()
    app.config["PIN"] = pin
    hub = app.config["HUB"] or _hub_from_store(data_dir, app.config["EDITION"])
    app.extensions["companion"] = Services(
        hub=hub,
        guard=PinGuard(pin, config=app.config["GUARD"] or GuardConfig()),
        data_dir=data_dir,
        join_url=app.config["JOIN_URL"],
        camera=app.config["CAMERA"],
        on_profile_saved=app.config["ON_PROFILE_SAVED"],
        make_game=app.config["GAME_FACTORY"] or _engine_game,
    )

    from companion_web.views import api, camera, page, setup

    app.register_blueprint(page.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(setup.bp)
    _register_errors(app)
    app.after_request(_add_headers)
    return app


def _default_data_dir() -> Path:
    from engine.paths import default_data_dir

    return Path(default_data_dir())


def _engine_game(teams: tuple[str, ...], **options: Any) -> Any:
    from engine import Game

    return Game(teams, **options)


def _hub_from_store(data_dir: Path, edition: str) -> Hub:
    """Resume the last game in ``data_dir`` or start a fresh two-team one."""
    from engine import Game, GameStore

    data_dir.mkdir(parents=True, exist_ok=True)
    store = GameStore(data_dir)
    resumed = store.resume_last()
    if resumed:
        game_id, game = resumed
        return Hub(game, store=store, game_id=game_id)
    return Hub(Game(teams=("blue", "green"), edition=edition), store=store)


def _register_errors(app: Flask) -> None:
    """Every error is JSON with a one-line message; never an HTML page or a traceback."""

    def http_error(exc: HTTPException) -> Any:
        response = jsonify(error=exc.description or exc.name, status=exc.code)
        response.status_code = exc.code or 500
        if exc.code == 405 and exc.valid_methods:  # type: ignore[attr-defined]
            response.headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
        return response

    def bad_input(exc: BadInput) -> Any:
        response = jsonify(error=str(exc), status=400)
        response.status_code = 400
        return response

    def unexpected(exc: Exception) -> Any:
        log.exception("unexpected error on %s %s", request.method, request.path)
        response = jsonify(error="internal error; the server log has the details", status=500)
        response.status_code = 500
        return response

    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(BadInput, bad_input)
    app.register_error_handler(Exception, unexpected)


def _add_headers(response: Any) -> Any:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path.startswith("/api/") and "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"
    return response
