"""Plays seeded simulated games through the live pipeline and scores the events against the truth.

Each game is rendered by ``vision.sim.simulate_game`` (hands, bumps, flicker, flips), fed
frame by frame through ``companion_web.pipeline.Pipeline`` with a ``vision.track.BoardTracker``
and an ``engine.Game`` (the same code path as ``sequence-companion replay``), and the engine's
events are matched with the simulator's ground truth:

- a move (placed/removed) matches the first unmatched engine event of the same type and cell
  committed after the chip changed; its latency runs from the frame where the hand has fully
  left to the frame the event was committed;
- sequences match by team and cells, wins by team;
- re-lock time runs from each bump to the first frame the tracker reports ``relocked``.

Usage: ``python benchmarks/live_accuracy.py [--games 20] [--seed 1] [--jobs 2] [--piles]``.
Games alternate classic/Jumbo and 2/3 teams; 1280x720 at 15 fps (``--fps`` for another rate).
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

# Run as a script, this folder is first on sys.path and benchmarks/engine.py would shadow the
# engine package: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FPS = 15.0
SIZE = (1280, 720)
EARLY_S = 3.0
"""An event may be committed this long before the hand has fully left (the hand lingers)."""
RELOCK_GIVE_UP_S = 10.0
MISFIT_CELLS = 0.25
"""A tracker grid whose corners are this far (cells) from the truth is a misfit (diagnosis only)."""


@dataclass
class GameScore:
    """Counts and timings of one game."""

    name: str
    frames: int = 0
    moves: int = 0
    found: int = 0
    wrong_team: int = 0
    phantoms: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    missed_events: list[dict] = field(default_factory=list)
    causes: dict[str, int] = field(default_factory=dict)
    """Why moves were missed: ``reader`` (the cell reader names the wrong label on a clear frame),
    ``tracker`` (the reader is right but the tracker did not commit it, or an earlier change of
    that cell was lost so this one looks like no change), ``engine`` (committed, but the engine
    answered with an alert, or nothing, instead of the move), ``grid misfit`` (the tracker's
    grid is over ``MISFIT_CELLS`` off the true board: the locator's error, not the reader's)."""
    sequences: int = 0
    sequences_found: int = 0
    false_sequences: int = 0
    wins: int = 0
    wins_found: int = 0
    false_wins: int = 0
    alerts: int = 0
    latencies: list[float] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)
    alert_messages: list[str] = field(default_factory=list)
    bumps: int = 0
    relock_times: list[float] = field(default_factory=list)
    relock_failed: int = 0
    seconds: float = 0.0


def game_specs(n: int, seed: int, max_moves: int | None = None, piles: bool = False,
               fps: float = FPS, chip_offset: float | None = None) -> list[Any]:
    """``n`` seeded specs cycling classic/Jumbo and 2/3 teams (``max_moves`` caps each game;
    ``piles``: each team's chips in a pile beside the board; ``fps``: the camera's frame rate;
    ``chip_offset``: how far off centre players put chips down, in cells each way)."""
    from vision.sim import GameSpec

    combos = [
        ("classic", ("blue", "green")),
        ("jumbo", ("yellow", "red")),
        ("classic", ("blue", "green", "red")),
        ("jumbo", ("yellow", "red", "blue")),
    ]
    specs = []
    for k in range(n):
        edition, teams = combos[(seed + k - 1) % len(combos)]  # seed 1 classic, 2 Jumbo, 3 ...
        extra = {} if max_moves is None else {"max_moves": max_moves}
        specs.append(GameSpec(seed=seed + k, edition=edition, teams=teams, fps=fps, size=SIZE, piles=piles,
                              chip_offset=chip_offset, **extra))
    return specs


def _frames(sim: Any) -> Iterator[tuple[int, np.ndarray]]:
    for f in sim.frames():
        yield f.index, f.frame


def play(spec: Any) -> GameScore:
    """Run one game through the pipeline and score it."""
    from companion_web.pipeline import Pipeline
    from engine import Game
    from vision.sim import simulate_game
    from vision.sources import OrderedSource
    from vision.track import BoardTracker

    cv2.setNumThreads(1)
    start = time.perf_counter()
    sim = simulate_game(spec)
    game = Game(list(spec.teams), edition=spec.edition)
    tracker = BoardTracker(edition=spec.edition)
    emitted: list[tuple[int, Any]] = []
    relocks: list[int] = []
    boards: list[tuple[int, list[list[str]]]] = []
    corners: dict[int, np.ndarray] = {}
    score = GameScore(f"seed {spec.seed} {spec.edition} {len(spec.teams)} teams")

    def on_board(labels: list[list[str]], index: int, t: float) -> list[Any]:
        events = game.observe(labels)
        emitted.extend((index, e) for e in events)
        return events

    def on_update(frame: Any, update: Any) -> None:
        score.frames += 1
        if getattr(update, "relocked", False):
            relocks.append(frame.index)
        if update.committed is not None:
            boards.append((frame.index, update.committed))
        if update.corners is not None:
            corners[frame.index] = update.corners

    source = OrderedSource(_frames(sim), fps=spec.fps, description=score.name)
    try:
        Pipeline(source, tracker, on_board=on_board, on_update=on_update).run()
    finally:
        source.close()
    score.seconds = time.perf_counter() - start
    _score(score, list(sim.events), emitted, relocks, spec.fps)
    score.causes = _miss_causes(sim, list(sim.events), score.missed_events, boards, corners, tracker, emitted)
    return score


def _committed_at(boards: list[tuple[int, list[list[str]]]], index: int) -> list[list[str]] | None:
    """The tracker's committed board as of frame ``index`` (None before the first)."""
    out = None
    for k, board in boards:
        if k > index:
            break
        out = board
    return out


