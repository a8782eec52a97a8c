"""The camera's part of a simulated frame: light on the table and the camera's defects.

Lighting (exposure, white balance, gradients, glare, cast shadows) and optics (lens
distortion, defocus and motion blur, metering, sensor noise, JPEG) are applied to the
composed frame by ``camera_finish``. Everything runs on uint8 with OpenCV arithmetic or on
small low-resolution maps; the heavy maps are cached per frame size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.sim.scene import SceneSpec


@dataclass(frozen=True)
class Lighting:
    """Light on the table. Image-space quantities are fractions of the frame."""

    exposure: float = 1.0  # overall gain (dim < 1 < bright)
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    gradient: tuple[float, float] = (0.0, 0.0)  # (strength, angle in radians) of a linear ramp
    vignette: float = 0.0
    glare: tuple[float, float, float, float] = (0.5, 0.5, 0.1, 0.0)  # x, y, radius, strength
    shadows: tuple[tuple[float, float, float, float, float, float], ...] = ()  # x, y, rx, ry, angle, strength
    light_dir: tuple[float, float] = (0.25, 0.2)  # shadow shift on the table per unit height


@dataclass(frozen=True)
class Optics:
    """Camera defects applied after the scene is composed."""

    defocus: float = 0.0  # Gaussian sigma, pixels
    motion: tuple[float, float] = (0.0, 0.0)  # blur length (pixels), angle (degrees)
    noise: float = 0.0  # sensor noise sigma, grey levels
    jpeg: int = 0  # JPEG quality, 0 = no compression
    saturation: float = 1.0  # camera colour saturation
    distortion: float = 0.0  # radial (barrel) lens distortion: shift at the frame corner / half-diagonal


@dataclass(frozen=True)
class OpticsConfig:
    """Fixed choices of the camera model (not per scene)."""

    noise_pad: int = 32  # the noise pool is this many rows taller than a frame
    meter_target: float = 118.0  # mean grey auto exposure aims for
    meter_step: int = 8  # metering samples every this many pixels
    auto_exposure_range: tuple[float, float] = (0.6, 2.2)
    highlight_percentile: float = 99.0  # metering keeps this percentile of the scene ...
    highlight_limit: float = 245.0  # ... below this grey level


OPTICS = OpticsConfig()


NOISE_UNIT = 16.0  # the noise pool stores sigma = 1 as 16


@lru_cache(maxsize=2)
def _noise_pool(size: tuple[int, int], pad: int) -> np.ndarray:
    """Slightly correlated (demosaiced) sensor noise, int16 with sigma ``NOISE_UNIT``, larger
    than the frame so each frame takes a different crop."""
    w, h = size
    rng = np.random.default_rng(12345)
    pool = rng.standard_normal((h + pad, w, 3), dtype=np.float32)
    pool = cv2.GaussianBlur(pool, (0, 0), 0.6)
    pool *= NOISE_UNIT / pool.std()
    out = pool.astype(np.int16)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def _static_light(lighting: Lighting, shape: tuple[int, int], glossy: float) -> tuple[np.ndarray, np.ndarray]:
    """(gain, add) maps at low resolution that depend on the light alone: ramp, vignette,
    cast shadows of people and lamps; additive glare. Cached: a game keeps its light."""
    L = lighting
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / w - 0.5, yy / h - 0.5
    strength, ang = L.gradient
    gain = 1.0 + 2 * strength * (xn * np.cos(ang) + yn * np.sin(ang))
    gain *= 1.0 - L.vignette * (xn**2 + yn**2) * 2
    for x, y, rx, ry, a, s in L.shadows:
        blob = np.zeros((h, w), np.float32)
        cv2.ellipse(blob, (int(x * w), int(y * h)), (max(1, int(rx * w)), max(1, int(ry * h))),
                    np.rad2deg(a), 0, 360, 1.0, -1, cv2.LINE_AA)
        blob = cv2.GaussianBlur(blob, (0, 0), max(1.0, 0.35 * min(rx * w, ry * h)))
        gain *= 1.0 - s * blob
    gx, gy, gr, gs = L.glare
    d2 = ((xn + 0.5 - gx) * w) ** 2 + ((yn + 0.5 - gy) * h) ** 2
    sig = max(gr * np.hypot(w, h), 1.0)
    core = np.exp(-d2 / (2 * (sig / 3.5) ** 2))
    add = gs * (1 + glossy) / 2 * 255 * (0.55 * np.exp(-d2 / (2 * sig**2)) + 0.9 * core)
    gain, add = gain.astype(np.float32), add.astype(np.float32)
    gain.setflags(write=False)
    add.setflags(write=False)
    return gain, add


def _lighting_maps(spec: SceneSpec, shadow: np.ndarray, glossy: float) -> tuple[np.ndarray, np.ndarray]:
    """(gain, add) maps at low resolution: the light's own, times the soft shadows of objects."""
    gain, add = _static_light(spec.lighting, shadow.shape, glossy)
    if shadow.any():
        sh = cv2.GaussianBlur(shadow, (0, 0), max(1.0, shadow.shape[1] / 160))
        gain = gain * (1.0 - sh)
    return gain, add


