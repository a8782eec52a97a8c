"""Reading still images from disk with the clear errors a user needs (used by detect and calibrate)."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

MAX_IMAGE_BYTES = 100_000_000
"""Larger than any camera still; a bigger file is refused before it is decoded."""
MAX_IMAGE_PIXELS = 60_000_000


class ImageError(ValueError):
    """An image file that cannot be used; the message names the file and the reason."""


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read ``path`` as a BGR uint8 ``(H, W, 3)`` image; ``ImageError`` says why it cannot be.

    Grey and 16-bit images are converted; an alpha channel is dropped; a photo's EXIF
    orientation is applied (the image as any viewer shows it).
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise ImageError(f"{path}: is a folder, not an image")
        size = path.stat().st_size
        if size == 0:
            raise ImageError(f"{path}: the file is empty")
        if size > MAX_IMAGE_BYTES:
            raise ImageError(f"{path}: {size} bytes is too large for an image")
        data = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return decode_image(data, name=str(path))


def decode_image(data: bytes | np.ndarray, *, name: str = "image") -> np.ndarray:
    """Decode encoded image bytes (PNG, JPEG, ...) to BGR uint8; ``ImageError`` if they are not one."""
    buffer = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray)) else data
    if buffer.size == 0:
        raise ImageError(f"{name}: the file is empty")
    try:
        # A cheap 1/8-scale decode first, so a decompression bomb is refused before it is expanded.
        header = cv2.imdecode(buffer, cv2.IMREAD_REDUCED_GRAYSCALE_8)
    except cv2.error:
        header = None  # too small to reduce; the full decode below decides
    if header is not None and header.size * 64 > MAX_IMAGE_PIXELS:
        raise ImageError(f"{name}: the image is too large ({header.shape[1] * 8}x{header.shape[0] * 8} px)")
    try:
        # Not IMREAD_UNCHANGED: that ignores a phone photo's EXIF orientation, and corners must be
        # in the pixels a viewer shows (as cv2.imread gives them). Any depth and colour are kept.
        image = cv2.imdecode(buffer, cv2.IMREAD_ANYDEPTH | cv2.IMREAD_ANYCOLOR)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise ImageError(f"{name}: not an image OpenCV can read{_format_hint(buffer)}")
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(1.0, float(np.iinfo(image.dtype).max)))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if min(image.shape[:2]) < 16:
        raise ImageError(f"{name}: the image is too small ({image.shape[1]}x{image.shape[0]} px)")
    return image


_UNREADABLE_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"hevc": "HEIC", b"mif1": "HEIF", b"avif": "AVIF"}
"""ISO media brands of still formats OpenCV's usual builds cannot decode (a phone's default)."""


def _format_hint(buffer: np.ndarray) -> str:
    """What to do with a photo in a format OpenCV cannot decode, named from its first bytes
    (an iPhone saves HEIC unless told otherwise); "" for anything else."""
    head = bytes(buffer[:12])
    kind = _UNREADABLE_BRANDS.get(head[8:12]) if head[4:8] == b"ftyp" else None
    return f" (a {kind} photo: save or export it as JPEG or PNG)" if kind else ""
