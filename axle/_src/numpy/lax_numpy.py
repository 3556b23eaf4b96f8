"""Shape manipulation, selection and products in axle.numpy.

The subset here is what Array methods and the core examples need; the full
NumPy surface grows in the numpy issue.
"""
from __future__ import annotations

import builtins
import functools
import math
import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src.api import jit
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import structural as lax_structural
from axle._src.lax import structural_extra as lax_structural_extra
from axle._src.lax.convolution import conv_general_dilated
from axle._src.lax.contractions import canonicalize_precision, dot_general, dot_general_p
from axle._src.numpy import ufuncs
from axle._src.numpy import util
from axle._src.vmap import vmap
from axle._src.numpy.creation import (arange, array, arraylike_operands, asarray, broadcast_to, full,
                                      zeros)
from axle._src.xla import spmd_jit


def _shape(x):
  return tuple(np.shape(x)) if not isinstance(x, (Array, Tracer)) else x.shape


def reshape(a, shape=None, order: str = "C", *, newshape=None, copy=None):
  """``a`` with a new shape holding the same data (``jnp.reshape``); one size may be -1."""
  if shape is None:
    shape = newshape
  util.check_arraylike("reshape", a)
  a = util.asarray_operand(a)
  if order not in ("C", "F"):
    raise NotImplementedError(f"np.reshape order={order} is not implemented.")
  old_shape = _shape(a)
  shape = _compute_newshape(old_shape, shape)
  if order == "F":
    # Column-major: reshape the reversed dimensions to the reversed shape, then transpose back.
    dims = tuple(range(len(old_shape) - 1, -1, -1))
    out = lax_structural.reshape_p.bind(a, new_sizes=shape[::-1], dimensions=dims, sharding=None)
    return transpose(out) if len(shape) > 1 else out
  if shape == old_shape:
    return a if isinstance(a, (Array, Tracer)) else asarray(a)
  # The shape is already canonical and checked: bind directly.
  return lax_structural.reshape_p.bind(a, new_sizes=shape, dimensions=None, sharding=None)


def _compute_newshape(old_shape: tuple[int, ...], shape) -> tuple[int, ...]:
  """The requested shape as a tuple of ints with a -1 inferred; JAX's errors otherwise."""
  requested = shape
  if type(shape) is tuple and all(type(d) is int and d >= 0 for d in shape):
    if math.prod(shape) == math.prod(old_shape):
      return shape  # the common case: nothing to infer or convert
  if isinstance(shape, Tracer) or (isinstance(shape, (tuple, list))
                                   and any(isinstance(d, Tracer) for d in shape)):
    core.canonicalize_shape(shape)  # raises JAX's "Shapes must be 1D sequences ..." TypeError
  if isinstance(shape, (int, np.integer)) or (not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0):
    shape = (shape,)
  shape = tuple(core.concrete_or_error(operator.index, d, "The shape argument of reshape must be static.")
                for d in shape)
  size = math.prod(old_shape)
  if builtins.sum(1 for d in shape if d == -1) > 1:
    raise ValueError("can only specify one unknown dimension")
  if -1 in shape:
    known = math.prod(d for d in shape if d != -1)
    if known == 0 or size % known:
      raise TypeError(f"cannot reshape array of shape {old_shape} (size {size}) into shape "
                      f"{requested} because the product of specified axis sizes ({known}) does "
                      f"not evenly divide {size}")
    shape = tuple(size // known if d == -1 else d for d in shape)
  if math.prod(shape) != size:
    raise TypeError(f"cannot reshape array of shape {old_shape} (size {size}) into shape "
                    f"{requested} (size {math.prod(shape)})")
  return shape


def ravel(a, order: str = "C"):
  """``a`` flattened to one dimension (``jnp.ravel``)."""
  return reshape(a, (np.size(a) if not isinstance(a, (Array, Tracer)) else a.size,), order)


def transpose(a, axes=None):
  """``a`` with its axes permuted (reversed by default) (``jnp.transpose``)."""
  util.check_arraylike("transpose", a)
  a = util.asarray_operand(a)
  ndim = len(_shape(a))
  if axes is None:
    axes = tuple(range(ndim - 1, -1, -1))
  else:
    axes = tuple(util.canonicalize_axis(i, ndim) for i in axes)
    if sorted(axes) != list(range(ndim)):
      raise ValueError(f"axes {axes} don't match array of dimension {ndim}")
  return lax_structural.transpose(a, axes)


def matrix_transpose(x, /):
  """Swaps the last two axes (``x.mT``)."""
  ndim = np.ndim(x)
  if ndim < 2:
    raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={ndim}")
  axes = (*range(ndim - 2), ndim - 1, ndim - 2)
  return lax_structural.transpose(x, axes)


def swapaxes(a, axis1: int, axis2: int):
  """``a`` with two axes exchanged."""
  ndim = np.ndim(a)
  perm = list(range(ndim))
  axis1, axis2 = util.canonicalize_axis(axis1, ndim), util.canonicalize_axis(axis2, ndim)
  perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
  return lax_structural.transpose(a, tuple(perm))


def moveaxis(a, source, destination):
  """``a`` with axes moved to new positions."""
  ndim = np.ndim(a)
  source = util.canonicalize_axes(source, ndim)
  destination = util.canonicalize_axes(destination, ndim)
  perm = [i for i in range(ndim) if i not in source]
  for dest, src in sorted(zip(destination, source)):
    perm.insert(dest, src)
  return lax_structural.transpose(a, tuple(perm))


def squeeze(a, axis=None):
  """``a`` without (some of) its size-1 axes (``jnp.squeeze``)."""
  a = util.asarray_operand(a)
  shape = _shape(a)
  if axis is None:
    axes = tuple(i for i, d in enumerate(shape) if d == 1)
  else:
    axes = util.canonicalize_axes(axis, len(shape))
    for i in axes:
      if shape[i] != 1:
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to one, "
                         f"got shape={shape} and dimensions={axes}")
  if not axes:
    return asarray(a)
  return lax_structural.squeeze(a, axes)


