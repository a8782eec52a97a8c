"""Which edition a set of team colours implies (green only in the classic set, yellow only on Jumbo)."""

import pytest

from engine.labels import edition_of_colours


@pytest.mark.parametrize(
    ("colours", "edition"),
    [
        (("blue", "green"), "classic"),
        (("blue", "green", "red"), "classic"),
        (("yellow", "red"), "jumbo"),
        (("yellow", "red", "blue"), "jumbo"),
        (("blue", "red"), None),
        (("green", "yellow"), None),
    ],
)
def test_edition_of_colours(colours, edition):
    assert edition_of_colours(colours) == edition
