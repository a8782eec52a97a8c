"""One still frame in, the board's 100 cells out: locate -> orient -> rectify -> read.

``detect`` composes the stages and times each one. Where the grid comes from, strongest first:
corners the user gave; an empty-board reference (re-found by features + homography, which
survives chips and hands covering the board); a calibration profile's corners; or found from
scratch with no help. A board that cannot be found gives a falsy ``Detection`` with a reason.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine.labels import TEAM_COLOURS, edition_of_colours
from engine.layout import EDITIONS, SIZE
from vision.classify import CellReader, CellReading
from vision.colour import DEFAULT_PROTOTYPES, NO_COLOUR, ColourModel, default_labels, lacks_colour
from vision.flipped import FlippedPrior, with_flipped_lines
from vision.geometry import (
    NO_BOARD,
    GridFit,
    check_corners_in,
    guess_edition,
    mirror_points,
    mirrored,
    order_as_seen,
    shift_in_cells,
)
from vision.glare import glare_cells
from vision.locate import LocateConfig, locate_grid
from vision.reader_config import ReaderConfig
from vision.roundness import RoundnessConfig, chip_roundness, edition_by_roundness, sure_chips
from vision.settle import refine_corners, settle_corners
from vision.teams import TeamsPrior, with_teams_in_play
from vision.warp import cells_outside, check_frame, corners_in_frame

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DetectConfig:
    """Options of the composition (the stages keep their own configs)."""

    reader: ReaderConfig = field(default_factory=ReaderConfig)
    default_edition: str = "classic"
    locate: LocateConfig = field(default_factory=LocateConfig)
    """How the grid is searched for in the frame when no corners are given."""
    reference_locate: LocateConfig = field(default_factory=LocateConfig.for_empty_board)
    """How it is searched for in an empty-board reference: thoroughly and strictly, since
    everything read later stands on where its grid was put (when it is not found there, the
    frame itself is searched)."""
    given_snap_cells: float = 0.5
    """Corners given by hand are finished as a located grid is (the card-gap fit, else the fine
    corner network: ``vision.settle.settle_corners``), moving at most this many cells (0: taken
    exactly as given). A click on a photo is rarely exact, and a
    quarter cell off puts the chips near the grid's far edges on the cell lines (on 30 normal
    frames, seeds 17000-17029, 0.94 % of the cells read wrong); farther off than half a cell,
    which cell a corner meant is the person's to say."""
    given_keep_cells: float = 0.1
    """Given corners the cards would move less than this (cells, at the farthest corner) stand
    as given: they were set with care, and the gap fit and the corner network are no surer."""
    calibrated_within_cells: float = 0.1
    """A board found this close (cells, at the farthest corner) to where a profile's corners put
    it is read through those corners, which may have been set by hand; farther, it was laid
    down elsewhere, or the camera moved, since calibration."""
    same_place_cells: float = 0.25
    """Two searches whose grids lie this close (cells) found the board at the same place."""
    relocate_fallback: bool = True
    """When the reference shows no board, or re-finding from it fails, locate from scratch
    before giving up."""
    flipped: FlippedPrior | None = field(default_factory=FlippedPrior)
    """White chips read as whole sequences (None: cell by cell)."""
    teams: TeamsPrior | None = field(default_factory=TeamsPrior)
    """Doubtful chips of a colour no clear chip shows in play read as a team in play
    (``vision.teams``; None: each chip's colour on its own)."""
    roundness: RoundnessConfig | None = field(default_factory=RoundnessConfig)
    """How the chips' outlines are measured to tell the edition where their colours do not
    (``vision.roundness``; None: not measured)."""
    look_both_ways: bool = True
    """Where no board shows, look for one in the frame flipped left to right as well: many
    webcams and phone cameras mirror their picture by default, as a video call's self-view does."""
    mirrored_first: bool = False
    """Look in the flipped frame first: the camera is known to mirror (the tracker sets this
    once it has found its board mirrored), so a search costs one look, not two."""
    mirror_doubt_z: float = 1.5
    """A board found one way whose print reads this much better (``vision.orient.turn_z``, the
    best turn's) the other way is looked for the other way too: a mirrored Jumbo mat can pass
    for a board as seen, its turn network sure of a wrong turn. (At true corners of 120 plain
    frames, seeds 97000-97119, the other way never read more than 0.77 better; of four mirrored
    frames found as seen, seeds 96030, 96031, 96047 and 96097, three read 1.7 to 6.4 better
    flipped back.)"""
    mirror_doubt_confidence: float = 0.5
    """A board found one way whose turn is this unsure (``orientation_confidence`` under it) is
    looked for the other way too, and the board found there taken where its turn is at least
    this sure: a mirrored board whose outline places its grid passes as seen on a faint print.
    (Seed 96035 of vision_stress.py's mirrored frames: as seen 0.24, mirrored 0.98.)"""


