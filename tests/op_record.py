"""The op-record table format shared by every primitive family.

Each family module in ``tests/records/`` defines ``RECORDS``, a list of OpRecord.
``tests/test_lax_ops.py`` runs every record: eager axle vs the NumPy/SciPy reference,
jit vs eager, and the jaxpr's output avals vs the eager result. Later issues add
vmap-vs-loop and gradient checks driven by the same records.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np


@dataclasses.dataclass
class OpRecord:
  name: str                         # test id, unique
  primitive: str                    # name of the primitive this record covers
  fun: Callable                     # axle function of arrays (e.g. lax.add or a lambda with params fixed)
  reference: Callable | None        # NumPy/SciPy reference on np arrays (None: no eager check)
  make_args: Callable[[np.random.Generator], Sequence[np.ndarray]]  # builds one set of inputs
  trials: int = 3                   # how many argument sets to draw
  rtol: float = 1e-6
  atol: float = 1e-6
  check_dtype: bool = True          # result dtype must equal the reference's dtype
  transforms: frozenset = frozenset({"jit"})  # later: "vmap", "grad"
  nan_ok: bool = True               # NaNs must match positionally (equal_nan)
  # "grad": check_grads (order grad_order, both modes) at points from grad_make_args (default
  # make_args), which should avoid kinks and poles; "vmap": vmap vs a loop over examples.
  grad_make_args: Callable[[np.random.Generator], Sequence[np.ndarray]] | None = None
  grad_order: int = 2
  grad_modes: tuple = ("fwd", "rev")
  grad_tol: float | None = None


def edge_values(dtype) -> np.ndarray:
  """Edge values for a dtype: 0, -0, +-1, inf, nan, min/max, tiny values."""
  dtype = np.dtype(dtype)
  if dtype == np.bool_:
    return np.array([False, True])
  if np.issubdtype(dtype, np.integer):
    info = np.iinfo(dtype)
    vals = [0, 1, 2, 7, info.max, info.max - 1, info.min, info.min + 1]
    if info.min < 0:
      vals += [-1, -2, -7]
    return np.array(vals, dtype)
  if np.issubdtype(dtype, np.complexfloating):
    real = edge_values(np.finfo(dtype).dtype)
    with np.errstate(invalid="ignore"):
      return (real[:, None] + 1j * real[None, :]).ravel().astype(dtype)
  import ml_dtypes
  info = ml_dtypes.finfo(dtype)
  vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, np.inf, -np.inf, np.nan, float(info.max),
          float(info.min), float(info.tiny), -float(info.tiny), 1e-3, 100.0]
  with np.errstate(over="ignore"):
    return np.array(vals, dtype)


def random_array(rng: np.random.Generator, shape, dtype, low=-5, high=5) -> np.ndarray:
  dtype = np.dtype(dtype)
  if dtype == np.bool_:
    return rng.random(shape) < 0.5
  if np.issubdtype(dtype, np.integer):
    info = np.iinfo(dtype)
    return rng.integers(max(low, info.min), min(high, info.max) + 1, size=shape).astype(dtype)
  if np.issubdtype(dtype, np.complexfloating):
    return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
  return rng.uniform(low, high, shape).astype(dtype)
