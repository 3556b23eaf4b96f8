"""``axle.scipy.stats.norm`` (JAX's ``jax.scipy.stats.norm``). Re-exports only."""
from axle._src.scipy.stats.norm import (  # noqa: F401
    cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf,
)
