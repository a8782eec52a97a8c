"""Camera -> tracker -> engine: the one loop that turns frames into game events.

``serve`` runs it in one background thread per camera (``start``/``stop``), ``replay`` and the
live benchmarks run it in the caller's thread over a file (``run``): the same code path.

Per frame: keep it as the latest (for the calibration snapshot and the overlay view); a
``dark`` or ``frozen`` frame, or any frame while paused, goes no further; otherwise the
tracker reads it, and each *committed* board goes to ``on_board(labels, frame_index, t)``,
which feeds the engine and returns the events it caused. When no frame comes the pipeline
reports why (``camera_lost``, ``reconnecting``, ``ended``) and never invents a board.

The engine refuses a commit that changes several chips at once (an alert such as "2 chips
placed at once": usually a misread, sometimes a fast table) and would then diff every later
board against its own position, so each later move would join that alert and the game would
go deaf. The pipeline resynchronises instead: the cells of such an alert are *disputed*; later
boards carry the label the engine last agreed to there, until the tracker sees that cell
emptied or back at that label (a disputed chip read as another colour is the same doubt). The
rest of the board (every later move) reaches the engine as usual; the alert stays in the log
for a person to correct those cells on the tablet; nothing is guessed. A refused *first* board
is resynchronised the same way when it has only a few chips (``max_first_disputes``: the deck
box or a cup on the board's edge, read as chips); with more, the view disagrees with the game
from the start (a game already under way), so the alert stands until a person sets it right.

Status changes (``CameraStatus``) go to ``on_status`` only when state or detail change. When
the source starts a different game (``Frame.segment`` changes: the simulated table looping to
its next game) ``on_new_game(frame)`` runs first, so the caller can start a new engine game
and ``set_tracker`` a fresh tracker before that frame is tracked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np

from vision.advice import outside_advice
from vision.glare import glare_advice
from vision.sources import Frame, FrameSource

logger = logging.getLogger(__name__)

STATES: tuple[str, ...] = (
    "starting", "live", "no_board", "occluded", "relocking",
    "camera_lost", "reconnecting", "frozen", "dark", "paused", "ended",
)
"""Camera states the page shows; see ``docs`` of ``serve`` for what the user should do."""

TRACK_STATES: dict[str, str] = {
    "searching": "starting",
    "live": "live",
    "occluded": "occluded",
    "relocking": "relocking",
    "no_board": "no_board",
}
"""Tracker state -> camera state."""

Board = list[list[str]]
OnBoard = Callable[[Board, int, float], Sequence[Any]]

DISPUTE_ALERTS: frozenset[str] = frozenset({"multiple_placed", "multiple_removed"})
"""Engine alert codes (``engine.events``) by which it refused a whole commit: their cells are disputed."""


@dataclass(frozen=True)
class CameraStatus:
    """What the camera side is doing: ``state`` (one of ``STATES``), a short human ``detail``,
    the frames per second being processed, and the index and time of the last frame seen."""

    state: str
    detail: str = ""
    fps: float = 0.0
    frame_index: int = -1
    t: float = 0.0
    advice: str = ""
    """A standing warning about the view while it is read (glare over part of the board,
    ``vision.glare``; cells past the picture's edge, ``vision.advice``): what to do about it;
    "" when there is none."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def view_advice(update: Any) -> str:
    """The standing warning about the view a tracker's ``update`` carries: the cells glare
    blinded and those past the picture's edge (``vision.track.TrackUpdate``), "; "-joined; ""
    when it has none (a stand-in tracker may carry neither)."""
    said = [advice(cells) for advice, cells in ((glare_advice, getattr(update, "glare", None)),
                                                (outside_advice, getattr(update, "outside", None)))
            if cells is not None]
    return "; ".join(filter(None, said))


@dataclass(frozen=True)
class PipelineConfig:
    """Tunables of the loop (times in seconds)."""

    read_timeout_s: float = 0.25
    """How long one wait for a frame lasts before the loop checks the camera's state."""
    stall_after_s: float = 3.0
    """A connected camera that sends no new frame this long is reported ``camera_lost``."""
    fps_smoothing: float = 0.9
    """Weight of the past in the exponential average of the processing rate."""
    overlay_max_fps: float = 4.0
    """The overlay JPEG is re-encoded at most this often, however often it is asked for."""
    overlay_max_width: int = 960
    """Overlay images wider than this are scaled down before encoding (bandwidth)."""
    jpeg_quality: int = 75
    stop_timeout_s: float = 5.0
    max_first_disputes: int = 3
    """A refused first board with at most this many chips is disputed cell by cell, like a later one."""


class Pipeline:
    """Wires a ``FrameSource`` to a tracker (``update(image, t=, index=) -> TrackUpdate``) and
    ``on_board``. Thread-safe accessors (``status``, ``latest_frame``, ``latest_overlay_jpeg``)
    may be called from any thread while it runs. It never closes the source (its opener does).
    """

    def __init__(self, source: FrameSource, tracker: Any, *, on_board: OnBoard,
                 on_status: Callable[[CameraStatus], None] | None = None,
                 on_update: Callable[[Frame, Any], None] | None = None,
                 on_new_game: Callable[[Frame], None] | None = None,
                 config: PipelineConfig = PipelineConfig()) -> None:
        self.source = source
        self.config = config
        self._tracker = tracker
        self._on_board = on_board
        self._on_status = on_status
        self._on_update = on_update
        self._on_new_game = on_new_game
        self._segment: int | None = None
        self._drops_seen = 0
        self._lock = threading.Lock()
        self._overlay_lock = threading.Lock()
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._thread: threading.Thread | None = None
        self._state, self._detail = "starting", f"opening {source.description}"
        self._advice = ""
        self._frame: Frame | None = None
        self._corners: np.ndarray | None = None
        self._labels: Board | None = None
        self._fps = 0.0
        self._last_frame_at: float | None = None
        self._overlay: tuple[int, float, bytes] | None = None
        self._raw: Board | None = None
        self._fed: Board | None = None
        self._disputed: dict[tuple[int, int], str] = {}
        self._first_refused = False
        self.frames_seen = 0
        self.frames_tracked = 0
        self.boards_committed = 0
        self.events_emitted = 0

    # ----------------------------------------------------------------- control

    def run(self) -> CameraStatus:
        """Process frames in this thread until the source finishes or ``stop()``; the final status."""
        quiet_since = time.monotonic()
        while not self._stop.is_set():
            frame = self.source.read(timeout=self.config.read_timeout_s)
            now = time.monotonic()
            if frame is None:
                if self._idle(now - quiet_since):
                    break
                continue
            quiet_since = now
            self._process(frame, now)
        if not self.source.finished:
            self._set_status("ended", "stopped")
        return self.status

    def start(self) -> None:
        """Run in one background thread (``serve``)."""
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("the pipeline is already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run_in_thread, name="pipeline", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the loop and wait for its thread (the source stays open; close it yourself)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self.config.stop_timeout_s)
            if thread.is_alive():
                logger.warning("pipeline thread did not stop within %.0f s", self.config.stop_timeout_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def pause(self) -> None:
        """Stop tracking (frames are still read, for the snapshot); the status says ``paused``."""
        self._paused.set()
        self._set_status("paused", "camera paused")

    def resume(self) -> None:
        """Track again; changes made while paused are picked up once the board is still."""
        self._paused.clear()
        self._set_status("starting", "resuming")

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    @property
    def tracker(self) -> Any:
        with self._lock:
            return self._tracker

    def set_tracker(self, tracker: Any) -> None:
        """Swap in a new tracker (after calibration); it takes over from the next frame."""
        with self._lock:
            self._tracker = tracker
            self._corners = self._labels = None
            self._forget_disputes()

    # ----------------------------------------------------------------- readers (any thread)

    @property
    def status(self) -> CameraStatus:
        with self._lock:
            return self._status_locked()

    def latest_frame(self) -> Frame | None:
        """The newest frame (BGR image not to be modified), tracked or not: a live camera's
        newest even while the tracker is still busy with an older one. A search for the board
        takes seconds, and a snapshot for calibration must show the table as it is now."""
        with self._lock:
            frame = self._frame
        return self._newest(frame)

    def _newest(self, frame: Frame | None) -> Frame | None:
        """A live source's newest frame where it is newer than ``frame`` (the last processed), else ``frame``."""
        if not self.source.live:
            return frame
        newest = self.source.latest()
        return newest if newest is not None and (frame is None or newest.index > frame.index) else frame

    def latest_overlay_jpeg(self) -> bytes | None:
        """The newest frame with grid, labels and state drawn, as JPEG bytes (None before a frame).

        Encoded lazily here, in the caller's thread, at most ``overlay_max_fps`` times a second
        however many viewers ask; the pipeline thread never waits for it. With no grid to draw,
        the camera's newest frame is shown (``latest_frame``): while the tracker searches for the
        board, which takes seconds, the people aiming the camera still see it move.
        """
        with self._lock:
            frame, corners, labels = self._frame, self._corners, self._labels
            status = self._status_locked()
        if corners is None:
            frame = self._newest(frame)
        if frame is None:
            return None
        with self._overlay_lock:
            cached = self._overlay
            now = time.monotonic()
            if cached is not None and (cached[0] == frame.index
                                       or now - cached[1] < 1.0 / self.config.overlay_max_fps):
                return cached[2]
            image = render_overlay(frame.image, corners, labels, status=status,
                                   max_width=self.config.overlay_max_width)
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.config.jpeg_quality])
            if not ok:
                logger.warning("could not encode the overlay frame")
                return cached[2] if cached is not None else None
            self._overlay = (frame.index, now, data.tobytes())
            return self._overlay[2]

    # ----------------------------------------------------------------- loop internals

    def _run_in_thread(self) -> None:
        try:
            self.run()
        except Exception as exc:  # thread boundary: log it and say so on the page
            logger.exception("the camera pipeline stopped by an error")
            self._set_status("ended", f"stopped by an error: {exc}")

    def _idle(self, quiet_s: float) -> bool:
        """No frame came: report why. True when the source will never send another."""
        self._note_drops()
        state = self.source.state
        if state == "ended":
            self._set_status("ended", self.source.detail or "end of input")
            return True
        if state == "failed":
            self._set_status("camera_lost", self.source.detail or "the camera is gone")
            return True
        if state == "reconnecting":
            attempts = getattr(self.source, "reconnect_attempts", 0)
            if attempts:
                self._set_status("reconnecting", self.source.detail)
            else:
                self._set_status("camera_lost", "camera lost: the camera stopped sending frames")
        elif state == "connecting":
            self._set_status("starting", f"connecting to {self.source.description}")
        elif self._paused.is_set():
            self._set_status("paused", "camera paused")
        elif quiet_s >= self.config.stall_after_s:
            self._set_status("camera_lost", f"no picture for over {self.config.stall_after_s:g} s")
        return False

    def _process(self, frame: Frame, now: float) -> None:
        with self._lock:
            if self._last_frame_at is not None:
                rate = 1.0 / max(now - self._last_frame_at, 1e-6)
                a = self.config.fps_smoothing
                self._fps = rate if self._fps == 0.0 else a * self._fps + (1 - a) * rate
            self._last_frame_at = now
            self._frame = frame
            tracker = self._tracker
        self.frames_seen += 1
        self._note_drops()
        if frame.segment != self._segment:
            if self._segment is not None:
                self._new_game(frame)
            self._segment = frame.segment
            with self._lock:
                tracker = self._tracker
        if self._paused.is_set():
            self._set_status("paused", "camera paused")
            return
        if frame.quality == "frozen":
            self._set_status("frozen", self.source.detail or "the picture has not changed at all")
            return
        if frame.quality == "dark":
            self._set_status("dark", self.source.detail or "the picture is black")
            return
        update = tracker.update(frame.image, t=frame.t, index=frame.index)
        self.frames_tracked += 1
        with self._lock:
            if tracker is self._tracker:
                self._corners, self._labels = update.corners, update.labels
        state = TRACK_STATES.get(update.state, update.state)
        self._set_advice(view_advice(update))
        self._set_status(state, getattr(update, "message", ""))  # live too: "the grid may not fit ..."
        if self._on_update is not None:
            self._on_update(frame, update)
        if update.committed is not None:
            self.boards_committed += 1
            board = self._agreed(update.committed)
            events = self._on_board(board, frame.index, frame.t)
            self.events_emitted += len(events or ())
            self._note_disputes(board, events or ())

    # ----------------------------------------------------------------- resynchronising the engine

    def _forget_disputes(self) -> None:
        """A new tracker or game: nothing is disputed, nothing was fed."""
        self._raw = self._fed = None
        self._disputed = {}
        self._first_refused = False

    def _agreed(self, committed: Board) -> Board:
        """``committed`` with each disputed cell at the label the engine last agreed to, unless the
        tracker now sees it empty or at that label (then the dispute is over and its reading goes through)."""
        before, self._raw = self._raw, committed
        if not self._disputed:
            return committed
        board = [list(row) for row in committed]
        for (r, c), label in list(self._disputed.items()):
            if before is not None and committed[r][c] != before[r][c] and committed[r][c] in ("empty", label):
                del self._disputed[(r, c)]
            else:
                board[r][c] = label
        return board

    def _note_disputes(self, board: Board, events: Sequence[Any]) -> None:
        """Cells of an alert that refused the whole commit become disputed (see the module docstring).

        The engine called them placements because its board had no chip there (agreed: ``empty``),
        removals because it had one (agreed: the label fed before).
        """
        fed, self._fed = self._fed, [list(row) for row in board]
        for event in events:
            code = getattr(event, "alert", None)
            if code not in DISPUTE_ALERTS:
                continue
            cells = [(int(r), int(c)) for r, c in getattr(event, "cells", ()) or ()]
            if self._first_refused or (fed is None and len(cells) > self.config.max_first_disputes):
                self._first_refused = True  # a game under way: see the module docstring
                continue
            if fed is None:  # a few chips on the first board: what the engine agreed to is empty
                fed = [["empty"] * len(row) for row in board]
            for r, c in cells:
                agreed = "empty" if code == "multiple_placed" else fed[r][c]
                self._disputed[(r, c)] = agreed
                self._fed[r][c] = agreed
            logger.warning("camera: the engine refused %s at once; those cells are disputed until they change"
                           " again or are corrected", cells)

    def _note_drops(self) -> None:
        """Report a drop even when the camera came back before the loop looked."""
        drops = getattr(self.source, "drops", 0)
        if drops > self._drops_seen:
            self._drops_seen = drops
            self._set_status("camera_lost", "camera lost: the camera stopped sending frames")

    def _new_game(self, frame: Frame) -> None:
        """The picture jumped to another table (the simulated table's next game)."""
        logger.info("camera: a new game starts at frame %d", frame.index)
        self._forget_disputes()
        if self._on_new_game is not None:
            self._on_new_game(frame)  # typically: a new engine game and ``set_tracker(fresh)``
        else:
            logger.warning("the source started a new game but nobody resets the engine")

    def _status_locked(self) -> CameraStatus:
        frame = self._frame
        return CameraStatus(self._state, self._detail, round(self._fps, 1),
                            -1 if frame is None else frame.index, 0.0 if frame is None else frame.t, self._advice)

    def _set_status(self, state: str, detail: str = "") -> None:
        with self._lock:
            if (state, detail) == (self._state, self._detail):
                return
            self._state, self._detail = state, detail
            status = self._status_locked()
        logger.info("camera: %s %s", state, detail)
        self._report(status)

    def _set_advice(self, advice: str) -> None:
        """Keep the standing warning about the view (reported, like a status, when it changes)."""
        with self._lock:
            if advice == self._advice:
                return
            new = advice and not self._advice
            self._advice = advice
            status = self._status_locked()
        # Said once as a warning; the count of cells may change with every reading after that.
        (logger.warning if new else logger.info)("camera: %s", advice or "the view is clear now")
        self._report(status)

    def _report(self, status: CameraStatus) -> None:
        if self._on_status is not None:
            self._on_status(status)


# --------------------------------------------------------------------- overlay drawing


def render_overlay(image: np.ndarray, corners: np.ndarray | None, labels: Board | None, *,
                   status: CameraStatus | None = None, max_width: int = 0) -> np.ndarray:
    """A copy of ``image`` (BGR) with the grid and labels (when locked) and the state drawn."""
    out = image
    if corners is not None:
        out = _draw_grid(image, corners, labels)
    if max_width and out.shape[1] > max_width:
        scale = max_width / out.shape[1]
        out = cv2.resize(out, (max_width, max(1, round(out.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    elif out is image:
        out = image.copy()
    if status is not None:
        text = f"{status.state}  {status.fps:.0f} fps" + (f"  {status.detail}" if status.detail else "")
        scale = max(0.4, out.shape[1] / 1600)
        origin = (8, max(16, round(24 * scale * 1.6)))
        cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def _draw_grid(image: np.ndarray, corners: np.ndarray, labels: Board | None) -> np.ndarray:
    try:
        from vision.overlay import draw_overlay
    except ImportError:
        draw_overlay = None
    if draw_overlay is not None:
        try:
            return draw_overlay(image, corners, labels)
        except ValueError as exc:  # corners the drawing refuses (degenerate): outline only
            logger.debug("overlay: %s", exc)
    out = image.copy()
    points = np.rint(np.asarray(corners, dtype=np.float32).reshape(4, 2)).astype(np.int32)
    cv2.polylines(out, [points], True, (0, 255, 255), 2, cv2.LINE_AA)
    return out
