"""Frame sources: webcam, network camera, video file, image folder and the simulated table.

``open_source(spec)`` validates the spec up front (a clear ``SourceError`` for a missing file,
a file that is not a video or image, an empty folder, an unreachable URL, a bad camera index)
and returns a ``FrameSource`` in one of two modes:

* **live** (webcam, URL, ``sim``, or a file with ``realtime=True``): one background thread reads
  the device and keeps only the LATEST frame in a slot guarded by a ``threading.Condition``
  (never a growing queue). Every read's ``ok`` flag is checked; when the device drops the
  thread releases it and reconnects with exponential back-off, reporting ``state``
  (``connecting``, ``connected``, ``reconnecting``, ``frozen``, ``dark``, ``ended``,
  ``failed``) and a human ``detail`` instead of raising. The device is always released.
* **ordered** (files and folders, the default for ``replay``): every frame, in order, read in
  the caller's thread, stamped ``t = index / fps``.

Frames are ``Frame(index, t, image, quality)`` with ``image`` an ``(H, W, 3) uint8`` BGR array.
``quality`` is ``"ok"``, ``"dark"`` (a black frame: lens cap, lamp off) or ``"frozen"`` (the
same picture for longer than ``SourceConfig.frozen_after_s``: a hung camera or stream); the
pipeline does not feed dark or frozen frames to the tracker.
"""

from __future__ import annotations

import dataclasses
import glob
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import cv2
import numpy as np

logger = logging.getLogger(__name__)

IMAGE_EXTENSIONS: frozenset[str] = frozenset(
    {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"}
)
VIDEO_EXTENSIONS: frozenset[str] = frozenset(
    {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".mjpeg", ".mjpg", ".ts"}
)
URL_SCHEMES: dict[str, int] = {"rtsp": 554, "rtsps": 322, "http": 80, "https": 443}
"""Network camera URL schemes and their default ports."""

STATES: tuple[str, ...] = ("connecting", "connected", "reconnecting", "frozen", "dark", "ended", "failed")
QUALITIES: tuple[str, ...] = ("ok", "dark", "frozen")


class SourceError(ValueError):
    """A frame source the user named cannot be opened; the message says why, in one line."""


@dataclass(frozen=True)
class SourceConfig:
    """Tunables of frame reading (times in seconds)."""

    default_fps: float = 15.0
    """Frame rate assumed for a folder of images, or a video whose header has none."""
    url_probe_timeout_s: float = 2.0
    """TCP connect timeout when checking that a camera URL is reachable at all."""
    stream_timeout_ms: int = 5000
    """FFmpeg open/read timeout for network streams (so a silent camera cannot hang a read)."""
    failed_reads_to_drop: int = 5
    """Consecutive failed reads after which a live device counts as dropped."""
    failed_read_pause_s: float = 0.05
    """Pause between failed reads of a live device."""
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    max_reconnect_attempts: int | None = None
    """Give up (state ``failed``) after this many failed reconnects in a row; None: never."""
    frozen_after_s: float = 5.0
    """A live stream repeating the identical picture this long is reported ``frozen``."""
    dark_mean_max: float = 16.0
    """A frame whose mean brightness (0..255) is below this is ``dark``."""
    check_stride: int = 8
    """Pixel stride of the subsample used for the frozen and dark checks (speed)."""
    camera_size: tuple[int, int] | None = (1280, 720)
    """Frame size ``(width, height)`` asked of a webcam; the driver picks its nearest mode. Without
    asking, most webcams deliver 640x480, where a board filling a third of the picture has cells
    some 20 pixels wide and the print blurs away. None: take what the camera gives."""


DEFAULT_CONFIG = SourceConfig()


@dataclass(frozen=True)
class Frame:
    """One frame: running ``index``, time ``t`` in seconds, BGR ``image`` (H, W, 3) uint8.

    ``quality``: ``ok``, ``dark`` or ``frozen``. ``segment`` changes when the picture jumps to
    a different table (the simulated table starting its next game): a new game begins there.
    """

    index: int
    t: float
    image: np.ndarray
    quality: str = "ok"
    segment: int = 0


@dataclass(frozen=True)
class SimOptions:
    """What the ``sim`` source plays: the first game's seed, then seed + 1, ... forever."""

    seed: int = 1
    edition: str = "classic"
    teams: tuple[str, ...] = ("blue", "green")
    size: tuple[int, int] = (1280, 720)
    max_moves: int = 120


class CaptureLike(Protocol):
    """The part of ``cv2.VideoCapture`` a source uses (fakes implement this in tests)."""

    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, np.ndarray | None]: ...
    def release(self) -> None: ...