def expand_dims(a, axis):
  """``a`` with new size-1 axes at positions ``axis`` (``jnp.expand_dims``)."""
  a = util.asarray_operand(a)
  axes = axis if isinstance(axis, (tuple, list)) else (axis,)
  out_ndim = np.ndim(a) + len(axes)
  axes = tuple(sorted(util.canonicalize_axis(i, out_ndim) for i in axes))
  return lax_structural.expand_dims(a, axes)


def broadcast_arrays(*args):
  """The arguments broadcast against each other."""
  shape = util.broadcast_shapes(*(_shape(a) for a in args))
  return [broadcast_to(a, shape) for a in args]


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype'))
def concatenate(arrays, axis: int | None = 0, dtype=None):
  """Joins arrays along an existing axis (``jnp.concatenate``)."""
  if isinstance(arrays, (Array, Tracer, np.ndarray)):
    return _concatenate_array(arrays, axis, dtype)
  if not len(arrays):
    raise ValueError("Need at least one array to concatenate.")
  if axis is None:
    return concatenate([ravel(a) for a in arrays], 0, dtype)
  arrays = util.promote_dtypes(*arrays) if len(arrays) > 1 else [util.asarray_operand(arrays[0])]
  if dtype is not None:
    arrays = [lax_elementwise._convert_element_type(a, dtypes.canonicalize_dtype(dtype), False) for a in arrays]
  ndim = np.ndim(arrays[0])
  if ndim == 0:
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = util.canonicalize_axis(axis, ndim)
  if len(arrays) == 1:
    return asarray(arrays[0])
  return lax_structural.concatenate(arrays, axis)


def _concatenate_array(arrays, axis, dtype):
  # One array holding the pieces along its leading axis: JAX joins them with one reshape
  # (whose ``dimensions`` moves the leading axis next to ``axis``), not a concatenate.
  arrays = asarray(arrays)
  if dtype is not None:
    arrays = lax_elementwise._convert_element_type(arrays, dtypes.canonicalize_dtype(dtype), False)
  shape = _shape(arrays)
  if len(shape) == 0:
    raise ValueError("Need at least one array to concatenate.")
  if axis is None:
    return ravel(arrays)
  if len(shape) == 1:
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = util.canonicalize_axis(axis, len(shape) - 1)
  dims = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, len(shape)))
  new_shape = shape[1:axis + 1] + (shape[0] * shape[axis + 1],) + shape[axis + 2:]
  return lax_structural.reshape(arrays, new_shape, dims)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype'))
def stack(arrays, axis: int = 0, dtype=None):
  """Joins arrays along a new axis (``jnp.stack``): one ``stack`` equation, as in JAX."""
  if not len(arrays):
    raise ValueError("Need at least one array to stack.")
  if isinstance(arrays, (Array, Tracer, np.ndarray)):
    arrays = asarray(arrays)
    axis = util.canonicalize_axis(axis, np.ndim(arrays))
    return concatenate(expand_dims(arrays, axis + 1), axis=axis, dtype=dtype)
  util.check_arraylike("stack", *arrays)
  shapes = [tuple(np.shape(a)) for a in arrays]
  if len({len(s) for s in shapes}) != 1:
    raise ValueError("Cannot stack arrays with different numbers of dimensions: got "
                     f"{', '.join(map(str, shapes))}.")
  if len(set(shapes)) != 1:
    raise ValueError(f"All input arrays must have the same shape. Got {', '.join(map(str, shapes))}.")
  axis = util.canonicalize_axis(axis, len(shapes[0]) + 1)
  arrays = util.promote_dtypes(*arrays)
  if dtype is not None:
    dtype = dtypes.canonicalize_dtype(dtype)
    arrays = [lax_elementwise._convert_element_type(a, dtype, False) for a in arrays]
  return lax_structural_extra.stack(arrays, axis)


def copy(a, order=None):
  """A copy of ``a`` (``jnp.copy``; a ``copy`` equation in a jaxpr)."""
  util.check_arraylike("copy", a)
  return lax_elementwise.copy_p.bind(util.asarray_operand(a))


