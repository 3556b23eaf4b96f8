"""The wrapped Cauchy distribution on [0, 2 pi] (``scipy.stats.wrapcauchy``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, c):
  """Log of the wrapped Cauchy probability density with shape ``0 < c < 1``; ``-inf``
  outside [0, 2 pi] and NaN for ``c`` outside (0, 1)."""
  x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
  log_probs = (jnp.log(1 - c * c) - jnp.log(2 * np.pi)
               - jnp.log(1 + c * c - 2 * c * jnp.cos(x)))
  in_support = lax.ge(x, const(x, 0)) & lax.le(x, const(x, np.pi * 2))
  valid = lax.gt(c, const(c, 0)) & lax.lt(c, const(c, 1))
  return jnp.where(valid, jnp.where(in_support, log_probs, -np.inf), np.nan)


def pdf(x, c):
  """Wrapped Cauchy probability density."""
  return lax.exp(logpdf(x, c))
