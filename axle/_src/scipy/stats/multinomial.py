"""The multinomial distribution (``scipy.stats.multinomial``)."""
from __future__ import annotations

import numpy as np

from axle._src import dtypes
from axle._src import lax
from axle._src import numpy as jnp
from axle._src.numpy import util
from axle._src.scipy.special import gammaln, xlogy
from axle._src.scipy.stats._common import promote_args_inexact


def logpmf(x, n, p):
  """Log of the multinomial probability of counts ``x`` (last axis) in ``n`` trials with
  probabilities ``p``; ``-inf`` where the counts do not sum to ``n``. ``x`` and ``n`` must be
  integers."""
  p, = promote_args_inexact("multinomial.logpmf", p)
  x, n = util.promote_args_numeric("multinomial.logpmf", x, n)
  if not dtypes.issubdtype(x.dtype, np.integer):
    raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
  x = x.astype(p.dtype)
  n = n.astype(p.dtype)
  logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
  return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -np.inf)


def pmf(x, n, p):
  """Multinomial probability mass."""
  return lax.exp(logpmf(x, n, p))
