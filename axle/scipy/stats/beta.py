"""``axle.scipy.stats.beta`` (JAX's ``jax.scipy.stats.beta``). Re-exports only."""
from axle._src.scipy.stats.beta import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)
