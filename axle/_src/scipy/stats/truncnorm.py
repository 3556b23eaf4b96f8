"""The normal distribution truncated to [a, b] in standard units (``scipy.stats.truncnorm``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.api import jit
from axle._src.nn.functions import logsumexp
from axle._src.scipy.special import log_ndtr, ndtr
from axle._src.scipy.stats import norm
from axle._src.scipy.stats._common import promote_args_inexact


def _log_diff(x, y):
  """``log(exp(x) - exp(y))``."""
  return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]),
                   axis=0)


def _log_gauss_mass(a, b):
  """Log of the standard normal mass on [a, b], computed in whichever tail keeps precision."""
  a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
  left = b <= 0
  right = a > 0
  central = ~(left | right)
  # Reflect the right tail onto the left, where log_ndtr is accurate.
  a_tail = jnp.where(right, -b, a)
  b_tail = jnp.where(right, -a, b)
  mass_tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
  mass_central = jnp.log1p(-ndtr(a) - ndtr(-b))
  return jnp.where(central, mass_central, mass_tail)


@jit
def _logpdf(x, a, b, loc, scale):
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
  val = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
  z = lax.div(lax.sub(x, loc), scale)
  val = jnp.where((z < a) | (z > b), -np.inf, val)
  return jnp.where(a >= b, np.nan, val)


def logpdf(x, a, b, loc=0, scale=1):
  """Log of the truncated normal density; ``-inf`` outside [a, b] (standard units) and NaN
  for ``a >= b``."""
  return _logpdf(x, a, b, loc, scale)


def pdf(x, a, b, loc=0, scale=1):
  """Truncated normal density."""
  return lax.exp(logpdf(x, a, b, loc, scale))


@jit
def _logcdf(x, a, b, loc, scale):
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
  x, a, b = jnp.broadcast_arrays(x, a, b)
  x = lax.div(lax.sub(x, loc), scale)
  log_mass = _log_gauss_mass(a, b)
  log_cdf = _log_gauss_mass(a, x) - log_mass
  log_sf = _log_gauss_mass(x, b) - log_mass
  # Near 1 the complement is the more accurate route.
  log_cdf = jnp.select([x >= b, x <= a, log_cdf > -0.1, x > a],
                       [0, -np.inf, jnp.log1p(-jnp.exp(log_sf)), log_cdf])
  return jnp.where(a >= b, np.nan, log_cdf)


def logcdf(x, a, b, loc=0, scale=1):
  """Log of the truncated normal cumulative distribution function."""
  return _logcdf(x, a, b, loc, scale)


def cdf(x, a, b, loc=0, scale=1):
  """Truncated normal cumulative distribution function."""
  return lax.exp(logcdf(x, a, b, loc, scale))


@jit
def _logsf(x, a, b, loc, scale):
  x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
  return _logcdf(-x, -b, -a, -loc, scale)


def logsf(x, a, b, loc=0, scale=1):
  """Log of the truncated normal survival function."""
  return _logsf(x, a, b, loc, scale)


def sf(x, a, b, loc=0, scale=1):
  """Truncated normal survival function."""
  return lax.exp(logsf(x, a, b, loc, scale))
