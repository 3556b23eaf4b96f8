"""The von Mises distribution (``scipy.stats.vonmises``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src import numpy as jnp
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, kappa):
  """Log of the von Mises probability density with concentration ``kappa``; NaN for
  ``kappa <= 0``."""
  x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
  log_probs = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
  return jnp.where(lax.gt(kappa, const(kappa, 0)), log_probs, np.nan)


def pdf(x, kappa):
  """Von Mises probability density."""
  return lax.exp(logpdf(x, kappa))
