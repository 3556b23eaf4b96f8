"""Array creation in axle.numpy: array, asarray, zeros, ones, full, arange, ..._like, eye."""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import structural as lax_structural
from axle._src.numpy import util
from axle._src.xla.spmd_jit import with_out_sharding

_scalar_types = (bool, int, float, complex)


def _leaves_of_sequence(obj, out):
  """Collects the leaves of nested lists/tuples (for dtype inference)."""
  if isinstance(obj, (list, tuple)):
    for item in obj:
      _leaves_of_sequence(item, out)
  else:
    out.append(obj)
  return out


def array(object, dtype=None, copy: bool = True, order=None, ndmin: int = 0, *, device=None):
  """Creates an Array from an array, scalar or nested sequence (``jnp.array``).

  Python scalars give weakly typed arrays when no dtype is given; with 64-bit types disabled,
  64-bit NumPy inputs become 32-bit (an explicit 64-bit ``dtype`` warns).
  """
  if order is not None and order != "K" and order != "C":
    raise NotImplementedError("Only implemented for order='K'")
  if object is None:
    raise ValueError("None is not a valid value for jnp.array")
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "array")
    dtype = dtypes.canonicalize_dtype(dtype)
  weak_type = dtype is None and dtypes.is_weakly_typed(object)

  if hasattr(object, "__jax_array__") and not isinstance(object, (Array, Tracer)):
    object = object.__jax_array__()

  if isinstance(object, Tracer):
    # As JAX: a copy (copy=True, jnp.array's default) is staged, then the conversion.
    out = lax_elementwise.copy_p.bind(object) if copy else object
    out = lax_elementwise._convert_element_type(
        out, object.aval.dtype if dtype is None else dtype, weak_type)
  elif isinstance(object, (list, tuple)):
    leaves = _leaves_of_sequence(object, [])
    if any(leaf is None for leaf in leaves):
      raise ValueError("None is not a valid value for jnp.array")
    if any(isinstance(leaf, Tracer) for leaf in leaves):
      if dtype is None:  # every element becomes the (strongly typed) common dtype first
        dtype = dtypes.canonicalize_dtype(dtypes.result_type(*leaves)) if leaves else None
      out = _stack_traced(object, dtype)
    else:
      if dtype is None:
        if leaves:
          dtype = dtypes.result_type(*leaves)
        else:
          dtype = dtypes.default_float_dtype()
      value = np.array([_to_numpy_nested(x) for x in object] if object else object,
                       dtype=dtypes.canonicalize_dtype(dtype))
      out = Array(value)
  else:
    if isinstance(object, Array):
      value = object._host_value()
      src_dtype = object.dtype
    elif isinstance(object, _scalar_types):
      value = dtypes.scalar_to_array(object, dtype, explicit=True)
      src_dtype = value.dtype
    else:
      try:
        value = np.asarray(object)
      except Exception:
        raise TypeError(f"Unexpected input type for array: {type(object)}") from None
      if value.dtype.kind in "OUSMm" or value.dtype.type is np.void:
        raise TypeError(f"Value {object!r} with dtype {value.dtype} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")
      src_dtype = dtypes.canonicalize_dtype(value.dtype)
    target = dtype if dtype is not None else src_dtype
    # Arrays are immutable, so only an Array's own value may be shared; a caller's NumPy array
    # is copied (as JAX copies it to the device), or mutating it would change the Array.
    must_copy = copy or not isinstance(object, Array)
    np_value = np.array(value, dtype=target, copy=True) if must_copy else np.asarray(value, dtype=target)
    out = Array(np_value, weak_type)
  if ndmin > np.ndim(out):  # leading unit axes, added with broadcast_in_dim as JAX adds them
    out = lax_structural.expand_dims(out, tuple(range(ndmin - np.ndim(out))))
  return out


object_dtype = np.dtype(object)


def _to_numpy_nested(x):
  if isinstance(x, (list, tuple)):
    return [_to_numpy_nested(i) for i in x]
  if isinstance(x, Array):
    return x._host_value()
  return x


