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
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import structural as lax_structural
from axle._src.numpy import lax_numpy
from axle._src.numpy import ufuncs
from axle._src.numpy import util

try:
  from axle._src import _host_kernels  # the optional C module (setup.py)
except ImportError:  # built without a C compiler: the NumPy versions below answer instead
  _host_kernels = None


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


# ---------------------------------------------------------------------------
# Eager shortcuts: a 1-D Array with a host value, reduced whole, as JAX's compiled reduction
# would reduce it. Each returns None where it does not apply (the compiled program runs then).

_F32 = np.dtype(np.float32)
_float32 = np.float32
_POSITIVE_ZERO = np.float32(0.0)
_SMALLEST_NORMAL = float(np.finfo(np.float32).tiny)
_accumulate = np.add.accumulate
_zeros = np.zeros
_context = core._context
_eval_trace = core.eval_trace
_special_checks = eval_interpreter.special_checks
_eager_mode = eval_interpreter.eager_mode
_exponent_bound = eval_interpreter.exponent_bound
_quiet_floating_point = lax_convert._ignore_fp
_result_avals: dict = {}


def _host_result(scalar, dtype: np.dtype, keepdims) -> Array:
  """A reduction's NumPy scalar result as an Array (of shape (1,) with ``keepdims``)."""
  aval = _result_avals.get(dtype if not keepdims else (dtype, 1))
  if aval is None:
    aval = core.ShapedArray((1,) if keepdims else (), dtype)
    _result_avals[dtype if not keepdims else (dtype, 1)] = aval
  if keepdims:
    return Array(np.full((1,), scalar, dtype), False, aval)
  return Array(scalar, False, aval)


def _host_vector(a, axis, keepdims):
  """The NumPy value of ``a`` when it is an eager, strongly typed 1-D Array with a host value,
  reduced over ``axis`` None, 0 or -1, in exact eager mode without NaN/inf checks; else None."""
  if type(a) is not Array or _context.trace is not _eval_trace:
    return None
  value = a._value
  aval = a._aval
  if value is None or len(aval.shape) != 1 or aval.weak_type or type(value) is not np.ndarray \
      or not (axis is None or (type(axis) is int and (axis == 0 or axis == -1))) \
      or not (keepdims is None or type(keepdims) is bool) \
      or _special_checks.enabled or not _eager_mode.exact:
    return None
  return value


_window_layouts: dict = {}


