"""Alias of ``axle._src.interpreters.hlo`` under the name JAX code imports it by
(``jax._src.lib.mlir.dialects.hlo``); listed in ``axle._src.jax_names``."""
from axle._src.interpreters.hlo import *  # noqa: F401,F403
