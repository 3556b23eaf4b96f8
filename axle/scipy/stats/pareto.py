"""``axle.scipy.stats.pareto`` (JAX's ``jax.scipy.stats.pareto``). Re-exports only."""
from axle._src.scipy.stats.pareto import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
