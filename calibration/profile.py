"""The calibration profile of one table: versioned JSON, strict on load, written atomically.

A profile holds what is learned once about a table: the grid corners (canonical order
TL, TR, BR, BL of the printed layout, in image pixels of ``frame_size``), the edition,
the chip colour model, and the file name of the empty-board reference image saved beside
the JSON. Unknown keys, wrong types and out-of-range values are rejected with a message
that names the key, so a hand-edited or foreign file never half-loads.
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.layout import EDITIONS
from vision.geometry import check_corners as geometry_check
from vision.geometry import check_corners_in

log = logging.getLogger(__name__)

PROFILE_FORMAT = "sequence-companion-profile"
PROFILE_VERSION = 1
MAX_PROFILE_BYTES = 1_000_000
"""A profile is a few kilobytes; anything larger is not one of ours."""
MAX_IMAGE_BYTES = 50_000_000
MAX_FRAME_SIDE = 10_000

_KEYS = frozenset(
    {"format", "version", "edition", "corners", "frame_size", "colour_model", "reference_image",
     "created", "name"}
)


class ProfileError(ValueError):
    """A profile file that cannot be used; the message says which file and what is wrong."""


@dataclass(frozen=True)
class Profile:
    """What is known about one table. ``corners`` are canonical, in ``frame_size`` pixels."""

    edition: str
    corners: tuple[tuple[float, float], ...]
    frame_size: tuple[int, int] | None = None
    colour_model: dict[str, Any] | None = None
    reference_image: str | None = None
    name: str = ""
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    version: int = PROFILE_VERSION

    def __post_init__(self) -> None:
        check_edition(self.edition)
        object.__setattr__(self, "corners", check_corners(self.corners, self.frame_size))
        if self.reference_image is not None:
            check_image_name(self.reference_image)

    def with_changes(self, **changes: Any) -> Profile:
        """A copy with some fields replaced (profiles are immutable values)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to disk."""
        return {
            "format": PROFILE_FORMAT,
            "version": self.version,
            "edition": self.edition,
            "corners": [[float(x), float(y)] for x, y in self.corners],
            "frame_size": list(self.frame_size) if self.frame_size else None,
            "colour_model": self.colour_model,
            "reference_image": self.reference_image,
            "created": self.created,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Profile:
        """Validate a decoded JSON object and build a profile; ``ProfileError`` names the bad key."""
        if not isinstance(data, dict):
            raise ProfileError("a profile must be a JSON object")
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise ProfileError(f"unknown key(s) in profile: {', '.join(map(repr, unknown))}")
        if data.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"not a sequence-companion profile (format is {data.get('format')!r})")
        version = data.get("version")
        if version != PROFILE_VERSION:
            raise ProfileError(
                f"profile version {version!r} is not supported (this program reads version {PROFILE_VERSION})"
            )
        for key in ("edition", "corners"):
            if key not in data:
                raise ProfileError(f"profile is missing {key!r}")
        frame_size = _frame_size(data.get("frame_size"))
        colour_model = data.get("colour_model")
        if colour_model is not None:
            colour_model = check_colour_model(colour_model)
        name = data.get("name", "")
        created = data.get("created", "")
        if not isinstance(name, str) or not isinstance(created, str):
            raise ProfileError("'name' and 'created' must be strings")
        try:
            return cls(
                edition=data["edition"],
                corners=data["corners"],
                frame_size=frame_size,
                colour_model=colour_model,
                reference_image=data.get("reference_image"),
                name=name[:200],
                created=created[:64],
                version=version,
            )
        except ProfileError:
            raise
        except ValueError as exc:
            raise ProfileError(str(exc)) from None


def check_edition(edition: Any) -> str:
    """Return ``edition`` if it names a printed edition, else raise ``ProfileError``."""
    if edition not in EDITIONS:
        raise ProfileError(f"edition {edition!r} is not one of: {', '.join(EDITIONS)}")
    return edition


def check_corners(corners: Any, frame_size: tuple[int, int] | None = None) -> tuple[tuple[float, float], ...]:
    """Four finite (x, y) points forming a convex quadrilateral; one that can be a grid of the
    picture when its size is known (``vision.geometry.check_corners_in``, whose words it uses)."""
    try:
        points = tuple((float(x), float(y)) for x, y in corners)
    except (TypeError, ValueError):
        raise ProfileError(f"corners must be four [x, y] number pairs, got {corners!r:.80}") from None
    if len(points) != 4 or not all(math.isfinite(v) for p in points for v in p):
        raise ProfileError(f"corners must be four finite [x, y] pairs, got {corners!r:.80}")
    try:
        if frame_size is None:
            geometry_check(points)
        else:
            check_corners_in(points, frame_size)
    except ValueError as exc:
        raise ProfileError(str(exc)) from None
    return points


def _frame_size(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_FRAME_SIDE for v in value)
    ):
        raise ProfileError(f"frame_size must be [width, height] in pixels, got {value!r:.80}")
    return int(value[0]), int(value[1])


def check_image_name(name: Any) -> str:
    """A bare file name (no folders, no '..'): the reference image always lives beside the profile."""
    if (
        not isinstance(name, str)
        or not name
        or name != Path(name).name
        or name in {".", ".."}
        or "\\" in name
        or not name.lower().endswith((".png", ".jpg", ".jpeg"))
    ):
        raise ProfileError(
            f"reference_image must be a .png/.jpg file name beside the profile, got {name!r:.80}"
        )
    return name


def check_colour_model(model: Any) -> dict[str, Any]:
    """Validate a colour model through ``vision.colour`` so a bad one fails at load, not mid-game."""
    if not isinstance(model, dict):
        raise ProfileError("colour_model must be a JSON object")
    try:
        from vision.colour import ColourModel
    except ImportError:  # pragma: no cover - vision is part of the same distribution
        return model
    try:
        ColourModel.from_dict(model)
    except (ValueError, TypeError, KeyError) as exc:
        raise ProfileError(f"colour_model is invalid: {exc}") from None
    return model


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and validate a profile file; every problem is a ``ProfileError`` naming the file."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ProfileError(f"{path}: not a file")
        if size > MAX_PROFILE_BYTES:
            raise ProfileError(f"{path}: {size} bytes is far too large for a profile")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not a profile (not UTF-8 text)") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read profile ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:  # thousands of nested brackets: not a profile, and no crash
        raise ProfileError(f"{path}: not a profile (JSON nested too deeply)") from None
    try:
        return Profile.from_dict(data)
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from None


def reference_path(profile: Profile, profile_path: str | os.PathLike[str]) -> Path | None:
    """Where the profile's reference image lives (beside the JSON), or None if it has none."""
    if profile.reference_image is None:
        return None
    return Path(profile_path).resolve().parent / check_image_name(profile.reference_image)


