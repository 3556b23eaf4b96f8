"""``axle.scipy.stats.uniform`` (JAX's ``jax.scipy.stats.uniform``). Re-exports only."""
from axle._src.scipy.stats.uniform import (  # noqa: F401
    cdf, logpdf, pdf, ppf,
)
