"""The multivariate normal distribution (``scipy.stats.multivariate_normal``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.lax import linalg as lax_linalg
from axle._src.scipy.stats._common import promote_dtypes_inexact


def logpdf(x, mean, cov, allow_singular=None):
  """Log of the multivariate normal density at ``x`` (last axis is the event axis; leading axes
  broadcast). ``cov`` may be a scalar (isotropic) or an (n, n) matrix; ``allow_singular`` is
  not supported."""
  if allow_singular is not None:
    raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
  x, mean, cov = promote_dtypes_inexact(x, mean, cov)
  if not mean.shape:
    return (-1 / 2 * jnp.square(x - mean) / cov
            - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
  n = mean.shape[-1]
  if not np.shape(cov):
    y = x - mean
    return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov
            - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
  if cov.ndim < 2 or cov.shape[-2:] != (n, n):
    raise ValueError("multivariate_normal.logpdf got incompatible shapes")
  L = lax_linalg.cholesky(cov)
  diff = x - mean
  batch = jnp.broadcast_shapes(L.shape[:-2], diff.shape[:-1])
  L_b = jnp.broadcast_to(L, batch + (n, n))
  diff_b = jnp.broadcast_to(diff, batch + (n,))[..., None, :]
  # Solves y @ L.T = diff (that is, L y = diff) for each row vector of the batch.
  y = lax_linalg.triangular_solve(L_b, diff_b, left_side=False, lower=True,
                                  transpose_a=True)[..., 0, :]
  return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi)
          - jnp.log(L.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
  """Multivariate normal density."""
  return lax.exp(logpdf(x, mean, cov))
