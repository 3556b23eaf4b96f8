"""``axle.scipy.stats.poisson`` (JAX's ``jax.scipy.stats.poisson``). Re-exports only."""
from axle._src.scipy.stats.poisson import (  # noqa: F401
    cdf, entropy, logpmf, pmf,
)
