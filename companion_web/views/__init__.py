"""One blueprint per surface: the page, the JSON API, the camera view, setup (new game, calibration)."""
