"""The negative binomial distribution (``scipy.stats.nbinom``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import gammaln, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, n, p, loc=0):
  """Log of the negative binomial probability of ``k`` failures before ``n`` successes."""
  k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
  one = const(k, 1)
  y = lax.sub(k, loc)
  log_comb = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
  log_linear = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
  return jnp.where(lax.lt(k, loc), -np.inf, lax.add(log_comb, log_linear))


def pmf(k, n, p, loc=0):
  """Negative binomial probability mass."""
  return lax.exp(logpmf(k, n, p, loc))
