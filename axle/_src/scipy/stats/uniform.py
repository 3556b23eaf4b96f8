"""The uniform distribution on [loc, loc + scale] (``scipy.stats.uniform``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import promote_args_inexact


def logpdf(x, loc=0, scale=1):
  """Log of the uniform probability density; ``-inf`` outside [loc, loc + scale]."""
  x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
  log_probs = lax.neg(lax.log(scale))
  outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
  return jnp.where(outside, -np.inf, log_probs)


def pdf(x, loc=0, scale=1):
  """Uniform probability density."""
  return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
  """Uniform cumulative distribution function."""
  x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
  zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
  hi = lax.add(loc, scale)
  conds = [lax.lt(x, loc), lax.gt(x, hi), lax.ge(x, loc) & lax.le(x, hi)]
  return jnp.select(conds, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
  """Percent point function of the uniform distribution; NaN outside [0, 1]."""
  q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
