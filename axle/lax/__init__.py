"""``axle.lax``: the primitive operations (JAX's ``jax.lax``). Re-exports only."""
from axle._src.lax import *  # noqa: F401,F403
from axle.lax import linalg as linalg  # noqa: F401