NOT_FOUND = "board not found"


@dataclass
class Detection:
    """The result of ``detect``; falsy when the board was not read, with ``reason``: a line to
    show the user (``board not found: ...``, or why the frame cannot be read at all).

    ``corners`` ``(4, 2)`` float32 canonical (TL, TR, BR, BL; TL = outer corner of cell (0, 0));
    ``labels`` 10x10 label strings; ``confidence`` ``(10, 10)`` float32 in [0, 1].
    """

    corners: np.ndarray | None = None
    labels: list[list[str]] | None = None
    confidence: np.ndarray | None = None
    orientation_confidence: float = 0.0
    edition: str | None = None
    source: str = ""
    """How the grid was placed: ``corners``, ``reference``, ``profile`` or ``located``."""
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    features: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    outside: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=bool))
    """``(10, 10)`` bool: the cells (free corners aside) whose centre lies outside the picture,
    read at confidence 0 from the edge's pixels (``vision.warp.cells_outside``); all False when
    the board was not read."""

    def __bool__(self) -> bool:
        return self.corners is not None and self.labels is not None and not self.reason

    @property
    def glare(self) -> np.ndarray:
        """``(10, 10)`` bool: the cells a lamp's glare clipped to white, where a chip may not show
        (``vision.glare``); all False when the board was not read."""
        return glare_cells(self.features)

    @property
    def mirrored(self) -> bool:
        """Whether the frame shows the board mirrored (its corners run anticlockwise on screen)."""
        return self.corners is not None and mirrored(self.corners)

    def to_dict(self) -> dict[str, Any]:
        """The ``detect --json`` object (an ``{"error": ...}`` object when not found)."""
        if not self:
            return {"error": self.reason or NOT_FOUND, "timings_ms": _rounded(self.timings)}
        assert self.corners is not None and self.confidence is not None
        return {
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "cells": self.labels,
            "orientation_confidence": round(float(self.orientation_confidence), 4),
            "confidence": [[round(float(v), 3) for v in row] for row in self.confidence],
            "edition": self.edition,
            "source": self.source,
            "mirrored": self.mirrored,
            "glare": _cell_list(self.glare),
            "outside": _cell_list(self.outside),
            "timings_ms": _rounded(self.timings),
        }


def _cell_list(cells: np.ndarray) -> list[list[int]]:
    """``[[row, col], ...]`` of the True cells of ``(10, 10)`` bool ``cells``, for JSON."""
    return [[int(r), int(c)] for r, c in np.argwhere(cells)]


def _rounded(timings: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 2) for k, v in timings.items()}


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + 1000.0 * (time.perf_counter() - start)


@dataclass(frozen=True)
class _Placement:
    corners: np.ndarray | None
    edition: str
    orientation_confidence: float
    source: str
    reason: str = ""
    reference_corners: np.ndarray | None = None

    def __bool__(self) -> bool:
        return self.corners is not None and not self.reason