CaptureFactory = Callable[[object], CaptureLike]
"""Opens a device, stream or file (an int index or a string) and returns a capture."""


# --------------------------------------------------------------------------- frame checks


def frame_brightness(image: np.ndarray, *, stride: int) -> float:
    """Mean brightness 0..255 of a strided subsample of a BGR image (cheap)."""
    return float(image[::stride, ::stride].mean())


def validate_image(image: object) -> np.ndarray | None:
    """Return ``image`` as a 3-channel uint8 BGR array, converting grey/BGRA; None if unusable."""
    if not isinstance(image, np.ndarray) or image.size == 0 or image.dtype != np.uint8:
        return None
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    return None


class FreezeWatch:
    """Tells when a stream has repeated the identical picture for ``after_s`` seconds.

    Real sensors never repeat a frame bit for bit, a hung driver or stream does; so exact
    equality of a strided subsample is the test (cheap, and no false alarm on a still board).
    """

    def __init__(self, *, after_s: float, stride: int) -> None:
        self._after_s = after_s
        self._stride = stride
        self._previous: np.ndarray | None = None
        self._same_since: float | None = None

    def reset(self) -> None:
        self._previous = None
        self._same_since = None

    def frozen(self, image: np.ndarray, now: float) -> bool:
        """Feed one frame seen at time ``now``; True once it has been identical long enough."""
        sample = image[:: self._stride, :: self._stride]
        if self._previous is not None and self._previous.shape == sample.shape and np.array_equal(
            sample, self._previous
        ):
            if self._same_since is None:
                self._same_since = now
            return now - self._same_since >= self._after_s
        self._previous = sample.copy()
        self._same_since = None
        return False


# --------------------------------------------------------------------------- sources


class FrameSource:
    """Common interface of every source; use as a context manager so it is always closed."""

    description: str = ""
    live: bool = False
    fps: float = 0.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._state = "connecting"
        self._detail = ""
        self._latest: Frame | None = None
        self._last_read = -1
        self._attempts = 0
        self._drops = 0

    # state -------------------------------------------------------------
    @property
    def state(self) -> str:
        """One of ``STATES``."""
        with self._cond:
            return self._state

    @property
    def detail(self) -> str:
        """A short human explanation of ``state`` (empty when all is well)."""
        with self._cond:
            return self._detail

    @property
    def reconnect_attempts(self) -> int:
        """Failed attempts to reopen a dropped device since it was last connected (0: none yet)."""
        with self._cond:
            return self._attempts

    @property
    def drops(self) -> int:
        """How many times the device has dropped so far (a listener polling ``state`` can miss a
        quick drop and reconnect; this count cannot be missed)."""
        with self._cond:
            return self._drops

    @property
    def finished(self) -> bool:
        """True once no frame will ever come again (``ended`` or ``failed``)."""
        return self.state in ("ended", "failed")

    def _set_state(self, state: str, detail: str = "") -> None:
        with self._cond:
            if (state, detail) != (self._state, self._detail):
                logger.info("%s: %s %s", self.description, state, detail)
            self._state, self._detail = state, detail
            self._cond.notify_all()

    # frames ------------------------------------------------------------
    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame after the last one ``read`` returned (ordered: the next in the file;
        live: the newest, frames in between are skipped). None when none came within
        ``timeout`` seconds or the source has finished (see ``state``)."""
        raise NotImplementedError

    def latest(self, timeout: float = 0.0) -> Frame | None:
        """The newest frame seen so far, waiting up to ``timeout`` for a first one."""
        with self._cond:
            if self._latest is None and timeout > 0:
                self._cond.wait_for(lambda: self._latest is not None or self._state in ("ended", "failed"),
                                    timeout)
            return self._latest

    def frames(self) -> Iterator[Frame]:
        """Every frame (ordered) or each newest frame (live) until the source finishes."""
        while True:
            frame = self.read(timeout=0.5)
            if frame is not None:
                yield frame
            elif self.finished:
                return

    def close(self) -> None:
        """Stop reading and release the device (idempotent)."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description!r} {self.state}>"


