"""``Game``: teams, position, locked sequences, turn, history and undo, fed by the camera.

The camera hands ``observe()`` the 10x10 labels it now sees; the game answers with the
events that explain the difference from its own position (a chip placed or removed,
sequences completed, a win) and alerts for what a legal game cannot do. An impossible
observation is reported, never applied half-way: the position stays legal.

Every state change is an ``Event`` applied by one function (``_apply``), both live and when
replaying a stored history (``Game.from_events``), so a replayed game is the same game.
Undo restores a snapshot taken before each state-changing group (O(1), python-chess style).
See docs/RULES.md for the rule readings chosen here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from collections.abc import Sequence as Seq
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.board import CHIPS, CORNER_INDICES, Board, Chip, cell_index
from engine.events import Event
from engine.labels import TEAM_COLOURS, Label, parse_label
from engine.layout import CELLS, EDITIONS, SIZE, Cell
from engine.rules import RulesError, dead_cards, next_team, sequences_needed, validate_teams
from engine.sequences import WINDOW_ID, WINDOW_MASK, WINDOWS, WINDOWS_THROUGH, complete_windows, select_windows

EMPTY = Label.EMPTY.value
FREE = Label.FREE.value
FLIPPED = Label.FLIPPED.value
UNKNOWN = Label.UNKNOWN.value
_LABEL_VALUES: frozenset[str] = frozenset(label.value for label in Label)
_NOT_SEEN = object()
"""Pin value for a correction made before the camera ever reported the cell."""
RECENT_EVENTS = 20
"""How many of the last events ``state()`` includes."""
CONFIG_KEYS: frozenset[str] = frozenset({"teams", "edition", "track_turns"})
MAX_CATCH_UP = 3
"""Most new chips seen at once that are taken as the turns the camera missed (when their
colours are exactly the next turns' teams, with at most one chip taken off between them by
the team to play); more, or any other mix, is an alert."""


@dataclass
class _Snapshot:
    """Everything a state-changing group may change, taken before it (for undo)."""

    cells: list[Chip | None]
    sequences: dict[str, list[int]]
    turn: str | None
    winner: str | None
    group: int
    first: Event | None
    touched: tuple[int, ...]


class Game:
    """One game of Sequence as the camera sees it.

    ``teams`` are colour names in turn order (2 or 3). ``edition`` is ``classic`` or
    ``jumbo`` (Jumbo chips are flipped white when locked). With ``track_turns`` the game
    follows whose turn it is and alerts when the wrong team places a chip.
    """

    def __init__(
        self, teams: Seq[str] | str = ("blue", "green"), *, edition: str = "classic", track_turns: bool = True
    ) -> None:
        self._teams = validate_teams(teams)
        if edition not in EDITIONS:
            raise RulesError(f"unknown edition {edition!r}; expected one of: {', '.join(EDITIONS)}")
        self._edition = edition
        self._track_turns = bool(track_turns)
        self._needed = sequences_needed(len(self._teams))
        self._board = Board.empty()
        self._masks: dict[str, int] = {}
        self._sequences: dict[str, list[int]] = {t: [] for t in self._teams}
        self._turn: str | None = self._teams[0] if self._track_turns else None
        self._winner: str | None = None
        self._history: list[Event] = []
        self._group = 0
        self._undo: list[_Snapshot] = []
        self._snap_group = -1
        self._version = 0
        self._expected: list[list[str]] = []
        self._rebuild_caches()
        self._seen: list[list[str]] = [row.copy() for row in self._expected]
        self._observed = False
        self._seen_version = -1
        self._active: set[tuple] = set()
        self._pins: dict[int, object] = {}

    # ----- read-only views -------------------------------------------------------------

    @property
    def teams(self) -> tuple[str, ...]:
        return self._teams

    @property
    def edition(self) -> str:
        return self._edition

    @property
    def track_turns(self) -> bool:
        return self._track_turns

    @property
    def needed(self) -> int:
        """Sequences a team needs to win."""
        return self._needed

    @property
    def board(self) -> Board:
        """A copy of the current position."""
        return self._board.copy()

    @property
    def sequences(self) -> dict[str, list[tuple[Cell, ...]]]:
        """Recorded (locked) sequences per team, each five cells in line order."""
        return {t: [WINDOWS[w] for w in ws] for t, ws in self._sequences.items()}

    @property
    def locked(self) -> frozenset[Cell]:
        """Cells holding a locked chip (corners are never chips, so never listed)."""
        return frozenset(cell for cell, chip in self._board.chips().items() if chip.locked)

    @property
    def turn(self) -> str | None:
        """The team expected to play next, or None when turns are not tracked."""
        return self._turn

    @property
    def winner(self) -> str | None:
        return self._winner

    @property
    def history(self) -> list[Event]:
        """Every event so far, oldest first (a copy)."""
        return list(self._history)

    def dead_cards(self) -> list[str]:
        """Cards whose two cells are both covered in the current position."""
        return dead_cards(self._board)

    def expected_labels(self) -> list[list[str]]:
        """What the camera should see. Locked chips read ``flipped`` on the Jumbo mat, their
        colour on the classic board; ``observe`` accepts either on a locked cell."""
        return self._board.to_labels(flipped=self._edition == "jumbo")

    def config(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (``Game(**config)`` rebuilds an empty game)."""
        return {"teams": list(self._teams), "edition": self._edition, "track_turns": self._track_turns}

    def state(self) -> dict[str, Any]:
        """JSON-ready snapshot for the tablet and ``GET /api/state``."""
        return {
            "board": self._board.to_text(),
            "edition": self._edition,
            "teams": [{"team": t, "done": len(self._sequences[t]), "needed": self._needed} for t in self._teams],
            "sequences": {t: [[list(c) for c in s] for s in seqs] for t, seqs in self.sequences.items()},
            "locked": [list(c) for c in sorted(self.locked)],
            "turn": self._turn,
            "winner": self._winner,
            "dead_cards": self.dead_cards(),
            "events": [e.to_dict() for e in self._history[-RECENT_EVENTS:]],
        }

    def __repr__(self) -> str:
        return f"Game(teams={self._teams!r}, edition={self._edition!r}, turn={self._turn!r}, winner={self._winner!r})"

    # ----- building from a stored history -------------------------------------------------

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Game:
        """``Game(**config)`` with unknown keys refused (``ValueError`` quoting them)."""
        if not isinstance(config, dict):
            raise ValueError(f"game config must be a JSON object, got {config!r}")
        unknown = set(config) - CONFIG_KEYS
        if unknown:
            raise ValueError(f"unknown game config keys {sorted(unknown)!r}; expected {sorted(CONFIG_KEYS)!r}")
        if "teams" not in config:
            raise ValueError(f"game config {config!r} has no 'teams'")
        return cls(**config)

    @classmethod
    def from_events(cls, config: dict[str, Any], events: Seq[Event | dict[str, Any]]) -> Game:
        """Rebuild a game by replaying its history (``Event`` objects or their dicts)."""
        game = cls.from_config(config)
        for item in events:
            event = item if isinstance(item, Event) else Event.from_dict(item)
            game._replay(event)
        return game

    def _replay(self, event: Event) -> None:
        if event.type == ev.UNDONE:
            self._restore_last()
        elif event.type in ev.STATE_CHANGING:
            self._apply(event)
        self._history.append(event)
        self._group = max(self._group, event.group)

    # ----- the camera's entry point ---------------------------------------------------------

    def observe(self, labels: Seq[Seq[str | Label]]) -> list[Event]:
        """Take the 10x10 labels the camera now sees; return the events explaining the change.

        ``unknown`` cells keep the label last seen there. Discrepancies that are not legal
        moves raise an alert once, when they appear; identical repeated observations return
        ``[]``. Raises ``ValueError`` for a grid of the wrong shape or an unknown label.
        """
        rows = _rows_of(labels)
        seen = self._seen
        if self._seen_version == self._version and rows == seen:
            return []
        merged = [row if row == seen[r] else self._merge_row(row, seen[r]) for r, row in enumerate(rows)]
        self._seen = merged
        self._observed = True

        placements: list[tuple[int, str]] = []
        removals: list[int] = []
        keys: list[tuple] = []
        skip = self._check_pins(merged) if self._pins else ()
        expected = self._expected
        cells = self._board._cells
        for r in range(SIZE):
            if merged[r] == expected[r]:
                continue
            for c, (got, want) in enumerate(zip(merged[r], expected[r], strict=True)):
                if got == want:
                    continue
                i = r * SIZE + c
                if i in skip:
                    continue
                self._classify(i, got, cells[i], placements, removals, keys)

        group = self._group + 1
        out: list[Event] = []
        if len(placements) > 1:
            in_order = self._as_turns(placements, removals)
            if in_order is not None:
                # The camera missed the turns in between (a lamp, a long reach): the chips fit
                # the next turns exactly, so they are those turns, in turn order.
                for k, (i, team) in enumerate(in_order):
                    if team is None:
                        self._remove(i, group + k, out)
                    else:
                        self._place(i, team, group + k, out)
                group += len(in_order) - 1
                placements, removals = [], []
        if len(placements) > 1:
            keys.append((ev.MULTIPLE_PLACED, tuple(i for i, _ in placements)))
            placements = []
        if len(removals) > 1:
            keys.append((ev.MULTIPLE_REMOVED, tuple(removals)))
            removals = []
        if removals and placements and self._placed_first(placements[0][1], removals[0]):
            # One chip put down and one taken off, seen at once (the camera missed a turn): the
            # team to play put its chip down, and the next team took an opponent's chip off.
            self._place(*placements[0], group, out)
            group += 1
            self._remove(removals[0], group, out)
            placements = removals = []
        if removals:
            self._remove(removals[0], group, out)
        if placements:
            self._place(*placements[0], group, out)
        current = set(keys)
        for key in keys:
            if key not in self._active:
                out.append(self._alert(key, group))
        self._active = current
        self._seen_version = self._version
        if out:
            self._group = group
            self._history.extend(out)
        return out

    def _as_turns(self, placements: list[tuple[int, str]], removals: list[int]
                  ) -> list[tuple[int, str | None]] | None:
        """``placements`` (and at most one of ``removals``) as the next turns, ``(cell index,
        team)`` in turn order (team None: the chip there taken off), when exactly one order of
        turns explains them all: each turn, the team to play puts down one of its chips among
        them, or takes off a chip of another team's. None (they stay an alert) when turns are
        not tracked, there are more than ``MAX_CATCH_UP`` new chips, or no order or two fit.
        (Game 198300 of ``live_accuracy`` at 7.5 frames a second: a lamp kept part of the board
        unread for 9 s, and yellow's, red's, blue's removal and yellow's again reached the
        engine at once.)"""
        if self._turn is None or len(placements) > MAX_CATCH_UP or len(removals) > 1:
            return None
        if any(self._may_lock(i, placements) for i in removals):
            return None
        orders = list(itertools.islice(self._turn_orders(self._turn, placements, removals), 2))
        return orders[0] if len(orders) == 1 else None

    def _may_lock(self, i: int, placements: list[tuple[int, str]]) -> bool:
        """Whether ``placements`` of the colour on cell index ``i`` complete a line of five through
        it: that sequence locks the chip, and the order of the turns then decides whether taking it
        off was allowed at all (nothing is guessed there)."""
        colour = self._board._cells[i].colour
        mask = self._masks[colour]
        for j, team in placements:
            if team == colour:
                mask |= 1 << j
        return bool(complete_windows(mask, WINDOWS_THROUGH[i]))

    def _turn_orders(self, turn: str, placements: list[tuple[int, str]], removals: list[int]
                     ) -> Iterator[list[tuple[int, str | None]]]:
        """Every order of turns from ``turn`` that accounts for ``placements`` and ``removals``
        (see ``_as_turns``); a team's chips are taken in the order given (which of two of its
        chips came first, the camera cannot tell, and it changes no turn)."""
        if not placements and not removals:
            yield []
            return
        after = next_team(self._teams, turn)
        mine = next((p for p in placements if p[1] == turn), None)
        if mine is not None:
            rest = [p for p in placements if p is not mine]
            for order in self._turn_orders(after, rest, removals):
                yield [mine, *order]
        for i in removals:
            if self._board._cells[i].colour != turn:
                for order in self._turn_orders(after, placements, [j for j in removals if j != i]):
                    yield [(i, None), *order]

    def _placed_first(self, team: str, removed: int) -> bool:
        """Whether a placement by ``team`` and the removal of the chip on cell index ``removed``,
        seen at once, are the team to play's move and then the next team's (turns tracked, the
        removed chip not the remover's own); else the removal is taken first, as the turn's."""
        if self._turn is None or team != self._turn:
            return False
        return self._board._cells[removed].colour != next_team(self._teams, team)

    def _merge_row(self, row: list, seen_row: list[str]) -> list[str]:
        out = []
        for value, before in zip(row, seen_row, strict=True):
            name = value.value if isinstance(value, Label) else value
            if name not in _LABEL_VALUES:
                name = parse_label(value).value
            out.append(before if name == UNKNOWN else name)
        return out

    def _check_pins(self, merged: list[list[str]]) -> set[int]:
        """Cells a correction or undo pinned: ignored while the camera still sees what it saw then."""
        skip = set()
        for i, pinned in list(self._pins.items()):
            now = merged[i // SIZE][i % SIZE]
            if pinned is _NOT_SEEN:
                self._pins[i] = now
                skip.add(i)
            elif now == pinned:
                skip.add(i)
            else:
                del self._pins[i]
        return skip

    def _classify(
        self,
        i: int,
        got: str,
        chip: Chip | None,
        placements: list[tuple[int, str]],
        removals: list[int],
        keys: list[tuple],
    ) -> None:
        """Sort one differing cell into a placement, a removal or an alert key."""
        if i in CORNER_INDICES:
            if got != EMPTY:
                keys.append((ev.CHIP_ON_CORNER, i))
            return
        if got == FREE:
            got = EMPTY  # a plain cell read as "free" is an empty cell
        playing = got in self._masks
        if chip is None:
            if got == EMPTY:
                return
            if playing:
                placements.append((i, got))
            elif got == FLIPPED:
                keys.append((ev.FLIPPED_UNLOCKED, i))
            else:
                keys.append((ev.UNKNOWN_COLOUR, i, got))
            return
        if got == chip.colour or (got == FLIPPED and chip.locked):
            return
        if got == EMPTY:
            if chip.locked:
                keys.append((ev.LOCKED_REMOVED, i))
            else:
                removals.append(i)
        elif got == FLIPPED:
            keys.append((ev.FLIPPED_UNLOCKED, i))
        elif playing:
            keys.append((ev.COLOUR_CHANGED, i, got))
        else:
            keys.append((ev.UNKNOWN_COLOUR, i, got))

    def _alert(self, key: tuple, group: int) -> Event:
        code = key[0]
        if code in (ev.MULTIPLE_PLACED, ev.MULTIPLE_REMOVED):
            cells = tuple(CELLS[i] for i in key[1])
            build = ev.multiple_placed_message if code == ev.MULTIPLE_PLACED else ev.multiple_removed_message
            return Event(ev.ALERT, cells=cells, message=build(cells), alert=code, group=group)
        cell = CELLS[key[1]]
        chip = self._board._cells[key[1]]
        team = chip.colour if chip is not None else None
        if code == ev.CHIP_ON_CORNER:
            message = ev.chip_on_corner_message(cell)
        elif code == ev.FLIPPED_UNLOCKED:
            message = ev.flipped_unlocked_message(cell)
        elif code == ev.LOCKED_REMOVED:
            message = ev.locked_removed_message(team, cell)
        elif code == ev.COLOUR_CHANGED:
            message = ev.colour_changed_message(team, key[2], cell)
        else:
            message = ev.unknown_colour_message(key[2], cell)
            team = key[2]
        return Event(ev.ALERT, cell=cell, team=team, message=message, alert=code, group=group)

    # ----- moves -----------------------------------------------------------------------

    def _remove(self, i: int, group: int, out: list[Event]) -> None:
        team = self._board._cells[i].colour
        event = Event(ev.REMOVED, cell=CELLS[i], team=team, message=ev.removed_message(team, CELLS[i]), group=group)
        self._apply(event)
        out.append(event)

    def _place(self, i: int, team: str, group: int, out: list[Event]) -> None:
        cell = CELLS[i]
        expected = self._turn
        event = Event(ev.PLACED, cell=cell, team=team, message=ev.placed_message(team, cell), group=group)
        self._apply(event)
        out.append(event)
        if expected is not None and expected != team:
            message = ev.wrong_team_message(team, expected, cell)
            out.append(Event(ev.ALERT, cell=cell, team=team, message=message, alert=ev.WRONG_TEAM, group=group))
        self._record_sequences(team, WINDOWS_THROUGH[i], group, out)

    def _record_sequences(self, team: str, candidates: Iterable[int], group: int, out: list[Event]) -> None:
        """Lock the windows that maximise ``team``'s sequences given those already recorded."""
        done = self._sequences[team]
        complete = complete_windows(self._masks[team], candidates)
        if not complete:
            return
        for w in select_windows(complete, done):
            message = ev.sequence_message(team, len(done) + 1, self._needed)
            event = Event(ev.SEQUENCE, cells=WINDOWS[w], team=team, message=message, group=group)
            self._apply(event)
            out.append(event)
        if self._winner is None and len(done) >= self._needed:
            event = Event(ev.WIN, team=team, message=ev.win_message(team), group=group)
            self._apply(event)
            out.append(event)

    # ----- manual actions ----------------------------------------------------------------

    def correct(self, cell: Cell, label: str | Label) -> list[Event]:
        """Set ``cell`` to what is really there (``empty`` or a playing team's colour).

        The correction sticks: the camera's view of that cell is ignored until it changes.
        Correcting a locked chip away unlocks its sequences. Turns are not changed.
        Raises ``ValueError`` for a corner, ``unknown``/``free``, a colour not playing, or
        ``flipped`` on a cell that is not locked.
        """
        i = cell_index(cell)
        cell = CELLS[i]
        name = parse_label(label).value
        if i in CORNER_INDICES:
            raise ValueError(f"cell {cell!r} is a free corner; it cannot be corrected")
        chip = self._board._cells[i]
        if name == FLIPPED:
            if chip is not None and chip.locked:
                return []
            raise ValueError(f"cell {cell!r} holds no locked chip; correct it to a colour or 'empty' instead")
        if name not in (EMPTY, *self._teams):
            playing = ", ".join(("empty", *self._teams))
            raise ValueError(f"cannot correct cell {cell!r} to {name!r}; expected one of: {playing}")
        if (chip.colour if chip is not None else EMPTY) == name:
            return []
        group = self._group + 1
        team = None if name == EMPTY else name
        event = Event(
            ev.CORRECTED, cell=cell, team=team, message=ev.corrected_message(cell, name), label=name, group=group
        )
        self._apply(event)
        out = [event]
        for t in self._teams:
            self._record_sequences(t, range(len(WINDOWS)), group, out)
        self._pins[i] = self._seen[i // SIZE][i % SIZE] if self._observed else _NOT_SEEN
        self._group = group
        self._history.extend(out)
        return out

    def undo(self) -> list[Event]:
        """Revert the last state-changing group; returns ``[undone event]`` or ``[]`` if none."""
        if not self._undo:
            return []
        snapshot = self._undo[-1]
        self._restore_last()
        group = self._group + 1
        touched = tuple(CELLS[i] for i in snapshot.touched)
        event = Event(ev.UNDONE, cells=touched, message=ev.undone_message(snapshot.first), group=group)
        for i in snapshot.touched:
            self._pins[i] = self._seen[i // SIZE][i % SIZE] if self._observed else _NOT_SEEN
        self._group = group
        self._history.append(event)
        return [event]

    # ----- the one place state changes ----------------------------------------------------

    def _apply(self, event: Event) -> None:
        """Apply one state-changing event (live and on replay)."""
        if event.group != self._snap_group:
            self._push_snapshot(event)
        elif event.cell is not None:
            top = self._undo[-1]
            top.touched = (*top.touched, cell_index(event.cell))
        kind = event.type
        if kind == ev.PLACED:
            self._require_team(event)
            self._set(cell_index(event.cell), CHIPS[event.team, False])
            if self._track_turns:
                self._turn = next_team(self._teams, event.team)
        elif kind == ev.REMOVED:
            self._set(cell_index(event.cell), None)
            if self._track_turns:
                self._turn = next_team(self._teams, self._turn)
        elif kind == ev.SEQUENCE:
            self._require_team(event)
            w = WINDOW_ID.get(tuple(event.cells))
            if w is None:
                raise ValueError(f"sequence cells {event.cells!r} are not five cells in a line")
            self._sequences[event.team].append(w)
            for cell in event.cells:
                i = cell_index(cell)
                if i not in CORNER_INDICES:
                    self._set(i, CHIPS[event.team, True])
        elif kind == ev.WIN:
            self._require_team(event)
            self._winner = event.team
        elif kind == ev.CORRECTED:
            self._apply_correction(cell_index(event.cell), event.label)
        self._version += 1

    def _apply_correction(self, i: int, label: str | None) -> None:
        chip = self._board._cells[i]
        if chip is not None and chip.locked:
            team = chip.colour
            self._sequences[team] = [w for w in self._sequences[team] if not WINDOW_MASK[w] >> i & 1]
            still_locked = 0
            for w in self._sequences[team]:
                still_locked |= WINDOW_MASK[w]
            for j, other in enumerate(self._board._cells):
                if other is not None and other.locked and other.colour == team and not still_locked >> j & 1:
                    self._set(j, CHIPS[team, False])
            if self._winner == team and len(self._sequences[team]) < self._needed:
                self._winner = None
        if label in (None, EMPTY):
            self._set(i, None)
        elif label in self._masks:
            self._set(i, CHIPS[label, False])
        else:
            raise ValueError(f"correction label {label!r} is not 'empty' or a playing team")

    def _require_team(self, event: Event) -> None:
        if event.team not in self._masks:
            raise ValueError(f"event team {event.team!r} is not playing ({', '.join(self._teams)})")

    def _set(self, i: int, chip: Chip | None) -> None:
        old = self._board._cells[i]
        if i in CORNER_INDICES:
            raise ValueError(f"cell {CELLS[i]!r} is a free corner and cannot hold a chip")
        self._board._cells[i] = chip
        bit = 1 << i
        if old is not None:
            self._masks[old.colour] &= ~bit
        if chip is not None:
            self._masks[chip.colour] |= bit
        self._expected[i // SIZE][i % SIZE] = EMPTY if chip is None else chip.colour

    def _push_snapshot(self, event: Event) -> None:
        touched = (cell_index(event.cell),) if event.cell is not None else ()
        self._undo.append(
            _Snapshot(
                cells=self._board._cells.copy(),
                sequences={t: ws.copy() for t, ws in self._sequences.items()},
                turn=self._turn,
                winner=self._winner,
                group=event.group,
                first=event,
                touched=touched,
            )
        )
        self._snap_group = event.group

    def _restore_last(self) -> None:
        if not self._undo:
            raise ValueError("nothing to undo in this game's history")
        snapshot = self._undo.pop()
        self._board._cells = snapshot.cells
        self._sequences = snapshot.sequences
        self._turn = snapshot.turn
        self._winner = snapshot.winner
        self._snap_group = -1
        self._version += 1
        self._rebuild_caches()

    def _rebuild_caches(self) -> None:
        """Recompute per-team masks and expected labels from the board."""
        corner_mask = sum(1 << i for i in CORNER_INDICES)
        self._masks = {t: corner_mask for t in self._teams}
        for i, chip in enumerate(self._board._cells):
            if chip is not None:
                self._masks[chip.colour] = self._masks.get(chip.colour, corner_mask) | 1 << i
        self._expected = self._board.to_labels()


def _rows_of(labels: Seq[Seq[str | Label]]) -> list[list]:
    """The grid as 10 lists of 10 (raises ``ValueError`` naming the bad shape)."""
    try:
        rows = [list(row) for row in labels]
    except TypeError:
        raise ValueError(f"labels must be 10 rows of 10 cell labels, got {type(labels).__name__}") from None
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        shape = [len(row) for row in rows]
        raise ValueError(f"labels must be 10 rows of 10 cell labels, got rows of lengths {shape}")
    return rows


__all__ = ["TEAM_COLOURS", "Game"]
