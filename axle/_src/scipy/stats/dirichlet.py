"""The Dirichlet distribution (``scipy.stats.dirichlet``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import gammaln, xlogy
from axle._src.scipy.stats._common import const, promote_dtypes_inexact


def _is_simplex(x):
  x_sum = jnp.sum(x, axis=0)
  return jnp.all(x > 0, axis=0) & (abs(x_sum - 1) < 1e-6)


def logpdf(x, alpha):
  """Log of the Dirichlet probability density at ``x`` (components along axis 0; ``x`` may
  omit the last component, which is then ``1 - sum``); ``-inf`` off the simplex."""
  x, alpha = promote_dtypes_inexact(x, alpha)
  if alpha.ndim != 1:
    raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
  if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
    raise ValueError("`x` must have either the same number of entries as `alpha` or one entry "
                     f"fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
  one = const(x, 1)
  if x.shape[0] != alpha.shape[0]:
    x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
  log_normalizer = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
  if x.ndim > 1:
    alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
  log_probs = lax.sub(jnp.sum(xlogy(lax.sub(alpha, one), x), axis=0), log_normalizer)
  return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x, alpha):
  """Dirichlet probability density."""
  return lax.exp(logpdf(x, alpha))