def _locate_and_orient(frame: np.ndarray, edition: str | None, timings: dict[str, float],
                       config: LocateConfig, detect_config: DetectConfig) -> _Placement:
    """Find the grid with no help and decide which corner is (0, 0), in the frame as seen and,
    where no board shows there, in the frame flipped left to right (a webcam set to mirror shows
    the print mirrored, which reads as no layout at all); ``detect_config`` says which ways to
    look and in what order. A board found flipped keeps its corners in this frame's pixels,
    anticlockwise on screen (``vision.geometry.mirrored``): cells are read through the same
    corners whichever way the picture is flipped."""
    first = detect_config.mirrored_first
    looks = (first, not first) if detect_config.look_both_ways else (first,)
    failed: dict[bool, _Placement] = {}
    for look_mirrored in looks:
        placed = _locate_and_orient_looking(frame, edition, timings, config, look_mirrored)
        if placed:
            sure = detect_config.mirror_doubt_confidence
            if len(looks) > 1 and look_mirrored == first:
                better = _reads_better_flipped(frame, placed, look_mirrored, detect_config.mirror_doubt_z, timings)
                if better or placed.orientation_confidence < sure:
                    other = _locate_and_orient_looking(frame, edition, timings, config, not look_mirrored)
                    if other and (better or other.orientation_confidence >= sure):
                        log.info("the board reads better %s: taking the board found that way",
                                 "as seen" if look_mirrored else "mirrored")
                        return other
            elif failed and _reads_better_flipped(frame, placed, look_mirrored, detect_config.mirror_doubt_z, timings):
                # Found only this way, yet its print reads better the way the first look missed
                # it (faint print, most cards under chips): the same board, turned the first way.
                turned = _orient_quad(frame, placed, not look_mirrored, timings)
                if turned:
                    log.info("the board found %s reads better %s: turned that way", "mirrored" if look_mirrored
                             else "as seen", "as seen" if look_mirrored else "mirrored")
                    return turned
            return placed
        failed[look_mirrored] = placed
    return failed.get(False, failed[looks[0]])  # the frame as seen gives the reason to report


def _orient_quad(frame: np.ndarray, placed: _Placement, look_mirrored: bool, timings: dict[str, float]) -> _Placement:
    """The grid ``placed`` oriented afresh in the frame as seen or flipped left to right
    (``look_mirrored``), its corners in this frame's pixels; not found where orientation rejects it."""
    assert placed.corners is not None
    if not look_mirrored:
        return _oriented(frame, order_as_seen(placed.corners), placed.edition, timings)
    width = frame.shape[1]
    turned = _oriented(cv2.flip(frame, 1), order_as_seen(mirror_points(placed.corners, width)), placed.edition, timings)
    return _flipped_back(turned, width)


def _reads_better_flipped(frame: np.ndarray, placed: _Placement, look_mirrored: bool, margin: float,
                          timings: dict[str, float]) -> bool:
    """Whether the print of the grid ``placed`` (found by the look ``look_mirrored``) reads at
    least ``margin`` better the other way: its best turn's ``turn_z`` in the frame flipped left
    to right against as found."""
    from vision.orient import turn_z

    assert placed.corners is not None
    with _timed(timings, "mirror check"):
        as_seen = float(turn_z(frame, order_as_seen(placed.corners)).max())
        flipped = cv2.flip(frame, 1)
        mirrored_z = float(turn_z(flipped, order_as_seen(mirror_points(placed.corners, frame.shape[1]))).max())
    found, other = (mirrored_z, as_seen) if look_mirrored else (as_seen, mirrored_z)
    return other >= found + margin


def _locate_and_orient_looking(frame: np.ndarray, edition: str | None, timings: dict[str, float],
                               config: LocateConfig, look_mirrored: bool) -> _Placement:
    """One look: in the frame as seen, or flipped left to right with the corners found mapped
    back into this frame's pixels."""
    if not look_mirrored:
        return _locate_and_orient_as_seen(frame, edition, timings, config)
    with _timed(timings, "mirrored"):
        placed = _locate_and_orient_as_seen(cv2.flip(frame, 1), edition, {}, config)
    if placed:
        log.info("the board shows mirrored: the camera is set to mirror its picture")
    return _flipped_back(placed, frame.shape[1])


def _flipped_back(placed: _Placement, width: int) -> _Placement:
    """A grid placed in the frame flipped left to right, its corners in the ``width``-wide frame's
    own pixels (anticlockwise on screen)."""
    if not placed:
        return placed
    assert placed.corners is not None
    return replace(placed, corners=mirror_points(placed.corners, width))


def _locate_and_orient_as_seen(frame: np.ndarray, edition: str | None, timings: dict[str, float],
                               config: LocateConfig) -> _Placement:
    """Find the grid with no help and decide which corner is (0, 0), in the frame as it is."""
    with _timed(timings, "locate"):
        fit = locate_grid(frame, edition=edition, config=config)
    if not fit:
        return _Placement(None, edition or "classic", 0.0, "located", reason=fit.reason or NOT_FOUND)
    return _oriented(frame, fit.corners, edition or fit.edition or "classic", timings,
                     turn_probabilities=_turn_probabilities(fit, config))


