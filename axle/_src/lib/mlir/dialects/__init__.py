"""See ``axle._src.lib``."""
