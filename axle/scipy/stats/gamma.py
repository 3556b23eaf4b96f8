"""``axle.scipy.stats.gamma`` (JAX's ``jax.scipy.stats.gamma``). Re-exports only."""
from axle._src.scipy.stats.gamma import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)