def _oriented(frame: np.ndarray, seen: np.ndarray, edition: str, timings: dict[str, float], *,
              turn_probabilities: np.ndarray | None = None) -> _Placement:
    """The located grid ``seen`` (corners as seen) with its corner (0, 0) decided from the print."""
    from vision.orient import orient_grid

    with _timed(timings, "orient"):
        try:
            orientation = orient_grid(frame, seen, edition=edition, turn_probabilities=turn_probabilities)
        except ValueError as exc:  # a degenerate fit from the locator: not found, not a crash
            log.info("located grid rejected by orientation: %s", exc)
            return _Placement(None, edition, 0.0, "located", reason=f"no usable grid found ({exc})")
    corners = np.asarray(orientation.corners, dtype=np.float32)
    return _Placement(corners, edition, float(orientation.confidence), "located")


def _turn_probabilities(fit: GridFit, config: LocateConfig) -> np.ndarray | None:
    """The turn network's probabilities for the located corners, when the locator has them and
    asked at the rectified size orientation asks at; else None."""
    from vision.orient import OrientConfig

    if config.ink.turn_net_px != OrientConfig().turn_net_px:
        return None
    return fit.details.get("turn_probabilities")


def _profile_corners(profile: Any, frame: np.ndarray) -> np.ndarray | None:
    """The profile's corners in ``frame``'s pixels (``corners_in_frame``): scaled when the camera
    now delivers another resolution than at calibration (``profile.frame_size``); None when it
    delivers another aspect, or there is no profile."""
    if profile is None:
        return None
    corners = corners_in_frame(profile.corners, getattr(profile, "frame_size", None), frame.shape)
    if corners is None:
        log.info("the profile was calibrated on %s frames, not %dx%d: finding the board again",
                 "x".join(map(str, profile.frame_size)), frame.shape[1], frame.shape[0])
    return corners


def _find_in_reference(frame: np.ndarray, corners: np.ndarray, reference: np.ndarray, edition: str,
                       timings: dict[str, float]) -> np.ndarray | None:
    """Canonical corners of the grid in ``reference``, found by matching this frame's grid there
    (the same feature matching as re-finding, run the other way); None if it cannot be matched."""
    from vision.reference import Reference, relocate

    try:
        with _timed(timings, "reference"):
            fit = relocate(reference, Reference.build(frame, corners, edition=edition))
    except ValueError as exc:
        log.info("cannot match the grid in the reference image: %s", exc)
        return None
    return np.asarray(fit.corners, np.float32) if fit else None


def _located_without_reference(frame: np.ndarray, ref_frame: np.ndarray, ref_place: _Placement, edition: str | None,
                               config: DetectConfig, timings: dict[str, float]) -> _Placement:
    """The grid located in ``frame`` itself when the empty-board reference shows no board
    (glare, a blurred or cropped shot): a poor reference must not lose a board the frame shows.
    The reference still gives each cell's empty look where the grid can be matched into it."""
    reason = f"{NOT_FOUND} in the reference image: {ref_place.reason}"
    if not config.relocate_fallback:
        return _Placement(None, ref_place.edition, 0.0, "reference", reason=reason)
    placed = _locate_and_orient(frame, edition, timings, config.locate, config)
    if not placed:
        return _Placement(None, placed.edition, 0.0, "reference", reason=f"{reason}; nor in the frame: {placed.reason}")
    assert placed.corners is not None
    edition_found = placed.edition or config.default_edition
    ref_corners = _find_in_reference(frame, placed.corners, ref_frame, edition_found, timings)
    return _Placement(placed.corners, placed.edition, placed.orientation_confidence, placed.source,
                      reference_corners=ref_corners)


