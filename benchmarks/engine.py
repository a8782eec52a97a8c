"""Print the median time of the engine's two hot paths.

- ``Game.observe`` with a board showing exactly one new chip (target < 100 us): the live
  pipeline calls it for every committed camera reading.
- ``find_sequences`` on a full random board (target < 2 ms).

Run: ``.venv/bin/python benchmarks/engine.py``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name (engine.py)
# would shadow the engine package: drop that folder before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine import Board, Game, find_sequences  # noqa: E402
from engine.layout import CELLS, CORNERS  # noqa: E402

TEAMS = ("blue", "green")


def random_full_board(rng: random.Random, teams: tuple[str, ...] = TEAMS) -> Board:
    """Every non-corner cell holds a chip of a random team."""
    board = Board.empty()
    for cell in CELLS:
        if cell not in CORNERS:
            board.place(cell, rng.choice(teams))
    return board


def time_observe(rng: random.Random, runs: int) -> list[float]:
    """Seconds per ``observe`` call that sees one new chip (mid-game positions, many placements)."""
    times = []
    free_cells = [c for c in CELLS if c not in CORNERS]
    while len(times) < runs:
        game = Game(TEAMS, track_turns=True)
        order = free_cells.copy()
        rng.shuffle(order)
        labels = game.expected_labels()
        for cell in order[:60]:
            labels = [row.copy() for row in labels]
            labels[cell[0]][cell[1]] = game.turn
            start = time.perf_counter()
            game.observe(labels)
            times.append(time.perf_counter() - start)
            if game.winner is not None:
                break
    return times[:runs]


def time_find_sequences(rng: random.Random, runs: int) -> list[float]:
    """Seconds per ``find_sequences`` call on a full random board."""
    times = []
    for _ in range(runs):
        board = random_full_board(rng)
        start = time.perf_counter()
        find_sequences(board, "blue")
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    observe = statistics.median(time_observe(rng, args.runs)) * 1e6
    sequences = statistics.median(time_find_sequences(rng, args.runs)) * 1e6
    print(f"Game.observe, one new chip:        median {observe:7.1f} us  (target < 100 us)")
    print(f"find_sequences, full random board: median {sequences:7.1f} us  (target < 2000 us)")


if __name__ == "__main__":
    main()
