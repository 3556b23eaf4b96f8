"""``axle.scipy.stats.laplace`` (JAX's ``jax.scipy.stats.laplace``). Re-exports only."""
from axle._src.scipy.stats.laplace import (  # noqa: F401
    cdf, logpdf, pdf,
)
