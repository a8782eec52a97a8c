"""The companion's outer layer: the Flask app, the live pipeline and the command line."""

__version__ = "0.1.0"
