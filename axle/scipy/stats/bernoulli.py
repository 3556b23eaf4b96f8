"""``axle.scipy.stats.bernoulli`` (JAX's ``jax.scipy.stats.bernoulli``). Re-exports only."""
from axle._src.scipy.stats.bernoulli import (  # noqa: F401
    cdf, logpmf, pmf, ppf,
)
