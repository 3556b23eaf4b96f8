"""``axle.experimental.sparse`` (JAX's ``jax.experimental.sparse``): not implemented; ``BCOO``
exists only as a name (constructing one raises). Re-exports only."""
from axle._src.sparse import BCOO as BCOO  # noqa: F401