def astype(x, dtype, /, *, copy: bool = False, device=None):
  """``x`` converted to ``dtype`` (``jnp.astype`` / ``x.astype``)."""
  dtypes.check_user_dtype_supported(dtype, "astype")
  dtype = dtypes.canonicalize_dtype(dtype)
  x = util.asarray_operand(x)
  if np.issubdtype(np.dtype(core.get_aval(x).dtype), np.complexfloating) and not np.issubdtype(
      dtype, np.complexfloating):
    import warnings
    warnings.warn("Casting from complex to real dtype will discard the imaginary part.",
                  np.exceptions.ComplexWarning, stacklevel=2)
  return lax_elementwise.convert_element_type(x, dtype)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  """``x`` where ``condition`` is true, else ``y`` (``jnp.where``). With one argument, the
  indices of the nonzero elements (needs ``size`` under jit)."""
  if x is None and y is None:
    return nonzero(condition, size=size, fill_value=fill_value)
  key = _host_where_key(condition, x, y)  # (Arrays and Python numbers only: arraylike)
  if key is None:
    util.check_arraylike("where", condition, x, y)  # a missing x or y is refused here, as in JAX
    return ufuncs._where(condition, x, y)
  out_aval = _host_where_avals.get(key)
  if out_aval is None:
    out = ufuncs._where(condition, x, y)
    if len(_host_where_avals) > 4096:
      _host_where_avals.clear()
    _host_where_avals[key] = out._aval
    return out
  dtype = out_aval.dtype
  if not (_converts_exactly(x, dtype) and _converts_exactly(y, dtype)):
    return ufuncs._where(condition, x, y)
  # Selection moves bits (XLA keeps even subnormals), so NumPy gives XLA's answer: the operands
  # converted to the result's dtype as jnp promotes them, then picked.
  x = np.asarray(x._value, dtype) if type(x) is Array else _where_scalar(x, dtype)
  y = np.asarray(y._value, dtype) if type(y) is Array else _where_scalar(y, dtype)
  return Array(np.where(condition._value, x, y), False, out_aval)


_where_scalars: dict = {}  # (number, its type, its sign, dtype) -> read-only 0-d array


def _where_scalar(number, dtype) -> np.ndarray:
  """A Python number as a 0-d array of ``dtype`` (memoised: NumPy's where takes a 0-d array
  faster than a Python number)."""
  key = (number, type(number), math.copysign(1.0, number), dtype)
  value = _where_scalars.get(key)
  if value is None:
    if len(_where_scalars) > 1024:
      _where_scalars.clear()
    value = _where_scalars[key] = np.asarray(number, dtype)
    value.flags.writeable = False
  return value


