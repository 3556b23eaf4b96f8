"""``axle.scipy.stats.gumbel_r`` (JAX's ``jax.scipy.stats.gumbel_r``). Re-exports only."""
from axle._src.scipy.stats.gumbel_r import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
