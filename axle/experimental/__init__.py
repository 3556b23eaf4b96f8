"""``axle.experimental`` (JAX's ``jax.experimental``): ``io_callback`` here, the other APIs in
submodules, e.g. ``from axle.experimental import checkify``."""
from axle._src.lax.callback import io_callback as io_callback
