"""The left-skewed Gumbel distribution (``scipy.stats.gumbel_l``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import xlog1py, xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def _z(x, loc, scale):
  return lax.div(lax.sub(x, loc), scale)


def _positive(scale):
  return lax.gt(scale, const(scale, 0))


def logpdf(x, loc=0, scale=1):
  """Log of the left Gumbel density; NaN for ``scale <= 0``."""
  x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
  z = _z(x, loc, scale)
  log_pdf = lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z)))
  return jnp.where(_positive(scale), log_pdf, np.nan)


def pdf(x, loc=0, scale=1):
  """Left Gumbel density."""
  return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  """Log of the left Gumbel cumulative distribution function."""
  x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
  z = _z(x, loc, scale)
  log_cdf = lax.log(-lax.expm1(lax.neg(lax.exp(z))))
  return jnp.where(_positive(scale), log_cdf, np.nan)


def cdf(x, loc=0, scale=1):
  """Left Gumbel cumulative distribution function."""
  return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  """Percent point function of the left Gumbel distribution; NaN outside (0, 1)."""
  p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
  ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
  quantile = lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p)))))
  return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
  """Left Gumbel survival function."""
  return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
  """Log of the left Gumbel survival function ``-exp(z)``."""
  x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
  log_sf = lax.neg(lax.exp(_z(x, loc, scale)))
  return jnp.where(_positive(scale), log_sf, np.nan)
