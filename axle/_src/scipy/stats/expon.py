"""The exponential distribution (``scipy.stats.expon``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the exponential probability density; ``-inf`` below ``loc``."""
  x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
  log_probs = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
  return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
  """Exponential probability density."""
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """Exponential cumulative distribution function."""
  x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), lax.neg(lax.expm1(neg_z)))


def logcdf(x, loc=0, scale=1):
  """Log of the exponential cumulative distribution function."""
  return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x, loc=0, scale=1):
  """Log of the exponential survival function."""
  x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), neg_z)


def sf(x, loc=0, scale=1):
  """Exponential survival function."""
  return lax.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
  """Percent point function of the exponential distribution; NaN outside [0, 1]."""
  q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan,
                   lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
