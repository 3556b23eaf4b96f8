"""``axle.scipy.special``: special functions (JAX's ``jax.scipy.special``). Re-exports only."""
from axle._src.scipy.special import *  # noqa: F401,F403
