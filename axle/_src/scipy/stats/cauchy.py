"""The Cauchy distribution (``scipy.stats.cauchy``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the Cauchy probability density."""
  x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  log_normalizer = lax.log(lax.mul(const(x, np.pi), scale))
  return lax.neg(lax.add(log_normalizer, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
  """Cauchy probability density."""
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """Cauchy cumulative distribution function ``1/2 + arctan(z) / pi``."""
  x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return lax.add(const(x, 0.5), lax.mul(lax.div(const(x, 1.0), const(x, np.pi)), jnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
  """Log of the Cauchy cumulative distribution function."""
  return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
  """Cauchy survival function."""
  x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
  return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x, loc=0, scale=1):
  """Log of the Cauchy survival function."""
  x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
  return logcdf(lax.neg(x), lax.neg(loc), scale)


def isf(q, loc=0, scale=1):
  """Inverse survival function of the Cauchy distribution."""
  q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
  unscaled = lax.tan(lax.sub(const(q, np.pi / 2), lax.mul(const(q, np.pi), q)))
  return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q, loc=0, scale=1):
  """Percent point function (inverse of ``cdf``) of the Cauchy distribution."""
  q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
  unscaled = lax.tan(lax.sub(lax.mul(const(q, np.pi), q), const(q, np.pi / 2)))
  return lax.add(lax.mul(unscaled, scale), loc)