def _stack_traced(object, dtype):
  if isinstance(object, (list, tuple)):
    if not object:
      return array(np.zeros((0,), dtype or dtypes.default_float_dtype()))
    # element by element: converted, then given its new leading axis (the order JAX stages);
    # jnp.stack's steps, spelled in lax (jnp.stack is built on this module)
    parts = [lax_structural.expand_dims(_stack_traced(x, dtype), (0,)) for x in object]
    shapes = {tuple(np.shape(p)) for p in parts}
    if len(shapes) != 1:
      raise ValueError("All input arrays must have the same shape.")
    if len(parts) == 1:
      return asarray(parts[0])
    return lax_structural.concatenate(util.promote_dtypes(*parts), 0)
  if isinstance(object, Tracer) and dtype is not None and (
      object.aval.weak_type or object.aval.dtype != dtype):
    return lax_elementwise._convert_element_type(object, dtype, False)
  return array(object, dtype=dtype, copy=False)  # (JAX's asarray of each element: no copy)


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
  """Converts ``a`` to an Array without copying when it already is one (``jnp.asarray``)."""
  if dtype is None and isinstance(a, (Array, Tracer)) and not a.aval.weak_type:
    return a
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "asarray")
    dtype = dtypes.canonicalize_dtype(dtype)
  return array(a, dtype=dtype, copy=bool(copy), order=order)


def arraylike_operands(fun_name: str, *args):
  """``args`` checked as array-likes (lists raise TypeError, as in JAX) and turned into Arrays
  (tracers pass through); one argument gives one value, several a list."""
  util.check_arraylike(fun_name, *args)
  out = [a if isinstance(a, (Array, Tracer)) else asarray(util.asarray_operand(a))
         for a in args]
  return out[0] if len(out) == 1 else out


def broadcast_to(array_, shape):
  """``array_`` broadcast to ``shape`` with NumPy's rules (``jnp.broadcast_to``)."""
  a = util.asarray_operand(array_)
  a_shape = util.shape_of(a)
  if a_shape == shape and isinstance(a, (Array, Tracer)):
    return a  # nothing to broadcast
  shape = core.canonicalize_shape(shape)
  if a_shape == shape:
    return asarray(a)
  if len(shape) < len(a_shape) or any(d != 1 and d != s for d, s in zip(a_shape[::-1], shape[::-1])):
    raise ValueError(f"Incompatible shapes for broadcasting: {a_shape} and requested shape {shape}")
  # One broadcast_in_dim, which also stretches unit dimensions (as JAX's broadcast_to).
  lead = len(shape) - len(a_shape)
  return lax_structural.broadcast_in_dim(a, shape, tuple(range(lead, len(shape))))


# Eager creation: (function, its arguments, the default dtypes) -> (aval, value) the general
# path gave them, when the value is cheap to keep (a broadcast scalar, or at most 64 KiB). A call
# seen before returns a new Array sharing that value (Array values are never written).
_created: dict = {}
_context = core._context
_eval_trace = core.eval_trace
_fill_types = frozenset({bool, int, float})


