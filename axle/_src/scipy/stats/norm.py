"""The normal distribution (``scipy.stats.norm``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy import special
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the normal probability density at ``x``."""
  x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
  var = lax.square(scale)
  log_normalizer = lax.log(lax.mul(const(x, 2 * np.pi), var))
  quadratic = lax.div(lax.square(lax.sub(x, loc)), var)
  return lax.div(lax.add(log_normalizer, quadratic), const(x, -2))


def pdf(x, loc=0, scale=1):
  """Normal probability density at ``x``."""
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """Normal cumulative distribution function."""
  x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
  return special.ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
  """Log of the normal cumulative distribution function (accurate in the lower tail)."""
  x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
  return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q, loc=0, scale=1):
  """Percent point function (inverse of ``cdf``) of the normal distribution."""
  return jnp.asarray(special.ndtri(q) * scale + loc, float)


def logsf(x, loc=0, scale=1):
  """Log of the normal survival function ``1 - cdf``."""
  x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
  return logcdf(lax.neg(x), lax.neg(loc), scale)


def sf(x, loc=0, scale=1):
  """Normal survival function ``1 - cdf``."""
  x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
  return cdf(lax.neg(x), lax.neg(loc), scale)


def isf(q, loc=0, scale=1):
  """Inverse survival function of the normal distribution."""
  return ppf(lax.sub(const(q, 1), q), loc, scale)
