"""The logistic distribution (``scipy.stats.logistic``)."""
from __future__ import annotations

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import expit, logit
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the logistic probability density."""
  x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  two = const(z, 2)
  half_z = lax.div(z, two)
  return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_z, lax.neg(half_z))), lax.log(scale))


def pdf(x, loc=0, scale=1):
  """Logistic probability density."""
  return lax.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
  """Percent point function of the logistic distribution (``logit``, shifted and scaled)."""
  x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
  return lax.add(lax.mul(logit(x), scale), loc)


def sf(x, loc=0, scale=1):
  """Logistic survival function."""
  x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
  return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x, loc=0, scale=1):
  """Inverse survival function of the logistic distribution."""
  x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
  return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x, loc=0, scale=1):
  """Logistic cumulative distribution function (``expit``)."""
  x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
  return expit(lax.div(lax.sub(x, loc), scale))
