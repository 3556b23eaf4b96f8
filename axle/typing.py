"""``axle.typing``: annotations for array arguments (JAX's ``jax.typing``). Re-exports only."""
from axle._src.typing import ArrayLike as ArrayLike, DTypeLike as DTypeLike  # noqa: F401
