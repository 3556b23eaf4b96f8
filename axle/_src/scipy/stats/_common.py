"""Helpers shared by the distribution modules."""
from __future__ import annotations

import numpy as np

from axle._src import dtypes
from axle._src.numpy import util

promote_args_inexact = util.promote_args_inexact
promote_dtypes_inexact = util.promote_dtypes_inexact


def const(x, value):
  """``value`` as a constant of ``x``'s dtype for lax operations (which do not promote): a
  Python scalar when ``x`` is a weakly typed scalar (so the result stays weakly typed, as in
  JAX), else a 0-d NumPy constant."""
  dtype = dtypes.dtype(x, canonicalize=True)
  if dtypes.is_python_scalar(x) or (getattr(x, "weak_type", False) and np.ndim(x) == 0):
    scalar = dtypes.scalar_type_of(x)(value)
    if dtypes.dtype(scalar, canonicalize=True) == dtype:
      return scalar
  return np.array(value, dtype=dtype)
