"""Array creation in axle.numpy: array, asarray, zeros, ones, full, arange, ..._like, eye."""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import structural as lax_structural

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
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "array")
    dtype = dtypes.canonicalize_dtype(dtype)
  weak_type = dtype is None and dtypes.is_weakly_typed(object)

  if hasattr(object, "__jax_array__") and not isinstance(object, (Array, Tracer)):
    object = object.__jax_array__()

  if isinstance(object, Tracer):
    out = object if dtype is None else lax_elementwise._convert_element_type(object, dtype, False)
    if dtype is None and object.aval.weak_type:
      out = lax_elementwise._convert_element_type(object, object.aval.dtype, weak_type)
  elif isinstance(object, (list, tuple)):
    leaves = _leaves_of_sequence(object, [])
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
      src_dtype = dtypes.python_scalar_dtype(object)
      value = object
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
  if ndmin > np.ndim(out):
    out = lax_structural.reshape(out, (1,) * (ndmin - np.ndim(out)) + tuple(np.shape(out)))
  return out


object_dtype = np.dtype(object)


def _to_numpy_nested(x):
  if isinstance(x, (list, tuple)):
    return [_to_numpy_nested(i) for i in x]
  if isinstance(x, Array):
    return x._host_value()
  return x


def _stack_traced(object, dtype):
  from axle._src.numpy import lax_numpy
  if isinstance(object, (list, tuple)):
    if not object:
      return array(np.zeros((0,), dtype or dtypes.default_float_dtype()))
    # element by element: converted, then given its new leading axis (the order JAX stages)
    parts = [lax_numpy.expand_dims(_stack_traced(x, dtype), 0) for x in object]
    shapes = {tuple(np.shape(p)) for p in parts}
    if len(shapes) != 1:
      raise ValueError("All input arrays must have the same shape.")
    return lax_numpy.concatenate(parts, 0)
  if isinstance(object, Tracer) and dtype is not None and (
      object.aval.weak_type or object.aval.dtype != dtype):
    return lax_elementwise._convert_element_type(object, dtype, False)
  return array(object, dtype=dtype)


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
  """Converts ``a`` to an Array without copying when it already is one (``jnp.asarray``)."""
  if dtype is None and isinstance(a, (Array, Tracer)) and not a.aval.weak_type:
    return a
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "asarray")
    dtype = dtypes.canonicalize_dtype(dtype)
  return array(a, dtype=dtype, copy=bool(copy), order=order)


def zeros(shape, dtype=None, *, device=None):
  """An array of zeros (``jnp.zeros``); dtype defaults to float32 (float64 with x64)."""
  return full(shape, 0, dtype or dtypes.default_float_dtype())


def ones(shape, dtype=None, *, device=None):
  """An array of ones (``jnp.ones``)."""
  return full(shape, 1, dtype or dtypes.default_float_dtype())


def empty(shape, dtype=None, *, device=None):
  """Like ``zeros``: axle arrays are never uninitialised."""
  return zeros(shape, dtype)


def full(shape, fill_value, dtype=None, *, device=None):
  """An array of ``shape`` filled with ``fill_value`` (``jnp.full``)."""
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "full")
  if np.ndim(fill_value) == 0:
    shape = core.canonicalize_shape(shape) if not isinstance(shape, (int, np.integer)) else (int(shape),)
    return lax_structural.full(shape, fill_value, dtype)
  from axle._src.numpy import lax_numpy
  return lax_numpy.broadcast_to(array(fill_value, dtype=dtype), shape)


def zeros_like(a, dtype=None, shape=None, *, device=None):
  """Zeros with the shape and dtype of ``a`` (``jnp.zeros_like``)."""
  return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None):
  """Ones with the shape and dtype of ``a`` (``jnp.ones_like``)."""
  return full_like(a, 1, dtype, shape)


