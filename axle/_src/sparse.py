"""``jax.experimental.sparse``: NOT implemented in axle. Only the name ``BCOO`` exists, so that
libraries that import it at module level (numpyro) import; making a BCOO array raises
NotImplementedError saying so. Use dense arrays instead."""
from __future__ import annotations


class BCOO:
  """JAX's batched-COO sparse array. Not implemented in axle: constructing one raises."""

  def __init__(self, *args, **kwargs):
    raise NotImplementedError("axle does not implement jax.experimental.sparse (BCOO sparse "
                              "arrays); use a dense array instead.")

  @classmethod
  def fromdense(cls, *args, **kwargs):
    return cls(*args, **kwargs)

  @classmethod
  def from_scipy_sparse(cls, *args, **kwargs):
    return cls(*args, **kwargs)
