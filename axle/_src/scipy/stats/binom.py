"""The binomial distribution (``scipy.stats.binom``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import gammaln, xlog1py, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, n, p, loc=0):
  """Log of the binomial probability mass of ``k`` successes in ``n`` trials."""
  k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
  y = lax.sub(k, loc)
  zero = const(y, 0)
  log_comb = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
  log_linear = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
  log_probs = lax.add(log_comb, log_linear)
  certain = jnp.logical_or(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)),
                           lax.eq(log_linear, zero))
  log_probs = jnp.where(certain, 0.0, log_probs)
  return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
  """Binomial probability mass."""
  return lax.exp(logpmf(k, n, p, loc))
