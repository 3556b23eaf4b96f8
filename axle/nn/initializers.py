"""``axle.nn.initializers``: parameter initializers (JAX's ``jax.nn.initializers``).
Re-exports only."""
from axle._src.nn.initializers import *  # noqa: F401,F403
