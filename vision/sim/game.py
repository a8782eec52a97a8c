"""The simulated table plays whole games: hands place and remove chips, lamps, bumps, flips.

``simulate_game(spec)`` scripts a seeded game up front (legal moves with the engine's
sequence rules, biased towards making sequences so clips stay short) and returns a
``GameSim`` whose ``frames()`` renders it lazily, frame by frame, with the ground-truth
chips of every frame and the list of true events (``GameSim.events``).

Event dicts: ``{"type", "frame", "t", ...}`` with ``type`` one of ``placed removed
sequence win flip bump pass light``; ``cell`` ([r, c]) for placed/removed/flip,
``cells`` for a sequence, ``team`` where a team acts. For placed/removed/flip/pass/
sequence/win, ``frame`` is the first frame where the hand has wholly left the board.
A ``removed`` event's ``team`` is the colour of the chip taken, ``by`` the team that took it;
a ``light`` event's ``kind`` is ``flicker``, ``lamp``, ``dim`` or ``shadow`` (someone leaning
over the board); a ``bump`` carries the board's ``shift`` (cells) and ``rot`` (degrees).

Hazards a tracker must survive and that produce no event: moving hands are motion-blurred,
the camera's exposure drifts a little while a hand is in view, and a placing hand now and
then knocks a neighbouring chip a few pixels aside (only while hiding it).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from engine.board import Board
from engine.labels import TEAM_COLOURS
from engine.layout import CORNERS, EDITIONS, SIZE, Cell
from engine.sequences import WINDOWS, find_sequences
from vision.sim.clutter import SKIN_TONES, Clutter
from vision.sim.scene import Labels, SceneSpec, camera_centre, occlusion_of, render_with
from vision.sim.variety import random_spec, with_chip_offset, with_chip_piles

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GameSpec:
    """Everything a simulated game depends on (same spec -> same frames and events)."""

    seed: int = 0
    edition: str = "classic"
    teams: tuple[str, ...] = ("blue", "green")
    fps: float = 15.0
    size: tuple[int, int] = (1280, 720)
    difficulty: str = "normal"
    max_moves: int = 120
    bumps: int | None = None  # None: one or two
    light_events: int | None = None  # None: one to three (flicker, lamp, dimming)
    leans: int | None = None  # someone's shadow sweeps over the board; None: zero to two
    pass_chance: float = 0.08
    removal_chance: float = 0.07
    sequence_bias: float = 0.6  # chance a move extends the team's most promising line
    block_chance: float = 0.5  # chance a team blocks an opponent's four-in-a-row
    flips: bool | None = None  # flip locked chips to white; None: on the Jumbo mat only
    piles: bool = False  # each team's chips in a pile on the table beside the board
    chip_offset: float | None = None  # chips put down up to this many cells off centre each way; None: the level's


@dataclass(frozen=True)
class GameConfig:
    """Timing of the people at the table, in seconds, and hand geometry, in cells."""

    start_idle: float = 1.5
    end_idle: float = 2.0
    enter: tuple[float, float] = (0.35, 0.6)
    hover: tuple[float, float] = (0.5, 2.0)
    leave: tuple[float, float] = (0.35, 0.6)
    pause: tuple[float, float] = (0.3, 1.0)
    flip_delay: tuple[float, float] = (1.0, 3.0)
    flip_each: tuple[float, float] = (0.35, 0.6)
    reach_out: float = 7.0  # hands start and end this far beyond the grid edge
    hover_height: tuple[float, float] = (0.5, 1.2)
    high: float = 3.0  # height while travelling
    bump_frames: int = 2
    cover_height: float = 360.0  # hand cover (and "the hand has left") is measured at this frame height
    game_fill: tuple[float, float] = (0.6, 0.92)  # board fill of the frame (not on "hard")
    auto_exposure: float = 0.05  # largest exposure drift while a hand is in view
    auto_exposure_rate: float = 0.12  # per frame, towards that drift
    lean: tuple[float, float] = (1.5, 3.0)  # seconds someone's shadow sweeps over the board
    nudge_chance: float = 0.25  # a placing hand knocks a neighbouring chip aside
    nudge: float = 0.06  # by up to this much of a cell each way
    nudge_cover: float = 0.6  # only a chip the hand hides this much (never one in plain view)
    object_cover: float = 0.5
    """A cell an object lying about (the deck box, a cup) hides more than this is never played:
    a family moves the box off the board first, and the camera could not see a chip put there
    (game 189005 put two chips under the box, which the benchmark then counted as missed)."""


CONFIG = GameConfig()


@dataclass(frozen=True)
class SimFrame:
    """One rendered frame of a game and its truth."""

    index: int
    t: float
    frame: np.ndarray  # (H, W, 3) uint8 BGR
    labels: list[list[str]]  # chips physically on the board
    hand_visible: bool  # a hand or arm covers part of the grid
    occluded: np.ndarray  # (10, 10) bool, cells hidden by a hand or clutter


@dataclass(frozen=True)
class _State:
    """What one frame shows, before rendering."""

    labels: Labels
    hand: Clutter | None
    shift: tuple[float, float]
    rot: float
    exposure: float  # multiplier on the scene's exposure
    warmth: float  # multiplier on the red gain (and inverse on blue)
    shade: tuple[float, float, float, float, float, float] | None = None  # someone leaning over
    nudges: tuple = ()  # chips knocked a little off their place by a passing hand


@dataclass
class GameSim:
    """A scripted game: ``events`` now, frames rendered on demand."""

    spec: GameSpec
    scene: SceneSpec
    events: list[dict] = field(default_factory=list)
    states: list[_State] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.states)

    @property
    def n_frames(self) -> int:
        return len(self.states)

    def scene_at(self, index: int) -> SceneSpec:
        """The SceneSpec of frame ``index`` (hands excluded: they are passed to the renderer)."""
        st = self.states[index]
        L = self.scene.lighting
        b, g, r = L.white_balance
        light = dataclasses.replace(L, exposure=L.exposure * st.exposure,
                                    white_balance=(b / st.warmth, g, r * st.warmth),
                                    shadows=L.shadows + ((st.shade,) if st.shade else ()))
        return dataclasses.replace(self.scene, labels=st.labels, board_shift=st.shift, board_rot=st.rot,
                                   lighting=light, noise_seed=self.scene.seed * 100_003 + index,
                                   nudges=st.nudges)

    def render(self, index: int) -> SimFrame:
        """Render frame ``index``."""
        st = self.states[index]
        spec = self.scene_at(index)
        extra = (st.hand,) if st.hand is not None else ()
        scene = render_with(spec, st.labels, extra)
        visible = st.hand is not None and bool((_hand_cover(spec, st.hand) > 0).any())
        return SimFrame(index, index / self.spec.fps, scene.frame, scene.labels, visible, scene.occluded)

    def frames(self) -> Iterator[SimFrame]:
        """Every frame in order, rendered lazily."""
        for i in range(len(self.states)):
            yield self.render(i)

    def truth_labels(self, index: int) -> list[list[str]]:
        """Chips physically on the board at frame ``index`` (no rendering)."""
        return [list(r) for r in self.states[index].labels]


def _hand_cover(spec: SceneSpec, hand: Clutter) -> np.ndarray:
    """(10, 10) fraction of each cell a hand hides (``_cover``)."""
    return _cover(spec, (hand,))


def _cover(spec: SceneSpec, items: tuple[Clutter, ...]) -> np.ndarray:
    """(10, 10) fraction of each cell ``items`` hide, measured on a frame at most ``cover_height``
    pixels high (cheap, and the same measure for the script and the rendered frames)."""
    w, h = spec.size
    k = max(1.0, min(w, h) / CONFIG.cover_height)  # same aspect, never finer than needed
    small = dataclasses.replace(spec, size=(round(w / k), round(h / k))) if k > 1 else spec
    return occlusion_of(small, items)


def _check(spec: GameSpec) -> None:
    if isinstance(spec.seed, bool) or not isinstance(spec.seed, (int, np.integer)) or spec.seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {spec.seed!r}")
    if spec.edition not in EDITIONS:
        raise ValueError(f"unknown edition {spec.edition!r}; expected one of: {', '.join(EDITIONS)}")
    if len(spec.teams) not in (2, 3) or len(set(spec.teams)) != len(spec.teams):
        raise ValueError(f"a game needs 2 or 3 distinct team colours, got {spec.teams!r}")
    for t in spec.teams:
        if t not in TEAM_COLOURS:
            raise ValueError(f"unknown team colour {t!r}; expected one of: {', '.join(TEAM_COLOURS)}")
    if not spec.fps > 0:
        raise ValueError(f"fps must be positive, got {spec.fps!r}")


class _Script:
    """Builds the frame states and events of one game."""

    def __init__(self, spec: GameSpec, scene: SceneSpec, rng: np.random.Generator) -> None:
        self.spec, self.scene, self.rng = spec, scene, rng
        self.aspect = EDITIONS[spec.edition].grid_aspect
        self.board = Board.empty()
        self.flipped: set[Cell] = set()
        self._labels: Labels | None = None
        self.nudges: dict[Cell, tuple[float, float]] = {}
        self._near: list[Cell] = []
        self._last_hand: tuple[float, float] | None = None  # where the hand was last frame (smear)
        self.states: list[_State] = []
        self.events: list[dict] = []
        self.shift, self.rot = (0.0, 0.0), 0.0
        self.exposure, self.warmth = 1.0, 1.0
        self.ae, self.ae_gain = 0.0, float(rng.uniform(-CONFIG.auto_exposure, CONFIG.auto_exposure))
        self.sequences: dict[str, list[tuple[Cell, ...]]] = {t: [] for t in spec.teams}
        self.camera = camera_centre(scene)
        n_seats = 4
        self.seats = [(side, spec.teams[side % len(spec.teams)]) for side in range(n_seats)]
        self.people = {side: (SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
                              tuple(int(v) for v in rng.integers(20, 210, 3)),
                              float(rng.uniform(0.92, 1.08)))
                       for side in range(n_seats)}
        hidden = _cover(scene, scene.clutter) > CONFIG.object_cover if scene.clutter else np.zeros((SIZE, SIZE), bool)
        self.hidden: set[Cell] = {(int(r), int(c)) for r, c in np.argwhere(hidden)}
        """Cells no one plays: an object on the table hides them (``GameConfig.object_cover``)."""

    # ---------------------------------------------------------------- frames

    def labels(self) -> Labels:
        """The chips on the board now, as detect labels (cached until the next change)."""
        if self._labels is None:
            grid = self.board.to_labels()
            for r, c in self.flipped:
                grid[r][c] = "flipped"
            self._labels = tuple(tuple(row) for row in grid)
        return self._labels

    def place(self, cell: Cell, team: str) -> None:
        """Put a chip down; now and then the hand knocks a neighbouring chip a little aside."""
        self.board.place(cell, team)
        self._labels = None
        self.nudges.pop(cell, None)
        if self.rng.random() < CONFIG.nudge_chance:
            r, c = cell
            self._near = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                          if (dr or dc) and 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
                          and self.board.chip((r + dr, c + dc)) is not None]

    def _nudge_under(self, hand: Clutter) -> None:
        """Knock one of the chips next to the one just placed a little aside, if the hand hides it."""
        near, self._near = self._near, []
        if not near:
            return
        cover = _hand_cover(self.frame_spec(), hand)
        hidden = [cell for cell in near if cover[cell] > CONFIG.nudge_cover]
        if hidden:
            n = hidden[int(self.rng.integers(len(hidden)))]
            ox, oy = self.nudges.get(n, (0.0, 0.0))
            dx, dy = self.rng.uniform(-CONFIG.nudge, CONFIG.nudge, 2)
            self.nudges[n] = (round(float(ox + dx), 4), round(float(oy + dy), 4))

    def remove(self, cell: Cell) -> None:
        self.board.remove(cell)
        self._labels = None
        self.nudges.pop(cell, None)

    def flip(self, cell: Cell) -> None:
        self.flipped.add(cell)
        self._labels = None

    def push(self, hand: Clutter | None, n: int = 1, shade: tuple | None = None) -> None:
        """Append ``n`` frames showing the board now; the camera's auto exposure drifts a little
        while a hand is in view, as real webcams do."""
        labs = self.labels()
        for _ in range(n):
            target = self.ae_gain if hand is not None else 0.0
            self.ae += (target - self.ae) * CONFIG.auto_exposure_rate
            self.states.append(_State(labs, hand, self.shift, self.rot, self.exposure * (1 + self.ae),
                                      self.warmth, shade, tuple(sorted(self.nudges.items()))))

    def idle(self, seconds: float) -> None:
        self.push(None, max(1, round(seconds * self.spec.fps)))

    def frames_for(self, rng_range: tuple[float, float]) -> int:
        return max(2, round(float(self.rng.uniform(*rng_range)) * self.spec.fps))

    def event(self, type_: str, frame: int, **fields: object) -> None:
        self.events.append({"type": type_, "frame": frame, "t": round(frame / self.spec.fps, 3), **fields})

    # ---------------------------------------------------------------- hands

    def _start_point(self, side: int) -> np.ndarray:
        along = float(self.rng.uniform(1.5, 8.5))
        out = CONFIG.reach_out
        return np.array([(along, -out), (SIZE + out, along), (along, SIZE + out), (-out, along)][side])

    def _hand(self, side: int, pos: np.ndarray, height: float, towards: np.ndarray) -> Clutter:
        skin, sleeve, size = self.people[side]
        d = towards - pos
        ang = float(np.degrees(np.arctan2(d[1], d[0] * self.aspect))) if np.hypot(*d) > 1e-6 else \
            [90.0, 180.0, 270.0, 0.0][side]
        last, self._last_hand = self._last_hand, (float(pos[0]), float(pos[1]))
        motion = (0.0, 0.0) if last is None else (round(float(pos[0]) - last[0], 4), round(float(pos[1]) - last[1], 4))
        return Clutter("hand", float(pos[0]), float(pos[1]), ang, size, skin, height, sleeve,  # type: ignore[arg-type]
                       motion)

    def visit(self, side: int, cells: list[Cell], actions: list) -> int:
        """A hand comes from ``side``, hovers over each cell in turn (calling its action at the
        middle of the hover), then leaves. Returns the first frame with the hand off the board."""
        start = self._start_point(side)
        self._last_hand = None
        hover_h = float(self.rng.uniform(*CONFIG.hover_height))
        # the palm hovers where, seen from the camera, it hides the cell (parallax of its height)
        cx, cy, ch = self.camera
        shift = min(hover_h / max(ch, 1e-6), 0.9)
        targets = [np.array([c + 0.5, r + 0.5]) + self.rng.normal(0, 0.1, 2) for r, c in cells]
        targets = [t + shift * (np.array([cx, cy]) - t) for t in targets]
        heading = targets[0] - start
        pos = start
        n = self.frames_for(CONFIG.enter)
        for k in range(1, n + 1):
            f = k / n
            ease = f * f * (3 - 2 * f)
            p = start + (targets[0] - start) * ease
            self.push(self._hand(side, p, CONFIG.high + (hover_h - CONFIG.high) * ease, targets[0] + heading))
        for i, (target, action) in enumerate(zip(targets, actions, strict=True)):
            if i > 0:  # glide to the next cell
                prev = targets[i - 1]
                m = max(2, round(0.25 * self.spec.fps))
                for k in range(1, m + 1):
                    self.push(self._hand(side, prev + (target - prev) * k / m, hover_h, target + heading))
            n = self.frames_for(CONFIG.flip_each if len(cells) > 1 else CONFIG.hover)
            wobble = self.rng.uniform(0, 2 * np.pi, 2)
            for k in range(n):
                jiggle = 0.1 * np.array([np.sin(wobble[0] + k * 0.5), np.sin(wobble[1] + k * 0.4)])
                low = hover_h - 0.25 * np.sin(np.pi * k / max(n - 1, 1))
                hand = self._hand(side, target + jiggle, low, target + heading)
                if k == n // 2 and action is not None:
                    action()
                    self._nudge_under(hand)
                self.push(hand)
            pos = target
        # leave the way it came, then on until it no longer covers any cell; the move's frame
        # is the first one with the hand off the board (it may still be in the picture)
        back = start - pos
        n = self.frames_for(CONFIG.leave)
        left = None
        k = 0
        while True:
            k += 1
            f = min(k / n, 1.0)
            ease = f * f * (3 - 2 * f)
            p = pos + back * ease + back / max(np.hypot(*back), 1e-6) * max(0, k - n) * 0.8
            hand = self._hand(side, p, hover_h + (CONFIG.high - hover_h) * ease, p - back)
            over = bool((_hand_cover(self.frame_spec(), hand) > 0).any())
            if not over and left is None:
                left = len(self.states)
            if k >= n and not over:
                break
            if k > n + 40:
                log.warning("hand still over the board after leaving; removing it")
                break
            self.push(hand)
        return len(self.states) if left is None else left

    def frame_spec(self) -> SceneSpec:
        return dataclasses.replace(self.scene, board_shift=self.shift, board_rot=self.rot)

    # ---------------------------------------------------------------- moves

    def _windows_for(self, team: str) -> list[tuple[int, list[Cell]]]:
        """(own chips, empty cells) of every window the team could still complete."""
        out = []
        mine = self.sequences[team]
        for win in WINDOWS:
            own, empty, blocked = 0, [], False
            for cell in win:
                chip = self.board.chip(cell)
                if cell in CORNERS or (chip is not None and chip.colour == team):
                    own += 1
                elif chip is None and cell not in self.hidden:
                    empty.append(cell)
                else:
                    blocked = True
                    break
            if blocked or not empty or any(len(set(win) & set(s)) > 1 for s in mine):
                continue
            out.append((own, empty))
        return out

    def empties(self) -> list[Cell]:
        """The cells a chip may still be put on."""
        return [(r, c) for r in range(SIZE) for c in range(SIZE)
                if (r, c) not in CORNERS and (r, c) not in self.hidden and self.board.chip((r, c)) is None]

    def choose_place(self, team: str) -> Cell:
        empties = self.empties()
        if self.rng.random() < self.spec.block_chance:  # stop an opponent one chip short
            threats = [w for t in self.spec.teams if t != team for w in self._windows_for(t) if w[0] == 4]
            if threats:
                return threats[int(self.rng.integers(len(threats)))][1][0]
        wins = self._windows_for(team)
        if wins and self.rng.random() < self.spec.sequence_bias:
            best = max(w[0] for w in wins)
            options = [w for w in wins if w[0] == best]
            empty = options[int(self.rng.integers(len(options)))][1]
            return empty[int(self.rng.integers(len(empty)))]
        return empties[int(self.rng.integers(len(empties)))]

    def choose_removal(self, team: str) -> Cell | None:
        """An opponent's unlocked chip, preferably from their most promising line."""
        opponents = [t for t in self.spec.teams if t != team]
        cand = [cell for cell, chip in self.board.chips().items()
                if chip.colour in opponents and not chip.locked]
        if not cand:
            return None
        return cand[int(self.rng.integers(len(cand)))]

    def needed(self) -> int:
        return 2 if len(self.spec.teams) == 2 else 1

    def new_sequences(self, team: str) -> list[tuple[Cell, ...]]:
        """Sequences the team just completed (the engine's rule), locking their chips."""
        known = self.sequences[team]
        new = []
        for seq in find_sequences(self.board, team):
            seq = tuple(seq)
            if seq in known or any(len(set(seq) & set(s)) > 1 for s in known + new):
                continue
            new.append(seq)
        for seq in new:
            known.append(seq)
            for cell in seq:
                if cell not in CORNERS:
                    self.board.place(cell, team, locked=True)
        return new