def empty_like(a, dtype=None, shape=None, *, device=None):
  """Like ``zeros_like``: axle arrays are never uninitialised."""
  return zeros_like(a, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
  """An array like ``a`` filled with ``fill_value`` (``jnp.full_like``)."""
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
  return out


def arange(start, stop=None, step=None, dtype=None, *, device=None):
  """Evenly spaced values in [start, stop) (``jnp.arange``); ``arange(n)`` is an iota."""
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
    return lax_structural.iota(dtypes.canonicalize_dtype(dtype), max(size, 0))
  if dtype is None:
    dtype = dtypes.result_type(start, *(x for x in (stop, step) if x is not None))
  dtype = dtypes.canonicalize_dtype(dtype)
  start_value = np.asarray(start).item() if isinstance(start, Array) else start
  stop_value = np.asarray(stop).item() if isinstance(stop, Array) else stop
  step_value = np.asarray(step).item() if isinstance(step, Array) else step
  return Array(np.arange(start_value, stop_value, step_value, dtype=dtype))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
  """``num`` evenly spaced values from ``start`` to ``stop`` (``jnp.linspace``).

  Computed as JAX computes it, in the result's precision: ``start * (1 - t) + stop * t`` with
  ``t = iota / div`` (XLA turns the division by the constant ``div`` into a multiplication by its
  rounded reciprocal), then ``stop`` appended when ``endpoint``."""
  num = core.concrete_or_error(int, num, "The num argument of linspace must be static.")
  if num < 0:
    raise ValueError(f"Number of samples, {num}, must be non-negative.")
  if isinstance(start, Tracer) or isinstance(stop, Tracer) or np.shape(start) != np.shape(stop):
    return _linspace_traced(start, stop, num, endpoint, retstep, dtype, axis)
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  dtype = dtypes.canonicalize_dtype(dtype)
  compute = np.dtype(dtypes.to_inexact_dtype(dtype))
  real = np.dtype(compute.type(0).real.dtype)
  start_value = np.asarray(start, compute)
  stop_value = np.asarray(stop, compute)
  div = (num - 1) if endpoint else num
  with np.errstate(all="ignore"):
    if num > 1:
      t = (np.arange(div, dtype=real) * (real.type(1) / real.type(div))).astype(compute)
      shape = [1] * (np.ndim(start_value) + 1)
      shape[axis if axis >= 0 else len(shape) + axis] = div
      t = t.reshape(shape)
      lo = np.expand_dims(start_value, axis)
      hi = np.expand_dims(stop_value, axis)
      out = lo * (compute.type(1) - t) + hi * t
      if endpoint:
        out = np.concatenate([out, hi], axis=axis)
    else:
      out = np.expand_dims(start_value, axis)[: max(num, 0)]
    if np.issubdtype(dtype, np.integer):
      out = np.floor(out)
    values = out.astype(dtype)
  if retstep:
    step = (stop_value - start_value) / div if div > 0 else np.asarray(np.nan, compute)
    return Array(values), Array(np.asarray(step, compute))
  return Array(values)


def eye(N, M=None, k: int = 0, dtype=None, *, device=None):
  """A 2-D array with ones on the ``k``-th diagonal (``jnp.eye``)."""
  dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
  if core._context.trace is core.eval_trace:
    return Array(np.eye(N, M, k, dtype=dtype))
  # Traced: staged as JAX stages it (iota == iota + k, converted), so that XLA simplifies
  # ``x * eye`` to a select (+0.0 off the diagonal, never -0.0) as it does for JAX.
  N = core.concrete_or_error(int, N, "The N argument of jnp.eye must be static.")
  M = N if M is None else core.concrete_or_error(int, M, "The M argument of jnp.eye must be static.")
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


def _linspace_traced(start, stop, num, endpoint, retstep, dtype, axis):
  """linspace for traced bounds, in lax operations (the same arithmetic as the eager path)."""
  from axle._src.numpy import lax_numpy, ufuncs
  if dtype is None:
    dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  dtype = dtypes.canonicalize_dtype(dtype)
  compute = np.dtype(dtypes.to_inexact_dtype(dtype))
  real = np.dtype(compute.type(0).real.dtype)
  start = asarray(start, dtype=compute)
  stop = asarray(stop, dtype=compute)
  bounds_shape = list(np.broadcast_shapes(np.shape(start), np.shape(stop)))
  start = lax_numpy.broadcast_to(start, tuple(bounds_shape))
  stop = lax_numpy.broadcast_to(stop, tuple(bounds_shape))
  axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
  bounds_shape.insert(axis, 1)
  div = (num - 1) if endpoint else num
  if num > 1:
    iota_shape = [1] * len(bounds_shape)
    iota_shape[axis] = div
    t = lax_elementwise.mul(lax_structural.iota(real, div),
                            lax_elementwise._convert_element_type(real.type(1) / real.type(div),
                                                                  real, False))
    t = lax_elementwise._convert_element_type(lax_numpy.reshape(t, tuple(iota_shape)), compute,
                                              False)
    one = lax_elementwise._convert_element_type(1, compute, False)
    out = ufuncs.add(ufuncs.multiply(lax_numpy.reshape(start, tuple(bounds_shape)),
                                     lax_elementwise.sub(one, t)),
                     ufuncs.multiply(lax_numpy.reshape(stop, tuple(bounds_shape)), t))
    if endpoint:
      out = lax_numpy.concatenate([out, lax_numpy.expand_dims(stop, axis)], axis)
  elif num == 1:
    out = lax_numpy.reshape(start, tuple(bounds_shape))
  else:
    empty_shape = list(np.shape(start))
    empty_shape.insert(axis, 0)
    out = zeros(tuple(empty_shape), compute)
  if np.issubdtype(dtype, np.integer):
    out = lax_elementwise.floor(out)
  out = lax_elementwise._convert_element_type(out, dtype, False)
  if retstep:
    step = ufuncs.divide(ufuncs.subtract(stop, start), div) if div > 0 else \
        full(np.shape(start), np.nan, compute)
    return out, step
  return out


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
  """``base ** linspace(start, stop, num)`` (``jnp.logspace``)."""
  from axle._src.numpy import ufuncs
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "logspace")
  compute = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  lin = linspace(start, stop, num, endpoint=endpoint, axis=axis, dtype=compute)
  out = ufuncs.power(asarray(base, dtype=compute) if not isinstance(base, Tracer) else base, lin)
  return lax_elementwise._convert_element_type(
      out, dtypes.canonicalize_dtype(dtype or compute), False)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
  """``num`` values spaced evenly on a log scale from ``start`` to ``stop`` (``jnp.geomspace``)."""
  from axle._src.numpy import lax_numpy, ufuncs
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "geomspace")
  compute = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
  start = asarray(start, dtype=compute)
  stop = asarray(stop, dtype=compute)
  sign = ufuncs.sign(start)
  res = ufuncs.multiply(sign, logspace(ufuncs.log10(ufuncs.divide(start, sign)),
                                       ufuncs.log10(ufuncs.divide(stop, sign)), num,
                                       endpoint=endpoint, base=10.0, dtype=compute, axis=0))
  if axis != 0:
    res = lax_numpy.moveaxis(res, 0, axis)
  return lax_elementwise._convert_element_type(res, dtypes.canonicalize_dtype(dtype or compute),
                                               False)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
  """Coordinate arrays from 1-D coordinate vectors (``jnp.meshgrid``); ``indexing='xy'`` swaps
  the first two axes (Cartesian), ``'ij'`` does not."""
  from axle._src.numpy import lax_numpy, util
  util.check_arraylike("meshgrid", *xi)
  args = [asarray(x) for x in xi]
  if not copy:
    raise ValueError("jax.numpy.meshgrid only supports copy=True")
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
  if any(np.ndim(a) != 1 for a in args):
    raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                     f"{[np.shape(a) for a in args]}")
  shape = [np.shape(a)[0] for a in args]
  outputs = []
  for i, a in enumerate(args):
    if sparse:
      s = [1] * len(args)
      s[i] = shape[i]
      outputs.append(lax_numpy.reshape(a, tuple(s)))
    else:
      outputs.append(lax_structural.broadcast_in_dim(a, tuple(shape), (i,)))
  if indexing == "xy" and len(args) >= 2:
    outputs = [lax_numpy.swapaxes(o, 0, 1) for o in outputs]
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
    from axle._src.numpy import lax_numpy, util
    if isinstance(key, slice):
      return _grid_axis(key)
    axes = [_grid_axis(k) for k in key]
    if not axes:
      return zeros((0,), dtypes.default_int_dtype()) if not self.sparse else []
    axes = util.promote_dtypes(*axes) if len(axes) > 1 else axes
    grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
    if self.sparse:
      return grids
    return lax_numpy.stack(grids, 0)


