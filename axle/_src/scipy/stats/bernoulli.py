"""The Bernoulli distribution (``scipy.stats.bernoulli``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import xlog1py, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, p, loc=0):
  """Log of the Bernoulli probability mass at ``k``; ``-inf`` outside {loc, loc + 1}."""
  k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
  zero, one = const(k, 0), const(k, 1)
  x = lax.sub(k, loc)
  log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
  return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, log_probs)


def pmf(k, p, loc=0):
  """Bernoulli probability mass at ``k``."""
  return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
  """Bernoulli cumulative distribution function; NaN for NaN inputs or ``p`` outside [0, 1]."""
  k, p = promote_args_inexact("bernoulli.cdf", k, p)
  zero, one = const(k, 0), const(k, 1)
  invalid = jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one)
  conds = [invalid, lax.lt(k, zero), jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)),
           lax.ge(k, one)]
  return jnp.select(conds, [jnp.nan, zero, one - p, one])


def ppf(q, p):
  """Percent point function of the Bernoulli distribution (0 for ``q <= 1 - p``, else 1)."""
  q, p = promote_args_inexact("bernoulli.ppf", q, p)
  zero, one = const(q, 0), const(q, 1)
  invalid = (jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one))
  return jnp.where(invalid, jnp.nan, jnp.where(lax.le(q, one - p), zero, one))
