"""Shared command-line value parsers."""

import pytest

from companion_web.options import parse_corners, parse_teams


def test_corners_parse_in_order():
    assert parse_corners("1,2, 3,4,5,6,7.5,8") == ((1, 2), (3, 4), (5, 6), (7.5, 8))


@pytest.mark.parametrize("text", ["1,2,3", "a,b,c,d,e,f,g,h", "1,2,3,4,5,6,7,nan", ""])
def test_bad_corners_quote_the_input(text):
    with pytest.raises(ValueError, match="--corners"):
        parse_corners(text)


def test_teams():
    assert parse_teams("yellow,red,blue") == ("yellow", "red", "blue")
    with pytest.raises(ValueError, match="different"):
        parse_teams("blue,blue")
    with pytest.raises(ValueError, match="two or three"):
        parse_teams("blue")
    with pytest.raises(ValueError, match="unknown team colour"):
        parse_teams("blue,purple")
