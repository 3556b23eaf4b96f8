"""The Poisson distribution (``scipy.stats.poisson``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.api import jit
from axle._src.numpy import util
from axle._src.scipy.special import entr, gammaincc, gammaln, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, mu, loc=0):
  """Log of the Poisson probability mass; ``-inf`` for non-integer ``k`` or ``k < loc``."""
  k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
  x = lax.sub(k, loc)
  log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
  return jnp.where(jnp.logical_or(lax.lt(x, const(k, 0)), lax.ne(jnp.round(k), k)),
                   -np.inf, log_probs)


def pmf(k, mu, loc=0):
  """Poisson probability mass."""
  return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
  """Poisson cumulative distribution function (``gammaincc(floor(k - loc) + 1, mu)``)."""
  k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
  zero = const(k, 0)
  x = lax.sub(k, loc)
  return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def _entropy_by_summation(mu, max_k, upper_bound):
  k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
  probs = pmf(k, mu, 0)
  mask = k < upper_bound.astype(k.dtype)[None, :]
  return jnp.sum(entr(jnp.where(mask, probs, 0.0)), axis=0)


def _entropy(mu, loc):
  util.check_arraylike("poisson.entropy", mu, loc)
  mu, loc = util.promote_dtypes_inexact(mu, loc)
  out_shape = jnp.broadcast_shapes(mu.shape, loc.shape)
  flat = jnp.ravel(mu)
  small = _entropy_by_summation(flat, 35, jnp.ceil(flat + 20))
  medium = _entropy_by_summation(flat, 250, jnp.ceil(flat + 10 * jnp.sqrt(flat) + 20))
  # Stirling-type asymptotic series for large mu.
  large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
  result = jnp.where(flat == 0, jnp.zeros_like(flat),
                     jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
  return jnp.broadcast_to(jnp.reshape(result, mu.shape), out_shape)


_entropy_jit = jit(_entropy)


def entropy(mu, loc=0):
  """Entropy of the Poisson distribution with mean ``mu`` (a sum over the pmf for ``mu < 100``,
  an asymptotic expansion above). ``loc`` only broadcasts the result."""
  return _entropy_jit(mu, loc)