def _place(
    frame: np.ndarray,
    *,
    corners: Any,
    reference: np.ndarray | None,
    profile: Any,
    edition: str | None,
    config: DetectConfig,
    timings: dict[str, float],
) -> _Placement:
    """Decide where the canonical grid is in ``frame`` (and in the reference, if any)."""
    if corners is not None:
        given = check_corners_in(corners, (frame.shape[1], frame.shape[0]))
        if config.given_snap_cells > 0:
            with _timed(timings, "snap"):
                given = _snapped(frame, given, config)
        # Corners tell the grid's shape: the Jumbo mat's cells are wider than tall.
        chosen = edition or guess_edition(given, (frame.shape[1], frame.shape[0]))[0]
        ref_corners = None
        if reference is not None:  # where is this grid in the empty-board image? match it there
            ref_corners = _find_in_reference(frame, given, check_frame(reference), chosen, timings)
        return _Placement(given, chosen, 1.0, "corners", reference_corners=ref_corners)
    if reference is not None:
        ref_frame = check_frame(reference)
        ref_corners = _profile_corners(profile, ref_frame)
        if ref_corners is not None:
            ref_place = _Placement(ref_corners, edition, 1.0, "profile")
        else:
            ref_place = _locate_and_orient(ref_frame, edition, timings, config.reference_locate, config)
            if not ref_place:
                return _located_without_reference(frame, ref_frame, ref_place, edition, config, timings)
        assert ref_place.corners is not None
        placed = _relocated(frame, ref_frame, ref_place, edition, config, timings)
        old = corners_in_frame(ref_place.corners, (ref_frame.shape[1], ref_frame.shape[0]), frame.shape)
        return _against_old_place(frame, placed, old, hand_set=ref_corners is not None, config=config,
                                  timings=timings)
    profile_corners = _profile_corners(profile, frame)
    placed = _locate_and_orient(frame, edition, timings, config.locate, config)
    if profile_corners is None:
        return placed
    if not placed:  # as good a guess as any: the board may lie where it lay
        return _Placement(profile_corners, edition or config.default_edition, 1.0, "profile")
    return _against_old_place(frame, placed, profile_corners, hand_set=True, config=config, timings=timings)


def _snapped(frame: np.ndarray, corners: np.ndarray, config: DetectConfig) -> np.ndarray:
    """Given ``corners`` brought onto the cards as a located grid is finished
    (``settle_corners``), by at most ``given_snap_cells`` at any corner."""
    most = config.given_snap_cells
    snap = replace(config.locate, max_refine_move_cells=most, polish_max_move=most)
    settled = settle_corners(frame, corners, snap)
    return corners if shift_in_cells(settled, corners) < config.given_keep_cells else settled


def _relocated(frame: np.ndarray, ref_frame: np.ndarray, ref_place: _Placement, edition: str | None,
               config: DetectConfig, timings: dict[str, float]) -> _Placement:
    """The grid re-found in ``frame`` by matching the empty-board reference's features (located
    from scratch where that fails and ``relocate_fallback``)."""
    assert ref_place.corners is not None
    ref_edition = edition or ref_place.edition or config.default_edition
    from vision.reference import Reference, relocate

    try:
        with _timed(timings, "reference"):
            ref = Reference.build(ref_frame, ref_place.corners, edition=ref_edition)
        with _timed(timings, "relocate"):
            fit = relocate(frame, ref)
        reason = fit.reason
    except ValueError as exc:  # a reference with too little texture to match
        fit, reason = None, str(exc)
    if fit:
        with _timed(timings, "relocate"):
            found = refine_corners(frame, np.asarray(fit.corners, np.float32))
        return _Placement(found, ref_edition, ref_place.orientation_confidence, "reference",
                          reference_corners=ref_place.corners)
    log.info("re-finding from the reference failed: %s", reason)
    if not config.relocate_fallback:
        return _Placement(None, ref_edition, 0.0, "reference", reason=reason or NOT_FOUND)
    placed = _locate_and_orient(frame, ref_edition, timings, config.locate, config)
    # located afresh: the empty board still tells each cell's empty look
    return replace(placed, reference_corners=ref_place.corners)


def _against_old_place(frame: np.ndarray, placed: _Placement, old: np.ndarray | None, *, hand_set: bool,
                       config: DetectConfig, timings: dict[str, float]) -> _Placement:
    """``placed`` checked against ``old``, where the board lay when the reference or profile was
    made (in this frame's pixels; None: unknown). Found there, a profile's corners (``hand_set``:
    perhaps set by hand) are kept. Matched by the reference's features somewhere else, the
    board is also located from scratch, which decides where the two disagree: a small,
    washed-out reference can match a wrong place. (The board is put away after a game and laid
    down elsewhere the next night, so a profile's corners are where it lay, not where it lies.)"""
    if old is None or not placed:
        return placed
    assert placed.corners is not None
    moved = shift_in_cells(placed.corners, old)
    if hand_set and shift_in_cells(placed.corners, old, any_turn=True) < config.calibrated_within_cells:
        return replace(placed, corners=old, source="profile")  # and the turn checked at calibration
    if moved < config.same_place_cells or placed.source != "reference":
        return placed
    afresh = _locate_and_orient(frame, placed.edition, timings, config.locate, config)
    if not afresh or shift_in_cells(afresh.corners, placed.corners, any_turn=True) < config.same_place_cells:
        log.info("the board is %.1f cells from where it lay in the reference", moved)
        return placed
    if shift_in_cells(afresh.corners, old, any_turn=True) < config.same_place_cells:
        log.info("the reference's features matched a wrong place; the board lies where it lay")
        return replace(placed, corners=old)
    log.info("the reference's features matched a wrong place; the board is where it was located afresh")
    return replace(afresh, reference_corners=placed.reference_corners)


