"""Primitives and lax functions that create arrays: ``iota`` (``lax.iota``,
``lax.broadcasted_iota``) and ``lax.full``/``full_like`` (which bind ``broadcast_in_dim`` of a
scalar).

Split out of structural.py, which re-exports every name here; import them from there. This
module imports structural.py only inside functions, so either module may be imported first.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import lowering as mlir
from axle._src.lax import utils


_structural_module = None


def _structural():
  """The parent family module, imported on first use (see the module docstring)."""
  global _structural_module
  if _structural_module is None:
    from axle._src.lax import structural
    _structural_module = structural
  return _structural_module


# ---------------------------------------------------------------------------
# iota

iota_p = core.Primitive("iota")


def _iota_abstract_eval(*, dtype, shape, dimension, sharding) -> ShapedArray:
  _structural()._check_shapelike("iota", "shape", shape)
  if not utils.dtype_in(dtype, utils._num):
    raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are "
                    "subtypes of integer, floating, complexfloating.")
  if not 0 <= dimension < len(shape):
    raise ValueError("iota dimension must be between 0 and len(shape), got "
                     f"dimension={dimension} for shape={shape}")
  return ShapedArray(tuple(shape), dtype, False)


iota_p.def_abstract_eval(_iota_abstract_eval)


def _iota_impl(*, dtype, shape, dimension, sharding):
  values = np.arange(shape[dimension]).astype(dtype)
  expanded = [1] * len(shape)
  expanded[dimension] = shape[dimension]
  return np.broadcast_to(values.reshape(expanded), shape)


iota_p.def_impl(_iota_impl)

mlir.register(iota_p, lambda ctx, *, dtype, shape, dimension, sharding: mlir.op(
    ctx, "stablehlo.iota", [], ctx.avals_out[0], {"iota_dimension": f"{int(dimension)} : i64"}))


# iota has no operands: it is never differentiated and never batched (a vmapped function
# binds it unbatched); the rules make that explicit.
ad.defjvp_zero(iota_p)


def _iota_batcher(values, dims, **params):
  return iota_p.bind(**params), None


batching.primitive_batchers[iota_p] = _iota_batcher


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
  """An array of ``shape`` whose values count 0, 1, 2, ... along ``dimension``
  (``lax.broadcasted_iota``)."""
  _structural()._check_no_sharding("broadcasted_iota", out_sharding)
  dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "broadcasted_iota")
  shape = _structural()._canonicalize_shape(shape)
  dimension = core.concrete_or_error(int, dimension, "dimension argument of lax.broadcasted_iota")
  return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension, sharding=None)


def iota(dtype, size: int):
  """``[0, 1, ..., size - 1]`` with dtype ``dtype`` (``lax.iota``, XLA's Iota)."""
  return broadcasted_iota(dtype, (size,), 0)


# ---------------------------------------------------------------------------
# full


def _is_python_scalar(x) -> bool:
  return type(x) in (bool, int, float, complex)


def _fill_scalar(fill_value, dtype: np.dtype, weak_type: bool):
  """``fill_value`` as a scalar of ``dtype`` (JAX's ``_convert_element_type``).

  A concrete scalar is converted with NumPy and becomes a literal. Traced values, and the
  conversions where NumPy and XLA differ (complex to real, non-finite to integer, integers
  out of range), go through the ``convert_element_type`` primitive."""
  if _structural()._is_array(fill_value):
    aval = fill_value.aval
    if aval.dtype == dtype and aval.weak_type == weak_type:
      return fill_value
    return _structural()._elementwise()._convert_element_type(fill_value, dtype, weak_type)
  if weak_type and _is_python_scalar(fill_value):
    # A weak result of a Python scalar's dtype is that Python scalar (a weakly typed literal).
    for python_type in (int, float, complex):
      if dtypes.python_scalar_dtype(python_type) == dtype:
        try:
          return python_type(fill_value)
        except (TypeError, ValueError, OverflowError):
          break
  if not weak_type and isinstance(fill_value, (bool, int, float, complex, np.generic, np.ndarray)):
    try:
      source = np.asarray(fill_value)
      if source.dtype.kind == "c" and dtype.kind != "c":
        raise ValueError("complex to real")
      if _is_inexact(source.dtype) and dtype.kind in "iub" and not np.all(np.isfinite(source)):
        raise ValueError("non-finite to integer")
      if source.dtype.kind in "iuO" and dtype.kind in "iu":
        return np.asarray(int(source), dtype)  # OverflowError when out of range
      with np.errstate(over="ignore", invalid="ignore"):
        return source.astype(dtype)
    except (OverflowError, ValueError, TypeError):
      pass
  return _structural()._elementwise()._convert_element_type(fill_value, dtype, weak_type)


def _is_inexact(dtype: np.dtype) -> bool:
  return dtype.kind in "fc" or dtype == dtypes.bfloat16


def full(shape, fill_value, dtype=None, *, sharding=None):
  """An array of ``shape`` filled with the scalar ``fill_value`` (``lax.full``), converted to
  ``dtype`` when given. Binds ``broadcast_in_dim`` of the (literal) scalar."""
  _structural()._check_no_sharding("full", sharding)
  shape = _structural()._canonicalize_shape(shape)
  fill_shape = fill_value.shape if _structural()._is_array(fill_value) else np.shape(fill_value)
  if fill_shape:
    raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {fill_shape}.")
  if dtype is None and type(fill_value) in (int, float, complex):
    return _structural().broadcast(fill_value, shape)  # a weakly typed literal
  if dtype is None:
    weak_type = _structural()._is_weakly_typed(fill_value)
    fill_dtype = _structural()._aval(fill_value).dtype
  else:
    weak_type = False
    fill_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
  return _structural().broadcast(_fill_scalar(fill_value, fill_dtype, weak_type), shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  """An array like ``x`` (its shape and dtype unless ``shape``/``dtype`` are given) filled with
  ``fill_value`` (``lax.full_like``). Keeps ``x``'s weak type when ``dtype`` is None."""
  _structural()._check_no_sharding("full_like", sharding)
  if shape is None:
    fill_shape = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
  else:
    fill_shape = _structural()._canonicalize_shape(shape)
  weak_type = dtype is None and _structural()._is_weakly_typed(x)
  if dtype is not None:
    fill_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full_like")
  elif hasattr(x, "dtype"):
    fill_dtype = dtypes.canonicalize_dtype(x.dtype)
  else:
    fill_dtype = _structural()._aval(x).dtype
  return full(fill_shape, _fill_scalar(fill_value, fill_dtype, weak_type))


def zeros_like_array(x):
  """Zeros with the shape, dtype and weak type of ``x`` (JAX's internal ``zeros_like_array``)."""
  return full_like(x, 0)