def _remembered_creation(key, general):
  """``general()`` (a creation function's general path), or, outside any trace, an Array sharing
  the value it gave before for the same ``key``."""
  if _context.trace is not _eval_trace:
    return general()
  try:
    entry = _created.get(key)
  except TypeError:  # an unhashable argument (a list shape)
    return general()
  if entry is not None:
    return Array(entry[1], False, entry[0])
  out = general()
  if type(out) is Array:
    value = out._value
    if type(value) is np.ndarray and (value.nbytes <= 65536 or not any(value.strides)):
      if len(_created) > 1024:
        _created.clear()
      _created[key] = (out._aval, value)
  return out


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
  """An array of zeros (``jnp.zeros``); dtype defaults to float32 (float64 with x64)."""
  if device is None and out_sharding is None:
    return _remembered_creation(("zeros", shape, dtype, dtypes.default_float_dtype()),
                                lambda: full(shape, 0, dtype or dtypes.default_float_dtype()))
  return with_out_sharding(full(shape, 0, dtype or dtypes.default_float_dtype()), out_sharding)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
  """An array of ones (``jnp.ones``)."""
  if device is None and out_sharding is None:
    return _remembered_creation(("ones", shape, dtype, dtypes.default_float_dtype()),
                                lambda: full(shape, 1, dtype or dtypes.default_float_dtype()))
  return with_out_sharding(full(shape, 1, dtype or dtypes.default_float_dtype()), out_sharding)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
  """Like ``zeros``: axle arrays are never uninitialised."""
  return with_out_sharding(zeros(shape, dtype), out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
  """An array of ``shape`` filled with ``fill_value`` (``jnp.full``)."""
  if device is None and out_sharding is None and type(fill_value) in _fill_types:
    # (the fill's type decides the dtype and weak type; its text tells -0.0 from 0.0)
    return _remembered_creation(("full", shape, fill_value, type(fill_value), repr(fill_value),
                                 dtype, dtypes.default_float_dtype(),
                                 dtypes.default_int_dtype()),
                                lambda: _full(shape, fill_value, dtype))
  return _full(shape, fill_value, dtype, out_sharding)


def _full(shape, fill_value, dtype=None, out_sharding=None):
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "full")
  if np.ndim(fill_value) == 0:
    shape = core.canonicalize_shape(shape) if not isinstance(shape, (int, np.integer)) else (int(shape),)
    return with_out_sharding(lax_structural.full(shape, fill_value, dtype), out_sharding)
  return with_out_sharding(broadcast_to(array(fill_value, dtype=dtype, copy=False), shape), out_sharding)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  """Zeros with the shape and dtype of ``a`` (``jnp.zeros_like``)."""
  if type(a) is Array and device is None and out_sharding is None:
    return _remembered_creation(("zeros_like", a._aval, dtype, shape, dtypes.default_float_dtype()),
                                lambda: full_like(a, 0, dtype, shape))
  return with_out_sharding(full_like(a, 0, dtype, shape), out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  """Ones with the shape and dtype of ``a`` (``jnp.ones_like``)."""
  if type(a) is Array and device is None and out_sharding is None:
    return _remembered_creation(("ones_like", a._aval, dtype, shape, dtypes.default_float_dtype()),
                                lambda: full_like(a, 1, dtype, shape))
  return with_out_sharding(full_like(a, 1, dtype, shape), out_sharding)


def empty_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
  """Like ``zeros_like``: axle arrays are never uninitialised."""
  return with_out_sharding(zeros_like(a, dtype, shape), out_sharding)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
  """An array like ``a`` filled with ``fill_value`` (``jnp.full_like``)."""
  if isinstance(a, Tracer) and shape is None and np.ndim(fill_value) == 0:
    if dtype is not None:
      dtypes.check_user_dtype_supported(dtype, "full_like")
    return with_out_sharding(lax_structural.full_like(a, fill_value, dtype), out_sharding)
  aval = core.get_aval(a) if not hasattr(a, "shape") or not hasattr(a, "dtype") else None
  a_shape = aval.shape if aval else tuple(a.shape)
  a_dtype = aval.dtype if aval else dtypes.canonicalize_dtype(a.dtype)
  weak = (aval.weak_type if aval else getattr(a, "weak_type", False)) and dtype is None
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "full_like")
  out = lax_structural.full(a_shape if shape is None else core.canonicalize_shape(shape), fill_value,
                            dtype or a_dtype)
  if weak:
    out = lax_elementwise._convert_element_type(out, out.dtype, True)
  return with_out_sharding(out, out_sharding)


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
  """Evenly spaced values in [start, stop) (``jnp.arange``); ``arange(n)`` is an iota."""
  if type(start) is int and stop is None and step is None and device is None \
      and out_sharding is None:
    return _remembered_creation(("arange", start, dtype, dtypes.default_int_dtype(),
                                 dtypes.default_float_dtype()),
                                lambda: _arange(start, dtype=dtype))
  return _arange(start, stop, step, dtype, out_sharding)