class OrderedSource(FrameSource):
    """Every frame of a file or folder, in order, read in the caller's thread.

    ``images`` yields ``(index, image)`` or ``(index, image, segment)``; ``t = index / fps``.
    Unreadable entries are skipped (their index is kept so frame numbers match the file).
    """

    live = False

    def __init__(self, images: Iterator[tuple[int, np.ndarray]], *, fps: float, description: str,
                 config: SourceConfig = DEFAULT_CONFIG) -> None:
        super().__init__()
        self._images = images
        self.fps = fps
        self.description = description
        self._config = config
        self._set_state("connected")

    def read(self, timeout: float | None = None) -> Frame | None:
        if self.finished:
            return None
        try:
            index, image, *segment = next(self._images)
        except StopIteration:
            self._set_state("ended", "end of input")
            return None
        dark = frame_brightness(image, stride=self._config.check_stride) < self._config.dark_mean_max
        frame = Frame(index, index / self.fps, image, "dark" if dark else "ok", segment[0] if segment else 0)
        with self._cond:
            self._latest = frame
            self._last_read = index
            self._state = "dark" if dark else "connected"
            self._detail = "the picture is black" if dark else ""
        return frame

    def close(self) -> None:
        close = getattr(self._images, "close", None)
        if close is not None:
            close()
        with self._cond:
            if self._state not in ("ended", "failed"):
                self._state, self._detail = "ended", "closed"
            self._cond.notify_all()


