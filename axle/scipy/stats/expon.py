"""``axle.scipy.stats.expon`` (JAX's ``jax.scipy.stats.expon``). Re-exports only."""
from axle._src.scipy.stats.expon import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
