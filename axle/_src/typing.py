"""Type annotations for array arguments (``jax.typing``): ``ArrayLike`` and ``DTypeLike``."""
from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from axle._src.basearray import Array


class SupportsDType(Protocol):
  """Anything with a ``dtype`` attribute (a scalar type such as ``jnp.float32``)."""
  @property
  def dtype(self) -> np.dtype: ...


# What jnp functions accept as an array argument: arrays, NumPy arrays and scalars, and Python
# scalars (not lists or tuples, as in JAX).
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]

# What ``dtype=`` arguments accept.
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike", "SupportsDType"]
