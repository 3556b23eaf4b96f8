"""``axle.scipy.stats.betabinom`` (JAX's ``jax.scipy.stats.betabinom``). Re-exports only."""
from axle._src.scipy.stats.betabinom import (  # noqa: F401
    logpmf, pmf,
)
