"""The gamma distribution (``scipy.stats.gamma``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import gammainc, gammaincc, gammaln, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, a, loc=0, scale=1):
  """Log of the gamma probability density with shape ``a``; ``-inf`` below ``loc``."""
  x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
  ok = lax.ge(x, loc)
  one = const(x, 1)
  y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
  log_linear = lax.sub(xlogy(lax.sub(a, one), y), y)
  log_probs = lax.sub(log_linear, lax.add(gammaln(a), lax.log(scale)))
  return jnp.where(ok, log_probs, -np.inf)


def pdf(x, a, loc=0, scale=1):
  """Gamma probability density."""
  return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
  """Gamma cumulative distribution function (regularized lower incomplete gamma)."""
  x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
  y = lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, np.inf))
  return gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
  """Log of the gamma cumulative distribution function."""
  return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
  """Gamma survival function (regularized upper incomplete gamma)."""
  x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
  y = lax.div(lax.sub(x, loc), scale)
  return jnp.where(lax.lt(y, const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
  """Log of the gamma survival function."""
  return lax.log(sf(x, a, loc, scale))
