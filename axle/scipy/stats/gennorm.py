"""``axle.scipy.stats.gennorm`` (JAX's ``jax.scipy.stats.gennorm``). Re-exports only."""
from axle._src.scipy.stats.gennorm import (  # noqa: F401
    cdf, logpdf, pdf,
)
