"""``axle.scipy.optimize``: ``minimize`` (BFGS), as JAX's ``jax.scipy.optimize``. Re-exports only."""
from axle._src.scipy.optimize import (  # noqa: F401
    OptimizeResults as OptimizeResults,
    minimize as minimize,
)