# (condition's aval, x's aval or Python type, y's) -> the aval of jnp.where's result, for
# host values (see _host_where_key)
_host_where_avals: dict = {}
_where_scalar_types = (float, int)
_ONE_ROUNDING_TARGETS = frozenset(
    np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _converts_exactly(operand, dtype) -> bool:
  """Whether NumPy converts ``operand`` (a host Array or Python scalar) to ``dtype`` as XLA's
  ``convert_element_type`` would: nothing to convert, or integers, booleans and Python scalars
  to float32/64 or complex (one rounding in both). Narrower floats (a Python float reaches them
  through float32 in jnp) and integer results of Python scalars (overflow errors) are left
  to jnp."""
  if type(operand) is Array:
    operand_dtype = operand._aval.dtype
    return operand_dtype == dtype or (operand_dtype.kind in "biu"
                                      and dtype in _ONE_ROUNDING_TARGETS)
  return dtype in _ONE_ROUNDING_TARGETS


def _host_where_key(condition, x, y):
  """The signature under which ``where(condition, x, y)`` may select on the host: outside any
  trace, a boolean Array with a host value, and Arrays with host values or Python floats or
  small ints. None otherwise."""
  if (type(condition) is not Array or condition._value is None
      or condition._aval.dtype != np.bool_ or core._context.trace is not core.eval_trace
      or eval_interpreter.special_checks.enabled
      or condition._value.size > lax_elementwise.HOST_SELECT_LIMIT):
    return None  # (NumPy's where branches on each element: XLA is faster on large arrays)
  key = [condition._aval]
  for operand in (x, y):
    if type(operand) is Array:
      if operand._value is None:
        return None
      key.append(operand._aval)
    elif type(operand) in _where_scalar_types and -0x80000000 <= operand < 0x80000000:
      key.append(type(operand))
    else:
      return None
  return tuple(key)


def _clip_bound(bound, dtype: np.dtype):
  """A Python-number bound of ``jnp.clip`` as ``dtype``, with its frexp exponent, when it is a
  normal nonzero float there (nothing XLA flushes), or with None for a zero (which may tie with
  the operand's zeros); else None."""
  if type(bound) is not float and type(bound) is not int:
    return None
  # (-0.0 == 0.0: the sign tells them apart)
  key = (bound, dtype) if bound else (bound, dtype, math.copysign(1.0, bound))
  converted = _clip_bounds.get(key, _MISSING)
  if converted is not _MISSING:
    return converted
  with lax_convert._ignore_fp():
    value = dtype.type(bound)
  magnitude = abs(float(value))
  value = np.array(value)  # (a 0-d array: NumPy's ufuncs take it faster than a scalar)
  value.flags.writeable = False
  if magnitude == 0.0:
    converted = (value, None)
  elif eval_interpreter.SMALLEST_NORMAL[dtype] <= magnitude < math.inf:
    converted = (value, math.frexp(magnitude)[1])
  else:
    converted = None
  if len(_clip_bounds) > 1024:
    _clip_bounds.clear()
  _clip_bounds[key] = converted
  return converted


_clip_bounds: dict = {}  # (bound, dtype[, sign of a zero bound]) -> _clip_bound's answer
_MISSING = object()
_CLIP_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
# Larger operands run on XLA (on operands that are host results: clip(x + 1, -0.5, 0.5) 38 us
# vs 70 at 32,768 elements, 68 vs 51 at 65,536; on device operands XLA wins from 16,384).
HOST_CLIP_LIMIT = 32768


def _clip_shortcut(arr, min=None, max=None, *, a=None, a_min=None, a_max=None):
  """Eager ``jnp.clip`` of a strongly typed float32/float64 Array with a host value between
  Python-number bounds that are normal and nonzero: NumPy's maximum and minimum give XLA's
  bits there unless the input holds a subnormal (flushed by XLA) or NaN (whose sign XLA's max
  may change); those and anything else go to the compiled program."""
  if type(arr) is not Array or a is not None or a_min is not None or a_max is not None \
      or (min is None and max is None):
    return None
  value = arr._value
  aval = arr._aval
  dtype = aval.dtype
  if value is None or type(value) is not np.ndarray or aval.weak_type or dtype not in _CLIP_DTYPES \
      or eval_interpreter.special_checks.enabled or not eval_interpreter.eager_mode.exact \
      or value.size > HOST_CLIP_LIMIT:
    return None
  exponent = eval_interpreter.exponent_bound(value) if value.size else None
  if exponent is None:
    return None
  nan, zero = ufuncs.nan_and_zero(value)
  if nan:
    return None  # (the result is NaN exactly where the operand is)
  out = value
  for bound, ufunc in ((min, np.maximum), (max, np.minimum)):
    if bound is not None:
      converted = _clip_bound(bound, dtype)
      if converted is None:
        return None
      if converted[1] is None:
        # a zero bound: without zeros in the operand there is no tie between -0.0 and +0.0
        # (which XLA orders and NumPy does not), and the zeros of the result are the bound's
        has_zero = zero if out is value else np.count_nonzero(out) != out.size
        if has_zero:
          return None
      elif converted[1] < exponent:
        exponent = converted[1]
      out = ufunc(out, converted[0]) if out is value else ufunc(out, converted[0], out=out)
  eval_interpreter.remember_exponent_bound(out, exponent)
  return Array(out, False, aval)


@util.jit_when_tracing(eager_shortcut=_clip_shortcut)
def clip(arr, min=None, max=None, *, a=None, a_min=None, a_max=None):
  """``arr`` limited to [min, max] elementwise (``jnp.clip``)."""
  if a is not None:
    arr = a
  min = a_min if min is None else min
  max = a_max if max is None else max
  util.check_arraylike("clip", arr)
  if min is not None:
    arr = ufuncs.maximum(min, arr)
  if max is not None:
    arr = ufuncs.minimum(max, arr)
  return asarray(arr)


@util.jit_when_tracing(static_argnames=("decimals",))
def round(a, decimals: int = 0, out=None):
  """``a`` rounded to ``decimals`` decimals, halves to even (``jnp.round``)."""
  util.check_arraylike("round", a)
  a = util.asarray_operand(a)
  dtype = np.dtype(core.get_aval(a).dtype)
  if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
    if decimals < 0:
      raise NotImplementedError("integer np.round not implemented for decimals < 0")
    return asarray(a)

  def _round_float(x):
    if decimals == 0:
      return lax_elementwise.round(x, lax_elementwise.RoundingMethod.TO_NEAREST_EVEN)
    factor = lax_elementwise._convert_element_type(10.0 ** decimals, x.dtype, False)
    return lax_elementwise.div(lax_elementwise.round(lax_elementwise.mul(x, factor), lax_elementwise.RoundingMethod.TO_NEAREST_EVEN), factor)

  if np.issubdtype(dtype, np.complexfloating):
    return lax_elementwise.complex(_round_float(lax_elementwise.real(a)), _round_float(lax_elementwise.imag(a)))
  return _round_float(a)


@util.jit_when_tracing(static_argnames=("decimals",))
def around(a, decimals: int = 0, out=None):
  """``a`` rounded to ``decimals`` decimals (``jnp.around``, an alias of ``jnp.round``)."""
  return round(a, decimals, out)


@util.jit_when_tracing(inline=True, static_argnames=('precision', 'preferred_element_type', 'out_sharding'))
def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """Dot product of two arrays (``jnp.dot``): a matrix product for 2-D, a sum over the last
  axis of ``a`` and the second-to-last of ``b`` in general. ``out_sharding`` lays the result
  out over the mesh."""
  if out_sharding is not None:
    with spmd_jit.out_sharding_given():
      return spmd_jit.reshard(dot(a, b, precision=precision,
                                  preferred_element_type=preferred_element_type), out_sharding)
  util.check_arraylike("dot", a, b)
  a, b = util.promote_dtypes(a, b)
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or a.dtype)
  a_ndim, b_ndim = np.ndim(a), np.ndim(b)
  if a_ndim == 0 or b_ndim == 0:
    return lax_elementwise.mul(*util.promote_shapes("dot", a, b))
  contract_b = 0 if b_ndim == 1 else b_ndim - 2
  dimension_numbers = (((a_ndim - 1,), (contract_b,)), ((), ()))
  out = dot_general(a, b, dimension_numbers, precision=precision,
                            preferred_element_type=out_dtype)
  return out


