"""The right-skewed Gumbel distribution (``scipy.stats.gumbel_r``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.nn.functions import log1mexp
from axle._src.scipy.special import xlogy
from axle._src.scipy.stats._common import const, promote_args_inexact


def _positive(scale):
  return lax.gt(scale, const(scale, 0))


def logpdf(x, loc=0, scale=1):
  """Log of the right Gumbel density; NaN for ``scale <= 0``."""
  x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  log_pdf = lax.add(xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
  return jnp.where(_positive(scale), log_pdf, np.nan)


def pdf(x, loc=0, scale=1):
  """Right Gumbel density."""
  return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
  """Log of the right Gumbel cumulative distribution function ``-exp(-z)``."""
  x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  return jnp.where(_positive(scale), lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
  """Right Gumbel cumulative distribution function."""
  return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
  """Percent point function of the right Gumbel distribution; NaN outside (0, 1)."""
  p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
  ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
  quantile = lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p))))
  return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
  """Right Gumbel survival function."""
  x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  survival = lax.sub(const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
  return jnp.where(_positive(scale), survival, np.nan)


def logsf(x, loc=0, scale=1):
  """Log of the right Gumbel survival function."""
  x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
  neg_z = lax.div(lax.sub(loc, x), scale)
  return jnp.where(_positive(scale), log1mexp(lax.exp(neg_z)), np.nan)
