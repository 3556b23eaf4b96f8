"""The Laplace distribution (``scipy.stats.laplace``)."""
from __future__ import annotations

from axle._src import lax
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the Laplace probability density."""
  x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
  linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
  return lax.neg(lax.add(linear, lax.log(lax.mul(const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
  """Laplace probability density."""
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """Laplace cumulative distribution function."""
  x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
  half, one = const(x, 0.5), const(x, 1)
  z = lax.div(lax.sub(x, loc), scale)
  return lax.select(lax.le(z, const(x, 0)), lax.mul(half, lax.exp(z)),
                    lax.sub(one, lax.mul(half, lax.exp(lax.neg(z)))))
