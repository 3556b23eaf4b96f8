"""``axle.scipy.stats.truncnorm`` (JAX's ``jax.scipy.stats.truncnorm``). Re-exports only."""
from axle._src.scipy.stats.truncnorm import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)
