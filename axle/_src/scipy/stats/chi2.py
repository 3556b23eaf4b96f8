"""The chi-squared distribution (``scipy.stats.chi2``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import gammainc, gammaincc
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, df, loc=0, scale=1):
  """Log of the chi-squared probability density with ``df`` degrees of freedom."""
  x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
  one, two = const(x, 1), const(x, 2)
  y = lax.div(lax.sub(x, loc), scale)
  half_df = lax.div(df, two)
  kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
  log_normalizer = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
  log_probs = lax.add(lax.sub(log_normalizer, lax.log(scale)), kernel)
  return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
  """Chi-squared probability density."""
  return lax.exp(logpdf(x, df, loc, scale))


def _half_y(x, loc, scale):
  two = const(scale, 2)
  return lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)), const(x, np.inf))


def cdf(x, df, loc=0, scale=1):
  """Chi-squared cumulative distribution function."""
  x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
  return gammainc(lax.div(df, const(df, 2)), _half_y(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
  """Log of the chi-squared cumulative distribution function."""
  return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
  """Chi-squared survival function."""
  x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
  return gammaincc(lax.div(df, const(df, 2)), _half_y(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
  """Log of the chi-squared survival function."""
  return lax.log(sf(x, df, loc, scale))
