"""The simulated table: rendered camera frames of a Sequence board with exact ground truth.

``random_spec`` draws a scene, ``render`` draws its frame; ``simulate_game`` plays whole
games with hands, bumps and lamps (see ``vision.sim.game``); ``vision.sim.clip`` writes
and reads clips with their truth.
"""

from vision.sim.game import GameSim, GameSpec, SimFrame, simulate_game
from vision.sim.scene import Scene, SceneSpec, render
from vision.sim.variety import DIFFICULTIES, random_spec

__all__ = ["DIFFICULTIES", "GameSim", "GameSpec", "Scene", "SceneSpec", "SimFrame", "random_spec", "render",
           "simulate_game"]
