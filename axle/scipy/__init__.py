"""``axle.scipy``: SciPy-shaped APIs on axle arrays (JAX's ``jax.scipy``). Re-exports only."""
from axle.scipy import special as special
from axle.scipy import linalg as linalg
from axle.scipy import stats as stats
from axle.scipy import fft as fft
from axle.scipy import optimize as optimize
