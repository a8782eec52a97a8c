"""Chip colour models in a white-balanced Lab space, and the photometric normalisation they need.

Every pixel is first divided by the local white of the board (the card faces around it), so a
warm lamp, a cool window or a shadow leaves the colours where the model expects them; then it is
converted to CIE Lab (``L`` 0..100, ``a``/``b`` about -128..127; the white card face sits near
``(100, 0, 0)``). A ``ColourModel`` holds one prototype per chip label it can report: a centre
and a spread in that space, compared by a scaled (diagonal Mahalanobis) distance. Defaults are
physical colour names; ``ColourModel.learn`` replaces them from a few sampled chips, so any
marker (coins, say) can be taught under a team colour's name.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.labels import CLASSIC_COLOURS, JUMBO_COLOURS, TEAM_COLOURS

CHIP_LABELS: tuple[str, ...] = (*TEAM_COLOURS, "flipped")
"""Labels a colour prototype may carry: a team colour, or ``flipped`` (a white, locked chip)."""

MODEL_VERSION = 1
SPACE = "white-balanced-lab"


@dataclass(frozen=True)
class Prototype:
    """One chip colour: centre ``(L, a, b)`` and per-axis spread in white-balanced Lab."""

    mean: tuple[float, float, float]
    spread: tuple[float, float, float]

    def to_dict(self) -> dict[str, list[float]]:
        return {
            "mean": [round(float(v), 3) for v in self.mean],
            "spread": [round(float(v), 3) for v in self.spread],
        }


DEFAULT_PROTOTYPES: dict[str, Prototype] = {
    # Spreads are wide on L: shading and emboss move lightness far more than hue.
    "blue": Prototype((40.0, 15.0, -45.0), (30.0, 18.0, 18.0)),
    "green": Prototype((50.0, -40.0, 22.0), (30.0, 18.0, 18.0)),
    "red": Prototype((48.0, 58.0, 38.0), (30.0, 18.0, 18.0)),
    "yellow": Prototype((82.0, 2.0, 75.0), (25.0, 18.0, 22.0)),
    "flipped": Prototype((95.0, 0.0, 2.0), (16.0, 7.0, 7.0)),
}
"""Physical colour names in white-balanced Lab, not any renderer's exact paints."""

HUE_CHROMA_MIN = 12.0
"""Prototypes with less a/b chroma than this are compared without a hue (white, grey, coins)."""
CHROMA_LOG_SPREAD = 0.5
"""One unit of distance = chroma scaled by e^0.5 (a camera's saturation setting, a dull lamp)."""
CHROMA_FLOOR = 1.0
"""Chroma along the prototype's hue below this counts as this (grey has no hue to compare)."""

SEXTANT = 60.0
"""Degrees of display hue over which the order of the three channels stays the same."""
CLIP_DRIFT = 6.0
"""Degrees a washed-out colour may pass the edge where its two brightest channels tie: the one
whose brightest channel is brighter clips first, and blur lowers the clipped channel below the
rising one (set on seeds 5600-5899 and 8000-8119, hard classic frames)."""

SPREAD_FLOOR: tuple[float, float, float] = (8.0, 5.0, 5.0)
"""Smallest spread a learned prototype may have (a few pixels must not make it razor-thin)."""


GREY_SPREAD = 10.0
"""Most a picture's channels may differ (at the 99.9th percentile, ``lacks_colour``) and it
still carries no colour. Rendered frames of seeds 96000-96059 gave 17 or more even at a
quarter of their brightness or a third of their saturation; their greyscale copies, with
sensor noise of 4 levels per channel or as JPEG, gave 5 or less."""

GREY_CONTRAST = 32.0
"""Least range of grey levels (1st to 99th percentile) a colourless frame must show for
``lacks_colour`` to call it a grey picture rather than an empty view."""

NO_COLOUR = ("the picture has no colour (a greyscale photo, or a camera in its night mode): "
             "chips cannot be told apart; light the table, or use a colour photo")


