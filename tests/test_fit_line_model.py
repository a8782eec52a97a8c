"""The white-line network's fit script runs end to end, labels windows by the scene's truth, and a
dry run writes nothing."""

import numpy as np

from benchmarks import fit_line_model
from vision.cell_model import MODEL_PATH
from vision.flipped import LINE_CUES


def test_a_dry_run_fits_reports_and_leaves_the_shipped_networks_alone(capsys, tmp_path):
    before = MODEL_PATH.read_bytes()
    cache = tmp_path / "lines.npz"
    assert fit_line_model.main(["--frames", "4", "--steps", "20", "--dry-run", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "held-out scenes, rule alone:" in out and "held-out scenes, with the network:" in out
    assert MODEL_PATH.read_bytes() == before
    with np.load(cache) as data:
        assert len(data["seed"]) == 4 and data["seed"][0] == fit_line_model.LINE_SEEDS


def test_windows_are_lines_exactly_where_the_scene_has_five_white_chips_in_a_row():
    scenes = fit_line_model.read_scenes(1)
    truth = scenes["truth"][0].copy()
    truth[truth == "flipped"] = "empty"
    truth[[41, 42, 43, 44, 45]] = "flipped"  # row 4, columns 1-5
    scenes["truth"][0] = truth
    scenes["labels"][0][[41, 42, 43, 44, 45]] = "flipped"  # read white, so no coloured chip closes it
    x, y, _ = fit_line_model.window_table(scenes)
    assert x.shape[1] == len(LINE_CUES)
    assert y.sum() == 1
