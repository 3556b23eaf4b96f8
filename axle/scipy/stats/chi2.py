"""``axle.scipy.stats.chi2`` (JAX's ``jax.scipy.stats.chi2``). Re-exports only."""
from axle._src.scipy.stats.chi2 import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)
