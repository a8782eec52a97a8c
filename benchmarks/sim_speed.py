"""How fast the simulated table renders: random still frames and game frames, per difficulty.

    .venv/bin/python benchmarks/sim_speed.py [--frames 30] [--size 1280x720] [--threads 1]

Prints the median and 95th-percentile milliseconds per frame, wall clock and CPU time of
this process (the CPU figure is the one to trust on a busy machine). Texture and sprite
builds are warmed up first; random stills still pay their own camera's table warp.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.sim import GameSpec, random_spec, render, simulate_game


def _time(fn, items) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for it in items:
        w, c = time.perf_counter(), time.process_time()
        fn(it)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return wall, cpu


def _row(name: str, wall: list[float], cpu: list[float]) -> None:
    print(f"{name:26s} wall median {np.median(wall) * 1000:6.1f} ms  p95 {np.percentile(wall, 95) * 1000:6.1f}"
          f"   cpu median {np.median(cpu) * 1000:6.1f} ms  p95 {np.percentile(cpu, 95) * 1000:6.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV threads (0 = OpenCV's default)")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    if args.threads:
        cv2.setNumThreads(args.threads)
    print(f"size {w}x{h}, OpenCV threads {cv2.getNumThreads()}")
    for difficulty in ("easy", "normal", "hard"):
        specs = [random_spec(s, difficulty=difficulty, size=(w, h)) for s in range(args.frames)]
        for s in specs[:8]:
            render(s)  # build the textures once
        _row(f"still {difficulty}", *_time(render, specs))
    for edition, teams in (("classic", ("blue", "green")), ("jumbo", ("yellow", "red", "blue"))):
        start = time.perf_counter()
        sim = simulate_game(GameSpec(seed=1, edition=edition, teams=teams, size=(w, h)))
        script = time.perf_counter() - start
        sim.render(0)
        idx = np.linspace(0, len(sim) - 1, args.frames).astype(int)
        _row(f"game {edition}", *_time(sim.render, idx))
        print(f"{'':26s} scripting the game: {script:.2f} s for {len(sim)} frames ({len(sim) / sim.spec.fps:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
