"""``axle.api_util`` (JAX's ``jax.api_util``): flattening wrapped functions. Re-exports only."""
from axle._src.linear_util import (  # noqa: F401
    debug_info as debug_info,
    flatten_fun as flatten_fun,
    flatten_fun_nokwargs as flatten_fun_nokwargs,
)
