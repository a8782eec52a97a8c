"""The turn network's fit script: which scenes it renders, and options it refuses before any
rendering (PyTorch is needed only once a fit runs, so none of this needs it)."""

import pytest

from benchmarks.fit_turn_net import jobs_for, main


def test_training_scenes_take_the_difficulties_in_turn_and_held_out_ones_are_hard():
    cycle = ("normal", "hard", "hard", "hard")
    jobs = jobs_for(range(82000, 82008), cycle, held=False)
    assert [d for _, d, _ in jobs] == [cycle[s % 4] for s in range(82000, 82008)]
    assert {d for _, d, _ in jobs} == {"normal", "hard"}
    assert all(not held for _, _, held in jobs)
    held = jobs_for(range(90000, 90004), cycle, held=True)
    assert [(s, d, h) for s, d, h in held] == [(s, "hard", True) for s in range(90000, 90004)]


@pytest.mark.parametrize("bad", ["normal,extreme", "", " , "])
def test_an_unknown_difficulty_is_refused_before_rendering(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--difficulties", bad, "--frames", "1", "--held-out", "1"])
    assert stop.value.code == 2
    assert "--difficulties" in capsys.readouterr().err
