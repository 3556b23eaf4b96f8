"""``axle.scipy.fft`` (JAX's ``jax.scipy.fft``): type-2 DCTs. Re-exports only."""
from axle._src.scipy.fft import dct as dct, dctn as dctn, idct as idct, idctn as idctn  # noqa: F401
