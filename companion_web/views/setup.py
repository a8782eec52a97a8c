"""Setting up a table: the new-game wizard and the calibration wizard's endpoints."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, jsonify

from companion_web.app import services
from companion_web.security import BadInput, parse_bool, pin_required
from companion_web.views.common import json_body, only_keys

log = logging.getLogger(__name__)

bp = Blueprint("setup", __name__, url_prefix="/api/setup")


@bp.post("/new-game")
@pin_required
def new_game() -> Any:
    """``{"teams": ["blue", "green"], "edition": "classic", "track_turns": true}`` (players optional)."""
    from engine.labels import parse_team_colour
    from engine.layout import EDITIONS

    body = json_body()
    only_keys(body, {"teams", "edition", "track_turns", "players"})
    teams = body.get("teams")
    if not isinstance(teams, list) or len(teams) not in (2, 3):
        raise BadInput(f"teams must be a list of 2 or 3 team colours, got {teams!r:.60}")
    try:
        colours = tuple(parse_team_colour(t if isinstance(t, str) else repr(t)) for t in teams)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if len(set(colours)) != len(colours):
        raise BadInput("each team needs its own colour")
    edition = body.get("edition", "classic")
    if edition not in EDITIONS:
        raise BadInput(f"edition must be one of {', '.join(EDITIONS)}, got {edition!r:.40}")
    track_turns = parse_bool(body.get("track_turns", True), what="track_turns")
    if "players" in body:
        from companion_web.security import parse_int

        deal_info(parse_int(body["players"], what="players", low=2, high=12), len(colours))
    svc = services()
    try:
        game = svc.make_game(colours, edition=edition, track_turns=track_turns)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    game_id = svc.hub.new_game(game)
    reset = getattr(svc.camera, "reset", None)
    if reset is not None:
        reset(edition)  # commit what the camera sees afresh, against the empty new game
    return jsonify(game_id=game_id, state=svc.hub.state())


@bp.get("/deal")
def deal() -> Any:
    """``?players=N&teams=T``: cards to deal each player and sequences needed to win."""
    from flask import request

    from companion_web.security import parse_int

    teams = parse_int(request.args.get("teams", "2"), what="teams", low=2, high=3)
    players = parse_int(request.args.get("players", ""), what="players", low=2, high=12)
    return jsonify(deal_info(players, teams))


def deal_info(players: int, teams: int) -> dict[str, Any]:
    """Cards each and sequences needed from ``engine.rules`` (``BadInput`` for an invalid table)."""
    from engine import rules

    try:
        sides = rules.team_counts(players)
        cards = rules.cards_dealt(players)
        needed = rules.sequences_needed(teams)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if teams not in sides:
        options = " or ".join(map(str, sides))
        raise BadInput(f"{players} players cannot play as {teams} teams; they play as {options}")
    return {"players": players, "teams": teams, "cards_each": cards, "sequences_needed": needed}


# ---------------------------------------------------------------- calibration wizard
PROFILES_DIR = "profiles"
TEACH_CELLS: tuple[tuple[int, int], ...] = ((4, 4), (4, 5), (5, 4), (5, 5))
"""Where the wizard asks for one chip of each colour: the middle of the board, well lit and flat."""


@dataclass
class CalibrationDraft:
    """The wizard's work in progress: the empty-board snapshot and what was learned so far."""

    frame: Any  # (H, W, 3) uint8 BGR, the empty-board reference
    jpeg: bytes
    edition: str
    colour_model: dict[str, Any] | None = None

    @property
    def size(self) -> tuple[int, int]:
        return int(self.frame.shape[1]), int(self.frame.shape[0])


def _edition() -> str:
    state = services().hub.state()
    edition = state.get("edition")
    return edition if isinstance(edition, str) else "classic"


def _latest_frame() -> Any:
    """The newest camera frame as a BGR array (409 while there is none)."""
    import numpy as np

    svc = services()
    if svc.camera is None:
        abort(409, "no camera is running; start with --source")
    frame = svc.camera.latest_frame()
    frame = getattr(frame, "image", frame)
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        abort(409, "no camera frame yet; wait a moment and try again")
    return frame


def _draft() -> CalibrationDraft:
    draft = services().calibration
    if not isinstance(draft, CalibrationDraft):
        abort(409, "take a snapshot first")
    return draft


def _teach_cells(edition: str) -> dict[str, list[int]]:
    from engine.labels import CLASSIC_COLOURS, JUMBO_COLOURS

    colours = JUMBO_COLOURS if edition == "jumbo" else CLASSIC_COLOURS
    return {colour: list(cell) for colour, cell in zip(colours, TEACH_CELLS, strict=False)}


@bp.post("/calibration/snapshot")
@pin_required
def calibration_snapshot() -> Any:
    """Capture the empty board and look for the grid; returns its size and the corners found."""
    import cv2

    frame = _latest_frame().copy()
    edition = _edition()
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        abort(409, "could not encode the camera frame")
    draft = CalibrationDraft(frame=frame, jpeg=encoded.tobytes(), edition=edition)
    services().calibration = draft
    corners, reason = _auto_corners(frame, edition)
    width, height = draft.size
    return jsonify(
        width=width,
        height=height,
        edition=edition,
        corners=corners,
        reason=reason,
        teach_cells=_teach_cells(edition),
    )


