"""The profile-nights benchmark: its board really moves, and its report counts what it should."""

from benchmarks import profile_nights


def test_a_moved_board_is_misread_through_the_old_corners_and_read_with_the_profile():
    nights = {n.mode: n for n in profile_nights.one_table(300007, max_shift=1.5, max_turn=8.0, seconds=2.0)}
    assert set(nights) == set(profile_nights.MODES)
    assert nights["profile"].wrong == 0 and nights["no profile"].wrong == 0
    assert nights["old corners"].wrong is not None and nights["old corners"].wrong >= 10


def test_the_report_has_a_row_per_difficulty_and_mode(capsys):
    assert profile_nights.main(["--tables", "1", "--seed", "300001", "--max-shift", "0", "--seconds", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [(row[0], row[1]) for row in rows][:1] == [("normal", "profile")]
    assert rows[0][2:5] == ["1", "1", "0"]  # one table, committed, no cell wrong