def _miss_causes(sim: Any, truth: list[dict], missed: list[dict], boards: list, corners: dict,
                 tracker: Any, emitted: list[tuple[int, Any]]) -> dict[str, int]:
    """Sort each missed move by where it was lost (see ``GameScore.causes``).

    The tracker's committed board is checked at the last frame before the next move (or 3 s
    after the hand left); where it does not hold the true label, the tracker's own reader reads a
    clear frame 1 s after the hand left with the tracker's corners of that frame.
    """
    causes: dict[str, int] = {}
    frames = sorted(e["frame"] for e in truth if e["type"] in ("placed", "removed", "flip"))
    for ev in missed:
        r, c = ev["cell"]
        want = ev.get("team") if ev["type"] == "placed" else "empty"
        later = [f for f in frames if f > ev["frame"]]
        until = min(later[0] - 1 if later else sim.n_frames - 1, ev["frame"] + int(3 * sim.spec.fps))
        board = _committed_at(boards, until)
        before = _committed_at(boards, max([f for f in frames if f < ev["frame"]], default=0))
        if board is not None and board[r][c] == want:
            cause = "tracker (an earlier change there lost)" if before and before[r][c] == want else "engine"
        else:
            probe = min(ev["frame"] + int(sim.spec.fps), until)
            off = _grid_error(sim, probe, corners.get(probe))
            seen = _reader_label(sim, probe, corners.get(probe), tracker, r, c)
            cause = "tracker" if seen == want else "reader"
            cause += f" (read {seen})" if cause == "reader" else ""
            cause = "grid misfit" if off > MISFIT_CELLS else cause
        causes[cause] = causes.get(cause, 0) + 1
        logging.getLogger(__name__).warning("missed %s %s at frame %d: %s", ev["type"], (r, c), ev["frame"], cause)
    return causes


def _grid_error(sim: Any, index: int, corners: Any) -> float:
    """Largest corner error of the tracker's grid on frame ``index``, in cells (inf without a lock)."""
    from vision.sim import render

    if corners is None:
        return math.inf
    truth = render(sim.scene_at(index)).corners
    cell = float(np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1).mean()) / 10
    return float(np.linalg.norm(np.asarray(corners) - truth, axis=1).max()) / cell


def _reader_label(sim: Any, index: int, corners: Any, tracker: Any, r: int, c: int) -> str:
    """What the tracker's cell reader says of cell ``(r, c)`` on frame ``index`` ('?' without a lock)."""
    if corners is None:
        return "?"
    reading = tracker._reader_for().read(sim.render(index).frame, corners)
    return str(reading.labels[r][c])


def _cell(value: Any) -> tuple[int, int] | None:
    return None if value is None else (int(value[0]), int(value[1]))


def _cells(value: Any) -> frozenset[tuple[int, int]]:
    return frozenset((int(r), int(c)) for r, c in (value or ()))


