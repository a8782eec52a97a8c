"""The seeds the shipped networks were fitted on: a benchmark run that renders them again says so."""

from benchmarks import vision_accuracy, vision_stress
from benchmarks.fit_seeds import CELL_STANDARD, PATCH_HELD_OUT, PATCH_STANDARD, fitted_on, fitted_warning


def test_seeds_across_two_blocks_are_named_with_the_seeds_each_shares():
    shared = fitted_on(range(31990, 32010))
    assert shared == [
        (PATCH_STANDARD, range(31990, 32000)), (PATCH_HELD_OUT, range(32000, 32010))]
    warning = fitted_warning(range(31990, 32010))
    assert "10 of the patch network's training scenes (31990-31999)" in warning
    assert "10 of the patch network's held-out scenes (32000-32009)" in warning


def test_seeds_no_fit_rendered_raise_no_warning():
    assert fitted_on(range(33800, 40000)) == []
    assert fitted_warning(range(33800, 40000)) is None


def test_a_block_ends_where_its_fit_stops():
    """The cell model's standard block is its 600 default frames from 200: 799 is in it, the
    seeds from 800 up to its hard block are free."""
    assert fitted_on(range(799, 801)) == [(CELL_STANDARD, range(799, 800))]
    assert fitted_warning(range(800, 3000)) is None


def test_the_accuracy_benchmark_warns_when_its_seeds_were_fitted_on(capsys):
    assert vision_accuracy.main(["--frames", "1", "--seed", "30000", "--modes", "corners"]) == 0
    assert "warning: these seeds render 1 of the patch network's training scenes (30000)" in capsys.readouterr().out
    assert vision_accuracy.main(["--frames", "1", "--seed", "33800", "--modes", "corners"]) == 0
    assert "warning" not in capsys.readouterr().out


def test_the_stress_benchmark_warns_when_its_seeds_were_fitted_on(capsys):
    assert vision_stress.main(["--frames", "1", "--seed", "5300", "--only", "plain"]) == 0
    assert "1 of the cell model's training, white chips, hard scenes (5300)" in capsys.readouterr().out
