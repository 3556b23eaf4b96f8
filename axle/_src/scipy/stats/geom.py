"""The geometric distribution (``scipy.stats.geom``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.special import xlog1py
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpmf(k, p, loc=0):
  """Log of the geometric probability mass (first success on trial ``k``)."""
  k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
  x = lax.sub(k, loc)
  log_probs = xlog1py(lax.sub(x, const(k, 1)), -p) + lax.log(p)
  return jnp.where(lax.le(x, const(k, 0)), -np.inf, log_probs)


def pmf(k, p, loc=0):
  """Geometric probability mass."""
  return jnp.exp(logpmf(k, p, loc))
