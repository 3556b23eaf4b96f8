"""Reductions in axle.numpy: sum, prod, max, min, any, all, mean, argmax, argmin, cumsum...

Dtype rules follow JAX: sums and products of bools and small integers
accumulate in the default integer type; float16/bfloat16 are reduced in
float32 and rounded back; ``mean`` divides in floating point.
"""
from __future__ import annotations

import builtins

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import structural as lax_structural
from axle._src.numpy import lax_numpy
from axle._src.numpy import ufuncs
from axle._src.numpy import util


def _reduction_dtype(dtype: np.dtype, dtype_arg, promote_integers: bool) -> np.dtype:
  if dtype_arg is not None:
    dtypes.check_user_dtype_supported(dtype_arg, "reduction")
    return dtypes.canonicalize_dtype(dtype_arg)
  if promote_integers:
    if dtype == np.bool_:
      return dtypes.default_int_dtype()
    if np.issubdtype(dtype, np.unsignedinteger) and dtype.itemsize < np.dtype(dtypes.default_int_dtype()).itemsize:
      return dtypes.canonicalize_dtype(np.uint64 if dtypes.default_int_dtype() == np.int64 else np.uint32)
    if np.issubdtype(dtype, np.signedinteger) and dtype.itemsize < np.dtype(dtypes.default_int_dtype()).itemsize:
      return dtypes.default_int_dtype()
  return dtype


def _upcast_low_precision(dtype: np.dtype) -> np.dtype:
  if dtype in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
    return np.dtype(np.float32)
  return dtype


def _identity_for(name: str, dtype: np.dtype):
  """The value a masked-out element contributes to reduction ``name`` (None: no identity)."""
  if name in ("sum", "any"):
    return np.zeros((), dtype)[()]
  if name in ("prod", "all"):
    return np.ones((), dtype)[()]
  return None


def _extreme_for(name: str, dtype: np.dtype):
  """The fill of masked-out elements for ``max`` (the lowest value of ``dtype``) or ``min``
  (the highest)."""
  low = name == "max"
  if dtype == np.bool_:
    return np.array(not low, dtype)
  if np.issubdtype(dtype, np.integer):
    info = np.iinfo(dtype)
    return np.array(info.min if low else info.max, dtype)
  return np.array(-np.inf if low else np.inf, dtype)


def _reduce(name, lax_reduce, a, axis, dtype, keepdims, initial, where, promote_integers=False,
            upcast=True, bool_op=None, identity=None):
  util.check_arraylike(name, a)
  a = util.asarray_operand(a)
  aval = core.get_aval(a)
  axes = util.canonicalize_axes(axis, len(aval.shape))
  result_dtype = _reduction_dtype(aval.dtype, dtype, promote_integers)
  if bool_op is not None and result_dtype == np.bool_:
    reducer = bool_op
  else:
    reducer = lax_reduce
  compute_dtype = _upcast_low_precision(result_dtype) if upcast else result_dtype
  if promote_integers and aval.dtype == np.bool_:
    # Sums and products count booleans as integers first (JAX's bool -> int32 -> dtype).
    a = lax_elementwise._convert_element_type(a, dtypes.default_int_dtype(), False)
  operand = lax_elementwise._convert_element_type(a, compute_dtype, False)
  if where is not None:
    util.check_arraylike(name, where)
    fill = _identity_for(name, compute_dtype)
    if fill is None:
      if initial is None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
      # Masked-out elements take the dtype's extreme (-inf for max, the smallest integer,
      # False), as JAX's do; ``initial`` is combined with the result afterwards.
      fill = _extreme_for(name, compute_dtype)
    operand = ufuncs._where(where, operand, lax_elementwise._convert_element_type(fill, compute_dtype, False))
  out = reducer(operand, axes)  # also over no axes: JAX keeps the reduce_sum[axes=()] equation
  if initial is not None:
    combine = {"sum": ufuncs.add, "prod": ufuncs.multiply, "max": ufuncs.maximum,
               "min": ufuncs.minimum}[name]
    out = combine(lax_elementwise._convert_element_type(initial, compute_dtype, False), out)
  if keepdims:
    out = lax_numpy.expand_dims(out, axes)
  return lax_elementwise._convert_element_type(out, result_dtype, False)  # never weak


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype', 'out', 'keepdims', 'promote_integers'))
def sum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None,
        promote_integers: bool = True):
  """Sum of array elements over ``axis`` (``jnp.sum``)."""
  if (type(a) is Array and axis is None and dtype is None and not keepdims and initial is None
      and where is None and a._aval.dtype.kind in "fc" and a._aval.dtype.itemsize >= 4):
    # Summing a float32/float64/complex Array over all axes needs no dtype or rank handling.
    return lax_reductions.reduce_sum(a, tuple(range(len(a._aval.shape))))
  return _reduce("sum", lax_reductions.reduce_sum, a, axis, dtype, keepdims, initial, where,
                 promote_integers, bool_op=lax_reductions.reduce_or)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype', 'out', 'keepdims', 'promote_integers'))
