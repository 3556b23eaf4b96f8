"""``axle.extend.source_info_util`` (JAX's ``jax.extend.source_info_util``). Re-exports only."""
from axle._src.source_info import current as current  # noqa: F401
from axle._src.traceback_util import register_exclusion as register_exclusion  # noqa: F401
