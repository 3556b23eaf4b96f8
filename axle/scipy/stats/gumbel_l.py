"""``axle.scipy.stats.gumbel_l`` (JAX's ``jax.scipy.stats.gumbel_l``). Re-exports only."""
from axle._src.scipy.stats.gumbel_l import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
