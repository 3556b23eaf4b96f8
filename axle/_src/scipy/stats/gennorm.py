"""The generalized normal distribution (``scipy.stats.gennorm``)."""
from __future__ import annotations

from axle._src import lax
from axle._src.scipy.stats._common import promote_args_inexact


def logpdf(x, beta):
  """Log of the generalized normal density ``beta / (2 gamma(1/beta)) exp(-|x|**beta)``."""
  x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
  return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
  """Generalized normal cumulative distribution function."""
  x, beta = promote_args_inexact("gennorm.cdf", x, beta)
  return 0.5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
  """Generalized normal density."""
  return lax.exp(logpdf(x, beta))
