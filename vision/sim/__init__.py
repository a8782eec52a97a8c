"""The simulated table: rendered camera frames of a Sequence board with exact ground truth.

``random_spec`` draws a scene, ``render`` draws its frame; ``simulate_game`` plays whole
games with hands, bumps and lamps (see ``vision.sim.game``).
"""

from vision.sim.scene import DIFFICULTIES, Scene, SceneSpec, random_spec, render

__all__ = ["DIFFICULTIES", "Scene", "SceneSpec", "random_spec", "render"]
