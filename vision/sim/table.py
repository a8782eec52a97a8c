"""Table surfaces the board lies on (wood, felt, cloth, a check tablecloth), as plane textures.

A texture covers a square of the table plane centred on the board, ``TABLE_EXTENT`` cell
heights from the centre to each side, and is warped with the same camera as the board.
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import cv2
import numpy as np

TABLE_KINDS: tuple[str, ...] = ("wood_light", "wood_dark", "felt_green", "cloth_grey", "gingham")
EXTRA_TABLE_KINDS: tuple[str, ...] = ("laminate_white", "laminate_dark")
"""Plain tables, a white one being the hardest background for a light board."""
TABLE_EXTENT = 24.0  # cells from the board centre to the texture edge
TABLE_PX = 1024  # texture side at level 0


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], out: int) -> np.ndarray:
    """Low-frequency noise in [-1, 1]: a small random grid resized up (cubic)."""
    small = rng.uniform(-1, 1, shape).astype(np.float32)
    return cv2.resize(small, (out, out), interpolation=cv2.INTER_CUBIC)


def _wood(rng: np.random.Generator, n: int, base: np.ndarray) -> np.ndarray:
    y = np.arange(n, dtype=np.float32)[:, None]
    warp = _smooth_noise(rng, (24, 6), n) * 18.0 + _smooth_noise(rng, (96, 16), n) * 3.0
    rings = np.sin((y + warp) * (2 * np.pi / rng.uniform(7, 13)))
    fine = cv2.resize(rng.uniform(-1, 1, (n, n // 16)).astype(np.float32), (n, n))
    shade = 1.0 + 0.07 * rings + 0.04 * fine + 0.05 * _smooth_noise(rng, (6, 3), n)
    plank = int(rng.uniform(0.05, 0.1) * n)
    tint = 1.0 + 0.08 * rng.uniform(-1, 1, n // plank + 2)
    rows = np.arange(n) // plank
    shade *= tint[rows][:, None].astype(np.float32)
    shade[(np.arange(n) % plank) < 2] *= 0.55  # plank joints
    return base[None, None, :] * shade[..., None]


def _cloth(rng: np.random.Generator, n: int, base: np.ndarray, weave: float) -> np.ndarray:
    x = np.arange(n, dtype=np.float32)
    wv = (np.sin(x * 2.2)[None, :] * np.sin(x * 2.2)[:, None]) * weave
    fine = rng.normal(0, 0.035, (n, n)).astype(np.float32)
    shade = 1.0 + wv + fine + 0.06 * _smooth_noise(rng, (5, 5), n)
    return base[None, None, :] * shade[..., None]


def _gingham(rng: np.random.Generator, n: int, base: np.ndarray) -> np.ndarray:
    period = max(4, int(rng.uniform(0.01, 0.018) * n))
    bx = (np.arange(n) // period) % 2
    cover = (bx[None, :] + bx[:, None]).astype(np.float32)  # 0 white, 1 half, 2 full colour
    white = np.array([235, 238, 240], np.float32)
    img = white[None, None, :] + (base - white)[None, None, :] * (cover[..., None] / 2.0)
    return _cloth(rng, n, np.ones(3, np.float32), 0.03) * img


@lru_cache(maxsize=16)
def table_texture(kind: str, variant: int) -> tuple[np.ndarray, ...]:
    """Mip levels of one table surface, ``(n, n, 3) uint8`` BGR each, read-only."""
    if kind not in TABLE_KINDS + EXTRA_TABLE_KINDS:
        raise ValueError(f"unknown table kind {kind!r}; expected one of: "
                         f"{', '.join(TABLE_KINDS + EXTRA_TABLE_KINDS)}")
    rng = np.random.default_rng(zlib.crc32(f"{kind}/{variant}".encode()))
    n = TABLE_PX
    jitter = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if kind == "wood_light":
        img = _wood(rng, n, np.array([105, 150, 195], np.float32) * jitter)
    elif kind == "wood_dark":
        img = _wood(rng, n, np.array([40, 62, 95], np.float32) * jitter)
    elif kind == "felt_green":
        img = _cloth(rng, n, np.array([45, 100, 35], np.float32) * jitter, 0.02)
    elif kind == "cloth_grey":
        img = _cloth(rng, n, np.array([120, 118, 112], np.float32) * jitter, 0.06)
    elif kind == "laminate_white":
        img = _cloth(rng, n, np.array([222, 224, 226], np.float32) * np.clip(jitter, 0.93, 1.07), 0.0)
    elif kind == "laminate_dark":
        img = _cloth(rng, n, np.array([48, 46, 44], np.float32) * jitter, 0.0)
    else:
        colour = [np.array(c, np.float32) for c in ((40, 40, 185), (150, 70, 30), (40, 120, 40))]
        img = _gingham(rng, n, colour[int(rng.integers(3))])
    levels = [np.clip(img, 0, 255).astype(np.uint8)]
    for _ in range(3):
        levels.append(cv2.pyrDown(levels[-1]))
    for lv in levels:
        lv.setflags(write=False)
    return tuple(levels)