@util.jit_when_tracing(inline=True, static_argnames=('precision', 'preferred_element_type', 'out_sharding'))
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
  """Matrix product with NumPy's broadcasting of batch dimensions (``a @ b``)."""
  if out_sharding is not None:
    with spmd_jit.out_sharding_given():
      return spmd_jit.reshard(matmul(a, b, precision=precision,
                                     preferred_element_type=preferred_element_type), out_sharding)
  util.check_arraylike("matmul", a, b)
  a, b = util.promote_dtypes(a, b)
  a_shape, b_shape = _shape(a), _shape(b)
  a_ndim, b_ndim = len(a_shape), len(b_shape)
  if a_ndim == 0 or b_ndim == 0:
    raise ValueError(f"matmul operand must have at least one dimension, got shapes "
                     f"{a_shape} and {b_shape}")
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or a.dtype)
  a_is_vec, b_is_vec = a_ndim == 1, b_ndim == 1
  if a_shape[-1] != (b_shape[0] if b_is_vec else b_shape[-2]):
    raise TypeError(f"dot_general requires contracting dimensions to have the same shape, got "
                    f"{(a_shape[-1],)} and {((b_shape[0] if b_is_vec else b_shape[-2]),)}.")
  # JAX's program: batch dimensions of size 1 on one side are squeezed out (the other side's
  # become free dimensions of the dot), equal ones are dot_general batch dimensions, and a
  # transpose (then expand_dims for dimensions of size 1 on both sides) restores the order.
  a_batch = a_shape[:-2] if not a_is_vec else ()
  b_batch = b_shape[:-2] if not b_is_vec else ()
  num_batch = builtins.max(len(a_batch), len(b_batch))
  a_batch = (None,) * (num_batch - len(a_batch)) + tuple(a_batch)
  b_batch = (None,) * (num_batch - len(b_batch)) + tuple(b_batch)
  a_squeeze, b_squeeze, a_batch_dims, b_batch_dims = [], [], [], []
  idx_batch, idx_a_other, idx_b_other, idx_neither = [], [], [], []
  for i, (ba, bb) in enumerate(zip(a_batch, b_batch)):
    a_seen = len(idx_batch) + len(idx_a_other) + len(a_squeeze)
    b_seen = len(idx_batch) + len(idx_b_other) + len(b_squeeze)
    if ba is None:
      idx_b_other.append(i)
    elif bb is None:
      idx_a_other.append(i)
    elif ba == 1 and bb == 1:
      idx_neither.append(i)
      a_squeeze.append(a_seen)
      b_squeeze.append(b_seen)
    elif ba == 1:
      idx_b_other.append(i)
      a_squeeze.append(a_seen)
    elif bb == 1:
      idx_a_other.append(i)
      b_squeeze.append(b_seen)
    elif ba == bb:
      a_batch_dims.append(len(idx_batch) + len(idx_a_other))
      b_batch_dims.append(len(idx_batch) + len(idx_b_other))
      idx_batch.append(i)
    else:
      raise ValueError(f"Incompatible shapes for matmul arguments: {a_shape} and {b_shape}")
  if a_squeeze:
    a = lax_structural.squeeze(a, tuple(a_squeeze))
  if b_squeeze:
    b = lax_structural.squeeze(b, tuple(b_squeeze))
  a_ndim, b_ndim = len(_shape(a)), len(_shape(b))
  dimension_numbers = (((a_ndim - 1,), (b_ndim - 1 - (not b_is_vec),)),
                       (tuple(a_batch_dims), tuple(b_batch_dims)))
  # The dimension numbers are canonical already: bind dot_general directly.
  out = dot_general_p.bind(a, b, dimension_numbers=dimension_numbers,
                           precision=canonicalize_precision(precision),
                           preferred_element_type=out_dtype, out_sharding=None)
  # the dot's dimensions: batch, a's free (batch then row), b's free (batch then column)
  produced = idx_batch + idx_a_other + (["row"] if not a_is_vec else []) + idx_b_other + (
      ["column"] if not b_is_vec else [])
  wanted = [i for i in range(num_batch) if i not in idx_neither] + (
      ["row"] if not a_is_vec else []) + (["column"] if not b_is_vec else [])
  permutation = tuple(produced.index(d) for d in wanted)
  if permutation != tuple(range(len(permutation))):
    out = lax_structural.transpose(out, permutation)
  if idx_neither:
    out = lax_structural.expand_dims(out, tuple(idx_neither))
  return out


@util.jit_when_tracing(inline=True, static_argnames=("precision", "preferred_element_type"))
def vdot(a, b, *, precision=None, preferred_element_type=None):
  """Dot product of flattened arrays, conjugating the first."""
  if np.issubdtype(np.dtype(core.get_aval(a).dtype), np.complexfloating):
    a = ufuncs.conj(a)
  return dot(ravel(a), ravel(b), precision=precision, preferred_element_type=preferred_element_type)


@util.jit_when_tracing(inline=True)
def outer(a, b, out=None):
  """Outer product of two vectors (inputs are flattened)."""
  return ufuncs.multiply(ravel(a)[:, None], ravel(b)[None, :])


@util.jit_when_tracing(inline=True, static_argnames=("precision", "preferred_element_type"))
def inner(a, b, *, precision=None, preferred_element_type=None):
  """Sum product over the last axes of ``a`` and ``b``."""
  if np.ndim(a) == 0 or np.ndim(b) == 0:
    return ufuncs.multiply(a, b)
  a, b = util.promote_dtypes(a, b)
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or a.dtype)
  return dot_general(a, b, (((np.ndim(a) - 1,), (np.ndim(b) - 1,)), ((), ())),
                             precision=precision, preferred_element_type=out_dtype)