def _xla_vector_sum(value: np.ndarray):
  """The float32 sum of a 1-D ``value`` (2 to 4095 elements, no subnormal partial sums) in XLA
  CPU's order (``lax.reductions._xla_cpu_float32_sum``): left to right up to 32 elements, else
  windows of 32 (zero-padded evenly, the extra zero on the right) summed left to right, then the
  window sums the same way. A NumPy scalar; -0.0 where XLA gives +0.0 (its accumulator starts
  there)."""
  n = value.shape[0]
  if n <= 32:
    return _accumulate(value)[-1]
  layout = _window_layouts.get(n)
  if layout is None:
    windows = -(-n // 32)
    left = (windows * 32 - n) // 2
    layout = _window_layouts[n] = (windows, windows * 32, left, left + n)
  windows, size, left, right = layout
  padded = _zeros((windows, 32), _F32)
  padded.reshape(size)[left:right] = value
  _accumulate(padded, 1, None, padded)  # (each window's running sums, in place)
  if windows <= 4:  # NumPy's float32 scalars add in float32: the window sums, left to right
    total = padded[0, 31] + padded[1, 31]
    if windows > 2:
      total = total + padded[2, 31]
      if windows > 3:
        total = total + padded[3, 31]
    return total
  sums = padded[:, 31]
  if windows > 32:
    return _xla_vector_sum(sums.copy())
  return _accumulate(sums)[-1]


_c_sum = None if _host_kernels is None else _host_kernels.float32_sum


def _host_sum(value, scale=None):
  """XLA's float32 sum of a host vector (times the float32 ``scale``, a Python float), or None
  (other dtypes, lengths beyond the model, partial sums that could be subnormal, NaN results
  whose bits depend on XLA's operand order)."""
  if value.dtype is not _F32:
    return None
  n = value.shape[0]
  if not 0 < n < 4096:
    return None
  if _c_sum is not None:
    total = _c_sum(value) if scale is None else _c_sum(value, scale)
    if total is not NotImplemented:
      return None if total is None else _float32(total)
  exponent = _exponent_bound(value)
  # Every partial sum is a multiple of the smallest element's quantum, 2**(exponent - 24): with
  # exponent >= -102 none is subnormal (XLA would flush it to zero).
  if exponent is None or exponent < -102:
    return None
  if n == 1:
    return value[0]
  with _quiet_floating_point():  # XLA does not warn on overflow
    total = _xla_vector_sum(value)
  if total == 0.0:
    total = _POSITIVE_ZERO
  elif total != total:
    return None
  if scale is None:
    return total
  # The double product of two float32 numbers is exact: rounding it once gives float32's.
  product = _float32(float(total) * scale)
  if product != 0 and abs(product) < _SMALLEST_NORMAL:
    return None  # (XLA flushes a subnormal product to zero)
  return product


_float32_arguments: dict = {}  # a dtype argument -> whether it names float32


def _is_float32(dtype) -> bool:
  if dtype is None:
    return True
  try:
    return _float32_arguments[dtype]
  except (KeyError, TypeError):
    pass
  try:
    answer = np.dtype(dtype) == _F32
  except TypeError:
    return False
  try:
    if len(_float32_arguments) < 256:
      _float32_arguments[dtype] = answer
  except TypeError:  # unhashable
    pass
  return answer


_c_matrix_sum = None if _host_kernels is None else _host_kernels.float32_matrix_sum
_matrix_result_avals: dict = {}
_empty = np.empty


def _host_matrix_sum(a, axis, keepdims, mean: bool):
  """The eager float32 sum (or mean) of a 2-D Array with a host value over one axis, in the
  order XLA's compiled program sums that shape (the C module's ``float32_matrix_sum``); None
  for other arrays and arguments, and for the shapes whose order is not known here."""
  if _c_matrix_sum is None or type(a) is not Array or _context.trace is not _eval_trace:
    return None
  value = a._value
  aval = a._aval
  if value is None or len(aval.shape) != 2 or aval.weak_type or type(value) is not np.ndarray \
      or value.dtype is not _F32 or _special_checks.enabled or not _eager_mode.exact \
      or not (keepdims is None or type(keepdims) is bool):
    return None
  if type(axis) is tuple and len(axis) == 1:
    axis = axis[0]
  if type(axis) is not int or not -2 <= axis <= 1:
    return None
  axis %= 2
  rows, columns = aval.shape
  if aval.shape[axis] < 2:
    return None  # (XLA reads a single element as it is, a -0.0 included)
  elements = rows * columns
  # (see _host_kernels.c: the shapes where XLA's loops were measured, and their two forms)
  if axis == 0:
    if elements < 4096 and rows <= 32:
      tiled = False
    elif 4096 <= elements <= 32768 and rows <= 256:
      tiled = True
    else:
      return None
  else:
    if elements < 4096:
      tiled = False
    elif columns <= 500 and elements <= 65536:
      tiled = True
    else:
      return None
  out = _empty(columns if axis == 0 else rows, _F32)
  scale = reciprocal_of(aval.shape[axis]) if mean else 1.0
  if not _c_matrix_sum(value, axis, tiled, scale, out):
    return None
  shape = ((1, columns) if axis == 0 else (rows, 1)) if keepdims else out.shape
  result_aval = _matrix_result_avals.get(shape)
  if result_aval is None:
    if len(_matrix_result_avals) > 1024:
      _matrix_result_avals.clear()
    result_aval = _matrix_result_avals[shape] = core.ShapedArray(shape, _F32)
  return Array(out.reshape(shape) if keepdims else out, False, result_aval)


def _sum_shortcut(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
                  promote_integers=True):
  if initial is not None or where is not None or out is not None or not _is_float32(dtype):
    return None
  if axis is not None and type(a) is Array and len(a._aval.shape) == 2:
    return _host_matrix_sum(a, axis, keepdims, False)
  value = _host_vector(a, axis, keepdims)
  if value is None:
    return None
  total = _host_sum(value)
  return None if total is None else _host_result(total, _F32, keepdims)


_reciprocals: dict = {}  # n -> float32(1 / n), as a Python float


def _mean_shortcut(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
  if where is not None or out is not None or not _is_float32(dtype):
    return None
  if axis is not None and type(a) is Array and len(a._aval.shape) == 2:
    return _host_matrix_sum(a, axis, keepdims, True)
  value = _host_vector(a, axis, keepdims)
  if value is None:
    return None
  # XLA compiles the division by the count to a multiplication by its float32 reciprocal
  mean = _host_sum(value, reciprocal_of(value.shape[0]))
  return None if mean is None else _host_result(mean, _F32, keepdims)


def reciprocal_of(n: int) -> float:
  """float32(1) / float32(n), as a Python float (memoised)."""
  reciprocal = _reciprocals.get(n)
  if reciprocal is None:
    reciprocal = _reciprocals[n] = float(_float32(1.0) / _float32(n))
  return reciprocal


def _ordered_vector(a, axis, keepdims):
  """The host value of ``a`` for the max/min/argmax/argmin shortcuts: a real, nonempty vector
  (float32 or wider without subnormals, which XLA reads as zeros; or integers), else None."""
  value = _host_vector(a, axis, keepdims)
  if value is None or not value.shape[0]:
    return None
  kind = value.dtype.kind
  if kind == "f":
    if value.dtype.itemsize < 4 or _exponent_bound(value) is None:
      return None
  elif kind not in "iu":
    return None
  return value


_c_extremum = None if _host_kernels is None else _host_kernels.float32_extremum


def _extremum_shortcut(reduce, maximum: bool):
  def shortcut(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    if initial is not None or where is not None or out is not None:
      return None
    if _c_extremum is not None:
      value = _host_vector(a, axis, keepdims)
      if value is not None and value.dtype is _F32:  # (the C module: one pass, checks included)
        result = _c_extremum(value, maximum)
        if result is not NotImplemented:
          return None if result is None else _host_result(_float32(result), _F32, keepdims)
    value = _ordered_vector(a, axis, keepdims)
    if value is None:
      return None
    result = reduce(value)
    # NaN (which NaN XLA returns depends on its order) and zeros (XLA's max prefers +0.0, min
    # -0.0) are left to the compiled program.
    if result != result or (result == 0 and value.dtype.kind == "f"):
      return None
    return _host_result(result, value.dtype, keepdims)
  return shortcut


def _arg_shortcut(method: str):
  """The eager shortcut of argmax/argmin, computed by the NumPy array method ``method`` (the
  method skips ``np.argmax``'s dispatch)."""
  def shortcut(a, axis=None, out=None, keepdims=None):
    value = _ordered_vector(a, axis, keepdims)
    if value is None or out is not None:
      return None
    index = int(getattr(value, method)())
    if value.dtype.kind == "f":
      element = value[index]
      if element != element:
        return None  # NaN: the compiled program's comparator decides
    dtype = dtypes.default_int_dtype()
    return _host_result(dtype.type(index), dtype, keepdims)
  return shortcut


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


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype', 'out', 'keepdims', 'promote_integers'),
                       eager_shortcut=_sum_shortcut)
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


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'),
                       eager_shortcut=_extremum_shortcut(np.maximum.reduce, True))
def max(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
  """Maximum over ``axis``; NaN propagates (``jnp.max``)."""
  _check_nonempty("max", a, axis, initial)
  return _reduce("max", lax_reductions.reduce_max, a, axis, None, keepdims, initial, where,
                 upcast=False)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'),
                       eager_shortcut=_extremum_shortcut(np.minimum.reduce, False))
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


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'dtype', 'out', 'keepdims'),
                       eager_shortcut=_mean_shortcut)
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


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'),
                       eager_shortcut=_arg_shortcut("argmax"))
def argmax(a, axis=None, out=None, keepdims=None):
  """Index of the first maximum along ``axis`` (flattened when ``axis`` is None)."""
  return _arg_reduce("argmax", lax_reductions.argmax, a, axis, keepdims)


@util.jit_when_tracing(inline=True, static_argnames=('axis', 'out', 'keepdims'),
                       eager_shortcut=_arg_shortcut("argmin"))
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
