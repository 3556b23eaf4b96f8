"""``axle.flatten_util`` (JAX's ``jax.flatten_util``). Re-exports only."""
from axle._src.flatten_util import ravel_pytree as ravel_pytree  # noqa: F401
