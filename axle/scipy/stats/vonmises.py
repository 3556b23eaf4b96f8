"""``axle.scipy.stats.vonmises`` (JAX's ``jax.scipy.stats.vonmises``). Re-exports only."""
from axle._src.scipy.stats.vonmises import (  # noqa: F401
    logpdf, pdf,
)
