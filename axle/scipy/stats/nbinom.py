"""``axle.scipy.stats.nbinom`` (JAX's ``jax.scipy.stats.nbinom``). Re-exports only."""
from axle._src.scipy.stats.nbinom import (  # noqa: F401
    logpmf, pmf,
)
