"""Operators and methods of Array and Tracer (``x + y``, ``x.sum()``, ``x[idx]``, ``x.at``...).

Both classes get the same definitions, so traced code reads exactly like eager
code. An operand that is not an array-like (e.g. a list) makes the operator
return NotImplemented, as JAX does.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import devices
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.interpreters import eval as eval_interpreter
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import structural as lax_structural
from axle._src.numpy import indexing
from axle._src.numpy import lax_numpy
from axle._src.numpy import reductions
from axle._src.numpy import selection
from axle._src.numpy import shape_ops
from axle._src.numpy import statistics
from axle._src.numpy import ufuncs

_accepted_operand_types = (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)


_bool_dtype = np.dtype(np.bool_)
_bool_avals: dict = {}


def _bool_aval(aval: core.ShapedArray) -> core.ShapedArray:
  out = _bool_avals.get(aval)
  if out is None:
    out = _bool_avals[aval] = core.ShapedArray(aval.shape, _bool_dtype, aval.weak_type)
  return out


def _fast_eager_binary(primitive: core.Primitive, slow, kinds: str, comparison: bool = False,
                       swap: bool = False):
  """An operator with a shortcut for the commonest eager case.

  When nothing is being traced and both operands already agree -- two Arrays of one shape and
  dtype, or an Array of float32/float64 with a Python float or a small Python int (which jnp
  would convert to the array's dtype) -- the result is exactly the primitive's kernel applied to
  the two values with the input's aval (the strongly typed one's; bool for comparisons), so
  promotion and the shape rule can be skipped.
  ``kinds`` lists the dtype kinds for which that is jnp's semantics (not e.g. ``int / int``, which
  promotes to float, or bool arithmetic). Operands still on the device take jnp's device
  shortcut (``ufuncs.binary_fast``); anything else takes the general path ``slow``.
  """
  impl = primitive.impl
  context = core._context
  eval_trace = core.eval_trace
  checks = eval_interpreter.special_checks  # the debug_nans/infs checks happen on the slow path
  # (larger operands run on XLA, as the eager policy has them: see eval's HOST_KERNEL_LIMIT)
  size_limit = eval_interpreter.HOST_KERNEL_LIMIT
  narrow_limit = eval_interpreter.NARROW_HOST_LIMIT
  float16 = np.dtype(np.float16)

  def method(self, other):
    if context.trace is eval_trace and not checks.enabled and type(self) is Array:
      # (not a ShardedArray: its result keeps its sharding on the general path)
      value = self._value
      aval = self._aval
      if value is not None and (value.size > size_limit
                                or (aval.dtype is float16 and value.size > narrow_limit)):
        value = None  # (the general path)
      other_type = type(other)
      if other_type is Array:
        other_aval = other._aval
        if value is not None and other._value is not None and aval.dtype.kind in kinds and (
            other_aval is aval or (other_aval.shape == aval.shape
                                   and other_aval.dtype == aval.dtype)) and not (
            aval.dtype.kind == "b" and (aval.weak_type or other_aval.weak_type)):
          # (of one dtype, a weakly typed operand is converted to the other's type: the
          # result is weak only if both are)
          if aval.weak_type and other_aval is not aval:
            aval = other_aval
          out = impl(other._value, value) if swap else impl(value, other._value)
          return Array(out, False, _bool_aval(aval) if comparison else aval)
      elif (other_type is float or (other_type is int and -0x80000000 <= other < 0x80000000)) \
          and value is not None and aval.dtype.itemsize >= 4 and (
              aval.dtype.kind == "f" or (other_type is int and aval.dtype.kind == "i"
                                         and "i" in kinds)):
        # NumPy 2 casts a Python scalar operand to the array's dtype, as jnp does (integers
        # wrap around as XLA's do).
        out = impl(aval.dtype.type(other), value) if swap else impl(value, other)
        return Array(out, False, _bool_aval(aval) if comparison else aval)
      # an operand still on the device: jnp's device shortcut (None when it does not apply)
      out = (ufuncs.binary_fast(primitive, kinds, other, self) if swap
             else ufuncs.binary_fast(primitive, kinds, self, other))
      if out is not None:
        return out
    if not isinstance(other, _accepted_operand_types) and not hasattr(other, "__jax_array__"):
      return NotImplemented
    return slow(other, self) if swap else slow(self, other)

  return method


# operator -> (primitive, dtype kinds where the primitive alone is jnp's semantics)
_fast_operators = {"add": (lax_elementwise.add_p, "iufc"), "sub": (lax_elementwise.sub_p, "iufc"),
                   "mul": (lax_elementwise.mul_p, "iufc"), "truediv": (lax_elementwise.div_p, "fc")}
_fast_comparisons = {"eq": (lax_elementwise.eq_p, "biuf"), "ne": (lax_elementwise.ne_p, "biuf"), "lt": (lax_elementwise.lt_p, "biuf"),
                     "le": (lax_elementwise.le_p, "biuf"), "gt": (lax_elementwise.gt_p, "biuf"), "ge": (lax_elementwise.ge_p, "biuf")}


def _defer_to_unrecognized(binary_op, swap: bool = False):
  def method(self, other):
    if not isinstance(other, _accepted_operand_types) and not hasattr(other, "__jax_array__"):
      return NotImplemented
    return binary_op(other, self) if swap else binary_op(self, other)
  return method


_operators = {
    "add": ufuncs.add, "sub": ufuncs.subtract, "mul": ufuncs.multiply, "truediv": ufuncs.true_divide,
    "floordiv": ufuncs.floor_divide, "mod": ufuncs.remainder, "divmod": ufuncs.divmod,
    "pow": ufuncs.power, "matmul": lax_numpy.matmul, "and": ufuncs.bitwise_and,
    "or": ufuncs.bitwise_or, "xor": ufuncs.bitwise_xor, "lshift": ufuncs.left_shift,
    "rshift": ufuncs.right_shift,
}
_comparisons = {
    "eq": ufuncs.equal, "ne": ufuncs.not_equal, "lt": ufuncs.less, "le": ufuncs.less_equal,
    "gt": ufuncs.greater, "ge": ufuncs.greater_equal,
}
_unary = {"neg": ufuncs.negative, "pos": ufuncs.positive, "abs": ufuncs.absolute,
          "invert": ufuncs.invert}


def _reshape(self, *args, order="C", **kwargs):
  """Array with the same data in a new shape: ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
  if "shape" in kwargs:
    shape = kwargs.pop("shape")
  elif len(args) == 1 and not isinstance(args[0], (int, np.integer)) and np.ndim(args[0]) != 0:
    shape = args[0]
  elif len(args) == 1:
    shape = args[0]
  else:
    shape = args
  return lax_numpy.reshape(self, shape, order=order)


