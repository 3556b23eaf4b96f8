"""``axle.scipy.stats.wrapcauchy`` (JAX's ``jax.scipy.stats.wrapcauchy``). Re-exports only."""
from axle._src.scipy.stats.wrapcauchy import (  # noqa: F401
    logpdf, pdf,
)
