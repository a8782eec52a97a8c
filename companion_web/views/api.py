"""The JSON API the page and scripts share: state, live events, history, corrections, games."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, abort, jsonify, session

from companion_web import security
from companion_web.app import services
from companion_web.security import BadInput, parse_cell, parse_correction_label, pin_required
from companion_web.sse import EventStream
from companion_web.views.common import json_body, only_keys

bp = Blueprint("api", __name__, url_prefix="/api")

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@bp.get("/state")
def state() -> Any:
    """The whole current state (engine ``state()`` plus camera, pause flag and event log)."""
    return jsonify(services().hub.state())


@bp.get("/history")
def history() -> Any:
    hub = services().hub
    return jsonify(game_id=hub.game_id, events=hub.history())


@bp.get("/events")
def events() -> Any:
    """Server-sent events: a full-state ``update`` first, then one ``update`` per change."""
    svc = services()
    with svc.lock:
        if svc.sse_clients >= svc_limit():
            abort(503, "too many pages are open; close one and reload")
        svc.sse_clients += 1
    subscriber, first = svc.hub.subscribe()

    def closed() -> None:
        svc.hub.unsubscribe(subscriber)
        with svc.lock:
            svc.sse_clients -= 1

    body = EventStream(first, subscriber, heartbeat_s=svc.hub.config.sse.heartbeat_s, on_close=closed)
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def svc_limit() -> int:
    from flask import current_app

    return int(current_app.config["SSE_MAX_CLIENTS"])


@bp.get("/session")
def session_info() -> Any:
    """Whether this page already entered the PIN (and its CSRF token if so)."""
    if session.get("auth") is True:
        return jsonify(authenticated=True, csrf=session.get("csrf"))
    return jsonify(authenticated=False)


@bp.post("/login")
@security.checks_pin_itself
def login() -> Any:
    body = json_body()
    only_keys(body, {"pin"})
    if not isinstance(body.get("pin"), str):
        raise BadInput("pin must be a string")
    return jsonify(authenticated=True, csrf=security.login(body["pin"]))


@bp.post("/logout")
@pin_required
def logout() -> Any:
    session.clear()
    return jsonify(authenticated=False)


@bp.post("/correct")
@pin_required
def correct() -> Any:
    """``{"cell": [r, c], "label": "blue"}``: what is really on that cell."""
    body = json_body()
    only_keys(body, {"cell", "label"})
    if "cell" not in body or "label" not in body:
        raise BadInput('expected {"cell": [row, col], "label": "..."}')
    cell = parse_cell(body["cell"])
    label = parse_correction_label(body["label"])
    hub = services().hub
    try:
        events = hub.correct(cell, label)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return jsonify(events=[_event(e) for e in events], state=hub.state())


@bp.post("/undo")
@pin_required
def undo() -> Any:
    hub = services().hub
    try:
        events = hub.undo()
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return jsonify(events=[_event(e) for e in events], state=hub.state())


@bp.post("/pause")
@pin_required
def pause() -> Any:
    return _set_paused(True)


@bp.post("/resume")
@pin_required
def resume() -> Any:
    return _set_paused(False)


def _set_paused(paused: bool) -> Any:
    svc = services()
    camera = svc.camera
    if camera is not None:
        (camera.pause if paused else camera.resume)()
    svc.hub.set_paused(paused)
    return jsonify(paused=paused)


@bp.get("/games")
def games() -> Any:
    """Past games in the store, newest first."""
    store = getattr(services().hub, "store", None)
    if store is None:
        return jsonify(games=[])
    return jsonify(games=[_plain(g) for g in store.list_games()])


@bp.get("/games/<game_id>/export")
def export(game_id: str) -> Any:
    """One past game as JSON (every event), offered as a download."""
    if not GAME_ID_RE.match(game_id):
        raise BadInput(f"game id {game_id[:40]!r} is not valid")
    store = getattr(services().hub, "store", None)
    if store is None:
        abort(404, "no game store")
    key: Any = int(game_id) if game_id.isdigit() else game_id
    try:
        data = store.export(key)
    except (KeyError, LookupError):
        abort(404, f"no game {game_id!r}")
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if data is None:
        abort(404, f"no game {game_id!r}")
    response = jsonify(_plain(data))
    response.headers["Content-Disposition"] = f'attachment; filename="sequence-game-{game_id}.json"'
    return response


def _event(event: Any) -> dict[str, Any]:
    return event if isinstance(event, dict) else event.to_dict()


def _plain(value: Any) -> Any:
    """Store rows may be dataclasses or dicts; make them JSON-ready."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    return value


@bp.get("/layout")
def layout() -> Any:
    """The printed board (cards and ink per cell) and colour names, from ``engine.layout``/``labels``."""
    from engine.labels import CLASSIC_COLOURS, JUMBO_COLOURS, TEAM_COLOURS
    from engine.layout import EDITIONS, INK_MAP, LAYOUT, SIZE

    response = jsonify(
        size=SIZE,
        cards=LAYOUT,
        ink=INK_MAP,
        team_colours=TEAM_COLOURS,
        edition_colours={"classic": CLASSIC_COLOURS, "jumbo": JUMBO_COLOURS},
        editions={name: e.description for name, e in EDITIONS.items()},
    )
    response.headers["Cache-Control"] = "max-age=3600"
    return response
