"""``axle.extend.backend`` (JAX's ``jax.extend.backend``): the XLA backend. Re-exports only."""
from axle._src.devices import (  # noqa: F401
    backends as backends,
    clear_backends as clear_backends,
    default_backend as default_backend,
    get_backend as get_backend,
)
