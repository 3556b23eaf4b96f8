"""``axle.numpy``: the NumPy API on axle arrays (JAX's ``jax.numpy``). Re-exports only."""
from axle._src.numpy import *  # noqa: F401,F403
from axle.numpy import fft as fft, linalg as linalg