def prod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None,
         promote_integers: bool = True):
  """Product of array elements over ``axis`` (``jnp.prod``)."""
  return _reduce("prod", lax_reductions.reduce_prod, a, axis, dtype, keepdims, initial, where,
                 promote_integers, bool_op=lax_reductions.reduce_and)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def max(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Maximum over ``axis``; NaN propagates (``jnp.max``)."""
  _check_nonempty("max", a, axis, initial)
  return _reduce("max", lax_reductions.reduce_max, a, axis, None, keepdims, initial, where,
                 upcast=False)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def min(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Minimum over ``axis``; NaN propagates (``jnp.min``)."""
  _check_nonempty("min", a, axis, initial)
  return _reduce("min", lax_reductions.reduce_min, a, axis, None, keepdims, initial, where,
                 upcast=False)


amax = max
amin = min


def _check_nonempty(name, a, axis, initial):
  shape = np.shape(a)
  axes = util.canonicalize_axes(axis, len(shape))
  if initial is None and builtins.any(shape[i] == 0 for i in axes):
    raise ValueError(f"zero-size array to reduction operation {name} which has no identity")


def _to_bool(a):
  return ufuncs._to_bool(util.asarray_operand(a))


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def _all(a, axis=None, out=None, keepdims: bool = False, *, where=None):
  util.check_arraylike("all", a)
  return _reduce("all", lax_reductions.reduce_and, _to_bool(a), axis, None, keepdims, None, where,
                 upcast=False)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def _any(a, axis=None, out=None, keepdims: bool = False, *, where=None):
  util.check_arraylike("any", a)
  return _reduce("any", lax_reductions.reduce_or, _to_bool(a), axis, None, keepdims, None, where,
                 upcast=False)


def all(a, axis=None, out=None, keepdims: bool = False, *, where=None):
  """Whether all elements over ``axis`` are true (``jnp.all``)."""
  if where is None and out is None:
    result = _host_bool_reduce(np.logical_and.reduce, a, axis, keepdims)
    if result is not None:
      return result
  return _all(a, axis, out, keepdims, where=where)


def any(a, axis=None, out=None, keepdims: bool = False, *, where=None):
  """Whether any element over ``axis`` is true (``jnp.any``)."""
  if where is None and out is None:
    result = _host_bool_reduce(np.logical_or.reduce, a, axis, keepdims)
    if result is not None:
      return result
  return _any(a, axis, out, keepdims, where=where)


def _host_bool_reduce(reducer, a, axis, keepdims):
  """``jnp.all``/``jnp.any`` of a boolean Array with a host value, outside any trace: the
  reduction is exact, so NumPy gives XLA's answer without handing the value to XLA. None for
  anything else (the compiled path, which also raises for bad axes)."""
  if type(a) is not Array or a._value is None or a._aval.dtype != np.bool_ \
      or core._context.trace is not core.eval_trace:
    return None
  ndim = len(a._aval.shape)
  if axis is None:
    axes = tuple(range(ndim))
  elif type(axis) is int and -ndim <= axis < ndim:
    axes = (axis % ndim,)
  elif type(axis) is tuple and builtins.all(type(i) is int and -ndim <= i < ndim for i in axis):
    axes = tuple(sorted({i % ndim for i in axis}))
    if len(axes) != len(axis):
      return None  # repeated axes: the compiled path's error
  else:
    return None
  out = np.asarray(reducer(a._value, axis=axes, keepdims=bool(keepdims)))
  return Array(out, False, core.ShapedArray(out.shape, out.dtype))


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype', 'out', 'keepdims'))
def mean(a, axis=None, dtype=None, out=None, keepdims: bool = False, *, where=None):
  """Arithmetic mean over ``axis`` (``jnp.mean``), computed in floating point."""
  util.check_arraylike("mean", a)
  a = util.asarray_operand(a)
  aval = core.get_aval(a)
  axes = util.canonicalize_axes(axis, len(aval.shape))
  if where is None:
    count = 1
    for i in axes:
      count *= aval.shape[i]
  if dtype is None:
    result_dtype = dtypes.to_inexact_dtype(aval.dtype)
  else:
    dtypes.check_user_dtype_supported(dtype, "mean")
    result_dtype = dtypes.canonicalize_dtype(dtype)
  compute_dtype = _upcast_low_precision(result_dtype)
  if where is not None:
    count = _where_count(where, aval.shape, axes, keepdims, compute_dtype)
  total = sum(a, axis, dtype=compute_dtype, keepdims=keepdims, where=where)
  if (type(count) is int and core.current_trace() is core.eval_trace
      and dtypes.issubdtype(compute_dtype, np.floating)):
    # Eagerly, compute what XLA compiles JAX's jitted mean to: a division by a constant
    # becomes a multiplication by its reciprocal (so eager results match JAX's bit for bit).
    reciprocal = np.divide(np.array(1, compute_dtype), np.array(count, compute_dtype))
    out = lax_elementwise.mul(total, reciprocal)
  else:
    out = lax_elementwise.div(total, lax_elementwise._convert_element_type(count, compute_dtype, False))
  return lax_elementwise._convert_element_type(out, result_dtype, False)


def _where_count(where, shape, axes, keepdims, dtype=None):
  """How many elements ``where`` selects along ``axes``, counted in ``dtype``."""
  mask = lax_numpy.broadcast_to(_to_bool(where), shape)
  return sum(mask, axes, dtype=dtypes.default_int_dtype() if dtype is None else dtype,
             keepdims=keepdims)


def _arg_reduce(name, lax_fn, a, axis, keepdims):
  util.check_arraylike(name, a)
  a = util.asarray_operand(a)
  aval = core.get_aval(a)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
    if aval.size == 0:
      raise ValueError(f"attempt to get {name} of an empty sequence")
  ndim = len(core.get_aval(a).shape)
  axis = util.canonicalize_axis(axis, ndim)
  if core.get_aval(a).shape[axis] == 0:
    raise ValueError(f"attempt to get {name} of an empty sequence")
  out = lax_fn(a, axis, dtypes.default_int_dtype())
  if keepdims:
    out = lax_numpy.expand_dims(out, axis if np.ndim(a) == aval.ndim else tuple(range(aval.ndim)))
  return out


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def argmax(a, axis=None, out=None, keepdims=None):
  """Index of the first maximum along ``axis`` (flattened when ``axis`` is None)."""
  return _arg_reduce("argmax", lax_reductions.argmax, a, axis, keepdims)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'))
def argmin(a, axis=None, out=None, keepdims=None):
  """Index of the first minimum along ``axis`` (flattened when ``axis`` is None)."""
  return _arg_reduce("argmin", lax_reductions.argmin, a, axis, keepdims)


def _cumulative(name, lax_fn, a, axis, dtype, promote_integers=False):
  util.check_arraylike(name, a)
  a = util.asarray_operand(a)
  aval = core.get_aval(a)
  if axis is None:
    a = lax_numpy.ravel(a)
    axis = 0
  axis = util.canonicalize_axis(axis, len(core.get_aval(a).shape))
  result_dtype = _reduction_dtype(aval.dtype, dtype, promote_integers)
  if result_dtype == np.bool_ and name in ("cumsum", "cumprod", "cumulative_sum", "cumulative_prod"):
    result_dtype = dtypes.default_int_dtype()
  operand = lax_elementwise._convert_element_type(a, result_dtype, False)
  return lax_fn(operand, axis)


def _cumsum(name, a, axis, dtype):
  return _cumulative(name, lambda x, ax: lax_reductions.cumsum(x, ax), a, axis, dtype)


def _cumprod(name, a, axis, dtype):
  return _cumulative(name, lambda x, ax: lax_reductions.cumprod(x, ax), a, axis, dtype)


@util.jit_when_tracing(static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
  """Cumulative sum along ``axis`` (flattened when ``axis`` is None)."""
  return _cumsum("cumsum", a, axis, dtype)


@util.jit_when_tracing(static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
  """Cumulative product along ``axis``."""
  return _cumprod("cumprod", a, axis, dtype)


def _include_initial(out, axis, initial):
  """``out`` with ``initial`` prepended along ``axis`` (``include_initial=True``)."""
  shape = list(core.get_aval(out).shape)
  shape[axis] = 1
  init = lax_structural.broadcast_in_dim(
      lax_elementwise._convert_element_type(initial, np.dtype(out.dtype), False), tuple(shape), ())
  return lax_structural.concatenate([init, out], axis)


def _cumulative_array_api(name, lax_fn, x, axis, dtype, include_initial, initial,
                          promote_integers):
  util.check_arraylike(name, x)
  x = util.asarray_operand(x)
  ndim = core.get_aval(x).ndim
  if ndim == 0:
    raise ValueError(f"The input must be non-scalar to take a {name.replace('_', ' ')}, "
                     "however a scalar value or scalar array was given.")
  if axis is None:
    if ndim > 1:
      raise ValueError(f"The input array has rank {ndim}, however axis was not set to an "
                       "explicit value. The axis argument is only optional for one-dimensional "
                       "arrays.")
    axis = 0
  axis = util.canonicalize_axis(axis, ndim)
  if name == "cumulative_sum":
    out = _cumsum_with_promotion(x, axis, dtype)
  else:  # JAX stages cumulative_prod as no jit equation of its own
    out = _cumulative(name, lax_fn, x, axis, dtype, promote_integers)
  return _include_initial(out, axis, initial) if include_initial else out


@util.jit_when_tracing(static_argnames=("axis", "dtype"))
def _cumsum_with_promotion(x, axis, dtype):
  return _cumulative("cumulative_sum", lambda v, ax: lax_reductions.cumsum(v, ax), x, axis, dtype,
                     True)



def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False):
  """Cumulative sum along ``axis`` (optional for 1-D input), with a leading 0 when
  ``include_initial`` (``jnp.cumulative_sum``, the array API's)."""
  return _cumulative_array_api("cumulative_sum", lambda v, ax: lax_reductions.cumsum(v, ax), x,
                               axis, dtype, include_initial, 0, True)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False):
  """Cumulative product along ``axis`` (optional for 1-D input), with a leading 1 when
  ``include_initial`` (``jnp.cumulative_prod``, the array API's)."""
  return _cumulative_array_api("cumulative_prod", lambda v, ax: lax_reductions.cumprod(v, ax), x,
                               axis, dtype, include_initial, 1, False)
