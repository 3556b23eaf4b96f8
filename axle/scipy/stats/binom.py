"""``axle.scipy.stats.binom`` (JAX's ``jax.scipy.stats.binom``). Re-exports only."""
from axle._src.scipy.stats.binom import (  # noqa: F401
    logpmf, pmf,
)