def simulate_game(spec: GameSpec) -> GameSim:
    """Script a whole seeded game (fast: nothing is rendered until ``frames()``)."""
    _check(spec)
    rng = np.random.default_rng([spec.seed, 0x6A3E])
    scene = random_spec(spec.seed, edition=spec.edition, difficulty=spec.difficulty, size=spec.size,
                        chip_density=0.0)
    # players' own hands replace the random ones lying about; a game keeps one noise pattern per frame
    scene = dataclasses.replace(scene, clutter=tuple(c for c in scene.clutter if c.kind != "hand"))
    if spec.difficulty != "hard":  # a camera set up to watch a game frames the board well
        fill = float(rng.uniform(*CONFIG.game_fill))
        scene = dataclasses.replace(scene, camera=dataclasses.replace(scene.camera, fill=fill))
    if spec.piles:
        scene = with_chip_piles(scene, len(spec.teams), spec.teams)
    scene = with_chip_offset(scene, spec.chip_offset)
    # a webcam watching a game meters once and holds (the drift under hands is scripted)
    scene = dataclasses.replace(scene, auto_exposure=render_with(scene, scene.labels).auto_exposure)
    s = _Script(spec, scene, rng)
    flips = spec.flips if spec.flips is not None else spec.edition == "jumbo"
    n_turns_est = spec.max_moves
    bump_turns = set(rng.choice(np.arange(2, 14), size=spec.bumps if spec.bumps is not None
                                else int(rng.integers(1, 3)), replace=False).tolist())
    light_turns = set(rng.choice(np.arange(1, 14), size=spec.light_events if spec.light_events is not None
                                 else int(rng.integers(1, 4)), replace=False).tolist())
    lean_turns = set(rng.choice(np.arange(1, 20), size=spec.leans if spec.leans is not None
                                else int(rng.integers(0, 3)), replace=False).tolist())
    s.idle(CONFIG.start_idle)
    seat_of = {t: [side for side, team in s.seats if team == t] for t in spec.teams}
    turn = 0
    winner = None
    # (A board filled with no sequence ends the game: three teams blocking each other can do it.)
    while turn < n_turns_est and winner is None and s.empties():
        team = spec.teams[turn % len(spec.teams)]
        sides = seat_of[team]
        side = sides[(turn // len(spec.teams)) % len(sides)]
        if turn in bump_turns:
            bump_turns.discard(turn)  # once per turn, even when a hand only passed over first
            _bump(s)
        if turn in light_turns:
            light_turns.discard(turn)
            _light(s)
        if turn in lean_turns:
            lean_turns.discard(turn)
            _lean(s)
        roll = rng.random()
        removal = s.choose_removal(team) if roll < spec.removal_chance else None
        if roll > 1 - spec.pass_chance:
            # A hand that reaches over the board and changes nothing (pointing, thinking) is not
            # a turn: the same team plays next, as at a real table.
            left = s.visit(side, [s.choose_place(team)], [None])
            s.event("pass", left, team=team)
            s.idle(float(rng.uniform(*CONFIG.pause)))
            continue
        elif removal is not None:
            colour = s.board.chip(removal).colour  # type: ignore[union-attr]
            left = s.visit(side, [removal], [lambda cell=removal: s.remove(cell)])
            s.event("removed", left, cell=list(removal), team=colour, by=team)
        else:
            cell = s.choose_place(team)
            left = s.visit(side, [cell], [lambda cell=cell, team=team: s.place(cell, team)])
            s.event("placed", left, cell=list(cell), team=team)
            new = s.new_sequences(team)
            for seq in new:
                s.event("sequence", left, cells=[list(c) for c in seq], team=team)
            if new and len(s.sequences[team]) >= s.needed():
                winner = team
                s.event("win", left, team=team)
            if new and flips:
                s.idle(float(rng.uniform(*CONFIG.flip_delay)))
                cells = [c for seq in new for c in seq if c not in CORNERS and c not in s.flipped]
                actions = [lambda c=c: s.flip(c) for c in cells]
                left = s.visit(side, cells, actions)
                for c in cells:
                    s.event("flip", left, cell=list(c), team=team)
        s.idle(float(rng.uniform(*CONFIG.pause)))
        turn += 1
    s.idle(CONFIG.end_idle)
    log.info("simulated game seed %s: %d turns, %d frames, winner %s", spec.seed, turn, len(s.states), winner)
    return GameSim(spec, scene, s.events, s.states)


def _bump(s: _Script) -> None:
    """Someone knocks the table: the board slides a little and turns a degree or two, for good."""
    rng = s.rng
    ang = rng.uniform(0, 2 * np.pi)
    dist = float(rng.uniform(0.06, 0.2))
    target = (s.shift[0] + dist * np.cos(ang), s.shift[1] + dist * np.sin(ang))
    rot = s.rot + float(rng.choice([-1, 1]) * rng.uniform(0.6, 2.0))
    start, start_rot = s.shift, s.rot
    n = CONFIG.bump_frames
    for k in range(1, n + 1):
        f = k / n
        s.shift = (start[0] + (target[0] - start[0]) * f, start[1] + (target[1] - start[1]) * f)
        s.rot = start_rot + (rot - start_rot) * f
        s.push(None)
    s.event("bump", len(s.states) - 1,
            shift=[round(float(s.shift[0] - start[0]), 4), round(float(s.shift[1] - start[1]), 4)],
            rot=round(float(s.rot - start_rot), 3))
    s.idle(0.5)


def _light(s: _Script) -> None:
    """A flicker (a few dark frames), a lamp switched on (brighter, warmer) or a cloud (dimmer)."""
    rng = s.rng
    kind = ("flicker", "lamp", "dim")[int(rng.integers(3))]
    frame = len(s.states)
    if kind == "flicker":
        base = s.exposure
        for _ in range(int(rng.integers(2, 5))):
            s.exposure = base * float(rng.uniform(0.55, 0.85))
            s.push(None)
        s.exposure = base
    elif kind == "lamp":
        s.exposure *= float(rng.uniform(1.12, 1.3))
        s.warmth *= float(rng.uniform(1.04, 1.12))
    else:
        s.exposure *= float(rng.uniform(0.75, 0.88))
    s.event("light", frame, kind=kind, exposure=round(float(s.exposure), 3))
    s.idle(0.5)


def _lean(s: _Script) -> None:
    """Someone leans over the table: a big soft shadow sweeps in over the board and away."""
    rng = s.rng
    frame = len(s.states)
    n = s.frames_for(CONFIG.lean)
    ang = float(rng.uniform(0, 2 * np.pi))
    far = np.array([0.5 + 0.9 * np.cos(ang), 0.5 + 0.9 * np.sin(ang)])
    near = np.array([0.5, 0.5]) + rng.uniform(-0.2, 0.2, 2)
    rx, ry, strength = float(rng.uniform(0.25, 0.45)), float(rng.uniform(0.2, 0.4)), float(rng.uniform(0.2, 0.4))
    for k in range(n):
        f = np.sin(np.pi * k / max(n - 1, 1))  # in and out again
        x, y = far + (near - far) * f
        s.push(None, shade=(float(x), float(y), rx, ry, ang, strength))
    s.event("light", frame, kind="shadow", exposure=round(float(s.exposure), 3))

