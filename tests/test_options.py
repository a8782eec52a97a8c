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


def test_camera_size_parses_to_what_the_sources_ask_a_webcam_for():
    from argparse import Namespace

    from companion_web.options import parse_camera_size, source_config
    from vision.sources import DEFAULT_CONFIG

    assert parse_camera_size("1920x1080") == (1920, 1080)
    assert parse_camera_size(" 640 X 480 ") == (640, 480)
    assert parse_camera_size("native") is None
    assert source_config(Namespace(camera_size="1920x1080")).camera_size == (1920, 1080)
    assert source_config(Namespace(camera_size="native")).camera_size is None
    assert source_config(Namespace(camera_size=None)) == DEFAULT_CONFIG


@pytest.mark.parametrize("text", ["12", "1280x", "x720", "1280,720", "0x0", "20000x100", "hd"])
def test_bad_camera_sizes_quote_the_input(text):
    from companion_web.options import parse_camera_size

    with pytest.raises(ValueError, match="--camera-size"):
        parse_camera_size(text)
