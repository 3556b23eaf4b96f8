"""Argument handling shared by axle.numpy: dtype promotion and rank promotion.

jnp functions follow NumPy's API with JAX's dtype rules: operands are promoted
to a common dtype with JAX's lattice (weak types included) and, when their
ranks differ, to a common rank; lax then does the elementwise work.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.api import jit_when_tracing  # noqa: F401  (used as util.jit_when_tracing)
from axle._src.array import Array
from axle._src.config import config
from axle._src.core import Tracer
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import structural as lax_structural
from axle._src.lax.utils import broadcast_shapes  # noqa: F401  (jnp.broadcast_shapes)

_scalar_types = (bool, int, float, complex)


def check_arraylike(fun_name: str, *args) -> None:
  """Raises TypeError for arguments that are not arrays or scalars (e.g. lists), as JAX does."""
  for position, arg in enumerate(args):
    if type(arg) is Array:
      continue
    if not (isinstance(arg, (Array, Tracer, np.ndarray, np.generic) + _scalar_types)
            or hasattr(arg, "__jax_array__") or core.is_extended(getattr(arg, "aval", None))):
      raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at "
                      f"position {position}.")


def asarray_operand(x):
  """An operand for lax: arrays and tracers pass through; Python scalars stay (lax makes them
  weak); NumPy values are canonicalised."""
  if type(x) is Array or isinstance(x, (Array, Tracer) + _scalar_types):
    return x
  if isinstance(x, (np.ndarray, np.generic)):
    target = dtypes.canonicalize_dtype(x.dtype)
    return Array(np.asarray(x, target) if x.dtype != target else x)
  if hasattr(x, "__jax_array__"):
    return x.__jax_array__()
  if core.is_extended(getattr(x, "aval", None)):  # a key array
    return x
  raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid JAX array type.")


def shape_of(x) -> tuple[int, ...]:
  """The shape of an array, tracer or scalar."""
  return core.get_aval(x).shape


def ndim_of(x) -> int:
  return len(core.get_aval(x).shape)


def dtype_of(x) -> np.dtype:
  return np.dtype(core.get_aval(x).dtype)


def _common_aval(args, kinds: str | None, same_rank: bool):
  """The aval of the first operand when every operand is an Array or tracer of its dtype and
  weak type (of a kind in ``kinds``; of its rank too when ``same_rank``), else None: then
  promotion has nothing to do."""
  avals = []
  for x in args:
    if type(x) is Array:
      avals.append(x._aval)
    elif isinstance(x, Tracer) or core.is_extended(getattr(x, "aval", None)):  # (key arrays)
      avals.append(x.aval)
    else:
      return None
  first = avals[0]
  if kinds is not None and first.dtype.kind not in kinds:
    return None
  if first.weak_type and first.dtype.kind == "b":
    return None  # bools have no weak type in the lattice: JAX converts weak ones
  ndim = len(first.shape)
  for aval in avals[1:]:
    if (aval.dtype != first.dtype or aval.weak_type != first.weak_type
        or (same_rank and len(aval.shape) != ndim)):
      return None
  return first


def _already_agree(args, kinds: str | None) -> bool:
  return _common_aval(args, kinds, same_rank=False) is not None


def promote_dtypes(*args):
  """Converts operands to their JAX result type (keeping weak types when all are weak)."""
  if len(args) < 2:
    return [_weak_scalar_array(asarray_operand(a)) for a in args]
  if _already_agree(args, None):
    return list(args)
  dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
  return [_convert_operand(a, dtype, weak_type) for a in args]


def _convert_operand(a, dtype, weak_type):
  """``a`` converted to ``dtype``; a concrete 0-d operand (NumPy scalar, 0-d Array) is converted
  right away, so a trace shows the converted literal (as JAX folds the conversion of constants)."""
  if isinstance(a, np.generic) or (type(a) is Array and not a._aval.shape):
    return lax_elementwise._convert_element_type(np.asarray(a), dtype, weak_type)
  return lax_elementwise._convert_element_type(asarray_operand(a), dtype, weak_type)


def _weak_scalar_array(x):
  """A Python scalar as a weakly typed 0-d Array (what ``jnp.asarray(1.0)`` gives)."""
  if isinstance(x, _scalar_types):
    return Array(dtypes.scalar_to_array(x), True)
  return x


def promote_dtypes_inexact(*args):
  """Promotes to a common inexact dtype (ints and bools go to the default float)."""
  if _already_agree(args, "fc"):
    return list(args)
  dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
  dtype = dtypes.to_inexact_dtype(dtype)
  return [_convert_operand(a, dtype, weak_type) for a in args]


def promote_dtypes_numeric(*args):
  """Promotes to a common numeric dtype (bool goes to the default int)."""
  if _already_agree(args, "iufc"):
    return list(args)
  dtype, weak_type = dtypes.result_type(*args, return_weak_type_flag=True)
  if dtype == np.bool_:
    dtype = dtypes.default_int_dtype()
  return [_convert_operand(a, dtype, weak_type) for a in args]


def promote_shapes(fun_name: str, *args):
  """Brings operands of different (non-zero) ranks to a common rank by adding leading
  size-1 dimensions; lax's own broadcasting does the rest."""
  if len(args) < 2:
    return list(args)
  shapes = [a.shape if isinstance(a, (Array, Tracer)) else np.shape(a) for a in args]
  if all(len(shapes[0]) == len(s) for s in shapes[1:]):
    return list(args)
  nonscalar_ranks = {len(s) for s in shapes if s}
  if len(nonscalar_ranks) < 2:
    return list(args)
  mode = config.jax_numpy_rank_promotion
  if mode != "allow":
    message = (f"Following NumPy automatic rank promotion for {fun_name} on shapes "
               f"{' '.join(str(s) for s in shapes)}. Set the jax_numpy_rank_promotion config option "
               f"to 'allow' to disable this message; for more information, see "
               f"https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    if mode == "raise":
      raise ValueError(message)
    import warnings
    warnings.warn(message)
  result_rank = len(broadcast_shapes(*shapes))
  return [broadcast_to_rank(a, result_rank) for a in args]


def broadcast_to_rank(x, rank: int):
  """``x`` with leading size-1 axes added up to ``rank``."""
  ndim = np.ndim(x)
  if ndim >= rank:
    return x
  return lax_structural.broadcast(x, (1,) * (rank - ndim))


def _settled(args, kinds: str | None) -> bool:
  """Whether promotion would return ``args`` unchanged: Arrays or tracers of one dtype (of a
  kind in ``kinds``), weak type and rank."""
  first = args[0]
  if type(first) is Array:  # every eager jnp call: decide without building lists
    aval = first._aval
    if kinds is not None and aval.dtype.kind not in kinds:
      return False
    if aval.weak_type and aval.dtype.kind == "b":
      return False
    for x in args[1:]:
      if type(x) is not Array:
        return _common_aval(args, kinds, same_rank=True) is not None
      other = x._aval
      if other is not aval and (other.dtype != aval.dtype or other.weak_type != aval.weak_type
                                or len(other.shape) != len(aval.shape)):
        return False
    return True
  return _common_aval(args, kinds, same_rank=True) is not None


def promote_args(fun_name: str, *args):
  """dtype promotion then rank promotion: what every NumPy-style binary function does."""
  if _settled(args, None):
    return list(args)
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
  """``promote_args`` to a common inexact dtype."""
  if _settled(args, "fc"):
    return list(args)
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
  """``promote_args`` to a common numeric (non-bool) dtype."""
  if _settled(args, "iufc"):
    return list(args)
  check_arraylike(fun_name, *args)
  return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def canonicalize_axis(axis, ndim: int) -> int:
  """``axis`` in [0, ndim); NumPy's AxisError when out of bounds."""
  axis = core.concrete_or_error(int, axis, "The axis argument must be static.")
  if not -ndim <= axis < ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim if ndim else 0


def canonicalize_axes(axis, ndim: int) -> tuple[int, ...]:
  """A tuple of distinct non-negative axes (all axes for None)."""
  if axis is None:
    return tuple(range(ndim))
  if isinstance(axis, (tuple, list)):
    axes = tuple(canonicalize_axis(a, ndim) for a in axis)
    if len(set(axes)) != len(axes):
      raise ValueError(f"duplicate value in 'axis': {tuple(axis)}")
    return axes
  return (canonicalize_axis(axis, ndim),)

