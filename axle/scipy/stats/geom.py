"""``axle.scipy.stats.geom`` (JAX's ``jax.scipy.stats.geom``). Re-exports only."""
from axle._src.scipy.stats.geom import (  # noqa: F401
    logpmf, pmf,
)
