"""Shape manipulation, selection and products in axle.numpy.

The subset here is what Array methods and the core examples need; the full
NumPy surface grows in the numpy issue.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.api import jit
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import dot as lax_dot
from axle._src.lax import elementwise as lax
from axle._src.lax import structural as lax_structural
from axle._src.numpy import util
from axle._src.numpy.creation import array, asarray


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


def broadcast_to(array_, shape):
  """``array_`` broadcast to ``shape`` with NumPy's rules (``jnp.broadcast_to``)."""
  a = util.asarray_operand(array_)
  a_shape = _shape(a)
  if a_shape == shape and isinstance(a, (Array, Tracer)):
    return a  # nothing to broadcast
  shape = core.canonicalize_shape(shape)
  if a_shape == shape:
    return asarray(a)
  if len(shape) < len(a_shape) or any(d != 1 and d != s for d, s in zip(a_shape[::-1], shape[::-1])):
    raise ValueError(f"Incompatible shapes for broadcasting: {a_shape} and requested shape {shape}")
  lead = len(shape) - len(a_shape)
  kept = tuple(i for i, d in enumerate(a_shape) if d == shape[lead + i])
  squeezed = a if len(kept) == len(a_shape) else lax_structural.squeeze(
      a, tuple(i for i in range(len(a_shape)) if i not in kept))
  return lax_structural.broadcast_in_dim(squeezed, shape, tuple(lead + i for i in kept))


def broadcast_arrays(*args):
  """The arguments broadcast against each other."""
  shape = util.broadcast_shapes(*(_shape(a) for a in args))
  return [broadcast_to(a, shape) for a in args]


def concatenate(arrays, axis: int | None = 0, dtype=None):
  """Joins arrays along an existing axis (``jnp.concatenate``)."""
  if not len(arrays):
    raise ValueError("Need at least one array to concatenate.")
  if axis is None:
    return concatenate([ravel(a) for a in arrays], 0, dtype)
  arrays = util.promote_dtypes(*arrays) if len(arrays) > 1 else [util.asarray_operand(arrays[0])]
  if dtype is not None:
    arrays = [lax._convert_element_type(a, dtypes.canonicalize_dtype(dtype), False) for a in arrays]
  ndim = np.ndim(arrays[0])
  if ndim == 0:
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = util.canonicalize_axis(axis, ndim)
  if len(arrays) == 1:
    return asarray(arrays[0])
  return lax_structural.concatenate(arrays, axis)


def stack(arrays, axis: int = 0, dtype=None):
  """Joins arrays along a new axis (``jnp.stack``)."""
  if not len(arrays):
    raise ValueError("Need at least one array to stack.")
  shapes = {tuple(np.shape(a)) for a in arrays}
  if len(shapes) != 1:
    raise ValueError("All input arrays must have the same shape.")
  ndim = np.ndim(arrays[0])
  axis = util.canonicalize_axis(axis, ndim + 1)
  return concatenate([expand_dims(a, axis) for a in arrays], axis, dtype)


def copy(a, order=None):
  """A copy of ``a`` (``jnp.copy``; a ``copy`` equation in a jaxpr)."""
  util.check_arraylike("copy", a)
  return lax.copy_p.bind(util.asarray_operand(a))


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
  return lax.convert_element_type(x, dtype)


@util.jit_when_tracing
def _where(condition, x, y):
  condition, = util.promote_dtypes(condition)
  if np.dtype(condition.dtype) != np.bool_:
    condition = lax.ne(condition, lax._convert_element_type(0, condition.dtype, False))
  x, y = util.promote_dtypes(x, y)
  shapes = (_shape(condition), _shape(x), _shape(y))
  if not shapes[0] == shapes[1] == shapes[2]:
    shape = util.broadcast_shapes(*shapes)
    condition, x, y = (broadcast_to(a, shape) for a in (condition, x, y))
  return lax.select(condition, x, y)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
  """``x`` where ``condition`` is true, else ``y`` (``jnp.where``). With one argument, the
  indices of the nonzero elements (needs ``size`` under jit)."""
  if x is None and y is None:
    return nonzero(condition, size=size, fill_value=fill_value)
  util.check_arraylike("where", condition, x, y)  # a missing x or y is refused here, as in JAX
  return _where(condition, x, y)


def nonzero(a, *, size=None, fill_value=None):
  """Indices of the nonzero elements, one array per axis (concrete input unless ``size``)."""
  from axle._src.numpy import selection
  return selection.nonzero(a, size=size, fill_value=fill_value)


@util.jit_when_tracing
def clip(arr, min=None, max=None, *, a=None, a_min=None, a_max=None):
  """``arr`` limited to [min, max] elementwise (``jnp.clip``)."""
  from axle._src.numpy import ufuncs
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
  from axle._src.numpy import ufuncs
  util.check_arraylike("round", a)
  a = util.asarray_operand(a)
  dtype = np.dtype(core.get_aval(a).dtype)
  if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
    if decimals < 0:
      raise NotImplementedError("integer np.round not implemented for decimals < 0")
    return asarray(a)

  def _round_float(x):
    if decimals == 0:
      return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    factor = lax._convert_element_type(10.0 ** decimals, x.dtype, False)
    return lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)

  if np.issubdtype(dtype, np.complexfloating):
    return lax.complex(_round_float(lax.real(a)), _round_float(lax.imag(a)))
  return _round_float(a)


