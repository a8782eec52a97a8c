"""The stress benchmark's command line: it refuses what it does not know and scores what it is asked."""

import pytest

from benchmarks import vision_stress


def test_an_unknown_processing_is_refused_with_the_names_to_choose_from(capsys):
    with pytest.raises(SystemExit) as exit_info:
        vision_stress.main(["--only", "plain,fisheye"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown processing fisheye" in err and "saturation_x1.6" in err


def test_a_short_run_scores_every_processing_asked(capsys):
    assert vision_stress.main(["--frames", "1", "--only", "plain,portrait"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("plain", "portrait"))]
    assert [row[0] for row in rows] == ["plain", "portrait"]
    assert rows[0][1] == "100.00"  # a normal classic frame is found
