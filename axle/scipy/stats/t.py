"""``axle.scipy.stats.t`` (JAX's ``jax.scipy.stats.t``). Re-exports only."""
from axle._src.scipy.stats.t import (  # noqa: F401
    logpdf, pdf,
)