@lru_cache(maxsize=1)
def _radial_fields(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pixel grids and their radial displacement per unit k (the model is linear in k)."""
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2], np.float32)
    half2 = float(np.hypot(w, h) / 2) ** 2
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = xx - c[0], yy - c[1]
    r2 = (dx * dx + dy * dy) / half2
    out = (xx, yy, dx * r2, dy * r2)
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=2)
def _distortion_maps(size: tuple[int, int], k: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps of barrel distortion: distorted pixel p samples c + (p - c)(1 + k r^2),
    r = |p - c| / half-diagonal. Fixed-point maps (fast to apply; a game reuses them)."""
    xx, yy, ax, ay = _radial_fields(size)
    return cv2.convertMaps(cv2.scaleAdd(ax, k, xx), cv2.scaleAdd(ay, k, yy), cv2.CV_16SC2)


def distort_points(pts: np.ndarray, size: tuple[int, int], k: float) -> np.ndarray:
    """Where undistorted image points land in the distorted frame (inverse of the remap model)."""
    if abs(k) <= 1e-3:
        return pts
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    half2 = (np.hypot(w, h) / 2) ** 2
    u = pts.astype(np.float64) - c
    d = u.copy()
    for _ in range(20):  # fixed point: d = u / (1 + k |d|^2)
        d = u / (1.0 + round(k, 4) * (d**2).sum(1, keepdims=True) / half2)
    return (d + c).astype(pts.dtype)


GAIN_UNIT = 100.0  # uint8 gain maps: 100 is a gain of 1 (up to 2.55)


@lru_cache(maxsize=2)
def _dither(size: tuple[int, int]) -> np.ndarray:
    """A full-frame 4x4 Bayer threshold tile in [0, 1): floor(x + d) rounds without banding."""
    bayer = np.array([[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]], np.float32) / 16.0
    w, h = size
    tile = np.tile(bayer, ((h + 3) // 4, (w + 3) // 4))[:h, :w]
    tile = np.ascontiguousarray(tile)
    tile.setflags(write=False)
    return tile


def _colour_matrix(spec: SceneSpec) -> np.ndarray | None:
    """3x3 BGR matrix: saturation then white balance; None when it is the identity."""
    o, L = spec.optics, spec.lighting
    wb = np.array(L.white_balance, np.float64)
    if abs(o.saturation - 1.0) < 1e-3 and np.allclose(wb, 1.0):
        return None
    sat = o.saturation * np.eye(3) + (1 - o.saturation) / 3.0
    return np.diag(wb) @ sat


def metered_exposure(frame: np.ndarray, gain_lo: np.ndarray) -> float:
    """The gain a camera's auto exposure picks: the scene's mean towards a mid grey, but held
    back so the brightest percent (the white board, mostly) does not clip, as phones and
    webcams protect highlights. A board on a white table still comes out grey, on a dark
    table bright."""
    step = OPTICS.meter_step
    sample = frame[::step, ::step].astype(np.float32).mean(axis=2) * float(gain_lo.mean())
    mean = float(sample.mean())
    bright = float(np.percentile(sample, OPTICS.highlight_percentile))
    lo, hi = OPTICS.auto_exposure_range
    gain = min(OPTICS.meter_target / max(mean, 1.0), OPTICS.highlight_limit / max(bright, 1.0))
    return float(np.clip(gain, lo, hi))


def camera_finish(frame: np.ndarray, spec: SceneSpec, shadow: np.ndarray, contact: np.ndarray,
            glossy: float) -> tuple[np.ndarray, float]:
    """Blur, lighting, white balance, saturation, noise and JPEG: the camera's part. Returns the
    frame and the exposure gain the camera's metering chose.

    Works on uint8 with saturating OpenCV arithmetic (a fraction of float NumPy's cost).
    """
    o, L = spec.optics, spec.lighting
    w, h = spec.size
    if abs(o.distortion) > 1e-3:
        frame = cv2.remap(frame, *_distortion_maps(spec.size, round(o.distortion, 4)), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    if o.defocus > 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), o.defocus)
    if o.motion[0] >= 2:
        n = int(o.motion[0]) | 1
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0
        R = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), o.motion[1], 1.0)
        k = cv2.warpAffine(k, R, (n, n))
        frame = cv2.filter2D(frame, -1, k / max(float(k.sum()), 1e-6))
    gain_lo, add_lo = _lighting_maps(spec, shadow, glossy)
    gain_lo = gain_lo * (1.0 - contact)
    ae = spec.auto_exposure if spec.auto_exposure is not None else metered_exposure(frame, gain_lo)
    # the gain map in 1/GAIN_UNIT steps, ordered-dithered so smooth surfaces show no banding
    gain = cv2.resize(gain_lo * np.float32(L.exposure * ae * GAIN_UNIT), (w, h), interpolation=cv2.INTER_LINEAR)
    gain = np.clip(cv2.add(gain, _dither(spec.size)), 0, 255).astype(np.uint8)
    out = cv2.multiply(frame, cv2.merge([gain, gain, gain]), scale=1.0 / GAIN_UNIT)
    M = _colour_matrix(spec)
    if M is not None:
        out = cv2.transform(out, M)
    if float(add_lo.max()) >= 1.0:
        add = np.clip(add_lo, 0, 255).astype(np.uint8)
        out = cv2.add(out, cv2.resize(cv2.merge([add, add, add]), (w, h), interpolation=cv2.INTER_LINEAR))
    if o.noise > 0:
        pool = _noise_pool(spec.size, OPTICS.noise_pad)
        rng = np.random.default_rng(spec.noise_seed)
        oy = int(rng.integers(0, OPTICS.noise_pad))  # whole rows: the slice stays contiguous (fast)
        out = cv2.addWeighted(out, 1.0, pool[oy:oy + h], o.noise / NOISE_UNIT, 0.0, dtype=cv2.CV_8U)
    if o.jpeg > 0:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(o.jpeg)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out, ae
