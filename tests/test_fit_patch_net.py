"""The patch network's fit script: which scenes it varies beyond the renderer's own draw, and
that the variety leaves each scene's cells (the truth it learns) alone. Needs no PyTorch."""

from dataclasses import replace

import numpy as np

from benchmarks.fit_patch_net import SLOPPY_JITTER, Variety, scene_spec
from vision.sim import random_spec, render

SEEDS = range(30000, 30200)


def test_no_variety_leaves_the_renderers_own_scene():
    for seed in (30000, 30001, 30002):
        assert scene_spec("standard", seed, Variety()) == random_spec(
            seed, edition=("classic", "jumbo", "jumbo")[seed % 3], difficulty=("normal", "hard")[seed % 2])


def test_another_chip_set_and_sloppy_placing_come_in_about_the_share_asked():
    plain = {s: scene_spec("flipped", s, Variety()) for s in SEEDS}
    varied = {s: scene_spec("flipped", s, Variety(other_chips=0.3, sloppy=0.2)) for s in SEEDS}
    other = [s for s in SEEDS if varied[s].chip_tints != plain[s].chip_tints]
    sloppy = [s for s in SEEDS if varied[s].chip_jitter != plain[s].chip_jitter]
    assert 40 < len(other) < 80 and 20 < len(sloppy) < 60
    assert all(SLOPPY_JITTER[0] <= varied[s].chip_jitter <= SLOPPY_JITTER[1] for s in sloppy)
    # the cells, the camera and the table are the same scene's: only the chips changed
    for s in SEEDS:
        assert replace(varied[s], chip_tints=plain[s].chip_tints, white_mark=plain[s].white_mark,
                       chip_jitter=plain[s].chip_jitter) == plain[s]


def test_another_chip_set_prints_more_than_one_mark_on_the_white_side():
    marks = {scene_spec("flipped", s, Variety(other_chips=1.0)).white_mark for s in SEEDS}
    assert len(marks) >= 3
    assert all(scene_spec("flipped", s, Variety()).white_mark == "ring_dot" for s in SEEDS)


def test_a_hidden_cell_is_learned_only_as_empty_and_only_when_asked():
    """Seed 30006 hides one empty cell and one holding a chip: the first is learned as empty
    with ``hidden_empty``, the second never (what lies under a hand cannot be seen)."""
    from benchmarks.fit_patch_net import LABELS, cell_rows

    spec = scene_spec("standard", 30006, Variety())
    scene = render(spec)
    hidden = np.asarray(scene.occluded) & (np.asarray(scene.labels) != "free")
    assert hidden.sum() == 2
    _x, plain, _cue = cell_rows(("standard", 30006, Variety()))
    _x, more, _cue = cell_rows(("standard", 30006, Variety(hidden_empty=True)))
    assert len(more) == len(plain) + 1
    assert np.bincount(more, minlength=len(LABELS))[LABELS.index("empty")] == \
        np.bincount(plain, minlength=len(LABELS))[LABELS.index("empty")] + 1
