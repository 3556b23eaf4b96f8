"""``axle.extend.linear_util`` (JAX's ``jax.extend.linear_util``). Re-exports only."""
from axle._src.linear_util import WrappedFun as WrappedFun, wrap_init as wrap_init  # noqa: F401