def _score(score: GameScore, truth: list[dict], emitted: list[tuple[int, Any]], relocks: list[int],
           fps: float) -> None:
    used: set[int] = set()
    moves = [e for e in truth if e["type"] in ("placed", "removed")]
    score.moves = len(moves)
    for ev in moves:
        cell = _cell(ev.get("cell"))
        hit = None
        for k, (index, out) in enumerate(emitted):
            if k in used or out.type != ev["type"] or _cell(out.cell) != cell:
                continue
            if index >= ev["frame"] - EARLY_S * fps:
                hit = k
                break
        if hit is None:
            score.missed.append(f"{ev['type']} {cell} at frame {ev['frame']}")
            score.missed_events.append(ev)
            continue
        used.add(hit)
        score.found += 1
        index, out = emitted[hit]
        if ev["type"] == "placed" and ev.get("team") and out.team and out.team != ev["team"]:
            score.wrong_team += 1
        score.latencies.append((index - ev["frame"]) / fps)
        if score.latencies[-1] > 1.0:
            score.slow.append(f"{ev['type']} {cell} hand left {ev['frame']} committed {index}")
    for k, (index, out) in enumerate(emitted):
        if out.type in ("placed", "removed") and k not in used:
            score.phantoms.append(f"{out.type} {_cell(out.cell)} {out.team} at frame {index}")
    true_seqs = [(e.get("team"), _cells(e.get("cells"))) for e in truth if e["type"] == "sequence"]
    score.sequences = len(true_seqs)
    remaining = list(true_seqs)
    for _, out in emitted:
        if out.type != "sequence":
            continue
        key = (out.team, _cells(out.cells))
        if key in remaining:
            remaining.remove(key)
            score.sequences_found += 1
        else:
            score.false_sequences += 1
    true_wins = [e.get("team") for e in truth if e["type"] == "win"]
    score.wins = len(true_wins)
    for _, out in emitted:
        if out.type == "win":
            if out.team in true_wins:
                true_wins.remove(out.team)
                score.wins_found += 1
            else:
                score.false_wins += 1
    score.alerts = sum(1 for _, out in emitted if out.type == "alert")
    score.alert_messages = [f"{index}: {out.message}" for index, out in emitted if out.type == "alert"]
    for ev in truth:
        if ev["type"] != "bump":
            continue
        score.bumps += 1
        after = [i for i in relocks if ev["frame"] <= i <= ev["frame"] + RELOCK_GIVE_UP_S * fps]
        if after:
            score.relock_times.append((after[0] - ev["frame"]) / fps)
        else:
            score.relock_failed += 1


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def report(scores: list[GameScore], wall: float, *, verbose: bool = False) -> None:
    moves = sum(s.moves for s in scores)
    found = sum(s.found for s in scores)
    lat = [x for s in scores for x in s.latencies]
    relock = [x for s in scores for x in s.relock_times]
    phantoms = sum(len(s.phantoms) for s in scores)
    print(f"games: {len(scores)}   frames: {sum(s.frames for s in scores)}   wall time: {wall:.0f} s")
    print(f"move recall:               {found}/{moves} = {found / max(moves, 1):.2%}")
    print(f"phantom move events:       {phantoms}")
    causes: dict[str, int] = {}
    for s in scores:
        for k, v in s.causes.items():
            causes[k] = causes.get(k, 0) + v
    print(f"missed moves by cause:     {dict(sorted(causes.items())) or '-'}")
    print(f"placements of wrong team:  {sum(s.wrong_team for s in scores)}")
    seqs, seqs_found = sum(s.sequences for s in scores), sum(s.sequences_found for s in scores)
    print(f"sequences announced:       {seqs_found}/{seqs}")
    print(f"false sequence alerts:     {sum(s.false_sequences for s in scores)}")
    wins, wins_found = sum(s.wins for s in scores), sum(s.wins_found for s in scores)
    print(f"wins detected:             {wins_found}/{wins}   false wins: {sum(s.false_wins for s in scores)}")
    print(f"engine alerts raised:      {sum(s.alerts for s in scores)}")
    print(f"latency hand-left->event:  median {_pct(lat, 50):.2f} s   p95 {_pct(lat, 95):.2f} s"
          f"   max {max(lat, default=float('nan')):.2f} s")
    failed = sum(s.relock_failed for s in scores)
    print(f"bumps: {sum(s.bumps for s in scores)}   re-lock time median {_pct(relock, 50):.2f} s"
          f"   max {max(relock, default=float('nan')):.2f} s   not re-locked: {failed}")
    for s in scores:
        if s.missed or s.phantoms:
            print(f"  {s.name}: missed {s.missed[:4]} phantoms {s.phantoms[:4]}")
        if verbose and (s.slow or s.alert_messages):
            print(f"  {s.name}: slow {s.slow[:6]}")
            print(f"  {s.name}: alerts {s.alert_messages[:6]}")


def _progress(s: GameScore) -> None:
    print(f"  {s.name}: {s.frames} frames, moves {s.found}/{s.moves}, phantoms {len(s.phantoms)},"
          f" sequences {s.sequences_found}/{s.sequences} (false {s.false_sequences}),"
          f" wins {s.wins_found}/{s.wins}, {s.seconds:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="games played in parallel processes")
    parser.add_argument("--max-moves", type=int, default=None,
                        help="cap each game at this many turns (default: the simulator's; shorter runs)")
    parser.add_argument("--piles", action="store_true", help="each team's chips in a pile beside the board")
    parser.add_argument("--fps", type=float, default=FPS,
                        help=f"the camera's frame rate (default {FPS:g}; webcams drop to 5 in a dim room)")
    parser.add_argument("--chip-offset", type=float, default=None, metavar="CELLS",
                        help="players put chips down up to this many cells off centre each way "
                             "(default: the level's own)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the tracker does")
    parser.add_argument("--details", action="store_true", help="list slow events and engine alerts")
    args = parser.parse_args(argv)
    if not args.fps > 0:
        parser.error("--fps must be a positive number of frames a second")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from vision.sim.variety import check_chip_offset

    try:
        check_chip_offset(args.chip_offset)
    except ValueError as exc:
        parser.error(str(exc).replace("chip_offset", "--chip-offset"))
    specs = game_specs(args.games, args.seed, args.max_moves, args.piles, args.fps, args.chip_offset)
    start = time.perf_counter()
    scores: list[GameScore] = []
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for score in pool.map(play, specs):
                scores.append(score)
                _progress(score)
    else:
        for spec in specs:
            scores.append(play(spec))
            _progress(scores[-1])
    report(scores, time.perf_counter() - start, verbose=args.details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
