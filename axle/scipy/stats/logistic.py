"""``axle.scipy.stats.logistic`` (JAX's ``jax.scipy.stats.logistic``). Re-exports only."""
from axle._src.scipy.stats.logistic import (  # noqa: F401
    cdf, isf, logpdf, pdf, ppf, sf,
)
