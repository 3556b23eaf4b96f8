"""The Pareto distribution (``scipy.stats.pareto``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import const, promote_args_inexact


def _below(x, loc, scale):
  return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
  """Log of the Pareto density with shape ``b``; ``-inf`` below ``loc + scale``."""
  x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  log_normalizer = lax.log(lax.div(scale, b))
  log_probs = lax.neg(lax.add(log_normalizer, lax.mul(lax.add(b, const(x, 1)), lax.log(z))))
  return jnp.where(_below(x, loc, scale), -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
  """Pareto density."""
  return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
  """Pareto cumulative distribution function ``1 - z**-b``."""
  x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  value = lax.sub(const(x, 1), lax.pow(z, lax.neg(b)))
  return jnp.where(_below(x, loc, scale), const(x, 0), value)


def logcdf(x, b, loc=0, scale=1):
  """Log of the Pareto cumulative distribution function."""
  x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  value = lax.log1p(lax.neg(lax.pow(z, lax.neg(b))))
  return jnp.where(_below(x, loc, scale), -np.inf, value)


def logsf(x, b, loc=0, scale=1):
  """Log of the Pareto survival function ``-b log(z)``."""
  x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
  z = lax.div(lax.sub(x, loc), scale)
  value = lax.neg(lax.mul(b, lax.log(z)))
  return jnp.where(_below(x, loc, scale), const(x, 0), value)


def sf(x, b, loc=0, scale=1):
  """Pareto survival function."""
  return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
  """Percent point function of the Pareto distribution; NaN outside [0, 1]."""
  q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
  one = const(q, 1)
  value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
