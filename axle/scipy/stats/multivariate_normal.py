"""``axle.scipy.stats.multivariate_normal`` (JAX's ``jax.scipy.stats.multivariate_normal``). Re-exports only."""
from axle._src.scipy.stats.multivariate_normal import (  # noqa: F401
    logpdf, pdf,
)
