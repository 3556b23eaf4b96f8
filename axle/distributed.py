"""``jax.distributed``."""
from axle._src.distributed import (
    initialize as initialize,
    is_initialized as is_initialized,
    shutdown as shutdown,
)
