"""``axle.nn``: neural-network functions (JAX's ``jax.nn``). Re-exports only."""
from axle._src.numpy.ufuncs import tanh as tanh
from axle._src.nn.functions import *  # noqa: F401,F403
from axle.nn import initializers as initializers
from axle._src.nn.scaled import (
    get_scaled_dot_general_config as get_scaled_dot_general_config,
    scaled_dot_general as scaled_dot_general,
    scaled_matmul as scaled_matmul,
)