class LiveSource(FrameSource):
    """A device read by one background thread that keeps only the newest frame.

    ``open_capture()`` opens the device (called again to reconnect); ``first`` is an already
    opened capture from validation. ``pace_fps`` paces reading (files and ``sim`` played in
    real time); ``reconnect`` False makes a failed read the end (a file), True a drop.
    """

    live = True

    def __init__(self, open_capture: Callable[[], CaptureLike], *, description: str, fps: float,
                 first: CaptureLike | None = None, pace_fps: float | None = None, reconnect: bool = True,
                 detect_frozen: bool = True, config: SourceConfig = DEFAULT_CONFIG) -> None:
        super().__init__()
        self.description = description
        self.fps = fps
        self._open_capture = open_capture
        self._first = first
        self._pace_fps = pace_fps
        self._reconnect = reconnect
        self._config = config
        self._freeze = FreezeWatch(after_s=config.frozen_after_s, stride=config.check_stride) \
            if detect_frozen else None
        self._stop = threading.Event()
        self._index = 0
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"source:{description}", daemon=True)
        self._thread.start()

    # consumer side -------------------------------------------------------
    def read(self, timeout: float | None = None) -> Frame | None:
        with self._cond:
            self._cond.wait_for(
                lambda: (self._latest is not None and self._latest.index > self._last_read)
                or self._state in ("ended", "failed") or self._stop.is_set(),
                timeout,
            )
            frame = self._latest
            if frame is None or frame.index <= self._last_read or self._stop.is_set():
                return None
            self._last_read = frame.index
            return frame

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=10.0)
            if self._thread.is_alive():
                logger.warning("%s: reader thread did not stop within 10 s", self.description)

    # producer side (reader thread) ---------------------------------------
    def _run(self) -> None:
        """Thread body: a bug in a device driver or the simulator ends this source, visibly."""
        try:
            self._read_forever()
        except Exception as exc:  # thread boundary: report, never die silently
            logger.exception("%s: reader stopped by an error", self.description)
            self._set_state("failed", f"reader error: {exc}")

    def _read_forever(self) -> None:
        capture, attempts = self._first, 0
        self._first = None
        try:
            while not self._stop.is_set():
                if capture is None:
                    capture = self._try_open()
                    if capture is None:
                        attempts += 1
                        if self._give_up(attempts):
                            return
                        delay = self._backoff(attempts)
                        self._set_state("reconnecting",
                                        f"cannot open the camera; retry {attempts} in {delay:.1f} s")
                        self._stop.wait(delay)
                        continue
                self._set_state("connected")
                try:
                    ended, delivered = self._read_until_drop(capture)
                finally:
                    capture.release()
                    capture = None
                if ended or self._stop.is_set():
                    self._set_state("ended", "closed" if self._stop.is_set() else "end of input")
                    return
                # a device that opens but never sends a frame counts as a failed attempt
                attempts = 0 if delivered else attempts + 1
                if self._give_up(attempts):
                    return
                with self._cond:
                    self._drops += 1
                    self._attempts = attempts
                self._set_state("reconnecting", "the camera stopped sending frames; reconnecting")
                self._stop.wait(self._backoff(attempts))
            self._set_state("ended", "closed")
        finally:
            if capture is not None:
                capture.release()
            with self._cond:
                self._cond.notify_all()

    def _backoff(self, attempts: int) -> float:
        """Seconds to wait before reconnect attempt ``attempts + 1`` (doubling, capped)."""
        return min(self._config.backoff_max_s, self._config.backoff_initial_s * 2 ** max(0, attempts - 1))

    def _give_up(self, attempts: int) -> bool:
        """Record ``attempts``; True (state ``failed``) once the configured limit is reached."""
        with self._cond:
            self._attempts = attempts
        limit = self._config.max_reconnect_attempts
        if limit is not None and attempts >= limit:
            self._set_state("failed", f"gave up after {attempts} attempts to reconnect")
            return True
        return False

    def _try_open(self) -> CaptureLike | None:
        try:
            capture = self._open_capture()
        except (cv2.error, OSError, SourceError) as exc:
            logger.debug("%s: open failed: %s", self.description, exc)
            return None
        if capture.isOpened():
            return capture
        capture.release()
        return None

    def _read_until_drop(self, capture: CaptureLike) -> tuple[bool, bool]:
        """Read into the slot until stopped or the input ends (``ended`` True) or the device drops
        (False); ``delivered``: at least one good frame came."""
        failures, delivered = 0, False
        self._freeze_reset()
        paced_from, paced_count = time.monotonic(), 0
        while not self._stop.is_set():
            if self._pace_fps:
                due = paced_from + paced_count / self._pace_fps
                delay = due - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    return True, delivered
                paced_count += 1
            try:
                ok, raw = capture.read()
            except (cv2.error, OSError) as exc:
                logger.debug("%s: read raised %s", self.description, exc)
                ok, raw = False, None
            image = validate_image(raw) if ok else None
            if image is None:
                if not self._reconnect:
                    return True, delivered
                failures += 1
                if failures >= self._config.failed_reads_to_drop:
                    logger.warning("%s: %d failed reads in a row; dropping the device",
                                   self.description, failures)
                    return False, delivered
                self._stop.wait(self._config.failed_read_pause_s)
                continue
            failures, delivered = 0, True
            self._publish(image, int(getattr(capture, "segment", 0)))
        return True, delivered

    def _freeze_reset(self) -> None:
        if self._freeze is not None:
            self._freeze.reset()

    def _publish(self, image: np.ndarray, segment: int) -> None:
        now = time.monotonic()
        if self._freeze is not None and self._freeze.frozen(image, now):
            quality, state, detail = "frozen", "frozen", "the picture has not changed at all; camera hung?"
        elif frame_brightness(image, stride=self._config.check_stride) < self._config.dark_mean_max:
            quality, state, detail = "dark", "dark", "the picture is black; lens covered or light off?"
        else:
            quality, state, detail = "ok", "connected", ""
        with self._cond:
            self._latest = Frame(self._index, now - self._start, image, quality, segment)
            self._index += 1
            if (state, detail) != (self._state, self._detail):
                logger.info("%s: %s %s", self.description, state, detail)
            self._state, self._detail = state, detail
            self._cond.notify_all()