def detect(
    frame: np.ndarray,
    *,
    corners: Any = None,
    reference: np.ndarray | None = None,
    profile: Any = None,
    edition: str | None = None,
    config: DetectConfig = DetectConfig(),
) -> Detection:
    """Read the board in ``frame`` (``(H, W, 3)`` uint8 BGR).

    ``corners``: canonical grid corners ``(4, 2)`` (they override everything); ``reference``: an
    image of the empty board under the same camera; ``profile``: a calibration profile (uses its
    edition, corners and colour model; pass its reference image as ``reference``); ``edition``:
    ``"classic"`` or ``"jumbo"`` (otherwise from the profile, or guessed from the grid's shape).
    Raises ``ValueError`` only for malformed arguments; a board not found is a falsy result.
    """
    timings: dict[str, float] = {}
    start = time.perf_counter()
    frame = check_frame(frame)
    if edition is not None and edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
    if edition is None and profile is not None:
        edition = profile.edition
    if lacks_colour(frame):
        return Detection(reason=NO_COLOUR, timings={"total": 1000.0 * (time.perf_counter() - start)})
    edition_known = edition is not None
    placed = _place(frame, corners=corners, reference=reference, profile=profile, edition=edition,
                    config=config, timings=timings)
    if not placed:
        timings["total"] = 1000.0 * (time.perf_counter() - start)
        reason = placed.reason
        if not reason.startswith(NOT_FOUND):  # (the locator's "no board: why" reads "board not found: why")
            reason = f"{NOT_FOUND}: {reason.removeprefix(NO_BOARD)}"
        return Detection(edition=placed.edition, source=placed.source, reason=reason, timings=timings)
    assert placed.corners is not None
    reader, reading = _read(frame, placed, reference, profile, edition_known, config, timings)
    if not edition_known:
        # The grid's shape is a weak witness of the edition (it needs the camera's focal length);
        # the chips are a strong one: green chips come only with the classic board, yellow only
        # with the Jumbo mat.
        # Once they have told it, a chip of the other set (a yellow one read on the classic
        # board) is a misreading: read again with the told edition's chips only.
        told = _told_edition(frame, placed.corners, reader, reading, config.roundness)
        if told is not None and (told != placed.edition or _foreign_chips(reading.labels, told)):
            log.info("the chips say %s (guessed %s): read again with its chips", told, placed.edition)
            placed = replace(placed, edition=told)
            _, reading = _read(frame, placed, reference, profile, edition_known, config, timings, told=True)
    # A corner past the picture's edge (a board the photo cuts): its cells are not seen at all.
    outside = cells_outside(placed.corners, frame.shape)
    confidence = np.where(outside, 0.0, reading.confidence).astype(np.float32)
    timings["total"] = 1000.0 * (time.perf_counter() - start)
    return Detection(
        corners=placed.corners,
        labels=reading.labels,
        confidence=confidence,
        outside=outside,
        orientation_confidence=placed.orientation_confidence,
        edition=placed.edition,
        source=placed.source,
        timings=timings,
        features=reading.features,
    )


def _told_edition(frame: np.ndarray, corners: np.ndarray, reader: CellReader, reading: CellReading,
                  roundness: RoundnessConfig | None) -> str | None:
    """The edition the chips tell, or None: by their colours and white chips
    (``_edition_of_chips``), except where white readings had a say and the chips' outlines
    (``vision.roundness``) tell it otherwise: glare makes white chips of white cards, but it
    does not make round chips look like another board's cells."""
    seen = reader.seen_colours(frame, corners, reading)
    told = _edition_of_chips(seen)
    if roundness is None or (told is not None and _edition_of_chips(seen, count_white=False) == told):
        return told
    measured = chip_roundness(frame, corners, sure_chips(reading.labels, reading.confidence, roundness), roundness)
    by_shape = edition_by_roundness(measured, roundness)
    if by_shape is not None and by_shape != told:
        log.info("the chips' outlines say %s (their colours and whites: %s)", by_shape, told)
        return by_shape
    return told


