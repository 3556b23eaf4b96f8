"""The beta distribution (``scipy.stats.beta``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import betainc, betaln, xlog1py, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, a, b, loc=0, scale=1):
  """Log of the beta probability density; ``-inf`` outside [loc, loc + scale] and NaN for
  non-positive ``a``, ``b`` or ``scale``."""
  x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
  one, zero = const(x, 1), const(a, 0)
  y = lax.div(lax.sub(x, loc), scale)
  log_linear = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
  log_probs = lax.sub(lax.sub(log_linear, betaln(a, b)), lax.log(scale))
  outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
  result = jnp.where(outside, -np.inf, log_probs)
  bad_params = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)),
                              lax.le(scale, zero))
  return jnp.where(bad_params, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
  """Beta probability density."""
  return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
  return lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), scale), const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
  """Beta cumulative distribution function (the regularized incomplete beta function)."""
  x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
  return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
  """Log of the beta cumulative distribution function."""
  return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
  """Beta survival function ``1 - cdf``."""
  x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
  return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
  """Log of the beta survival function."""
  return lax.log(sf(x, a, b, loc, scale))
