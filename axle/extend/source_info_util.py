"""``axle.extend.source_info_util`` (JAX's ``jax.extend.source_info_util``). Re-exports only."""
from axle._src.traceback_util import current as current, register_exclusion as register_exclusion  # noqa: F401