def lacks_colour(image: np.ndarray, *, width: int = 320) -> bool:
    """Whether a BGR ``image`` shows things but carries no colour to read chips by: a greyscale
    photo, or a webcam switched to its infrared night mode, whose chips would all read as one
    team. The spread between each pixel's channels is taken on a copy ``width`` pixels wide
    (averaging sensor noise away) and compared at its 99.9th percentile with ``GREY_SPREAD``.
    A frame with nothing in it (a covered lens, a bare wall) is not called grey: no board is
    found there, which says more."""
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    b, g, r = cv2.split(image)
    high, low = cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)
    if float(np.percentile(cv2.subtract(high, low), 99.9)) > GREY_SPREAD:
        return False
    dark, light = np.percentile(high, (1.0, 99.0))
    return float(light - dark) >= GREY_CONTRAST


def default_labels(edition: str) -> tuple[str, ...]:
    """Chip labels an edition can show: classic blue/green/red; Jumbo yellow/red/blue + flipped."""
    if edition == "jumbo":
        return (*JUMBO_COLOURS, "flipped")
    return CLASSIC_COLOURS


@dataclass(frozen=True)
class ColourModel:
    """Prototypes of the chip labels this table can show (a subset of ``CHIP_LABELS``)."""

    prototypes: Mapping[str, Prototype] = field(default_factory=dict)

    @property
    def labels(self) -> tuple[str, ...]:
        """Chip labels in a fixed order (the order of ``CHIP_LABELS``)."""
        return tuple(name for name in CHIP_LABELS if name in self.prototypes)

    @property
    def coloured_labels(self) -> tuple[str, ...]:
        """The labels whose chips have a colour (chroma at least ``HUE_CHROMA_MIN``): not white
        chips, nor grey markers such as coins."""
        return tuple(
            name for name in self.labels
            if np.hypot(self.prototypes[name].mean[1], self.prototypes[name].mean[2]) >= HUE_CHROMA_MIN
        )

    @classmethod
    def default(cls, edition: str = "classic") -> ColourModel:
        """Default prototypes for the chips of ``edition``."""
        return cls({name: DEFAULT_PROTOTYPES[name] for name in default_labels(edition)})

    @classmethod
    def learn(
        cls,
        samples: Mapping[str, Sequence[np.ndarray] | np.ndarray],
        *,
        white: Sequence[float] = (255.0, 255.0, 255.0),
        base: ColourModel | None = None,
    ) -> ColourModel:
        """Learn prototypes from sampled chip pixels.

        ``samples`` maps a chip label to BGR uint8 pixels of that chip (any arrays ending in 3
        channels: crops, pixel lists). ``white`` is the BGR colour of the board's white card faces
        in the same frame, so the model is stored white-balanced. Labels not sampled are kept
        from ``base`` (when given); a sampled label replaces its prototype.
        """
        protos = dict(base.prototypes) if base is not None else {}
        white_arr = np.asarray(white, dtype=np.float32).reshape(3)
        if np.any(white_arr <= 0):
            raise ValueError(f"white must be three positive BGR values, got {list(white)}")
        for name, arrays in samples.items():
            if name not in CHIP_LABELS:
                raise ValueError(f"cannot learn {name!r}; chip labels are: {', '.join(CHIP_LABELS)}")
            parts = [arrays] if isinstance(arrays, np.ndarray) else list(arrays)
            pixels = [np.asarray(p).reshape(-1, 3) for p in parts if np.asarray(p).size]
            if not pixels:
                raise ValueError(f"no pixels sampled for {name!r}")
            bgr = np.concatenate(pixels).astype(np.float32) / white_arr
            lab = balanced_lab(bgr.reshape(-1, 1, 3)).reshape(-1, 3)
            centre = np.median(lab, axis=0)
            spread = 1.4826 * np.median(np.abs(lab - centre), axis=0) * 2.0
            spread = np.maximum(spread, SPREAD_FLOOR)
            protos[name] = Prototype(
                tuple(float(v) for v in centre), tuple(float(v) for v in spread)  # type: ignore[arg-type]
            )
        if not protos:
            raise ValueError("no colours to learn")
        return cls(protos)

    def distances(self, lab: np.ndarray) -> np.ndarray:
        """Scaled distance of each Lab triple to each prototype: ``(..., len(labels))`` float32.

        For a coloured prototype the a/b offset is split into hue (across its colour direction,
        scaled by the a/b spread) and chroma *ratio* (along it, on a log scale): a camera that
        saturates colours more or less, or a dull lamp, scales chroma but keeps hue. A near-grey
        prototype (a white chip) uses the plain scaled distance.
        """
        names = self.labels
        lab = np.asarray(lab, dtype=np.float32)
        out = []
        for name in names:
            proto = self.prototypes[name]
            mean, spread, chroma, ua, ub, ab_spread, log_spread = _distance_constants(
                tuple(proto.mean), tuple(proto.spread)
            )
            d_l = (lab[..., 0] - mean[0]) / spread[0]
            if chroma < HUE_CHROMA_MIN:
                d_a = (lab[..., 1] - mean[1]) / spread[1]
                d_b = (lab[..., 2] - mean[2]) / spread[2]
                out.append(np.sqrt(d_l * d_l + d_a * d_a + d_b * d_b))
                continue
            along = lab[..., 1] * ua + lab[..., 2] * ub
            across = (lab[..., 2] * ua - lab[..., 1] * ub) / ab_spread
            ratio = np.log(np.maximum(along, CHROMA_FLOOR) / chroma) / log_spread
            out.append(np.sqrt(d_l * d_l + across * across + ratio * ratio))
        return np.stack(out, axis=-1).astype(np.float32)

    def hue_labels(self, lab: np.ndarray) -> np.ndarray:
        """Index (into ``labels``) of the coloured prototype whose hue sector holds each Lab
        triple's display hue, ``(...,)`` int; -1 where the model has no coloured prototype.

        A washed-out chip (glare, overexposure) keeps little of its lightness or chroma, but adding
        white light, a gain or clipping the brightest channel never reorders the three channels:
        its display hue stays in the prototype's sextant (see ``hue_sectors``), where a Lab
        distance would take a pale blue chip, turned cyan, for green.
        """
        return self._hue_sectors[np.minimum(display_hue(lab).astype(np.intp), 359)]

    def chip_colours(self, nearest: np.ndarray, lab: np.ndarray) -> np.ndarray:
        """Index (into ``labels``) of each chip's colour, ``(...,)`` int: where its ``nearest``
        prototype (by ``distances``) is a coloured one, the one whose hue sector holds its Lab
        triple's display hue (``hue_labels``); else that nearest one: a white chip, or a grey
        marker taught under a team's name, whose faint hue says nothing."""
        nearest = np.asarray(nearest, dtype=np.intp)
        by_hue = self.hue_labels(lab)
        return np.where(self._coloured[nearest] & (by_hue >= 0), by_hue, nearest)

    @functools.cached_property
    def _coloured(self) -> np.ndarray:
        """``(len(labels),)`` bool: which labels are ``coloured_labels`` (computed on first use)."""
        return np.isin(np.asarray(self.labels, dtype=object), self.coloured_labels)

    @functools.cached_property
    def _hue_sectors(self) -> np.ndarray:
        """``hue_sectors`` of this model's coloured prototypes (computed on first use)."""
        return hue_sectors(_coloured_hues(tuple(tuple(self.prototypes[name].mean) for name in self.labels)))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, as stored in a calibration profile."""
        return {
            "version": MODEL_VERSION,
            "space": SPACE,
            "prototypes": {name: self.prototypes[name].to_dict() for name in self.labels},
        }

    @classmethod
    def from_dict(cls, data: object) -> ColourModel:
        """Inverse of ``to_dict``; ValueError for unknown keys, labels or malformed numbers."""
        if not isinstance(data, Mapping):
            raise ValueError(f"colour model must be an object, got {type(data).__name__}")
        unknown = set(data) - {"version", "space", "prototypes"}
        if unknown:
            raise ValueError(f"unknown colour model keys: {', '.join(sorted(map(str, unknown)))}")
        if data.get("version") != MODEL_VERSION:
            raise ValueError(f"unsupported colour model version {data.get('version')!r}")
        if data.get("space") != SPACE:
            raise ValueError(f"unsupported colour space {data.get('space')!r}; expected {SPACE!r}")
        raw = data.get("prototypes")
        if not isinstance(raw, Mapping) or not raw:
            raise ValueError("colour model needs a non-empty 'prototypes' object")
        protos = {}
        for name, entry in raw.items():
            if name not in CHIP_LABELS:
                raise ValueError(f"unknown chip label {name!r} in colour model")
            if not isinstance(entry, Mapping) or set(entry) != {"mean", "spread"}:
                raise ValueError(f"prototype {name!r} must have exactly 'mean' and 'spread'")
            mean = _triple(entry["mean"], f"{name}.mean")
            spread = _triple(entry["spread"], f"{name}.spread")
            if min(spread) <= 0:
                raise ValueError(f"{name}.spread must be positive, got {list(spread)}")
            protos[name] = Prototype(mean, spread)
        return cls(protos)



@functools.lru_cache(maxsize=64)
def _distance_constants(centre: tuple[float, ...], spread_: tuple[float, ...]) -> tuple:
    """What ``ColourModel.distances`` needs of a prototype, computed once (it runs every frame):
    mean and spread as float32 arrays, chroma, the unit hue direction ``(ua, ub)``, the mean a/b
    spread and the log-chroma spread."""
    mean = np.asarray(centre, dtype=np.float32)
    spread = np.asarray(spread_, dtype=np.float32)
    mean.setflags(write=False)
    spread.setflags(write=False)
    chroma = float(np.hypot(mean[1], mean[2]))
    if chroma < HUE_CHROMA_MIN:
        return mean, spread, chroma, None, None, None, None
    ab_spread = float(spread[1:].mean())
    log_spread = max(CHROMA_LOG_SPREAD, ab_spread / chroma)
    return mean, spread, chroma, mean[1] / chroma, mean[2] / chroma, ab_spread, log_spread


@functools.lru_cache(maxsize=16)
def _coloured_hues(means: tuple[tuple[float, ...], ...]) -> tuple[tuple[int, float, float], ...]:
    """(label index, display hue, brightest display channel) of each coloured prototype among
    the Lab ``means`` (in label order): what ``hue_sectors`` needs, computed once per model."""
    out = []
    for i, centre in enumerate(means):
        mean = np.asarray(centre, np.float32)
        if np.hypot(mean[1], mean[2]) >= HUE_CHROMA_MIN:
            out.append((i, round(float(display_hue(mean)), 3), round(float(display_bgr(mean).max()), 4)))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def hue_sectors(hues: tuple[tuple[int, float, float], ...]) -> np.ndarray:
    """Which prototype claims each whole degree of display hue: ``(360,)`` int (-1: none).

    ``hues``: (label index, display hue, brightest channel) of each coloured prototype. A
    prototype alone in its sextant claims it: its channel order, which washing out keeps. Where
    two claimed sextants meet at an edge both wash out towards (their two brightest channels
    tie there), the one whose brightest channel is brighter clips first and claims
    ``CLIP_DRIFT`` degrees past it. Hues no washed-out prototype reaches, and sextants shared by
    two prototypes, go to the prototype nearest in hue (``_nearest_in_hue``).
    """
    table = np.full(360, -1, dtype=np.intp)
    sextant_of = [int(hue // SEXTANT) % 6 for _, hue, _ in hues]
    owner = {s: hues[k] for k, s in enumerate(sextant_of) if sextant_of.count(s) == 1}
    for s, (index, _, _) in owner.items():
        table[int(s * SEXTANT) : int((s + 1) * SEXTANT)] = index
    drift = round(CLIP_DRIFT)
    for s, (index, _, top) in owner.items():
        edge = int((s + 1) * SEXTANT)  # the sextant's upper edge, shared with the next one
        after = owner.get((s + 1) % 6)
        if after is None or (s + 1) % 2 == 0 or drift == 0:
            continue  # no neighbour there, or an edge where the two dimmest channels tie
        if top > after[2]:
            table[np.arange(edge, edge + drift) % 360] = index
        elif after[2] > top:
            table[np.arange(edge - drift, edge) % 360] = after[0]
    unclaimed = table < 0
    table[unclaimed] = _nearest_in_hue(hues)[unclaimed]
    return table


def _nearest_in_hue(hues: tuple[tuple[int, float, float], ...]) -> np.ndarray:
    """``(360,)`` int: the prototype (of ``hues``, as ``hue_sectors`` takes them) nearest each
    whole degree of display hue around the circle; -1 with no prototype.

    Hue is what a chip keeps under any lamp and camera, where its lightness and chroma are
    not: another set's red chip under a bright lamp shows pale pink (hue about 325), nearer the
    blue prototype in Lab than the red one, though no one would call it blue (rendered chips of
    other hues, seeds 39500-39599: 13 of 18 wrong cells were such reds read blue)."""
    if not hues:
        return np.full(360, -1, dtype=np.intp)
    degrees = np.arange(360, dtype=np.float32)[:, None] + 0.5
    centres = np.array([hue for _, hue, _ in hues], np.float32)[None, :]
    apart = np.abs(hue_difference(degrees, centres))
    return np.array([index for index, _, _ in hues], dtype=np.intp)[apart.argmin(axis=1)]


def hue_difference(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """``a - b`` in degrees of hue the short way round the circle, in ``[-180, 180)``
    (broadcast): 350 and 10 are 20 apart."""
    return (np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0


def display_bgr(lab: np.ndarray) -> np.ndarray:
    """White-balanced display BGR (1.0 = the board's white) of Lab triples ``(..., 3)``: the
    inverse of ``balanced_lab`` (below its clipping)."""
    lab = np.asarray(lab, dtype=np.float32)
    f = lab @ _LAB_TO_F + _LAB_TO_F_OFFSET
    return np.sqrt(np.maximum((f * f * f) @ _XYZ_TO_BGR.T, 0.0))


def display_hue(lab: np.ndarray) -> np.ndarray:
    """HSV hue in degrees ``[0, 360)`` of white-balanced Lab triples ``(..., 3)``: back in
    display values a chip's channel order is plain, and adding white light or a gain keeps it.
    (OpenCV's float HSV gives the hue in degrees, and the formula does not mind values over 1.)"""
    bgr = display_bgr(lab).astype(np.float32)
    shape = bgr.shape[:-1]
    hsv = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV)
    return hsv[:, 0, 0].reshape(shape)


def _triple(value: object, what: str) -> tuple[float, float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise ValueError(f"{what} must be a list of 3 numbers, got {value!r}")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise ValueError(f"{what} must be a list of 3 numbers, got {value!r}")
    out = tuple(float(v) for v in value)
    if not all(np.isfinite(out)):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return out  # type: ignore[return-value]


# sRGB (D65) primaries -> XYZ, rows X, Y, Z over BGR columns, each row normalised so that the
# board's white (1, 1, 1) maps to (1, 1, 1): Lab relative to the card face as the white point.
_BGR_TO_XYZ = np.array(
    [[0.180423, 0.357580, 0.412453], [0.072169, 0.715160, 0.212671], [0.950227, 0.119193, 0.019334]],
    dtype=np.float32,
)
_BGR_TO_XYZ /= _BGR_TO_XYZ.sum(axis=1, keepdims=True)
_XYZ_TO_BGR = np.linalg.inv(_BGR_TO_XYZ).astype(np.float32)
_LAB_TO_F = np.array([[1 / 116, 1 / 116, 1 / 116], [1 / 500, 0.0, 0.0], [0.0, 0.0, -1 / 200]], dtype=np.float32)
_LAB_TO_F_OFFSET = np.full(3, 16 / 116, dtype=np.float32)
"""(L, a, b) -> (fX, fY, fZ): the inverse of the last, linear step of CIE Lab (``_F_TO_LAB``)."""
_EPS = 1e-4
BALANCED_MAX = 2.0
"""Balanced values are kept up to twice the white: a glossy white chip brighter than the card
face must stay brighter (L above 100), not be clipped into it."""
_F_TO_LAB = np.array(
    [[0.0, 116.0, 0.0, -16.0], [500.0, -500.0, 0.0, 0.0], [0.0, 200.0, -200.0, 0.0]], dtype=np.float32
)
"""(fX, fY, fZ, 1) -> (L, a, b): the linear last step of CIE Lab, as one OpenCV transform."""


def balanced_lab(balanced_bgr: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Lab of white-balanced BGR (``(H, W, 3)`` float, 1.0 = the board's white) -> float32 Lab.

    CIE Lab with the card face as white point; camera values are linearised with gamma 2
    (close to sRGB) and the cube root is taken everywhere (no linear toe): a few times faster
    than OpenCV's converter, and the differences are far below chip-to-chip distances.
    ``overwrite``: a float32 input the caller no longer needs is used as scratch (the per-frame
    path saves a full-image temporary); the result is the same.
    """
    arr = np.asarray(balanced_bgr, dtype=np.float32)
    scratch = arr if overwrite and arr is balanced_bgr else None
    img = np.clip(arr, _EPS, BALANCED_MAX, out=scratch)
    img = img.reshape(-1, 1, 3) if arr.ndim != 3 else img
    xyz = cv2.transform(cv2.multiply(img, img, dst=img), _BGR_TO_XYZ)
    return cv2.transform(cv2.pow(xyz, 1.0 / 3.0, dst=xyz), _F_TO_LAB).reshape(arr.shape)
