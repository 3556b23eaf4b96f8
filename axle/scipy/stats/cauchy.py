"""``axle.scipy.stats.cauchy`` (JAX's ``jax.scipy.stats.cauchy``). Re-exports only."""
from axle._src.scipy.stats.cauchy import (  # noqa: F401
    cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