def _edition_of_chips(labels: list[list[str]], min_chips: int = 1, ratio: float = 3.0, *,
                      count_white: bool = True) -> str | None:
    """The edition the chips read say (green only in the classic set, yellow and, where
    ``count_white``, white (flipped) only on the Jumbo mat), or None. Counted, not just seen: one
    white chip misread as green must not outvote a dozen yellow ones."""
    counts = Counter(v for row in labels for v in row if v in TEAM_COLOURS)
    only = {ed: sum(n for colour, n in counts.items() if edition_of_colours([colour]) == ed) for ed in EDITIONS}
    # Only the Jumbo mat's rules flip locked chips to white.
    if count_white:
        only["jumbo"] += sum(v == "flipped" for row in labels for v in row)
    for ed, other in (("classic", "jumbo"), ("jumbo", "classic")):
        if only[ed] >= min_chips and only[ed] >= ratio * only[other]:
            return ed
    return None


def _foreign_chips(labels: list[list[str]], edition: str) -> bool:
    """Whether ``labels`` hold a team colour ``edition``'s chip set does not have (yellow on the
    classic board, green on the Jumbo mat)."""
    own = _team_colours(edition)
    return any(v not in own for row in labels for v in row if v in TEAM_COLOURS)


def _team_colours(edition: str) -> tuple[str, ...]:
    """The team colours of ``edition``'s chip set."""
    return tuple(c for c in default_labels(edition) if c in TEAM_COLOURS)


def _read(frame: np.ndarray, placed: _Placement, reference: np.ndarray | None, profile: Any,
          edition_known: bool, config: DetectConfig, timings: dict[str, float], *,
          told: bool = False) -> tuple[CellReader, CellReading]:
    """Read every cell of the placed grid (compared with the empty board when there is one);
    the reader too, for a second look at the same cells. ``told``: the chips told the edition
    (see ``_colour_model``)."""
    # Compared with the empty board, a white chip on a white card is plain to see, so when the
    # edition is only guessed a white chip may be read on either (and then tells the edition);
    # without that comparison, white cards of the classic board would be taken for chips.
    with_reference = reference is not None and placed.reference_corners is not None
    model = _colour_model(profile, placed.edition, edition_known, white_possible=with_reference, told=told)
    reader = CellReader(edition=placed.edition, colour_model=model, config=config.reader)
    if with_reference:
        with _timed(timings, "reference"):
            reader.set_reference(reader.rectify(reference, placed.reference_corners))
    with _timed(timings, "read"):
        reading = with_flipped_lines(reader.read(frame, placed.corners), model.labels, config.flipped)
        return reader, with_teams_in_play(reading, model.labels, config.teams,
                                          margin_gain=config.reader.colour_margin_gain)


def _colour_model(profile: Any, edition: str, edition_known: bool, *, white_possible: bool = False,
                  told: bool = False) -> ColourModel:
    """The profile's colour model when it has one, else the edition's defaults; when the edition
    was only guessed, every team colour (a wrong guess must not turn green chips yellow), or the
    edition's team colours where the chips ``told`` it, and white chips when the edition is
    Jumbo or ``white_possible`` (a washed-out chip the prototypes call white is still given its
    team colour by the patch network, see ``CellReader.decide``)."""
    data = getattr(profile, "colour_model", None) if profile is not None else None
    if data:
        return ColourModel.from_dict(data)
    if edition_known:
        return ColourModel.default(edition)
    teams = _team_colours(edition) if told else TEAM_COLOURS
    labels = (*teams, "flipped") if edition == "jumbo" or white_possible else teams
    return ColourModel({name: DEFAULT_PROTOTYPES[name] for name in labels})


def label_grid_text(labels: list[list[str]]) -> str:
    """10 lines in the engine's text notation; a flipped chip (no colour) is written ``W``."""
    from engine.labels import EMPTY_CHAR, FREE_CHAR, LETTER

    chars = {"free": FREE_CHAR, "empty": EMPTY_CHAR, "flipped": "W", "unknown": "?", **LETTER}
    return "\n".join("".join(chars.get(str(v), "?") for v in row) for row in labels[:SIZE])


__all__ = ["DetectConfig", "Detection", "detect", "label_grid_text"]
