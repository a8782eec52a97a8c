"""Building a table's profile: the grid from a frame of the empty board, chip colours from samples.

Both the ``calibrate`` command and the tablet wizard call these, so a profile means the
same thing whichever wrote it. Failures a user can cause (board not found, chips left on
the "empty" board, no chip where one was asked for) come back as a falsy
``CalibrationFailure`` carrying the reason, never as an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.profile import Profile, ProfileError
from engine.labels import TEAM_COLOURS, parse_team_colour
from engine.layout import Cell, card_at, in_bounds, is_corner
from vision.advice import as_sentence, outside_advice
from vision.classify import CellReader
from vision.colour import ColourModel, Prototype
from vision.detect import DetectConfig, detect
from vision.framing import framing_sentence
from vision.glare import glare_advice
from vision.locate import LocateConfig


@dataclass(frozen=True)
class CalibrationConfig:
    """How strict calibration is about what it is shown."""

    max_chips_on_empty: int = 2
    """An "empty" board read with more chips than this is refused (a reference must be empty)."""
    min_colour_separation: float = 12.0
    """Two taught colours closer than this (white-balanced Lab units) cannot be told apart."""
    min_marker_cover: float = 0.3
    """Fraction of a cell's centre that must differ from the empty board for a taught marker."""
    detect: DetectConfig = field(default_factory=lambda: DetectConfig(locate=LocateConfig.for_empty_board()))
    """How the empty board is read: the grid searched for thoroughly and strictly (calibration
    is a one-off, and every later reading stands on where it put the grid)."""


@dataclass(frozen=True)
class CalibrationFailure:
    """Why a profile could not be built; falsy so callers write ``if not result``."""

    reason: str

    def __bool__(self) -> bool:
        return False


def describe_cell(cell: Cell) -> str:
    """``"7D (row 2, col 7)"``: how a cell is named to people at the table."""
    return f"{card_at(cell)} (row {cell[0]}, col {cell[1]})"


def calibrate(
    empty_frame: np.ndarray,
    *,
    corners: np.ndarray | None = None,
    edition: str | None = None,
    name: str = "",
    config: CalibrationConfig = CalibrationConfig(),
) -> Profile | CalibrationFailure:
    """A profile from a frame of the empty board (``(H, W, 3)`` uint8 BGR).

    ``corners`` (canonical TL, TR, BR, BL) override the automatic grid search. The frame
    itself becomes the empty-board reference when the profile is saved with
    ``save_profile(profile, path, reference_image=empty_frame)``.
    """
    found = detect(empty_frame, corners=corners, edition=edition, config=config.detect)
    if not found:
        return CalibrationFailure(found.reason)
    assert found.labels is not None and found.corners is not None
    chips = [
        (r, c) for r, row in enumerate(found.labels) for c, label in enumerate(row) if label not in ("empty", "free")
    ]
    if len(chips) > config.max_chips_on_empty:
        shown = ", ".join(describe_cell(cell) for cell in chips[:3])
        return CalibrationFailure(
            f"the board does not look empty ({len(chips)} cells seem to hold chips, e.g. {shown}); "
            "calibrate on the empty board, or give --corners if the grid was misplaced"
        )
    height, width = empty_frame.shape[:2]
    try:
        return Profile(
            edition=found.edition or edition or "classic",
            corners=tuple((float(x), float(y)) for x, y in found.corners),
            frame_size=(int(width), int(height)),
            name=name,
        )
    except ProfileError as exc:
        return CalibrationFailure(str(exc))


def camera_advice_for(profile: Profile, empty_frame: np.ndarray) -> str:
    """What to tell the person about the camera's view of the empty board a profile was made
    from, as sentences ("" when all is well): glare (``vision.glare``), cells past the picture's
    edge (``vision.advice``) and a board small in the picture (``vision.framing``). Calibration
    is the moment to move the lamp or the camera, before a game in which chips under the glare,
    out of view, or too small to see would go unseen."""
    reading = detect(empty_frame, corners=np.asarray(profile.corners, dtype=np.float32), edition=profile.edition)
    return camera_advice(reading, profile.corners)