# --------------------------------------------------------------------------- device helpers


class IteratorCapture:
    """A ``CaptureLike`` over an iterator of BGR images (``sim`` and folders played live)."""

    def __init__(self, images: Iterator[np.ndarray]) -> None:
        self._images = images

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        try:
            return True, next(self._images)
        except StopIteration:
            return False, None

    def release(self) -> None:
        close = getattr(self._images, "close", None)
        if close is not None:
            close()


def open_cv_capture(target: object, *, config: SourceConfig = DEFAULT_CONFIG) -> cv2.VideoCapture:
    """``cv2.VideoCapture`` for an index, device, file or URL; URLs get open/read timeouts."""
    if isinstance(target, str) and urlparse(target).scheme in URL_SCHEMES:
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, config.stream_timeout_ms,
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, config.stream_timeout_ms]
        return cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)
    if isinstance(target, int) and os.path.isdir("/dev") and not os.path.exists(f"/dev/video{target}"):
        raise OSError(f"no /dev/video{target}")  # unplugged: don't make OpenCV log a warning per retry
    capture = cv2.VideoCapture(target)
    if isinstance(target, int) or (isinstance(target, str) and target.startswith("/dev/")):
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # newest frame, not a stale driver queue
    return capture


def natural_key(name: str) -> list[object]:
    """Sort key putting ``frame2`` before ``frame10``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def folder_images(folder: Path) -> list[Path]:
    """Image files directly in ``folder``, sorted naturally."""
    files = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_EXTENSIONS]
    return sorted(files, key=lambda p: natural_key(p.name))


def _iter_folder(files: list[Path]) -> Iterator[tuple[int, np.ndarray]]:
    for index, path in enumerate(files):
        image = validate_image(cv2.imread(str(path), cv2.IMREAD_COLOR))
        if image is None:
            logger.warning("skipping unreadable image %s", path)
            continue
        yield index, image


def _iter_video(path: str, capture_factory: CaptureFactory) -> Iterator[tuple[int, np.ndarray]]:
    capture = capture_factory(path)
    try:
        index = 0
        while True:
            try:
                ok, raw = capture.read()
            except (cv2.error, OSError) as exc:
                logger.warning("%s: read failed (%s); treating it as the end", path, exc)
                ok, raw = False, None
            image = validate_image(raw) if ok else None
            if image is None:
                return
            yield index, image
            index += 1
    finally:
        capture.release()


class SimCapture:
    """A ``CaptureLike`` playing seeded simulated games one after another, forever.

    ``segment`` is the number of the game being played (0, 1, ...); game ``n`` uses seed
    ``options.seed + n``.
    """

    def __init__(self, options: SimOptions, fps: float) -> None:
        self._options = options
        self._fps = fps
        self._frames: Iterator[Any] = iter(())
        self.segment = -1
        self.released = False

    def isOpened(self) -> bool:
        return not self.released

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.released:
            return False, None
        for _ in range(2):
            sim_frame = next(self._frames, None)
            if sim_frame is not None:
                return True, sim_frame.frame
            self._next_game()
        return False, None

    def _next_game(self) -> None:
        from vision.sim import GameSpec, simulate_game

        self.segment += 1
        o = self._options
        spec = GameSpec(seed=o.seed + self.segment, edition=o.edition, teams=tuple(o.teams), fps=self._fps,
                        size=tuple(o.size), max_moves=o.max_moves)
        logger.info("simulated table: game %d (seed %d)", self.segment, spec.seed)
        self._frames = simulate_game(spec).frames()

    def release(self) -> None:
        self.released = True


def _iter_capture(capture: SimCapture) -> Iterator[tuple[int, np.ndarray, int]]:
    index = 0
    while True:
        ok, image = capture.read()
        if not ok or image is None:
            return
        yield index, image, capture.segment
        index += 1


def _video_fps(capture: CaptureLike, config: SourceConfig) -> float:
    get = getattr(capture, "get", None)
    fps = float(get(cv2.CAP_PROP_FPS)) if get is not None else 0.0
    return fps if np.isfinite(fps) and 0.5 <= fps <= 240 else config.default_fps


def webcam_devices() -> list[str]:
    """Video device nodes present on this machine (Linux), in natural order."""
    return sorted(glob.glob("/dev/video*"), key=natural_key)


# --------------------------------------------------------------------------- open_source


def open_source(spec: str | int, *, fps: float | None = None, realtime: bool | None = None,
                sim: SimOptions | None = None, config: SourceConfig = DEFAULT_CONFIG,
                capture_factory: CaptureFactory | None = None) -> FrameSource:
    """Open a frame source named by ``spec``; raise ``SourceError`` with a clear message.

    ``spec``: a webcam index (``0`` or ``"0"``), a device path (``/dev/video0``), a URL
    (``rtsp://``, ``http(s)://`` MJPEG), a video file, an image file, a folder of images
    (natural order), ``"sim"`` / ``"sim:SEED"`` (the simulated table in real time, a new
    seeded game after each one) or ``"auto"`` (the first webcam, else ``sim``; see
    ``description``). ``fps``: the frame rate of a folder (or to override a file's, or to
    request from a webcam / play ``sim`` at). ``realtime``: None picks live mode for devices,
    URLs and ``sim`` and ordered mode (every frame) for files and folders; True plays a file
    live at its own pace, False reads ``sim`` frame by frame as fast as it renders.
    ``capture_factory`` replaces ``cv2.VideoCapture`` (tests inject fake cameras).
    """
    factory: CaptureFactory = capture_factory or (lambda target: open_cv_capture(target, config=config))
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise SourceError(f"a source must be a camera index, path, URL or 'sim', not {spec!r}")
    if fps is not None and not (np.isfinite(fps) and fps > 0):
        raise SourceError(f"fps must be a positive number, not {fps!r}")
    text = str(spec).strip()
    if not text:
        raise SourceError("no source given; use a camera index, a file, a folder, a URL, 'sim' or 'auto'")
    lower = text.lower()
    if lower == "auto":
        return _open_auto(fps=fps, sim=sim, config=config, factory=factory,
                          injected=capture_factory is not None)
    if lower == "sim" or lower.startswith("sim:"):
        return _open_sim(text, fps=fps, realtime=realtime, sim=sim, config=config)
    if re.fullmatch(r"[+-]?\d+", text):
        return _open_webcam(int(text), fps=fps, config=config, factory=factory)
    if urlparse(text).scheme.lower() in URL_SCHEMES:
        return _open_url(text, config=config, factory=factory)
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise SourceError(f"unsupported URL scheme {scheme!r} in {text!r}; use rtsp://, http:// or https://")
    if text.startswith("/dev/"):
        return _open_device(text, fps=fps, config=config, factory=factory)
    return _open_path(Path(text), fps=fps, realtime=bool(realtime), config=config, factory=factory)


def _open_webcam(index: int, *, fps: float | None, config: SourceConfig, factory: CaptureFactory,
                 description: str | None = None) -> LiveSource:
    if index < 0 or index > 63:
        raise SourceError(f"bad camera index {index}; use 0 for the first webcam, 1 for the second, ...")
    capture = _open_or_none(factory, index)
    if capture is None:
        raise SourceError(f"no camera at index {index} (is it plugged in, or in use by another program?)")
    return _live_camera(capture, index, description or f"webcam {index}", fps=fps, config=config, factory=factory)


def _open_device(path: str, *, fps: float | None, config: SourceConfig,
                 factory: CaptureFactory) -> LiveSource:
    if not os.path.exists(path):
        raise SourceError(f"no camera device {path} (is it plugged in?)")
    capture = _open_or_none(factory, path)
    if capture is None:
        raise SourceError(f"cannot open camera device {path} (in use by another program, or no permission?)")
    return _live_camera(capture, path, f"camera {path}", fps=fps, config=config, factory=factory)


def _live_camera(capture: CaptureLike, target: int | str, name: str, *, fps: float | None, config: SourceConfig,
                 factory: CaptureFactory) -> LiveSource:
    """A live source over a camera just opened at ``target``, asked for its mode (and asked
    again each time it is reopened after a drop)."""
    _request_mode(capture, fps, config.camera_size)
    _log_size(name, capture)
    return LiveSource(lambda: _request_mode(factory(target), fps, config.camera_size), description=name,
                      fps=fps or _video_fps(capture, config), first=capture, config=config)


def _open_url(url: str, *, config: SourceConfig, factory: CaptureFactory) -> LiveSource:
    parsed = urlparse(url)
    host = parsed.hostname
    if not host:
        raise SourceError(f"no host in camera URL {url!r}")
    try:
        port = parsed.port or URL_SCHEMES[parsed.scheme.lower()]
    except ValueError:
        raise SourceError(f"bad port in camera URL {url!r}") from None
    try:
        with socket.create_connection((host, port), timeout=config.url_probe_timeout_s):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise SourceError(f"cannot reach camera at {host}:{port} ({reason})") from None
    shown = parsed._replace(netloc=f"{host}:{port}").geturl()  # never echo a password
    return LiveSource(lambda: factory(url), description=f"network camera {shown}", fps=config.default_fps,
                      config=config)


def _open_sim(text: str, *, fps: float | None, realtime: bool | None, sim: SimOptions | None,
              config: SourceConfig, description: str | None = None) -> FrameSource:
    options = sim or SimOptions()
    if ":" in text:
        seed_text = text.split(":", 1)[1]
        if not re.fullmatch(r"\d+", seed_text):
            raise SourceError(f"bad simulated table {text!r}; use 'sim' or 'sim:SEED' (a whole number)")
        options = dataclasses.replace(options, seed=int(seed_text))
    try:
        from vision.sim import GameSpec, simulate_game  # noqa: F401 - probe the simulator is there
    except ImportError as exc:
        raise SourceError(f"the simulated table is not available ({exc})") from None
    rate = fps or config.default_fps
    name = description or f"simulated table (seed {options.seed}, {options.edition})"
    if realtime is False:
        return OrderedSource(_iter_capture(SimCapture(options, rate)), fps=rate, description=name, config=config)
    return LiveSource(lambda: SimCapture(options, rate), description=name, fps=rate,
                      pace_fps=rate, detect_frozen=False, config=config)


def _open_auto(*, fps: float | None, sim: SimOptions | None, config: SourceConfig,
               factory: CaptureFactory, injected: bool) -> FrameSource:
    """The first webcam that opens; the simulated table when there is none."""
    candidates = list(range(4)) if injected else [
        int(m.group(1)) for m in (re.fullmatch(r"/dev/video(\d+)", d) for d in webcam_devices()) if m
    ]
    for index in candidates:
        try:
            return _open_webcam(index, fps=fps, config=config, factory=factory,
                                description=f"webcam {index} (auto)")
        except SourceError:
            continue
    logger.warning("no webcam found; showing the simulated table instead")
    return _open_sim("sim", fps=fps, realtime=None, sim=sim, config=config,
                     description="simulated table (auto: no webcam found)")


def _open_path(path: Path, *, fps: float | None, realtime: bool, config: SourceConfig,
               factory: CaptureFactory) -> FrameSource:
    if not path.exists():
        raise SourceError(f"no such file or folder: {str(path)!r}")
    if path.is_dir():
        files = folder_images(path)
        if not files:
            raise SourceError(f"folder {str(path)!r} holds no images ({', '.join(sorted(IMAGE_EXTENSIONS))})")
        if cv2.imread(str(files[0]), cv2.IMREAD_COLOR) is None:
            raise SourceError(f"cannot read image {str(files[0])!r} in folder {str(path)!r}")
        rate = fps or config.default_fps
        name = f"folder {path} ({len(files)} images)"
        if realtime:
            images = (image for _, image in _iter_folder(files))
            return LiveSource(lambda: IteratorCapture(images), description=name, fps=rate, pace_fps=rate,
                              reconnect=False, detect_frozen=False, config=config)
        return OrderedSource(_iter_folder(files), fps=rate, description=name, config=config)
    if not path.is_file():
        raise SourceError(f"{str(path)!r} is not a file or folder")
    if path.suffix.lower() in IMAGE_EXTENSIONS:
        image = validate_image(cv2.imread(str(path), cv2.IMREAD_COLOR))
        if image is None:
            raise SourceError(f"cannot read {str(path)!r} as an image")
        return OrderedSource(iter([(0, image)]), fps=fps or config.default_fps, description=f"image {path}",
                             config=config)
    probe = _open_or_none(factory, str(path))
    if probe is None:
        raise SourceError(f"{str(path)!r} is not a video or image this program can read")
    try:
        ok, raw = probe.read()
        if not ok or validate_image(raw) is None:
            raise SourceError(f"{str(path)!r} is not a video or image this program can read (no frames)")
        rate = fps or _video_fps(probe, config)
    finally:
        probe.release()
    name = f"video {path}"
    if realtime:
        return LiveSource(lambda: factory(str(path)), description=name, fps=rate, pace_fps=rate,
                          reconnect=False, detect_frozen=False, config=config)
    return OrderedSource(_iter_video(str(path), factory), fps=rate, description=name, config=config)


def _open_or_none(factory: CaptureFactory, target: object) -> CaptureLike | None:
    try:
        capture = factory(target)
    except (cv2.error, OSError) as exc:
        logger.debug("opening %r failed: %s", target, exc)
        return None
    if capture.isOpened():
        return capture
    capture.release()
    return None


def _request_mode(capture: CaptureLike, fps: float | None, size: tuple[int, int] | None) -> CaptureLike:
    """Ask a webcam for a frame size, then a frame rate (in that order: a driver resets the rate
    when the size changes); a camera that cannot oblige keeps its own mode."""
    setter = getattr(capture, "set", None)
    if setter is None:
        return capture
    if size is not None:
        setter(cv2.CAP_PROP_FRAME_WIDTH, float(size[0]))
        setter(cv2.CAP_PROP_FRAME_HEIGHT, float(size[1]))
    if fps:
        setter(cv2.CAP_PROP_FPS, float(fps))
    return capture


def _log_size(name: str, capture: CaptureLike) -> None:
    """Log the frame size a camera says it delivers (the one asked for, or its nearest mode)."""
    get = getattr(capture, "get", None)
    if get is not None:
        width, height = float(get(cv2.CAP_PROP_FRAME_WIDTH)), float(get(cv2.CAP_PROP_FRAME_HEIGHT))
        if width > 0 and height > 0:
            logger.info("%s: %.0fx%.0f frames", name, width, height)
