"""``axle.scipy.stats.dirichlet`` (JAX's ``jax.scipy.stats.dirichlet``). Re-exports only."""
from axle._src.scipy.stats.dirichlet import (  # noqa: F401
    logpdf, pdf,
)
