"""PIN checks with back-off, and the validation helpers every route uses."""

from __future__ import annotations

import pytest

from companion_web.security import (
    BadInput,
    GuardConfig,
    PinGuard,
    new_pin,
    parse_cell,
    parse_corners,
    parse_correction_label,
    parse_int,
    parse_name,
)


def make_guard(now: list[float]) -> PinGuard:
    config = GuardConfig(free_failures=2, base_delay_s=4, max_delay_s=30, forget_after_s=600, max_clients=3)
    return PinGuard("2468", config=config, clock=lambda: now[0])


def test_right_pin_passes_and_wrong_pins_are_slowed_down_per_client() -> None:
    now = [0.0]
    guard = make_guard(now)
    assert guard.check("a", "2468") == (True, 0.0)
    assert guard.check("a", "0000") == (False, 0.0)
    assert guard.check("a", "1111") == (False, 0.0)
    ok, wait = guard.check("a", "2468")  # even the right PIN waits now
    assert not ok and wait == pytest.approx(4)
    assert guard.check("b", "2468") == (True, 0.0)  # other clients are not affected
    now[0] += 4.01
    assert guard.check("a", "9999") == (False, 0.0)
    assert guard.wait_s("a") == pytest.approx(8)  # doubles
    now[0] += 8.01
    assert guard.check("a", "2468") == (True, 0.0)
    assert guard.wait_s("a") == 0


def test_back_off_is_capped_and_forgotten_after_a_quiet_while() -> None:
    now = [0.0]
    guard = make_guard(now)
    for _ in range(12):
        guard.check("a", "x")
        now[0] += 31
    assert guard.wait_s("a") <= 30
    now[0] += 601
    assert guard.wait_s("a") == 0


def test_remembered_clients_are_bounded() -> None:
    now = [0.0]
    guard = make_guard(now)
    for i in range(10):
        guard.check(f"c{i}", "x")
    assert len(guard._failures) == 3


def test_new_pin_is_numeric() -> None:
    pin = new_pin()
    assert len(pin) == 6 and pin.isdigit()


@pytest.mark.parametrize(
    "value",
    [None, [1], [1, 2, 3], ["1", "2"], [1.0, 2], [True, 1], [-1, 0], [0, 10], [10, 10], "1,2", {"r": 1}],
)
def test_parse_cell_refuses_anything_but_two_in_range_ints(value: object) -> None:
    with pytest.raises(BadInput):
        parse_cell(value)


def test_parse_cell_accepts_list_and_tuple() -> None:
    assert parse_cell([0, 9]) == (0, 9)
    assert parse_cell((9, 0)) == (9, 0)


def test_correction_labels() -> None:
    assert parse_correction_label("Blue") == "blue"
    assert parse_correction_label("empty") == "empty"
    for bad in ("unknown", "free", "purple", 3, None):
        with pytest.raises(BadInput):
            parse_correction_label(bad)


def test_parse_corners() -> None:
    good = [[10, 10], [90, 12], [88, 70], [12, 68]]
    assert parse_corners(good, width=100, height=80)[1] == [90.0, 12.0]
    for bad in (
        None,
        good[:3],
        [[10, 10], [90, 12], [88, 70], [12, "68"]],
        [[10, 10], [90, 12], [88, 70], [12, 81]],
        [[10, 10], [90, 12], [88, 70], [float("nan"), 5]],
        [[10, 10], [11, 10], [11, 11], [10, 11]],  # no area
    ):
        with pytest.raises(BadInput):
            parse_corners(bad, width=100, height=80)


@pytest.mark.parametrize("name", ["../etc/passwd", "a/b", "", ".hidden", "x" * 41, "a b", "a\\b", 5, None])
def test_parse_name_refuses_path_tricks(name: object) -> None:
    with pytest.raises(BadInput):
        parse_name(name)


def test_parse_int_accepts_query_strings_in_range() -> None:
    assert parse_int("4", what="players", low=2, high=12) == 4
    for bad in ("1", "13", "four", 4.0, True, None):
        with pytest.raises(BadInput):
            parse_int(bad, what="players", low=2, high=12)