def _auto_corners(frame: Any, edition: str) -> tuple[list[list[float]] | None, str]:
    """The grid found with no help (canonical TL TR BR BL), or None and the reason.

    Finding it is a convenience: when it fails for any reason the person drags the corners.
    """
    import cv2

    from calibration.build import calibrate

    try:
        result = calibrate(frame, edition=edition)
    except (ValueError, cv2.error) as exc:
        log.warning("automatic grid search failed: %s", exc)
        return None, f"automatic search unavailable ({exc})"
    corners = getattr(result, "corners", None) if result else None
    if corners is None:
        return None, str(getattr(result, "reason", "") or "board not found")
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners], ""


@bp.get("/calibration/snapshot.jpg")
def calibration_image() -> Any:
    draft = services().calibration
    if not isinstance(draft, CalibrationDraft):
        abort(404, "no snapshot taken yet")
    response = Response(draft.jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


def _corners_from(body: dict[str, Any], draft: CalibrationDraft) -> list[list[float]]:
    from companion_web.security import parse_corners

    width, height = draft.size
    return parse_corners(body.get("corners"), width=width, height=height)


def _profile(draft: CalibrationDraft, corners: list[list[float]], name: str = "") -> Any:
    from calibration.profile import Profile, ProfileError

    try:
        return Profile(
            edition=draft.edition,
            corners=tuple((x, y) for x, y in corners),
            frame_size=draft.size,
            colour_model=draft.colour_model,
            name=name,
        )
    except ProfileError as exc:
        raise BadInput(str(exc)) from None


@bp.post("/calibration/test")
@pin_required
def calibration_test() -> Any:
    """Read the snapshot with these corners: the labels per cell, to check before saving, and
    the corners read through (dragged handles are brought onto the cards, as ``detect`` does)."""
    import numpy as np

    from calibration.build import camera_advice
    from vision.detect import detect

    body = json_body()
    only_keys(body, {"corners"})
    draft = _draft()
    corners = _corners_from(body, draft)
    profile = _profile(draft, corners)
    result = detect(
        draft.frame, corners=np.asarray(corners, dtype=np.float32), edition=draft.edition, profile=profile
    )
    if not result:
        return jsonify(labels=None, message=f"could not read the board: {result.reason}")
    width, height = draft.size  # (the handles stay on the picture, where the save wants them)
    read_through = [[round(min(max(float(x), 0.0), width), 1), round(min(max(float(y), 0.0), height), 1)]
                    for x, y in result.corners]
    moved = np.abs(np.asarray(read_through) - np.asarray(corners)).max() > 0.5
    moved_note = "The corners were moved onto the cards' edges." if moved else ""
    message = " ".join(filter(None, ("Read done: each dot shows what the cell holds.", moved_note,
                                     camera_advice(result, read_through))))
    return jsonify(labels=result.labels, corners=read_through, message=message)


@bp.post("/calibration/colours")
@pin_required
def calibration_colours() -> Any:
    """Learn chip colours from a fresh frame with one chip of each colour on the indicated cells."""
    body = json_body()
    only_keys(body, {"corners"})
    draft = _draft()
    corners = _corners_from(body, draft)
    frame = _latest_frame()
    if frame.shape != draft.frame.shape:
        abort(409, "the camera resolution changed; take a new snapshot")
    from calibration.build import learn_colours

    samples = {tuple(cell): colour for colour, cell in _teach_cells(draft.edition).items()}
    try:
        learned = learn_colours(_profile(draft, corners), frame, samples, empty_frame=draft.frame)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if not learned:
        raise BadInput(f"could not learn the colours: {getattr(learned, 'reason', 'unknown reason')}")
    draft.colour_model = learned.colour_model
    message = "Colours learned; remove the chips, then test and save."
    return jsonify(message=message, colours=sorted(samples.values()))


@bp.post("/calibration/save")
@pin_required
def calibration_save() -> Any:
    """Save the profile (JSON + empty-board reference image) as ``<data dir>/profiles/<name>.json``."""
    from calibration.profile import ProfileError, save_profile
    from companion_web.security import parse_name

    body = json_body()
    only_keys(body, {"corners", "name"})
    draft = _draft()
    name = parse_name(body.get("name", "table"), what="profile name")
    corners = _corners_from(body, draft)
    svc = services()
    path = Path(svc.data_dir) / PROFILES_DIR / f"{name}.json"
    try:
        save_profile(_profile(draft, corners, name), path, reference_image=draft.frame)
    except ProfileError as exc:
        raise BadInput(str(exc)) from None
    message = ""
    if svc.on_profile_saved is not None:
        message = svc.on_profile_saved(path) or ""
    return jsonify(name=name, file=f"{PROFILES_DIR}/{name}.json", corners=corners, message=message)


@bp.get("/profiles")
def profiles() -> Any:
    """Saved profiles in the data directory."""
    folder = Path(services().data_dir) / PROFILES_DIR
    names = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    return jsonify(profiles=names)
