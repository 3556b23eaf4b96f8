"""The beta-binomial distribution (``scipy.stats.betabinom``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import betaln
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, n, a, b, loc=0):
  """Log of the beta-binomial probability mass at ``floor(k)``."""
  k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
  y = lax.sub(lax.floor(k), loc)
  one, zero = const(y, 1), const(y, 0)
  log_comb = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one), lax.add(y, one))))
  log_betas = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
  log_probs = lax.add(log_comb, log_betas)
  log_probs = jnp.where(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), 0.0, log_probs)
  outside = jnp.logical_or(jnp.logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, n)),
                           lax.le(lax.add(y, a), zero))
  log_probs = jnp.where(outside, -np.inf, log_probs)
  bad_params = jnp.logical_or(jnp.logical_or(lax.lt(n, zero), lax.le(a, zero)), lax.le(b, zero))
  return jnp.where(bad_params, np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
  """Beta-binomial probability mass."""
  return lax.exp(logpmf(k, n, a, b, loc))