def _arange(start, stop=None, step=None, dtype=None, out_sharding=None):
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "arange")
  named = (("stop", start),) if stop is None and step is None else (
      ("start", start), ("stop", stop), ("step", step))
  for name, value in named:
    if isinstance(value, Tracer):
      core.concrete_or_error(None, value, f"It arose in the jnp.arange argument '{name}'")
  if stop is None and step is None:
    start_dtype = dtypes.dtype(start)
    if dtype is None:
      dtype = dtypes.canonicalize_dtype(start_dtype if not np.issubdtype(start_dtype, np.bool_)
                                        else dtypes.default_int_dtype())
    size = int(np.ceil(start)) if not np.issubdtype(start_dtype, np.integer) else int(start)
    return with_out_sharding(lax_structural.iota(dtypes.canonicalize_dtype(dtype), max(size, 0)),
                             out_sharding)
  if dtype is None:
    dtype = dtypes.result_type(start, *(x for x in (stop, step) if x is not None))
  dtype = dtypes.canonicalize_dtype(dtype)
  start_value = np.asarray(start).item() if isinstance(start, Array) else start
  stop_value = np.asarray(stop).item() if isinstance(stop, Array) else stop
  step_value = np.asarray(step).item() if isinstance(step, Array) else step
  if np.issubdtype(dtype, np.integer) and any(
      isinstance(v, (float, complex, np.inexact)) and v != int(np.real(v))
      for v in (start_value, stop_value, step_value) if v is not None):
    # NumPy's own rule for fractional bounds with an integer dtype.
    return with_out_sharding(Array(np.arange(start_value, stop_value, step_value, dtype=dtype)),
                             out_sharding)
  # As JAX: iota(size) * step + start, computed in the result dtype.
  size = len(np.arange(np.real(start_value), np.real(stop_value),
                       None if step_value is None else np.real(step_value)))
  out = lax_structural.iota(dtype, size)
  if step_value is not None:
    out = lax_elementwise.mul(_arange_scalar(step_value, dtype), out)
    out = lax_elementwise.add(_arange_scalar(start_value, dtype), out)
  elif start_value != 0:
    out = lax_elementwise.add(_arange_scalar(start_value, dtype), out)
  return with_out_sharding(out, out_sharding)


def _arange_scalar(value, dtype):
  """``value`` as a scalar of ``dtype``, integers wrapping as C casts do (-3 -> 253 in uint8)."""
  if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
    value = np.array(int(np.real(value))).astype(dtype)
  else:
    value = np.array(value).astype(dtype)
  return lax_elementwise._convert_element_type(value, dtype, False)


def eye(N, M=None, k: int = 0, dtype=None, *, device=None):
  """A 2-D array with ones on the ``k``-th diagonal (``jnp.eye``)."""
  dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
  if core._context.trace is core.eval_trace:
    return Array(np.eye(N, M, k, dtype=dtype))
  # Traced: staged as JAX stages it (iota == iota + k, converted), so that XLA simplifies
  # ``x * eye`` to a select (+0.0 off the diagonal, never -0.0) as it does for JAX.
  N = core.concrete_or_error(int, N, "The N argument of jnp.eye must be static.")
  M = N if M is None else core.concrete_or_error(int, M, "The M argument of jnp.eye must be static.")
  if not isinstance(k, core.Tracer):  # (a traced k is added as it is, as in JAX)
    k = core.concrete_or_error(int, k, "The k argument of jnp.eye must be static.")
  int_dtype = np.dtype(np.int32)
  rows = lax_structural.broadcasted_iota(int_dtype, (N, M), 0)
  cols = lax_structural.broadcasted_iota(int_dtype, (N, M), 1)
  rows = lax_elementwise.add(rows, lax_elementwise._convert_element_type(k, int_dtype, False))
  return lax_elementwise._convert_element_type(lax_elementwise.eq(rows, cols), np.dtype(dtype),
                                               False)


def identity(n, dtype=None):
  """The ``n`` x ``n`` identity matrix (``jnp.identity``)."""
  return eye(n, dtype=dtype)


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
  """An array from the bytes of ``buffer`` (``jnp.frombuffer``)."""
  return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def _impure_message(name: str, what: str) -> str:
  return (f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
          f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
          f"instead, although care should be taken if np.{name} is used within a jax "
          f"transformations because of its potential side-effect of consuming the {what} object; "
          "for more information see https://docs.jax.dev/en/latest/notebooks/"
          "Common_Gotchas_in_JAX.html#pure-functions")


def fromiter(*args, **kwargs):
  """Not supported, as in JAX (impure): use ``jnp.asarray(np.fromiter(...))``."""
  raise NotImplementedError(_impure_message("fromiter", "iterable"))


def fromfile(*args, **kwargs):
  """Not supported, as in JAX (impure): use ``jnp.asarray(np.fromfile(...))``."""
  raise NotImplementedError(_impure_message("fromfile", "file"))


def fromstring(string, dtype=float, count: int = -1, *, sep: str):
  """An array from the numbers in a text string (``jnp.fromstring``)."""
  return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def from_dlpack(x, /, *, device=None, copy=None):
  """An array from an object supporting the DLPack protocol (``jnp.from_dlpack``)."""
  return asarray(np.from_dlpack(x))
