"""``axle.scipy.stats.multinomial`` (JAX's ``jax.scipy.stats.multinomial``). Re-exports only."""
from axle._src.scipy.stats.multinomial import (  # noqa: F401
    logpmf, pmf,
)