around = round


def dot(a, b, *, precision=None, preferred_element_type=None):
  """Dot product of two arrays (``jnp.dot``): a matrix product for 2-D, a sum over the last
  axis of ``a`` and the second-to-last of ``b`` in general."""
  util.check_arraylike("dot", a, b)
  a, b = util.promote_dtypes(a, b)
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or a.dtype)
  a_ndim, b_ndim = np.ndim(a), np.ndim(b)
  if a_ndim == 0 or b_ndim == 0:
    return lax.mul(*util.promote_shapes("dot", a, b))
  contract_b = 0 if b_ndim == 1 else b_ndim - 2
  dimension_numbers = (((a_ndim - 1,), (contract_b,)), ((), ()))
  out = lax_dot.dot_general(a, b, dimension_numbers, precision=precision,
                            preferred_element_type=out_dtype)
  return out


def matmul(a, b, *, precision=None, preferred_element_type=None):
  """Matrix product with NumPy's broadcasting of batch dimensions (``a @ b``)."""
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
  a_batch, b_batch = a_shape[:-2], b_shape[:-2]
  if not a_batch and not b_batch:
    dimension_numbers = (((a_ndim - 1,), (0 if b_is_vec else b_ndim - 2,)), ((), ()))
  else:
    batch_shape = util.broadcast_shapes(a_batch, b_batch)
    if not a_is_vec:
      a = broadcast_to(a, batch_shape + a_shape[-2:])
    if not b_is_vec:
      b = broadcast_to(b, batch_shape + b_shape[-2:])
    nb = len(batch_shape)
    batch = tuple(range(nb))
    if a_is_vec:
      dimension_numbers = (((0,), (nb,)), ((), ()))
    elif b_is_vec:
      dimension_numbers = (((nb + 1,), (0,)), ((), ()))
    else:
      dimension_numbers = (((nb + 1,), (nb,)), (batch, batch))
  # The dimension numbers are canonical already: bind dot_general directly.
  return lax_dot.dot_general_p.bind(a, b, dimension_numbers=dimension_numbers,
                                    precision=lax_dot.canonicalize_precision(precision),
                                    preferred_element_type=out_dtype, out_sharding=None)


def vdot(a, b, *, precision=None, preferred_element_type=None):
  """Dot product of flattened arrays, conjugating the first."""
  from axle._src.numpy import ufuncs
  if np.issubdtype(np.dtype(core.get_aval(a).dtype), np.complexfloating):
    a = ufuncs.conj(a)
  return dot(ravel(a), ravel(b), precision=precision, preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
  """Outer product of two vectors (inputs are flattened)."""
  from axle._src.numpy import ufuncs
  return ufuncs.multiply(ravel(a)[:, None], ravel(b)[None, :])


def inner(a, b, *, precision=None, preferred_element_type=None):
  """Sum product over the last axes of ``a`` and ``b``."""
  if np.ndim(a) == 0 or np.ndim(b) == 0:
    from axle._src.numpy import ufuncs
    return ufuncs.multiply(a, b)
  a, b = util.promote_dtypes(a, b)
  out_dtype = dtypes.canonicalize_dtype(preferred_element_type or a.dtype)
  return lax_dot.dot_general(a, b, (((np.ndim(a) - 1,), (np.ndim(b) - 1,)), ((), ())),
                             precision=precision, preferred_element_type=out_dtype)


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
  """Discrete linear convolution of two 1-D arrays (``jnp.convolve``)."""
  return _conv1d("convolve", a, v, mode, flip=True, precision=precision,
                 preferred_element_type=preferred_element_type)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
  """Cross-correlation of two 1-D arrays (``jnp.correlate``)."""
  return _conv1d("correlate", a, v, mode, flip=False, precision=precision,
                 preferred_element_type=preferred_element_type)


def _conv1d(name, a, v, mode, flip, precision, preferred_element_type):
  from axle._src.lax import conv as lax_conv
  from axle._src.numpy import ufuncs
  util.check_arraylike(name, a, v)
  if np.ndim(a) != 1 or np.ndim(v) != 1:
    raise ValueError(f"{name}() only support 1-dimensional inputs.")
  a, v = util.promote_dtypes_inexact(a, v)
  if len(a) == 0 or len(v) == 0:
    raise ValueError(f"{name}: inputs cannot be empty, got shapes {np.shape(a)} and {np.shape(v)}.")
  n = builtins.max(len(a), len(v))
  m = builtins.min(len(a), len(v))
  swapped = len(v) > len(a)
  if swapped:
    a, v = v, a
  if flip:
    v = lax_structural.rev(v, (0,))
  if np.issubdtype(np.dtype(v.dtype), np.complexfloating) and not flip:
    v = ufuncs.conj(v)
  if mode == "valid":
    padding = [(0, 0)]
  elif mode == "same":
    padding = [(m // 2, m - m // 2 - 1)]
  elif mode == "full":
    padding = [(m - 1, m - 1)]
  else:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  result = lax_conv.conv_general_dilated(
      reshape(a, (1, 1, n)), reshape(v, (1, 1, m)), (1,), padding, precision=precision,
      preferred_element_type=preferred_element_type)
  result = result[0, 0, :]
  if swapped and not flip:
    result = lax_structural.rev(result, (0,))
  return result