mgrid = _Grid(sparse=False, name="mgrid")
ogrid = _Grid(sparse=True, name="ogrid")


def indices(dimensions, dtype=None, sparse: bool = False):
  """Arrays holding the index along each axis of a grid of shape ``dimensions``
  (``jnp.indices``)."""
  from axle._src.numpy import lax_numpy
  dimensions = core.canonicalize_shape(dimensions, "in jnp.indices")
  if dtype is not None:
    dtypes.check_user_dtype_supported(dtype, "indices")
  dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_int_dtype())
  n = len(dimensions)
  outputs = []
  for i, d in enumerate(dimensions):
    shape = [1] * n
    shape[i] = d
    iota = lax_numpy.reshape(lax_structural.iota(dtype, d), tuple(shape))
    outputs.append(iota if sparse else lax_numpy.broadcast_to(iota, dimensions))
  if sparse:
    return tuple(outputs)
  return lax_numpy.stack(outputs, 0) if outputs else zeros((0,), dtype)


def fromfunction(function, shape, *, dtype=float, **kwargs):
  """``function`` called on the index grids of ``shape`` (``jnp.fromfunction``); like NumPy, the
  function receives whole index arrays."""
  shape = core.canonicalize_shape(shape, "in jnp.fromfunction")
  grids = indices(shape, dtype=dtype)
  return function(*(grids[i] for i in range(len(shape))), **kwargs)


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
