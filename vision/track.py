"""Temporal stabilisation: a noisy camera stream in, exactly the board changes that happened out.

``BoardTracker.update(frame)`` is called for every frame. Per frame it warps a downscaled
frame once into a small rectified board (``vision.motion``) and compares it cell by cell
with the previous frame (*motion*) and with the *background*: the board's appearance when it
was last committed (*change*). Then:

- Cells that move, that show new skin-like pixels, changed edge cells beside which the margin
  outside the grid changed too (an arm reaching in, even a still one that is no skin colour:
  nothing on the board changes the margin), their neighbours, and every changed cell
  connected to them are ``unknown`` this frame, never ``empty``: a chip hidden by an arm is
  not a removal. Skin-coloured cells are a hand only where such an arm joins them (a line of
  white chips under a warm lamp is skin-coloured too). (``vision.hands``)
- A cell that has been changed, and clear of hands and motion, for ``still_seconds`` is read by the cell reader
  (``vision.classify.CellReader``, only then: the reader is the expensive part); once the
  reading is sure (or, less sure, has held for ``patient_seconds``) it is committed. A change is committed only
  where the cell's *appearance* changed, so reader flicker on untouched cells never becomes
  a move; a changed region is committed whole, and in the order its cells cleared of hands
  (``vision.holding``). A changed cell stays changed down to a lower threshold (hysteresis: a dark chip in
  dim light changes its cell by about the threshold itself). A new chip of a team colour must
  change its empty cell's colour, not only its light (an arm's shadow across a red card).
- A change across most cells at once is a bump or a lamp, never moves: the tracker waits for
  the board to be still, aligns the rectified board to the background (ECC); a moved board
  is re-locked (falling back to the empty-board reference and then to locating from scratch),
  an unmoved one re-normalised. Slow drift is caught by phase correlation while still. The
  new view becomes the background, but a cell or two that had changed and were not yet
  committed when it began (a chip put down just before the bump) stay *pending* for a while:
  they are read and committed as usual, instead of vanishing into the new background, and
  together, so the engine puts them in turn order.
- Brightness flicker divides out (per-channel gain against the background), and cells far
  below the change threshold slowly follow the light.
- A lock found automatically can be a misfit (the grid half a cell off): then a chip straddles
  empty cells and changes two of them, none of which reads as a chip. On that evidence the
  tracker locates the board again (at most every ``fit_recheck_seconds``) and takes the new
  grid only if two such checks in a row find it and it explains the change better: at most
  half as many changed cells since the last commit, none touching another, each read surely
  as a chip. It then compares the frame of the last commit with the present under the new
  grid, so the moves made meanwhile are read and committed as usual. Otherwise the lock is
  kept and the message says the grid may be off (for ``fit_doubt_seconds`` after the last
  such evidence); meanwhile changes over touching cells are not committed (one chip seen
  twice?), single cells are; nothing is guessed.

States: ``searching`` (no grid yet), ``live``, ``occluded`` (some cells unknown),
``relocking`` (after a global change), ``no_board`` (nothing readable for a while).
"""

from __future__ import annotations

import inspect
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.labels import TEAM_COLOURS, Label
from engine.layout import EDITIONS, SIZE
from vision.background import Background, EmptyLooks
from vision.board_wide import BoardWideChange, QuietClock
from vision.clipping import clip_levels
from vision.colour import NO_COLOUR, lacks_colour
from vision.flipped import being_flipped, to_be_flipped
from vision.frame_time import lasted
from vision.geometry import guess_edition, mirrored, off_the_picture, shift_in_cells
from vision.glare import glare_cells
from vision.hands import HandWatch
from vision.holding import crowded, held_by_region, overtaking
from vision.motion import (
    Rectifier,
    align,
    cells_of,
    changed_alike,
    chroma_change,
    dilate_cells,
    grey,
    large_regions,
    largest_shift,
    region_sizes,
    regions_touching,
    relative_gain,
    structural_difference,
    warp_displacement,
)
from vision.track_config import TrackConfig
from vision.track_readings import CellReadings
from vision.track_search import SearchSchedule
from vision.warp import cells_outside

log = logging.getLogger(__name__)

UNKNOWN = Label.UNKNOWN.value
TOO_BRIGHT = "the board is too bright to read: dim the lamp or lower the camera's exposure"
LOOKING = "looking for the board"
STATES: tuple[str, ...] = ("searching", "live", "occluded", "relocking", "no_board")


@dataclass
class TrackUpdate:
    """What the tracker made of one frame.

    ``committed``: None, or a new stable 10x10 grid of labels (``free empty blue green red
    yellow flipped``) when a change was committed (also the first stable board).
    ``labels``: this frame's reading, ``unknown`` for occluded or moving cells.
    ``unknown``: ``(10, 10)`` bool. ``corners``: canonical ``(4, 2)`` float32 or None.
    ``relocked``: True on the frame a re-lock after a bump or drift completed.
    """

    index: int
    t: float
    state: str
    committed: list[list[str]] | None = None
    corners: np.ndarray | None = None
    labels: list[list[str]] | None = None
    unknown: np.ndarray = field(default_factory=lambda: np.ones((SIZE, SIZE), dtype=bool))
    relocked: bool = False
    message: str = ""
    glare: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=bool))
    """``(10, 10)`` bool: the cells a lamp's glare blinded at the last reading of the board
    (``vision.glare``), where a chip, a flipped one above all, may go unseen."""
    outside: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=bool))
    """``(10, 10)`` bool: the cells of the grid locked onto that lie past the picture's edge
    (``vision.warp.cells_outside``), where no chip can be seen."""


@dataclass
class EmptyLookCheck:
    """Cells ``(10, 10)`` bool against their own empty look (``BoardTracker._against_empty_looks``)."""

    same: np.ndarray
    """Within ``change_keep_threshold`` of it: looks as it did empty."""
    alike: np.ndarray
    """Within ``change_threshold`` of it (the light's drift allowed for), or a chip surely taken off."""
    near: np.ndarray
    """Within ``change_keep_threshold`` of it, the light's drift allowed for."""


def _holds_chip(labels: np.ndarray) -> np.ndarray:
    """``(10, 10)`` bool: cells whose label is a chip, coloured or white: where a white chip can
    be (a chip is put down colour side up, and only a chip lying there is turned over)."""
    return np.isin(labels, (*TEAM_COLOURS, "flipped"))


def _takes_white_hint(reader: Any) -> bool:
    """Does ``reader.read`` accept ``white_possible`` (where a white chip can be)? The tracker's
    own ``CellReader`` does; a reader handed in need not."""
    try:
        return "white_possible" in inspect.signature(reader.read).parameters
    except (TypeError, ValueError):
        return False


def _grid(values: np.ndarray) -> list[list[str]]:
    return [[str(v) for v in row] for row in values]


