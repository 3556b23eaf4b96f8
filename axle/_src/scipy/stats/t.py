"""Student's t distribution (``scipy.stats.t``)."""
from __future__ import annotations

import numpy as np

from axle._src import lax
from axle._src.scipy.stats._common import const, promote_args_inexact


def logpdf(x, df, loc=0, scale=1):
  """Log of Student's t probability density with ``df`` degrees of freedom."""
  x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
  two = const(x, 2)
  z = lax.div(lax.sub(x, loc), scale)
  half_df = lax.div(df, two)
  half_df_plus_half = lax.add(half_df, const(x, 0.5))
  log_scale_term = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale), const(x, np.pi)), df)),
                           two)
  log_normalizer = lax.sub(lax.add(lax.lgamma(half_df), log_scale_term),
                           lax.lgamma(half_df_plus_half))
  quadratic = lax.div(lax.mul(z, z), df)
  return lax.neg(lax.add(log_normalizer, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
  """Student's t probability density."""
  return lax.exp(logpdf(x, df, loc, scale))
