"""The JAX API version axle implements, and axle's own version."""
_version = "0.10.2"
__version__ = _version
__version_info__ = tuple(int(part) for part in _version.split("."))
_minimum_jaxlib_version = "0.10.2"

# axle's own release version (``axle.__version__``).
axle_version = "0.1.0"