def _transpose(self, *args):
  """Array with axes permuted: ``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
  if not args or args[0] is None:
    axes = None
  elif len(args) == 1 and isinstance(args[0], (tuple, list)):
    axes = args[0]
  else:
    axes = args
  return lax_numpy.transpose(self, axes)


def _flatten(self, order="C"):
  """A 1-D copy of the array."""
  return lax_numpy.ravel(self, order)


def _devices(self):
  """The set of devices the array lives on."""
  return {devices.default_device()}


def _device(self):
  return devices.default_device()


def _view(self, dtype=None, type=None):  # noqa: A002  (NumPy's argument name)
  """The array's bytes reinterpreted as ``dtype`` (``Array.view``); a smaller itemsize grows the
  last axis, a larger one shrinks it."""
  if type is not None:
    raise NotImplementedError("`type` argument of array.view() is not supported.")
  if dtype is None:
    return self
  old, new = np.dtype(self.dtype), dtypes.canonicalize_dtype(dtype)
  if old == new:
    return self
  arr = self
  if old == np.bool_:  # bools are bytes
    arr, old = lax_elementwise._convert_element_type(arr, np.dtype(np.uint8), False), np.dtype(np.uint8)
  if new == np.bool_:
    return lax_elementwise.ne(_view(arr, np.uint8), lax_elementwise._convert_element_type(0, np.dtype(np.uint8), False))
  shape = tuple(arr.shape)
  if arr.ndim == 0 and old.itemsize != new.itemsize:
    raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
  if old.itemsize == new.itemsize:
    return lax_convert.bitcast_convert_type(arr, new)
  if old.itemsize > new.itemsize:
    out = lax_convert.bitcast_convert_type(arr, new)
    return lax_numpy.reshape(out, shape[:-1] + (shape[-1] * (old.itemsize // new.itemsize),))
  ratio = new.itemsize // old.itemsize
  if shape[-1] * old.itemsize % new.itemsize:
    raise ValueError("When changing to a larger dtype, its size must be a divisor of the total "
                     "size in bytes of the last axis of the array.")
  arr = lax_numpy.reshape(arr, shape[:-1] + (shape[-1] // ratio, ratio))
  return lax_convert.bitcast_convert_type(arr, new)


def _trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
  """``x.trace(...)``: every argument goes to ``jnp.trace`` by keyword, as JAX's method passes
  them (so a traced call has the offset, even 0, as an operand)."""
  return shape_ops.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype, out=out)


def _clip(self, min=None, max=None):
  """``x.clip(min, max)``: the bounds go to ``jnp.clip`` by keyword, as JAX's method passes them
  (so a traced call lists them in keyword order)."""
  return lax_numpy.clip(self, min=min, max=max)


_methods = {
    "view": _view,
    "sum": reductions.sum, "prod": reductions.prod, "max": reductions.max, "min": reductions.min,
    "mean": reductions.mean, "any": reductions.any, "all": reductions.all,
    "argmax": reductions.argmax, "argmin": reductions.argmin, "cumsum": reductions.cumsum,
    "cumprod": reductions.cumprod, "reshape": _reshape, "transpose": _transpose,
    "astype": lax_numpy.astype, "squeeze": lax_numpy.squeeze, "flatten": _flatten,
    "ravel": lax_numpy.ravel, "clip": _clip, "round": lax_numpy.round,
    "dot": lax_numpy.dot, "conj": ufuncs.conjugate, "conjugate": ufuncs.conjugate,
    "copy": lax_numpy.copy, "swapaxes": lax_numpy.swapaxes, "devices": _devices,
}


_methods.update({
    "std": statistics.std, "var": statistics.var, "ptp": statistics.ptp,
    "sort": selection.sort, "argsort": selection.argsort, "argpartition": selection.argpartition,
    "nonzero": lax_numpy.nonzero, "take": selection.take,
    "compress": lambda self, condition, axis=None, **kwargs: selection.compress(condition, self, axis,
                                                                                **kwargs),
    "choose": lambda self, choices, out=None, mode="raise": selection.choose(self, choices, out, mode),
    "searchsorted": selection.searchsorted, "repeat": shape_ops.repeat,
    "diagonal": shape_ops.diagonal, "trace": _trace,
})
_properties = {
    "T": lambda self: lax_numpy.transpose(self),
    "mT": lambda self: lax_numpy.matrix_transpose(self),
    "real": ufuncs.real,
    "imag": ufuncs.imag,
    "at": lambda self: indexing._IndexUpdateHelper(self),
    "device": _device,
}


def _getitem(self, index):
  return indexing.getitem(self, index)


def _tracer_iter(self):
  # JAX iterates a traced array row by row: a unit-strided slice (strides=(1, ...)) and a
  # squeeze per row, not the getitem path (whose slice prints strides=None).
  shape = self.aval.shape
  if not shape:
    raise TypeError("iteration over a 0-d array")
  rest_start, unit_strides = (0,) * (len(shape) - 1), (1,) * len(shape)
  return (lax_structural.squeeze(
      lax_structural.slice(self, (i, *rest_start), (i + 1, *shape[1:]), unit_strides), (0,))
          for i in range(shape[0]))


def _round_dunder(self, ndigits=None):
  if ndigits is None:
    if self.ndim != 0:
      raise TypeError("type Array doesn't define __round__ method")
    return round(float(self)) if not isinstance(self, Tracer) else lax_numpy.round(self)
  return lax_numpy.round(self, ndigits)


def _set_methods(cls) -> None:
  for name, fn in _operators.items():
    setattr(cls, f"__{name}__", _defer_to_unrecognized(fn))
    setattr(cls, f"__r{name}__", _defer_to_unrecognized(fn, swap=True))
  for name, fn in _comparisons.items():
    setattr(cls, f"__{name}__", _defer_to_unrecognized(fn))
  if cls is Array:
    for name, (primitive, kinds) in _fast_operators.items():
      setattr(cls, f"__{name}__", _fast_eager_binary(primitive, _operators[name], kinds))
      setattr(cls, f"__r{name}__", _fast_eager_binary(primitive, _operators[name], kinds,
                                                      swap=True))
    for name, (primitive, kinds) in _fast_comparisons.items():
      setattr(cls, f"__{name}__", _fast_eager_binary(primitive, _comparisons[name], kinds,
                                                     comparison=True))
  for name, fn in _unary.items():
    setattr(cls, f"__{name}__", fn)
  for name, fn in _methods.items():
    setattr(cls, name, fn)
  for name, fn in _properties.items():
    setattr(cls, name, property(fn))
  cls.__getitem__ = _getitem
  cls.__round__ = _round_dunder
  if cls is Tracer:
    cls.__iter__ = _tracer_iter


_set_methods(Array)
_set_methods(Tracer)