def load_reference_image(profile: Profile, profile_path: str | os.PathLike[str]) -> Any:
    """The empty-board reference image (BGR uint8 ndarray), or None if the profile has none."""
    path = reference_path(profile, profile_path)
    if path is None:
        return None
    import cv2
    import numpy as np

    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            raise ProfileError(f"{path}: reference image is too large")
        data = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        raise ProfileError(f"{path}: the profile's reference image is missing") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read reference image ({exc.strerror or exc})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ProfileError(f"{path}: the profile's reference image is not a readable image")
    return image


def load_profile_and_reference(
    path: str | os.PathLike[str], *, strict: bool = True
) -> tuple[Profile, Any]:
    """The profile at ``path`` and its reference image (None when it has none).

    ``strict``: a missing or unreadable reference image is a ``ProfileError`` (one-shot
    commands, where the user should recalibrate); otherwise it is logged and the profile is
    used without it (a running companion keeps going on corners and colours alone).
    """
    profile = load_profile(path)
    try:
        return profile, load_reference_image(profile, path)
    except ProfileError as exc:
        if strict:
            raise
        log.warning("profile %s: reference image not used (%s)", path, exc)
        return profile, None


def save_profile(
    profile: Profile, path: str | os.PathLike[str], *, reference_image: Any = None
) -> Profile:
    """Write the profile JSON (and its reference image beside it) atomically; returns what was saved.

    When ``reference_image`` is given it is written as ``<stem>.reference.png`` and the
    returned profile names it. Each file is written to a temporary name and renamed, so a
    crash mid-write never leaves a half profile.
    """
    path = Path(path)
    if path.suffix.lower() != ".json":
        raise ProfileError(f"{path}: a profile file name must end in .json")
    path.parent.mkdir(parents=True, exist_ok=True)
    if reference_image is not None:
        import cv2

        name = f"{path.stem}.reference.png"
        ok, encoded = cv2.imencode(".png", reference_image)
        if not ok:
            raise ProfileError("could not encode the reference image as PNG")
        _atomic_write(path.parent / name, encoded.tobytes())
        profile = profile.with_changes(reference_image=name)
    text = json.dumps(profile.to_dict(), indent=2) + "\n"
    _atomic_write(path, text.encode("utf-8"))
    return profile


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
