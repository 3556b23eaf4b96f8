"""The JAX API version axle implements (JAX's ``jax.version``).

``axle.version.__version__`` is the version of JAX's API that axle follows (0.10.2), which is
what libraries written for JAX compare against; ``axle.__version__`` is axle's own version."""
from axle._src.version import (  # noqa: F401
    __version__ as __version__,
    __version_info__ as __version_info__,
    _version as _version,
    _minimum_jaxlib_version as _minimum_jaxlib_version,
)