def camera_advice(reading: Any, corners: Any) -> str:
    """``camera_advice_for`` from a reading already made with grid ``corners`` ``(4, 2)`` (a
    ``vision.detect.Detection``): the wizard's test read has one."""
    said = [as_sentence(glare_advice(reading.glare)), as_sentence(outside_advice(reading.outside))] if reading else []
    return " ".join(filter(None, (*said, framing_sentence(corners))))


def learn_colours(
    profile: Profile,
    frame: np.ndarray,
    samples: Mapping[Cell, str],
    *,
    empty_frame: np.ndarray | None = None,
    config: CalibrationConfig = CalibrationConfig(),
) -> Profile | CalibrationFailure:
    """Teach the chip colours from ``frame``, where one chip of each named colour sits on its cell.

    ``samples`` maps a cell to the team colour placed there (any marker may be taught under a
    colour name: coins as "red", say). The camera must not have moved since ``profile`` was
    made. With ``empty_frame`` (the calibration frame of the empty board) a marker counts as
    present when its cell differs from the empty board, so a dull marker the default colours
    would not call a chip (a coin) can still be taught; without it the reader must see a chip.
    Returns the profile with its colour model replaced.
    """
    cells = _check_samples(samples)
    base = ColourModel.from_dict(profile.colour_model) if profile.colour_model else ColourModel.default(profile.edition)
    corners = np.asarray(profile.corners, dtype=np.float32)
    reader = CellReader(edition=profile.edition, colour_model=base)
    if empty_frame is not None:
        if empty_frame.shape != frame.shape:
            raise ValueError("the empty-board frame and the frame with chips must come from the same camera setting")
        reader.set_reference(reader.rectify(empty_frame, corners))
    reading = reader.read(frame, corners)
    lab = reading.features["core_lab"]
    changed = reading.features.get("ref_change")
    learned: dict[str, list[np.ndarray]] = {}
    for cell, colour in cells.items():
        if changed is not None:
            present = float(changed[cell]) >= config.min_marker_cover
        else:
            present = reading.labels[cell[0]][cell[1]] != "empty"
        if not present:
            return CalibrationFailure(f"no chip seen on {describe_cell(cell)} where the {colour} chip should be")
        learned.setdefault(colour, []).append(lab[cell])
    prototypes = dict(base.prototypes)
    for colour, values in learned.items():
        mean = np.median(np.stack(values), axis=0)
        spread = prototypes[colour].spread if colour in prototypes else _default_spread()
        prototypes[colour] = Prototype(tuple(float(v) for v in mean), spread)  # type: ignore[arg-type]
    clash = _closest_pair(prototypes, set(learned))
    if clash is not None and clash[2] < config.min_colour_separation:
        a, b, dist = clash
        return CalibrationFailure(
            f"the {a} and {b} markers look alike to the camera (distance {dist:.1f}); use more distinct markers"
        )
    model = ColourModel(prototypes)
    return profile.with_changes(colour_model=model.to_dict())


def _check_samples(samples: Mapping[Cell, str]) -> dict[Cell, str]:
    if not samples:
        raise ValueError("name at least one cell with a chip to learn from")
    cells: dict[Cell, str] = {}
    for cell, colour in samples.items():
        cell = (int(cell[0]), int(cell[1]))
        if not in_bounds(cell) or is_corner(cell):
            raise ValueError(f"cell {list(cell)} is not a playing cell (rows and columns 0-9, no corners)")
        cells[cell] = parse_team_colour(colour)
    return cells


def _default_spread() -> tuple[float, float, float]:
    model = ColourModel.default("classic")
    return next(iter(model.prototypes.values())).spread


def _closest_pair(prototypes: Mapping[str, Prototype], learned: set[str]) -> tuple[str, str, float] | None:
    """The two chip colours (at least one of them just learned) nearest each other."""
    names = [n for n in prototypes if n in TEAM_COLOURS]  # "flipped" is never a team's marker
    best: tuple[str, str, float] | None = None
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if a not in learned and b not in learned:
                continue
            dist = float(np.linalg.norm(np.subtract(prototypes[a].mean, prototypes[b].mean)))
            if best is None or dist < best[2]:
                best = (a, b, dist)
    return best


__all__ = ["CalibrationConfig", "CalibrationFailure", "calibrate", "describe_cell", "learn_colours"]