class BoardTracker:
    """Turns frames of one camera into committed board changes; see the module docstring.

    ``corners``: canonical grid corners ``(4, 2)`` (None: locate automatically). ``profile``:
    a calibration profile (edition, corners, colour model). ``reference``: the profile's
    empty-board image ``(H, W, 3)`` uint8 BGR, used to re-find the grid. ``reader``: anything
    with ``read(frame, corners)`` returning ``.labels`` and ``.confidence`` (default: a
    ``vision.classify.CellReader`` for the edition and the profile's colour model).
    """

    def __init__(
        self,
        *,
        edition: str | None = None,
        corners: Any = None,
        profile: Any = None,
        reference: np.ndarray | None = None,
        reader: Any = None,
        config: TrackConfig = TrackConfig(),
    ) -> None:
        if edition is None and profile is not None:
            edition = getattr(profile, "edition", None)
        if edition is not None and edition not in EDITIONS:
            raise ValueError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
        self.config = config
        self.edition = edition
        self.profile = profile
        self.reference = reference
        # Corners given are locked onto as they are. A profile's are not: they say where the
        # board lay at calibration, and it is put away after a game (``detect`` looks for it).
        self._given = None if corners is None else np.asarray(corners, dtype=np.float32).reshape(4, 2)
        self._reader: Any = reader
        self._own_reader = reader is None
        self._fit_checked_at = -math.inf
        self._fit_doubt_until = -math.inf
        self._fit_candidate: np.ndarray | None = None
        self._rectifier: Rectifier | None = None
        self._index = -1
        self._t = 0.0
        self._colour_checked_at = -math.inf
        self._colourless = False
        self._search = SearchSchedule(config)
        self._camera_mirrors = False  # learnt from the last grid locked onto
        self._unreadable_since: float | None = None
        self.committed: np.ndarray | None = None
        self._reset_lock_state()

    # -- public ---------------------------------------------------------------------------------

    @property
    def corners(self) -> np.ndarray | None:
        """Current canonical corners ``(4, 2)`` float32, or None while searching."""
        return None if self._rectifier is None else self._rectifier.corners

    def update(self, frame: np.ndarray, *, t: float | None = None, index: int | None = None) -> TrackUpdate:
        """Process one frame (``(H, W, 3)`` uint8 BGR) taken at ``t`` seconds; see ``TrackUpdate``."""
        self._index = self._index + 1 if index is None else int(index)
        t = time.monotonic() if t is None else float(t)
        self._t = t
        if self._rectifier is not None and frame.shape[:2] != self._frame_shape:
            log.info("frame size changed to %s; locating the board again", frame.shape[:2])
            self._drop_lock()
        if self._lacks_colour(frame, t):
            # A webcam switched to its night mode: every chip would read as one team.
            state = "occluded" if self._rectifier is not None else self._lost_state(t, "searching")
            return self._update(t, state, message=NO_COLOUR)
        if self._rectifier is None:
            waiting = self._acquire(frame, t)
            if waiting:
                return self._update(t, self._lost_state(t, "searching"), message=waiting)
        assert self._rectifier is not None
        rect = self._rectifier.rectify(frame)
        if self._bg is None:
            return self._settle_first(frame, rect, t)
        return self._track(frame, rect, t)

    # -- lock -----------------------------------------------------------------------------------

    def _reset_lock_state(self) -> None:
        shape = (SIZE, SIZE)
        self._frame_shape: tuple[int, ...] = ()
        self._bg: Background | None = None
        self._prev: np.ndarray | None = None
        self._still_since: float | None = None
        self._votes: dict[str, np.ndarray] = {}
        self._empty = EmptyLooks()
        self._clear_since = np.full(shape, np.nan)
        self._first_clear = np.full(shape, np.nan)
        """When each changed cell was first seen clear of hands (kept while a hand covers it again)."""
        self._changed = np.zeros(shape, dtype=bool)
        self._held = np.zeros(shape, dtype=bool)
        """The last frame's changed cells, with those held by hysteresis (``change_keep_threshold``)."""
        self._sleeve = np.zeros(shape, dtype=bool)
        """Cells a region too large for a move (an arm, a sleeve) has covered and that have stayed
        changed since, while such a region is in view."""
        self._hands = HandWatch(self.config)
        self._pending = np.zeros(shape, dtype=bool)
        self._pending_until = -math.inf
        self._tracked_at: float | None = None
        """When the last frame reached ordinary tracking (``_track``), for the time since."""
        self._readings = CellReadings()
        self._glare = np.zeros(shape, dtype=bool)
        """The cells glare blinded at the last reading of the board (``TrackUpdate.glare``)."""
        self._outside = np.zeros(shape, dtype=bool)
        """The cells of the grid locked onto past the picture's edge (``TrackUpdate.outside``)."""
        self._wide: BoardWideChange | None = None
        """The board-wide change going on (a bump, an arm across the board, a lamp), if any."""
        self._lit = QuietClock()
        """Seconds a changed region too large for a move has lain quiet since the last new background."""
        self._drift_quiet_until = -math.inf
        self._drift_clock: float | None = None
        """When the board last moved, or the lock was last checked for drift."""
        self._last_still_frame: np.ndarray | None = None
        self._ref_cache: Any = None

    def _drop_lock(self) -> None:
        self._rectifier = None
        self._reset_lock_state()

    def _lock(self, corners: np.ndarray, frame: np.ndarray) -> None:
        """Lock onto ``corners``; the background is kept (a re-lock moves only the geometry)."""
        self._frame_shape = frame.shape[:2]
        self._camera_mirrors = mirrored(corners)
        self._outside = cells_outside(corners, frame.shape)
        self._rectifier = Rectifier.build(
            corners, edition=self.edition or "classic", frame_shape=frame.shape, config=self.config.motion
        )

    def _acquire(self, frame: np.ndarray, t: float) -> str:
        """Lock onto the given corners, or locate the board (throttled): "" once locked, else
        what the tracker is waiting for."""
        if self._given is not None:
            size = (frame.shape[1], frame.shape[0])
            why = off_the_picture(self._given, size)
            if why:  # corners for another picture (typed wrong, or another camera's)
                return f"the grid corners given {why}: give the corners of the board in this camera's picture"
            # Given corners tell the grid's shape: the Jumbo mat's cells are wider than tall.
            self.edition = self.edition or guess_edition(self._given, size)[0]
            self._lock(self._given, frame)
            return ""
        if not self._search.due(t):
            return LOOKING
        self._search.began(t)
        started = time.monotonic()
        found = self._locate(frame)
        self._search.ended(found=found is not None, seconds=time.monotonic() - started)
        if found is None:
            return LOOKING
        self._lock(found, frame)
        return ""

    def _lacks_colour(self, frame: np.ndarray, t: float) -> bool:
        """``vision.colour.lacks_colour`` of the frame, looked at every ``colour_check_seconds``
        (a camera switches to its night mode rarely, and the check costs a millisecond)."""
        if lasted(t - self._colour_checked_at, self.config.colour_check_seconds) or t < self._colour_checked_at:
            self._colour_checked_at, self._colourless = t, lacks_colour(frame)
        return self._colourless

    def _locate(self, frame: np.ndarray) -> np.ndarray | None:
        """Full detection (reference first when there is one); canonical corners or None. The
        frame is looked at the way the last board was seen first (flipped left to right if the
        camera mirrors), and the other way only on some failed searches (``mirrored_search_every``)."""
        from vision.detect import DetectConfig, detect

        both_ways = self._search.both_ways()
        det = detect(frame, reference=self.reference, profile=self.profile, edition=self.edition,
                     config=DetectConfig(look_both_ways=both_ways, mirrored_first=self._camera_mirrors))
        if not det:
            log.debug("board not found: %s", det.reason)
            return None
        self.edition = self.edition or det.edition or "classic"
        return np.asarray(det.corners, dtype=np.float32).reshape(4, 2)

    def _relocate(self, frame: np.ndarray) -> np.ndarray | None:
        """Re-find the grid after a bump: from the last still frame as a reference, else from scratch."""
        if self._last_still_frame is not None and self._rectifier is not None:
            try:
                from vision.reference import Reference, relocate
            except ImportError:
                Reference = None
            if Reference is not None:
                if self._ref_cache is None:
                    self._ref_cache = Reference.build(
                        self._last_still_frame, self._rectifier.corners, edition=self.edition
                    )
                fit = relocate(frame, self._ref_cache)
                if fit:
                    return np.asarray(fit.corners, dtype=np.float32).reshape(4, 2)
                log.info("relocating from the last still board failed: %s", fit.reason)
        return self._locate(frame)

    def _reader_for(self) -> Any:
        if self._reader is None:
            from vision.classify import CellReader
            from vision.colour import ColourModel

            data = getattr(self.profile, "colour_model", None)
            model = ColourModel.from_dict(data) if data else None
            self._reader = CellReader(edition=self.edition or "classic", colour_model=model)
        return self._reader

    def _remember_empty_board(self, frame: np.ndarray, labels: np.ndarray) -> None:
        """A first board with no chips is each cell's empty look: hand it to the reader as its
        reference (a white chip on a white card, a chip on matching art are then plain)."""
        reader = self._reader_for()
        if not np.isin(labels, ("empty", "free")).all():
            return
        assert self._bg is not None
        self._empty.remember(self._bg.coarse, labels == "empty")
        if not self.config.empty_reference or not hasattr(reader, "set_reference"):
            return
        assert self._rectifier is not None
        reader.set_reference(reader.rectify(frame, self._rectifier.corners))
        log.info("the first board is empty: using it as the reader's empty-board reference")

    def _read(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Labels and confidence ``(10, 10)`` of every cell; once a board is committed, a white
        (flipped) chip is possible only where a chip lies (a chip is put down colour side up, and
        a new chip half under a white playing card must not read as a flip), when the reader
        takes that hint (``read(..., white_possible=)``); before, white chips lie on whole
        sequences (``first_board_lines``)."""
        assert self._rectifier is not None
        reader = self._reader_for()
        if self.committed is not None and _takes_white_hint(reader):
            white_possible = _holds_chip(self.committed)
            reading = reader.read(frame, self._rectifier.corners, white_possible=white_possible)
        else:
            reading = reader.read(frame, self._rectifier.corners)
        if self.committed is None and self.config.first_board_lines and hasattr(reader, "colour_model"):
            from vision.flipped import FlippedPrior, with_flipped_lines

            reading = with_flipped_lines(reading, reader.colour_model.labels, FlippedPrior())
        self._glare = glare_cells(getattr(reading, "features", None) or {})
        labels = np.array(reading.labels, dtype=object).reshape(SIZE, SIZE)
        return labels, np.asarray(reading.confidence, dtype=np.float32).reshape(SIZE, SIZE)

    # -- first board ----------------------------------------------------------------------------

    def _settle_first(self, frame: np.ndarray, rect: np.ndarray, t: float) -> TrackUpdate:
        """Before the first commit: wait until the whole board is still and reads the same."""
        cfg, rf = self.config, self._rectifier
        assert rf is not None
        co = rf.coarse(rect)
        moving = np.zeros((SIZE, SIZE), dtype=bool)
        if self._prev is not None:
            moving = self._structure(co, self._prev) > cfg.motion_threshold
        self._prev = co
        if moving.any() or self._still_since is None:
            self._still_since = t
            self._votes = {}
            self._unreadable_since = None
            unknown = dilate_cells(moving, cfg.occlusion_grow)
            return self._update(t, "occluded" if moving.any() else "searching", unknown=unknown,
                                message="waiting for a still board")
        labels, _conf = self._read(frame)
        for name in np.unique(labels):
            self._votes.setdefault(str(name), np.zeros((SIZE, SIZE), dtype=int))
            self._votes[str(name)] += labels == name
        if not lasted(t - self._still_since, cfg.first_still_seconds):
            return self._update(t, "searching", labels=labels, unknown=np.zeros((SIZE, SIZE), dtype=bool),
                                message="waiting for a still board")
        # The first board is each cell's most frequent reading over the still stretch.
        names = list(self._votes)
        counts = np.stack([self._votes[n] for n in names])
        labels = np.array(names, dtype=object)[counts.argmax(axis=0)]
        self._votes = {}
        chips = ~np.isin(labels, ("empty", "free"))
        only_white = chips.any() and bool((labels[chips] == "flipped").all())
        # White (locked) chips with no coloured chip at all is no game in progress: misreads.
        if 0 < chips.sum() <= cfg.first_board_stray_chips or only_white:
            log.warning("first board: taking %d lone reading(s) %s as an empty new game",
                        int(chips.sum()), cells_of(chips, labels))
            labels[chips] = "empty"
        self.committed = labels.copy()
        self._rebaseline(frame, rect, keep_pending=False)
        self._unreadable_since = None
        self._remember_empty_board(frame, labels)
        log.info("first board committed at frame %d", self._index)
        return self._update(t, "live", committed=_grid(labels), labels=labels,
                            unknown=np.zeros((SIZE, SIZE), dtype=bool))

    def _rebaseline(self, frame: np.ndarray, rect: np.ndarray, *, keep_pending: bool = True) -> None:
        """The current view becomes the background (after the first board, a relight or re-lock).

        With ``keep_pending``, cells changed but not committed before (``_changed``, the last
        ordinary frame's) stay pending: the new background hides their change, not their move.
        """
        pending = self._pending | self._changed
        if not keep_pending or pending.sum() > self.config.max_pending_cells:
            pending = np.zeros_like(pending)
        self._pending, self._changed = pending, np.zeros_like(self._changed)
        self._held = np.zeros_like(self._held)
        self._sleeve = np.zeros_like(self._sleeve)
        self._hands.forget()
        if pending.any():
            self._pending_until = self._t + self.config.pending_seconds
            log.info("frame %d: cells %s changed before the new view; reading them again",
                     self._index, cells_of(pending))
        assert self._rectifier is not None
        self._bg = Background.taken(self._rectifier, rect.copy(), self.config.motion)
        self._prev = self._bg.coarse
        self._last_still_frame = frame.copy()
        self._ref_cache = None
        self._readings.forget(np.ones((SIZE, SIZE), dtype=bool))
        self._first_clear[:] = np.nan
        self._first_clear[self._pending] = self._t  # changed before this view: older than what comes next
        self._clear_since[:] = np.nan
        self._wide = None
        self._lit = QuietClock()

    def _structure(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        assert self._rectifier is not None
        return structural_difference(a, b, self._rectifier, max_gain=self.config.max_cell_gain)

    # -- tracking -------------------------------------------------------------------------------

    def _track(self, frame: np.ndarray, rect: np.ndarray, t: float) -> TrackUpdate:
        cfg, rf = self.config, self._rectifier
        assert rf is not None and self._bg is not None and self._prev is not None
        assert self.committed is not None
        since = 0.0 if self._tracked_at is None else max(t - self._tracked_at, 0.0)
        self._tracked_at = t
        inner = cfg.motion.inner_fraction
        co = rf.coarse(rect)
        bg = self._bg
        gain = relative_gain(co, bg.coarse, rf, inner=inner)
        norm = rect / gain
        moving = self._structure(co, self._prev) > cfg.motion_threshold
        self._prev = co
        change = self._structure(co, bg.coarse)
        changed = change > cfg.change_threshold
        # A changed cell stays one to read down to a lower threshold (hysteresis), above the
        # board's own level of change (under a light the background does not explain yet,
        # every cell hovers near the threshold). Held cells are only read (below); what is a
        # hand, an arm or a large region is judged on ``changed`` alone (a lamp leaves the
        # margin and the cells beside it just above the lower threshold: a free corner held
        # there was taken for an arm reaching in, game 153002).
        margin = cfg.change_threshold - cfg.change_keep_threshold
        keep = min(cfg.change_threshold, max(cfg.change_keep_threshold, float(np.median(change)) + margin))
        held = changed | (self._held & (change > keep))
        self._held = held
        co_norm = co / gain
        hands = self._hands.find(co, co_norm, changed, moving, t, rf, bg, index=self._index)
        skin, seeds = hands.skin, hands.seeds
        hand = dilate_cells(skin, cfg.occlusion_grow)
        board_wide = max(float((changed & ~hand).mean()), float(moving.mean()))
        if self._wide is not None or board_wide >= cfg.global_fraction:
            waiting = self._global_change(frame, rect, norm, moving, change, t, hand=bool(skin.any()))
            if waiting is not None:
                return waiting
        self._unreadable_since = None

        relocked = False
        # (A still arm or hand does not stop the drift check: a board that slid changes its edges
        # too, and a skin-coloured chip in a bump's changed region would stop it for good; a
        # re-lock that a resting hand fools is refused by ``_try_lock``.)
        if moving.any() or self._drift_clock is None:
            self._drift_clock = t
        elif lasted(t - self._drift_clock, cfg.drift_check_seconds) and t >= self._drift_quiet_until:
            self._drift_clock = t
            if changed.any() and self._drifted(norm):
                relocked = self._realign(frame, norm, change)
                if not relocked:
                    self._drift_quiet_until = t + cfg.drift_backoff_seconds
                if relocked:
                    return self._update(t, "live", labels=self.committed, relocked=True,
                                        unknown=np.zeros((SIZE, SIZE), dtype=bool), message="re-locked")

        # a bump's first frames move, a sleeve covers many cells: those are no moves
        large = large_regions(changed, cfg.max_change_region)
        # A still sleeve's region can split where its faint edge dips under the threshold: the
        # piece left over one or two cells at the board's edge is no move (game 172004 at 7.5
        # frames a second, a dark sleeve in dim light read as a red chip). Its cells stay part
        # of the sleeve while they stay changed and a large region is still in view.
        self._sleeve = ((self._sleeve & changed) | large) if large.any() else np.zeros_like(large)
        large = large | self._sleeve
        self._changed = changed & ~moving & ~large
        if self._pending.any() and t > self._pending_until:
            log.info("frame %d: pending cells %s were never read surely; given up", self._index,
                     cells_of(self._pending))
            self._pending[:] = False
        # Held cells are read only on a quiet board (no motion, hand, arm or sleeve in view): the
        # fringe of a hand's shadow hovers there too and was read as a chip (game 152003).
        readable = changed if seeds.any() or large.any() else held
        # A region joins a hand through the cells it changes only a little (a wrist over a card,
        # between the threshold and the lower one): fingers resting past a wrist that changed its
        # cells that little were read as chips (game 172004, in dim light).
        unknown = (
            dilate_cells(seeds, cfg.occlusion_grow)
            | (regions_touching(held | self._pending, seeds) & (readable | self._pending))
            | large
        )
        candidates = (readable | self._pending) & ~unknown
        if (self._pending & unknown).any():
            # A pending cell under a hand cannot be read: its time to be read surely does not
            # run meanwhile (game 196003 at 5 frames a second, chips piled beside the board: a
            # chip put down during a bump lay under the next player's arm and was given up).
            self._pending_until += since
        # A cell is read once it has been changed *and* clear that long: a change with no hand
        # over it (a bump's first frame, before the board-wide test sees it) must last too.
        self._clear_since[~candidates] = np.nan
        self._clear_since[candidates & np.isnan(self._clear_since)] = t
        self._first_clear[~(readable | self._pending)] = np.nan
        self._first_clear[candidates & np.isnan(self._first_clear)] = t
        committed = self._consider(frame, norm, co_norm, change, candidates, t)
        self._readings.forget(~candidates)
        self._adapt(co_norm, change, unknown)
        labels = np.where(unknown, UNKNOWN, self.committed).astype(object)
        pending = candidates & self._readings.read
        labels[pending] = self._readings.label[pending]
        unread = candidates & ~self._readings.read
        labels[unread] = UNKNOWN
        gone = int(changed.sum()) <= cfg.relight_gone_cells
        if self._relit_region(bool(large.any()), seeds, t, gone=gone) and not self._blown(rect):
            log.info("frame %d: a large part of the board looks different, unmoved and unreached; "
                     "re-normalising", self._index)
            self._relight(frame, rect)
            return self._update(t, "live", labels=self.committed,
                                unknown=np.zeros((SIZE, SIZE), dtype=bool), message="light changed")
        state = "occluded" if unknown.any() else "live"
        doubt = "the grid may not fit the board: check the camera view or calibrate"
        return self._update(t, state, committed=committed, labels=labels, unknown=unknown | unread,
                            message=doubt if t < self._fit_doubt_until else "")

    def _consider(
        self, frame: np.ndarray, norm: np.ndarray, co_norm: np.ndarray, change: np.ndarray,
        candidates: np.ndarray, t: float,
    ) -> list[list[str]] | None:
        """Read changed cells once they have been clear for ``still_seconds`` (unsure ones again
        every ``reread_seconds``) and commit whole changed regions whose reading is sure.
        ``change``: each cell's difference from the background (its look at the last commit)."""
        cfg = self.config
        assert self.committed is not None
        clear_for = t - np.nan_to_num(self._clear_since, nan=t)
        settled = candidates & lasted(clear_for, cfg.still_seconds)
        readings = self._readings
        due = readings.due(settled, t, cfg.reread_seconds, cfg.min_confidence)
        if due.any():
            readings.record(due, *self._read(frame), t)
        read_cells = settled & readings.read
        stable_for = readings.held_for(t)
        # A white chip where a chip lay: a Jumbo flip (or a locked chip read again), no new chip.
        turned_white = (readings.label == "flipped") & _holds_chip(self.committed)
        # The chips of a completed sequence, which players turn white next (none to find unless a
        # cell was read).
        owed = to_be_flipped(self.committed) if read_cells.any() else np.zeros_like(read_cells)
        sure = (readings.conf >= cfg.min_confidence) & (readings.frames >= cfg.min_stable_frames)
        patient = (
            (readings.conf >= cfg.min_confidence_patient)
            & lasted(stable_for, cfg.patient_seconds)
            & (readings.frames >= 2)
        )
        looks = self._against_empty_looks(co_norm, change, owed, sure) if read_cells.any() else None
        if looks is not None:
            # An "empty" reading of a cell that looks as it did empty needs no patience (the
            # reader is unsure of every cell glare clipped: a chip taken off an over-exposed mat;
            # game 170001: after a lamp, a chip taken off read empty just under 0.5; hands coming
            # back kept it waiting 6.9 s, and the next two moves reached the engine before it).
            sure |= looks.near & (readings.label == "empty") & (readings.conf >= cfg.min_confidence_patient)
        # A white reading of a chip in a completed sequence is the flip the players owe: it needs
        # no patience either (on an over-exposed mat the reader is unsure of every white chip, and
        # hands passing by kept restarting the wait for 18 s: game 153002).
        flips = read_cells & turned_white & (readings.conf >= cfg.min_confidence_patient)
        if flips.any():
            sure |= flips & owed
        ready = read_cells & (sure | patient)
        readings.label[self._shade_only(ready, co_norm)] = "empty"
        # Each cell's own empty look checks the reader: "empty" must look empty, and a cell that
        # looks as it did empty is empty whatever the reader says; except a white chip where a
        # chip lies (Jumbo's locked chips, being turned or read again), or one the reader missed
        # in a line being turned: white on a white card looks much like the card. (What would
        # still count as changed against the empty look, ``change_keep_threshold``, is no empty
        # look: a dark chip in dim light is that faint.)
        if looks is not None and ready.any():
            unseen = self._unseen_flips(ready, looks.same, turned_white)
            readings.label[unseen] = "flipped"
            turned_white |= unseen
            readings.label[ready & looks.same & ~turned_white] = "empty"
            doubtful = ready & (readings.label == "empty") & self._empty.known & ~looks.alike
            ready &= ~doubtful
            # Long doubtful: a look the reader cannot name (a white chip read as empty): keep the label.
            stale = doubtful & lasted(stable_for, cfg.patient_seconds)
            if stale.any() and self._misfit(frame, stale, t):
                return None
            if stale.any():
                log.info("frame %d: cells %s changed but do not look empty; keeping their labels",
                         self._index, cells_of(stale))
                self._absorb(norm, stale)
                readings.forget(stale)
        # New chips on touching cells, all at once, are far more often a hand resting still
        # (dark, in dim light, over a dark border: no skin, no motion, no arm) than moves (one
        # chip per turn): they wait until the reading has held that long (a hand moves on). A
        # chip that takes another team's colour is such a new chip too (game 154006: a dark hand
        # over a yellow chip and the empty cells beside it, all read red).
        differs = (readings.label != self.committed) & ~turned_white
        new_chips = ready & differs & ~np.isin(readings.label, ("empty", "free"))
        certain = readings.conf >= cfg.blob_apart_confidence
        crowd = crowded(new_chips, candidates & self._changed, certain, self._first_clear, cfg)
        ready &= ~(crowd & ~lasted(stable_for, cfg.blob_hold_seconds))
        if not ready.any():
            return None
        # A changed region is committed whole: never half a flip of five chips. (An empty cell
        # read empty, unsurely or while it does not look as it did empty, beside a new chip that
        # overhangs or shades it, is no change of its own: it does not hold that chip back.)
        read_empty = readings.read & (readings.label == "empty") & (self.committed == "empty")
        waiting = candidates & ~ready & ~read_empty
        ready &= ~held_by_region(ready, waiting, candidates, certain, self._first_clear, cfg)
        ready &= ~overtaking(ready, waiting, readings.label != self.committed, self._first_clear, t, cfg)
        # Cells read again after a new background (a relight, a re-lock) hold moves made while
        # the tracker could not follow, in an order it never saw: they reach the engine
        # together, which puts them in turn order (until ``pending_seconds`` gives one up).
        if (self._pending & ~ready).any():
            ready &= ~self._pending
        # (A cell read as its committed label is no new chip: a hand or the chip beside it
        # nudged its look, and it cannot be that chip seen twice; nor is a chip turned white
        # where one lay: a flipped sequence is five touching cells, game 156006.)
        news = ready & differs
        if t < self._fit_doubt_until and (region_sizes(news) > 1).any():
            # The grid may be off: a change over touching cells may be one chip seen twice. Keep the labels.
            several = news & (region_sizes(news) > 1)
            log.info("frame %d: the grid may be off; not committing %s, which touch each other",
                     self._index, cells_of(several, readings.label))
            self._absorb(norm, several)
            readings.forget(several)
            ready &= ~several
        if not ready.any():
            return None
        return self._commit(frame, norm, co_norm, ready)

    def _commit(self, frame: np.ndarray, norm: np.ndarray, co_norm: np.ndarray, ready: np.ndarray
                ) -> list[list[str]] | None:
        """Commit the ``ready`` cells' readings: their look becomes the background, a cell that
        became empty teaches its empty look; the new board (None if nothing changed)."""
        assert self.committed is not None
        readings = self._readings
        self._absorb(norm, ready)
        new = self.committed.copy()
        new[ready] = readings.label[ready]
        readings.forget(ready)
        if np.array_equal(new, self.committed):
            return None
        rows, cols = np.nonzero(new != self.committed)
        changes = [
            (int(r), int(c), str(self.committed[r, c]), str(new[r, c]))
            for r, c in zip(rows, cols, strict=True)
        ]
        log.info("frame %d: committed %s", self._index, changes)
        became_empty = ready & (new == "empty")
        if became_empty.any():
            self._empty.learn(self._rectifier, became_empty, co_norm)
        self.committed = new
        self._last_still_frame = frame.copy()
        self._ref_cache = None
        return _grid(new)

    def _against_empty_looks(self, co_norm: np.ndarray, change: np.ndarray, owed: np.ndarray,
                             sure: np.ndarray) -> EmptyLookCheck | None:
        """Each cell compared with its own empty look, where known (None: none is). Within
        ``change_keep_threshold`` of it a cell looks as it did empty; beyond ``change_threshold``
        it does not. (A light that clips the cards moves every empty cell from its empty look
        alike, and the gain does not divide that out: the empty cells' median distance, the
        light's share, is allowed for in the latter, as one adds to the other in quadrature.
        Game 154001: after a lamp, every empty cell stood 9 from its empty look, and a chip taken
        off could never be committed.) A chip read ``sure``ly taken off counts as looking empty
        (``_chip_taken_off``; ``owed``: the chips of a completed sequence, to be turned)."""
        cfg, looks = self.config, self._empty
        if looks.coarse is None:
            return None
        from_empty = self._structure(co_norm, looks.coarse)
        empties = looks.known & (self.committed == "empty")
        drift = float(np.median(from_empty[empties])) if empties.any() else 0.0
        alike = looks.known & (from_empty < math.hypot(cfg.change_threshold, drift))
        return EmptyLookCheck(
            same=looks.known & (from_empty < cfg.change_keep_threshold),
            alike=alike | (self._chip_taken_off(from_empty, change, owed) & sure),
            # (the light's drift allowed for here too: this only confirms an "empty" reading)
            near=looks.known & (from_empty < math.hypot(cfg.change_keep_threshold, drift)),
        )

    def _unseen_flips(self, ready: np.ndarray, as_empty: np.ndarray, turned_white: np.ndarray) -> np.ndarray:
        """Among ``ready`` cells that look as their empty card (``as_empty``), the chips of a
        sequence being turned over (one of its five read white, ``turned_white``: see
        ``being_flipped``) that the reader unsurely calls empty: white chips on white cards it
        missed, not chips taken off (a completed sequence's chips may not be, and the rest of it
        is turning white meanwhile). (Game 166000 of ``live_accuracy``: on an over-exposed mat,
        four of five white chips were read empty at 0.41-0.45 and committed as removed: four
        alarms.)"""
        assert self.committed is not None
        readings = self._readings
        unsure = ready & as_empty & (readings.label == "empty") & (readings.conf < self.config.min_confidence)
        if not unsure.any():
            return unsure
        return unsure & being_flipped(self.committed, ready & turned_white)

    def _chip_taken_off(self, from_empty: np.ndarray, change: np.ndarray, owed: np.ndarray) -> np.ndarray:
        """Cells holding a team chip that look far nearer their empty look (``from_empty``) than
        their look with the chip (``change``), where no flip is ``owed`` and the reader was told a
        white chip may lie there: read empty, the chip was taken off. (Without the hint, or where
        a sequence is to be turned, a white chip on a white card is as near its empty look.)"""
        assert self.committed is not None
        if not _takes_white_hint(self._reader_for()):
            return np.zeros_like(self.committed, dtype=bool)
        team = np.isin(self.committed, TEAM_COLOURS) & ~owed
        return team & (from_empty < self.config.removed_empty_ratio * change)

    def _shade_only(self, ready: np.ndarray, co_norm: np.ndarray) -> np.ndarray:
        """Empty cells about to take a new coloured chip whose colour is as in the background
        (their empty look since the last commit): what changed them is a shade (an arm's shadow
        across a red card reads as a red chip), or no more than the untouched empty cards' colour
        changed meanwhile, not a chip. Not pending cells: a new background (light, a bump) was
        taken with their chip in it."""
        assert self.committed is not None and self._bg is not None and self._rectifier is not None
        cfg = self.config
        coloured = getattr(getattr(self._reader_for(), "colour_model", None), "coloured_labels", ())
        new = ready & ~self._pending & (self.committed == "empty") & np.isin(self._readings.label, coloured)
        if not new.any():
            return new
        colour = chroma_change(co_norm, self._bg.coarse, self._rectifier, inner=cfg.motion.inner_fraction)
        untouched = ~self._held & (self.committed == "empty")
        board = float(np.median(colour[untouched])) if untouched.any() else 0.0
        shaded = new & (colour < max(cfg.min_chip_colour, cfg.chip_colour_over_board * board))
        if shaded.any():
            log.info("frame %d: %s changed in light only, or in colour no more than the board: no chip",
                     self._index, cells_of(shaded, self._readings.label))
        return shaded

    def _absorb(self, norm: np.ndarray, cells: np.ndarray) -> None:
        """The current look of ``cells`` becomes their background (``norm``: gain-normalised rect)."""
        assert self._bg is not None and self._rectifier is not None
        self._bg.absorb(self._rectifier, norm, cells, self.config.motion)
        self._pending &= ~cells

    def _adapt(self, co_norm: np.ndarray, change: np.ndarray, unknown: np.ndarray) -> None:
        """Cells far below the change threshold follow slow light changes (coarse background only:
        the full one serves alignment, which ignores light)."""
        cfg = self.config
        quiet = ~unknown & (change < cfg.adapt_below * cfg.change_threshold)
        if not quiet.any() or cfg.adapt_rate <= 0:
            return
        assert self._bg is not None and self._rectifier is not None
        self._bg.follow(self._rectifier, co_norm, quiet, cfg.adapt_rate)

    # -- checking an automatic fit ---------------------------------------------------------------

    def _misfit(self, frame: np.ndarray, stale: np.ndarray, t: float) -> bool:
        """Empty cells that changed but read as no chip: if they straddle (two or more touching),
        the grid may be off; locate again and re-lock if that fits better. True once re-locked.

        (A white chip read as empty on a cell holding a chip is a Jumbo flip, no evidence.)"""
        cfg = self.config
        assert self.committed is not None
        straddle = stale & (self.committed == "empty")
        if self._given is not None or self._last_still_frame is None or region_sizes(straddle).max() < 2:
            return False
        self._fit_doubt_until = t + cfg.fit_doubt_seconds
        if not lasted(t - self._fit_checked_at, cfg.fit_recheck_seconds):
            return False
        self._fit_checked_at = t
        corners = self._locate(frame)
        rf = self._rectifier
        assert rf is not None
        if corners is None:
            return False
        moved = shift_in_cells(corners, rf.corners)
        if moved < cfg.fit_min_shift_cells:
            log.info("frame %d: cells %s straddle cells, but the board is found at the same place",
                     self._index, cells_of(stale))
            self._fit_candidate = None
            return False
        candidate, self._fit_candidate = self._fit_candidate, corners
        if candidate is None or shift_in_cells(corners, candidate) >= cfg.fit_min_shift_cells:
            log.info("frame %d: the board is found %.2f cells away; waiting for the next check to agree",
                     self._index, moved)
            return False
        old, n_old = rf.corners.copy(), int(self._changes_since_commit(frame).sum())
        reader = self._reader
        if self._own_reader:
            self._reader = None  # the empty-board reference learnt under the old grid would mislead
        self._lock(corners, frame)
        changed = self._changes_since_commit(frame)
        labels, conf = self._read(frame) if changed.any() else (None, None)
        chips = labels is not None and bool(
            (~np.isin(labels[changed], ("empty", "free")) & (conf[changed] >= cfg.min_confidence)).all())
        isolated = region_sizes(changed).max() <= 1
        if not (0 < 2 * changed.sum() <= n_old and isolated and chips):
            log.info("frame %d: a grid %.2f cells away does not fit better (%d -> %d changed cells); keeping the lock",
                     self._index, moved, n_old, int(changed.sum()))
            self._lock(old, frame)
            self._reader = reader
            return False
        log.warning("frame %d: the grid was %.2f cells off; re-locked (%d -> %d changed cells since the last commit)",
                    self._index, moved, n_old, int(changed.sum()))
        self._refit(frame)
        return True

    def _changes_since_commit(self, frame: np.ndarray) -> np.ndarray:
        """``(10, 10)`` bool: cells that look different now than in the frame of the last commit
        (under the current lock; gain-normalised like the background)."""
        rf = self._rectifier
        assert rf is not None and self._last_still_frame is not None
        then, now = rf.coarse(rf.rectify(self._last_still_frame)), rf.coarse(rf.rectify(frame))
        gain = relative_gain(now, then, rf, inner=self.config.motion.inner_fraction)
        return self._structure(now / gain, then) > self.config.change_threshold

    def _refit(self, frame: np.ndarray) -> None:
        """After a re-lock to a better grid: the last commit's frame is the background (so what
        changed since is read as usual), and what was learnt under the old grid is dropped."""
        assert self._rectifier is not None and self._last_still_frame is not None and self.committed is not None
        still = self._last_still_frame
        self._rebaseline(still, self._rectifier.rectify(still), keep_pending=False)
        self._prev = self._rectifier.coarse(self._rectifier.rectify(frame))
        self._fit_doubt_until = -math.inf
        self._fit_candidate = None
        self._empty.forget()
        if self._own_reader:
            self._remember_empty_board(still, self.committed)

    # -- bumps, drift, light --------------------------------------------------------------------

    def _drifted(self, norm: np.ndarray) -> bool:
        """Has the board moved under the lock: shifted, or turned (its quarters shifted)?"""
        assert self._bg is not None
        whole, quarter = largest_shift(grey(norm), self._bg.grey)
        return whole >= self.config.drift_px or quarter >= self.config.drift_quarter_px

    def _realign(self, frame: np.ndarray, norm: np.ndarray, before: np.ndarray) -> bool:
        """Align the board to the background by ECC and re-lock; True when it moved and now fits.

        ``before``: the per-cell change ``(10, 10)`` against the background under the current lock.
        """
        assert self._bg is not None
        found = align(grey(norm), self._bg.grey, self.config.motion)
        return found is not None and self._apply_warp(frame, *found, before=before)

    def _apply_warp(self, frame: np.ndarray, warp: np.ndarray, correlation: float, *, before: np.ndarray) -> bool:
        """Re-lock by the rectified-space ``warp`` if it moves the grid and explains the change."""
        cfg, rf = self.config, self._rectifier
        assert rf is not None
        moved = warp_displacement(warp, rf)
        if correlation < cfg.realign_min_correlation or moved < cfg.realign_min_px:
            return False
        if not self._try_lock(frame, rf.moved(warp), before=before):
            return False
        log.info("frame %d: board moved %.1f px; re-locked", self._index, moved)
        return True

    def _try_lock(self, frame: np.ndarray, corners: np.ndarray, *, before: np.ndarray) -> bool:
        """Lock onto ``corners`` if the board then matches its last still look much better than
        ``before`` (per-cell change ``(10, 10)`` under the current lock), compared at the
        ``relock_quantile`` of the cells; re-baseline and True, else keep the old lock.

        The check keeps an arm that fools the alignment, or a wrong re-detection, from moving
        the grid: the background is the same board with the same chips. (Light changed since
        adds about the same change to every cell under any lock; a grid off the cards adds most
        to the busiest cells, which the upper quantile weighs.)
        """
        cfg, rf = self.config, self._rectifier
        assert rf is not None and self._bg is not None
        old = rf.corners
        self._lock(corners, frame)
        assert self._rectifier is not None
        rect = self._rectifier.rectify(frame)
        after_cells = self._structure(self._rectifier.coarse(rect), self._rectifier.coarse(self._bg.full))
        before_q, after_q = (float(np.quantile(c, cfg.relock_quantile)) for c in (before, after_cells))
        if after_q > cfg.relock_improvement * before_q:
            log.info("frame %d: a re-lock would not fit the board (change %.1f -> %.1f at the %g quantile); "
                     "keeping the lock", self._index, before_q, after_q, cfg.relock_quantile)
            self._lock(old, frame)
            return False
        # Same board, same chips, a new view: what the camera sees now is the background.
        self._rebaseline(frame, rect)
        return True

    def _global_change(
        self, frame: np.ndarray, rect: np.ndarray, norm: np.ndarray, moving: np.ndarray, change: np.ndarray,
        t: float, *, hand: bool,
    ) -> TrackUpdate | None:
        """Most of the board changed at once: wait for stillness, then re-lock if it moved.

        Returns the update while the change lasts, or None once it is gone (a flicker, an arm
        that left) so the frame is tracked as usual. Only motion is waited for: after a bump,
        printed red ink lands where white card was and looks like new skin. Alignment (ECC) is
        tried once per still stretch.
        """
        cfg = self.config
        wide = self._wide
        if wide is None:
            wide = self._wide = BoardWideChange(since=t)
            log.info("frame %d: most of the board changed at once (bump, arm or light)", self._index)
        waiting = self._update(t, self._lost_state(t, "relocking"), message="board moved or covered")
        # Cells being read again cannot be read while most of the board is changed: their
        # time to be read surely does not run meanwhile (game 186007 at 7.5 frames a second:
        # an arm lay over the board after a bump, and a removal was given up unread).
        self._pending_until += wide.tick(t, moving=bool(moving.any()))
        if moving.any():
            return waiting
        still = wide.still_for(t, change)
        if not lasted(still, cfg.settle_seconds):
            return waiting
        changed = change > cfg.change_threshold
        # A bump with a flicker on top shrinks under the board-wide fraction once the flicker
        # ends: what remains is still the bump, so it is judged before ordinary tracking resumes.
        residue = bool(large_regions(changed, cfg.max_change_region).any())
        if not wide.judged and (changed.mean() >= cfg.global_fraction or residue):
            wide.judged = True
            if self._judge_moved(frame, norm, change, hand=hand):
                self._wide = None
                self._read_again_what_differs(frame, "after the re-lock")
                return self._update(t, "live", labels=self.committed, relocked=True,
                                    unknown=np.zeros((SIZE, SIZE), dtype=bool), message="re-locked")
        if changed.mean() < cfg.global_fraction:
            self._wide = None
            return None
        waiting = self._update(t, "occluded", message="board covered")
        if lasted(still, cfg.relight_after_seconds) or (lasted(still, cfg.relight_settle_seconds) and (
            (wide.unmoved and lasted(wide.quiet.total, cfg.relight_quiet_seconds))
            or changed_alike(change, cfg.relight_even_spread,
                             settled=wide.light_settled(change, hand=hand, config=cfg))
        )):
            if self._blown(rect):
                return self._update(t, "occluded", message=TOO_BRIGHT)
            log.info("frame %d: the board looks different but has not moved; re-normalising", self._index)
            self._relight(frame, rect)
            return self._update(t, "live", labels=self.committed,
                                unknown=np.zeros((SIZE, SIZE), dtype=bool), message="light changed")
        return waiting

    def _blown(self, rect: np.ndarray) -> bool:
        """Is most of the rectified board clipped to white (too bright to tell a hand from a card)?
        (Clipped as ``vision.clipping`` tells it: at 250 or more, or on a lower plateau under a cast.)"""
        return float((rect >= clip_levels(rect)).any(axis=2).mean()) > self.config.max_blown_fraction

    def _relit_region(self, large: bool, seeds: np.ndarray, t: float, *, gone: bool) -> bool:
        """Has a changed region too large for a move been there, with nothing moving or reaching
        in, for ``relight_quiet_seconds`` in all since the last new background? Then it is light
        (a lamp whose change stayed under ``global_fraction``), not a sleeve: a sleeve reaches
        in over the edge. ``gone``: the board looks as it did again (but for a move); what changed
        it left, so it was a hand or a sleeve, no light, and the count starts again (else still
        hands the hand tests cannot see, turn after turn, add up to a relight under the next one)."""
        if gone:
            self._lit.total = 0.0
        # (Cells near the threshold flicker in and out of the region: the time adds up.)
        self._lit.tick(t, holds=large and not seeds.any() and not gone)
        return large and bool(lasted(self._lit.total, self.config.relight_quiet_seconds))

    def _relight(self, frame: np.ndarray, rect: np.ndarray) -> None:
        """Take the new look as the background, and read again the cells it may hide a move in.

        Hands came and went while the light was new, so a chip may have been placed meanwhile;
        the new background would absorb it. Cells the reader is sure differ from the committed
        board stay pending and go through the usual commit (clear, still, read surely).
        """
        self._rebaseline(frame, rect)
        assert self.committed is not None and self._bg is not None and self._rectifier is not None
        self._read_again_what_differs(frame, "in the new light")
        # Each empty cell's look is now the new light's; a cell that may hold a new chip (read
        # otherwise, or changed just before) has none.
        empty = (self.committed == "empty") & ~self._pending
        self._empty.relearn(self._rectifier, empty, self._bg.coarse)

    def _read_again_what_differs(self, frame: np.ndarray, why: str) -> None:
        """Cells the reader is sure differ from the committed board become pending, to go through
        the usual commit (clear, still, read surely): the tracker could not follow the board for
        a while (new light, a bump), hands came and went, and the new background it just took
        would absorb a chip placed meanwhile. More than ``max_relight_moves`` such cells is the
        reader misjudging the new view, and none are. ``why``: for the log."""
        assert self.committed is not None
        labels, conf = self._read(frame)
        differ = (labels != self.committed) & (conf >= self.config.min_confidence)
        if differ.sum() > self.config.max_relight_moves:
            differ[:] = False
        if differ.any():
            self._pending |= differ
            self._pending_until = self._t + self.config.pending_seconds
            # Changed while the tracker could not follow: older than any change it sees next,
            # so a later move waits for them (``vision.holding.overtaking``) and the engine hears both in turn.
            # (Called just after ``_rebaseline``, which dates the pending cells it keeps alike.)
            self._first_clear[differ] = self._t
            log.info("frame %d: cells %s read differently %s; reading them again",
                     self._index, cells_of(differ, labels), why)

    def _judge_moved(self, frame: np.ndarray, norm: np.ndarray, before: np.ndarray, *, hand: bool) -> bool:
        """Did the board move? Re-lock by alignment, else by re-finding it; True once re-locked.

        With a hand in view alignment is biased (and re-finding costs a second), so then only
        a re-alignment that clearly fits is taken; otherwise the tracker waits for the hand.
        """
        cfg = self.config
        assert self._bg is not None and self._rectifier is not None
        found = align(grey(norm), self._bg.grey, cfg.motion)
        moved = found is not None and warp_displacement(found[0], self._rectifier) >= cfg.realign_min_px
        # Only an alignment with no hand in view is trusted to say the board did not move.
        assert self._wide is not None
        self._wide.unmoved = self._wide.unmoved or (found is not None and not moved and not hand)
        if moved and self._apply_warp(frame, *found, before=before):
            return True
        if (found is None or moved) and not hand:
            corners = self._relocate(frame)
            if corners is not None and self._try_lock(frame, corners, before=before):
                log.info("frame %d: board re-found", self._index)
                return True
        return False

    # -- output ---------------------------------------------------------------------------------

    def _lost_state(self, t: float, state: str) -> str:
        """``state``, or ``no_board`` once nothing was readable for ``lost_after_seconds``."""
        if self._unreadable_since is None:
            self._unreadable_since = t
        return "no_board" if lasted(t - self._unreadable_since, self.config.lost_after_seconds) else state

    def _update(
        self,
        t: float,
        state: str,
        *,
        committed: list[list[str]] | None = None,
        labels: np.ndarray | None = None,
        unknown: np.ndarray | None = None,
        relocked: bool = False,
        message: str = "",
    ) -> TrackUpdate:
        if unknown is None:
            unknown = np.ones((SIZE, SIZE), dtype=bool)
        if labels is None:
            labels = np.full((SIZE, SIZE), UNKNOWN, dtype=object)
        return TrackUpdate(
            index=self._index,
            t=t,
            state=state,
            committed=committed,
            corners=None if self._rectifier is None else self._rectifier.corners.copy(),
            labels=_grid(labels),
            unknown=unknown,
            relocked=relocked,
            message=message,
            glare=self._glare.copy(),
            outside=self._outside.copy(),
        )
