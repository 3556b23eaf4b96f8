"""``jax.experimental``: the experimental APIs axle provides."""
from axle._src.lax.callback import io_callback as io_callback