@util.jit_when_tracing(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
  """Discrete linear convolution of two 1-D arrays (``jnp.convolve``)."""
  util.check_arraylike("convolve", a, v)
  return _conv(asarray(a), asarray(v), mode=mode, op="convolve", precision=precision,
               preferred_element_type=preferred_element_type)


@util.jit_when_tracing(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
  """Cross-correlation of two 1-D arrays (``jnp.correlate``)."""
  util.check_arraylike("correlate", a, v)
  return _conv(asarray(a), asarray(v), mode=mode, op="correlate", precision=precision,
               preferred_element_type=preferred_element_type)


@util.jit_when_tracing(static_argnames=("axis",))
def _flip(m, axis):
  axes = util.canonicalize_axes(axis, np.ndim(m))
  return lax_structural.rev(m, axes) if axes else m


@util.jit_when_tracing(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
  if np.ndim(x) != 1 or np.ndim(y) != 1:
    raise ValueError(f"{op}() only support 1-dimensional inputs.")
  x, y = util.promote_dtypes_inexact(x, y)
  if len(x) == 0 or len(y) == 0:
    raise ValueError(f"{op}: inputs cannot be empty, got shapes {np.shape(x)} and {np.shape(y)}.")
  reverse_out = False
  if op == "correlate":
    y = ufuncs.conj(y)
    if len(x) < len(y):
      x, y = y, x
      reverse_out = True
  else:
    if len(x) < len(y):
      x, y = y, x
    y = _flip(y, None)
  m = np.shape(y)[0]
  if mode == "valid":
    padding = [(0, 0)]
  elif mode == "same":
    padding = [(m // 2, m - m // 2 - 1)]
  elif mode == "full":
    padding = [(m - 1, m - 1)]
  else:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  result = conv_general_dilated(expand_dims(x, (0, 1)), expand_dims(y, (0, 1)), (1,), padding,
                                precision=precision, preferred_element_type=preferred_element_type)
  return result[0, 0, ::-1] if reverse_out else result[0, 0, :]


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
  """``num`` evenly spaced values from ``start`` to ``stop`` (``jnp.linspace``).

  Staged as JAX stages it, one ``jit[name=_linspace]`` equation computing
  ``start * (1 - t) + stop * t`` with ``t = iota / div`` in the result's precision (``stop``
  appended when ``endpoint``); eagerly that program runs compiled, so the values are XLA's."""
  num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.linspace")
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.linspace")
  start, stop = (asarray(v) if isinstance(v, (list, tuple)) else v for v in (start, stop))
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  else:
    dtypes.check_user_dtype_supported(dtype, "linspace")
  dtype = dtypes.canonicalize_dtype(dtype)
  return _linspace(start, stop, num=num, endpoint=bool(endpoint), retstep=bool(retstep),
                   dtype=dtype, axis=axis)


@util.jit_when_tracing(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
  compute = np.dtype(dtypes.to_inexact_dtype(dtype))
  real = np.dtype(compute.type(0).real.dtype)
  start = lax_elementwise._convert_element_type(util.asarray_operand(start), compute, False)
  stop = lax_elementwise._convert_element_type(util.asarray_operand(stop), compute, False)
  bounds_shape = list(np.broadcast_shapes(np.shape(start), np.shape(stop)))
  wide_start = broadcast_to(start, tuple(bounds_shape))
  wide_stop = broadcast_to(stop, tuple(bounds_shape))
  axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
  bounds_shape.insert(axis, 1)
  div = (num - 1) if endpoint else num
  step = None
  if num > 1:
    step = ufuncs.true_divide(ufuncs.subtract(stop, start), div)
    iota_shape = [1] * len(bounds_shape)
    iota_shape[axis] = div
    t = ufuncs.true_divide(reshape(lax_structural.iota(real, div), tuple(iota_shape)), div)
    t = lax_elementwise._convert_element_type(t, compute, False)
    out = ufuncs.add(ufuncs.multiply(reshape(wide_start, tuple(bounds_shape)), ufuncs.subtract(1, t)),
                     ufuncs.multiply(reshape(wide_stop, tuple(bounds_shape)), t))
    if endpoint:
      out = concatenate([out, expand_dims(wide_stop, axis)], axis)
  elif num == 1:
    if not endpoint:
      step = ufuncs.subtract(stop, start)
    out = reshape(wide_start, tuple(bounds_shape))
  else:
    empty_shape = list(np.shape(wide_start))
    empty_shape.insert(axis, 0)
    out = lax_structural.full(tuple(empty_shape), 0, compute)
  if np.issubdtype(dtype, np.integer) and not np.issubdtype(compute, np.integer):
    out = lax_elementwise.floor(out)
  out = lax_elementwise._convert_element_type(out, dtype, False)
  if retstep:
    if step is None:
      step = lax_structural.full(np.shape(wide_start), np.nan, compute)
    return out, step
  return out


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
  """``base ** linspace(start, stop, num)`` (``jnp.logspace``): one ``jit[name=_logspace]``
  equation, as in JAX."""
  num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.logspace")
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.logspace")
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  else:
    dtypes.check_user_dtype_supported(dtype, "logspace")
  return _logspace(start, stop, base, num=num, endpoint=bool(endpoint),
                   dtype=dtypes.canonicalize_dtype(dtype), axis=axis)


@util.jit_when_tracing(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, base, num, endpoint, dtype, axis):
  compute = np.dtype(dtypes.to_inexact_dtype(dtype))
  start = lax_elementwise._convert_element_type(util.asarray_operand(start), compute, False)
  stop = lax_elementwise._convert_element_type(util.asarray_operand(stop), compute, False)
  lin = _linspace(start, stop, num=num, endpoint=endpoint, retstep=False, dtype=compute, axis=axis)
  base = lax_elementwise._convert_element_type(util.asarray_operand(base), compute, False)
  return lax_elementwise._convert_element_type(ufuncs.power(base, lin), dtype, False)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
  """``num`` values spaced evenly on a log scale from ``start`` to ``stop`` (``jnp.geomspace``):
  one ``jit[name=_geomspace]`` equation, as in JAX."""
  num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.geomspace")
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.geomspace")
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "geomspace")
    dtype = dtypes.canonicalize_dtype(dtype)
  return _geomspace(start, stop, num=num, endpoint=bool(endpoint), dtype=dtype, axis=axis)


@util.jit_when_tracing(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num, endpoint, dtype, axis):
  compute = np.dtype(dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
  start = lax_elementwise._convert_element_type(util.asarray_operand(start), compute, False)
  stop = lax_elementwise._convert_element_type(util.asarray_operand(stop), compute, False)
  sign = ufuncs.sign(start)
  res = _logspace(ufuncs.log10(ufuncs.true_divide(start, sign)),
                  ufuncs.log10(ufuncs.true_divide(stop, sign)), 10.0,
                  num=num, endpoint=endpoint, dtype=compute, axis=0)
  res = ufuncs.multiply(sign, res)
  if axis != 0:
    res = moveaxis(res, 0, axis)
  return lax_elementwise._convert_element_type(res, dtype or compute, False)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
  """Coordinate arrays from 1-D coordinate vectors (``jnp.meshgrid``); ``indexing='xy'`` swaps
  the first two axes (Cartesian), ``'ij'`` does not."""
  util.check_arraylike("meshgrid", *xi)
  args = [asarray(x) for x in xi]
  if not copy:
    raise ValueError("jax.numpy.meshgrid only supports copy=True")
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  if any(np.ndim(a) != 1 for a in args):
    raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                     f"{[np.shape(a) for a in args]}")
  # As JAX does for 'xy': the first two inputs swap places, the grids are built in 'ij' order,
  # and the first two results swap back.
  swap = indexing == "xy" and len(args) >= 2
  if swap:
    args[0], args[1] = args[1], args[0]
  shape = [np.shape(a)[0] for a in args]
  outputs = []
  for i, a in enumerate(args):
    if sparse:
      out_shape = [1] * len(args)
      out_shape[i] = shape[i]
    else:
      out_shape = shape
    outputs.append(lax_structural.broadcast_in_dim(a, tuple(out_shape), (i,)))
  if swap:
    outputs[0], outputs[1] = outputs[1], outputs[0]
  return outputs


def _grid_axis(s):
  if not isinstance(s, slice):
    raise TypeError(f"mgrid/ogrid entries must be slices, got {s!r}")
  start = 0 if s.start is None else s.start
  step = 1 if s.step is None else s.step
  stop = s.stop
  for name, value in (("start", start), ("stop", stop), ("step", step)):
    core.concrete_or_error(None, value, f"slice {name} of jnp.mgrid")
  if isinstance(step, complex) or np.iscomplexobj(step):
    return linspace(start, stop, int(abs(step)), dtype=dtypes.to_inexact_dtype(
        dtypes.result_type(start, stop)))
  return arange(start, stop, step)


class _Grid:
  """``mgrid[...]`` (dense) / ``ogrid[...]`` (open): grids from slice syntax; a complex step
  ``5j`` means 5 points with the stop included."""

  def __init__(self, sparse: bool, name: str):
    self.sparse, self.name = sparse, name

  def __getitem__(self, key):
    if isinstance(key, slice):
      return _grid_axis(key)
    axes = [_grid_axis(k) for k in key]
    if not axes:
      return zeros((0,), dtypes.default_int_dtype()) if not self.sparse else []
    axes = util.promote_dtypes(*axes) if len(axes) > 1 else axes
    grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
    if self.sparse:
      return grids
    return stack(grids, 0)


mgrid = _Grid(sparse=False, name="mgrid")
ogrid = _Grid(sparse=True, name="ogrid")


def indices(dimensions, dtype=None, sparse: bool = False):
  """Arrays holding the index along each axis of a grid of shape ``dimensions``
  (``jnp.indices``)."""
  dimensions = core.canonicalize_shape(dimensions, "in jnp.indices")
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "indices")
  dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_int_dtype())
  n = len(dimensions)
  outputs = []
  for i, d in enumerate(dimensions):
    out_shape = [1] * n if sparse else list(dimensions)
    out_shape[i] = d
    outputs.append(lax_structural.broadcast_in_dim(lax_structural.iota(dtype, d),
                                                   tuple(out_shape), (i,)))
  if sparse:
    return tuple(outputs)
  return stack(outputs, 0) if outputs else asarray(np.zeros((0,), dtype))


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """``function`` called on the index grids of ``shape`` (``jnp.fromfunction``): as in JAX,
  ``function`` is mapped with one ``vmap`` per axis over that axis' ``iota``."""
  shape = core.canonicalize_shape(shape, "in jnp.fromfunction")
  dtype = dtypes.canonicalize_dtype(dtype)
  mapped = functools.partial(function, **kwargs) if kwargs else function
  for axis in reversed(range(len(shape))):
    mapped = vmap(mapped, in_axes=tuple(0 if i == axis else None for i in range(len(shape))))
  return mapped(*(lax_structural.iota(dtype, d) for d in shape))


@util.jit_when_tracing
def atleast_1d(*arys):
  """Each argument with at least one dimension (``jnp.atleast_1d``)."""
  util.check_arraylike("atleast_1d", *arys)
  out = [arraylike_operands("atleast_1d", a) for a in arys]
  out = [a if util.ndim_of(a) >= 1 else lax_structural.expand_dims(a, (0,)) for a in out]
  return out[0] if len(out) == 1 else out


@util.jit_when_tracing
def atleast_2d(*arys):
  """Each argument with at least two dimensions (``jnp.atleast_2d``)."""
  util.check_arraylike("atleast_2d", *arys)
  out = [arraylike_operands("atleast_2d", a) for a in arys]
  out = [a if util.ndim_of(a) >= 2 else lax_structural.expand_dims(a, tuple(range(2 - util.ndim_of(a))))
         for a in out]
  return out[0] if len(out) == 1 else out


@util.jit_when_tracing
def atleast_3d(*arys):
  """Each argument with at least three dimensions: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
  (``jnp.atleast_3d``)."""
  util.check_arraylike("atleast_3d", *arys)
  out = []
  for a in arys:
    a = arraylike_operands("atleast_3d", a)
    if util.ndim_of(a) == 0:
      a = lax_structural.expand_dims(a, (0, 1, 2))
    elif util.ndim_of(a) == 1:
      a = lax_structural.expand_dims(a, (0, 2))
    elif util.ndim_of(a) == 2:
      a = lax_structural.expand_dims(a, (2,))
    out.append(a)
  return out[0] if len(out) == 1 else out


def _cumsum_int(a, axis):
  if axis is None:
    a, axis = ravel(a), 0
  return lax_reductions.cumsum(lax_elementwise._convert_element_type(a, dtypes.default_int_dtype(), False),
                               axis)


# jnp.cumsum(a, axis, dtype=int) for nonzero, which sits below numpy.reductions: staged under
# cumsum's name, as JAX's nonzero stages its cumsum calls
_cumsum_int.__name__ = _cumsum_int.__qualname__ = "cumsum"
_cumsum_int = util.jit_when_tracing(static_argnames=("axis",))(_cumsum_int)


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements of ``a``, one int array per axis (``jnp.nonzero``).

  Under ``jit`` pass a static ``size``: the result then has exactly ``size`` entries, padded with
  ``fill_value`` (default 0) or truncated."""
  util.check_arraylike("nonzero", a)
  a = util.asarray_operand(a)
  if not isinstance(a, (Array, Tracer)):
    a = asarray(a)
  shape = util.shape_of(a)
  if len(shape) == 0:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                     "jnp.atleast_1d(scalar).nonzero() instead.")
  mask = ufuncs._to_bool(a)
  if size is None:
    if isinstance(mask, Tracer):
      raise errors.ConcretizationTypeError(
          mask, "The size argument of jnp.nonzero must be statically specified to use "
          "jnp.nonzero within JAX transformations.")
    value = np.asarray(mask._host_value())
    return tuple(Array(i.astype(dtypes.default_int_dtype())) for i in np.nonzero(value))
  size = core.concrete_or_error(operator.index, size,
                                "The size argument of jnp.nonzero must be statically specified.")
  total = core.get_aval(mask).size
  if size == 0 or total == 0:
    fill = 0 if fill_value is None else fill_value
    return tuple(lax_structural.full((size,), fill if np.ndim(fill) == 0 else 0, dtypes.default_int_dtype())
                 for _ in shape)
  # The k-th output position holds the index of the k-th true element: count, for each k, how
  # many prefix sums are <= k.
  # jnp.cumsum(x, dtype=int) in lax terms (reductions is built on this module)
  counts = _cumsum_int(mask, None)
  positions = bincount(counts, length=size)
  flat_indices = _cumsum_int(positions, 0)
  strides = np.cumprod((1,) + shape[::-1][:-1])[::-1] if shape else ()
  out = []
  for stride, dim in zip(strides, shape):
    out.append(ufuncs.remainder(ufuncs.floor_divide(flat_indices, stride), dim))
  if fill_value is not None:
    positions_iota = lax_structural.iota(np.dtype(dtypes.default_int_dtype()), size)
    count = lax_reductions.reduce_sum(
        lax_elementwise._convert_element_type(mask, dtypes.default_int_dtype(), False), tuple(range(len(shape))))
    fill_mask = ufuncs.greater_equal(positions_iota, count)
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
    if len(fills) != len(shape):
      raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; got "
                       f"{fill_value}")
    out = [where(fill_mask, f, o) for f, o in zip(fills, out)]
  return tuple(out)


def bincount(x, weights=None, minlength: int = 0, *, length=None):
  """Counts of each non-negative integer in ``x`` (weighted by ``weights``) (``jnp.bincount``).

  Under ``jit`` pass a static ``length``; values at or beyond it are dropped, negative values
  count as 0."""
  x = arraylike_operands("bincount", x)
  if not dtypes.issubdtype(util.dtype_of(x), np.integer):
    raise TypeError(f"x argument to bincount must have an integer type; got {util.dtype_of(x)}")
  if len(util.shape_of(x)) != 1:
    raise ValueError("only 1-dimensional input supported.")
  minlength = core.concrete_or_error(operator.index, minlength,
                                     "The error occurred because of argument 'minlength' of "
                                     "jnp.bincount.")
  if length is None:
    value = core.concrete_or_error(np.asarray, x, "The error occurred because of argument "
                                   "'x' of jnp.bincount. To avoid this error, pass a static "
                                   "`length` argument.")
    length = builtins.max(minlength, int(value.max()) + 1 if value.size else 0)
  else:
    length = core.concrete_or_error(operator.index, length,
                                    "The error occurred because of argument 'length' of "
                                    "jnp.bincount.")
  if weights is None:
    weights = np.array(1, dtype=dtypes.default_int_dtype())
  else:
    util.check_arraylike("bincount", weights)
    weights = util.asarray_operand(weights)
    if util.shape_of(x) != np.shape(weights):
      raise ValueError("shape of weights must match shape of x.")
  out = lax_structural.full((length,), 0, dtypes.dtype(weights, canonicalize=True))
  return out.at[clip(x, 0)].add(weights, mode="drop")
