"""Elementwise functions of axle.numpy (the ones Array operators use, and their relatives).

Each promotes its operands with JAX's rules (``util.promote_args``) and calls
the lax primitive; integer floor division, remainder and power follow NumPy's
sign conventions on top of lax's C-like ones.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import weakref

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src import differentiation
from axle._src.custom_derivatives import custom_jvp
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters.eval import eager_unary
from axle._src.lax import elementwise as lax_elementwise
from axle._src.lax import elementwise_convert as lax_convert
from axle._src.lax import loops as lax_loops
from axle._src.lax import reductions as lax_reductions
from axle._src.lax import special as lax_special
from axle._src.lax import structural as lax_structural
from axle._src.numpy import creation
from axle._src.numpy import util

__all__ = ["add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "arctan2", "nextafter", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "logical_not", "invert", "bitwise_not", "bitwise_invert", "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "negative", "positive", "absolute", "abs", "sign", "true_divide", "divide", "floor_divide", "remainder", "mod", "fmod", "divmod", "power", "float_power", "square", "reciprocal", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sqrt", "cbrt", "floor", "ceil", "isfinite", "isnan", "isinf", "real", "imag", "conjugate", "conj"]


_context = core._context
_special_checks = eval_interpreter.special_checks
_scalar_avals: dict = {}


def binary_fast(primitive: core.Primitive, kinds: str, x1, x2):
  """``primitive`` applied to ``x1, x2`` right away, for the commonest eager cases: two Arrays of
  one dtype (of a kind in ``kinds``) with equal shapes or one of them 0-d, or such an Array of
  float32/float64 and a Python float or small int (which jnp converts to the array's dtype) or
  a NumPy scalar of its dtype, a float16/bfloat16 Array and a Python number, or an integer
  Array and a Python int in its dtype's range.
  Promotion would only retype these (a weakly typed operand takes the other's type), so the op
  runs as ``process_primitive`` would run it: on XLA when an operand is still on the device, else
  by the eager policy (the NumPy kernel or the cached XLA runner). None for anything else."""
  if _context.trace is not core.eval_trace or _special_checks.enabled:
    return None
  t1, t2 = type(x1), type(x2)
  if t1 is Array and x1._value is None and t2 is float:  # (on the device or pending)
    known = _device_float_runs.get((primitive, id(x1._aval), True))
    if known is not None and known[0] is x1._aval:
      return known[1]([x1, _float_value(x2, known[2])])[0]
  elif t2 is Array and x2._value is None and t1 is float:
    known = _device_float_runs.get((primitive, id(x2._aval), False))
    if known is not None and known[0] is x2._aval:
      return known[1]([_float_value(x1, known[2]), x2])[0]
  if t1 is Array and t2 is Array:
    a1, a2 = x1._aval, x2._aval
    if a1 is not a2 and (a1.dtype != a2.dtype
                         or (a1.shape != a2.shape and a1.shape and a2.shape)):
      return None
    if a1.dtype.kind not in kinds or (a1.dtype.kind == "b" and (a1.weak_type or a2.weak_type)):
      return None  # (bools have no weak type in jnp's promotion: weak ones are converted)
    if a1.weak_type != a2.weak_type:
      # jnp converts the weakly typed operand to the other's (same) dtype: only its type changes
      if a1.weak_type:
        a1 = strong_aval(a1)
      else:
        a2 = strong_aval(a2)
    if x1._value is None or x2._value is None:
      key = (primitive, id(x1._aval), id(x2._aval))
      known = _device_pair_runs.get(key)
      if known is not None and known[0] is x1._aval and known[1] is x2._aval:
        return known[2]([x1, x2])[0]
      run = eval_interpreter.device_entry(primitive, (a1, a2))
      if run is None:
        return None
      if len(_device_pair_runs) > 4096:
        _device_pair_runs.clear()
      _device_pair_runs[key] = (x1._aval, x2._aval, run)
      return run([x1, x2])[0]
    return _run_binary(primitive, (a1, a2), x1, x2, False)
  if t1 is Array:
    array, scalar, scalar_type, first = x1, x2, t2, True
  elif t2 is Array:
    array, scalar, scalar_type, first = x2, x1, t1, False
  else:
    return None
  aval = array._aval
  dtype = aval.dtype
  kind = dtype.kind
  narrow = dtype in _NARROW_FLOATS
  if narrow:
    if "f" not in kinds or not (scalar_type is float or scalar_type is int):
      return None
    weak = aval.weak_type
  elif kind in "iu":  # an integer Array and a Python int in its dtype's range (wrapping as XLA)
    if kind not in kinds or scalar_type is not int:
      return None
    low, high = _integer_range(dtype)
    if not low <= scalar <= high:
      return None  # (the general path raises JAX's OverflowError)
    weak = aval.weak_type
  elif dtype.itemsize < 4 or kind != "f" or "f" not in kinds:
    return None
  elif scalar_type is float or (scalar_type is int and -0x80000000 <= scalar < 0x80000000):
    weak = aval.weak_type  # (the result is weak only if both operands are)
  elif scalar_type is dtype.type:  # a NumPy scalar of the array's dtype: strongly typed
    weak = False
  else:
    return None
  scalar_aval = _scalar_avals.get((dtype, weak))
  if scalar_aval is None:
    scalar_aval = _scalar_avals[(dtype, weak)] = core.ShapedArray((), dtype, weak)
  if narrow:  # float16/bfloat16: the scalar converted as jnp converts it (through float32)
    value = lax_convert._convert_element_type(scalar, dtype, weak)._value
  else:
    value = np.array(scalar, dtype)
  if array._value is None and scalar_type is float and not narrow:
    _remember_device_float_run(primitive, aval, scalar_aval, first)
  if first:
    return _run_binary(primitive, (aval, scalar_aval), array, value, array._value is None)
  return _run_binary(primitive, (scalar_aval, aval), value, array, array._value is None)


_NARROW_FLOATS = eval_interpreter.NARROW_FLOATS
_integer_ranges: dict = {}
_array = np.array
# (primitive, id(aval1), id(aval2)) -> (aval1, aval2, runner) for two Arrays, one on the device
_device_pair_runs: dict = eval_interpreter.policy_memo()
# (primitive, id(aval), array first) -> (aval, runner, dtype) for an Array on the device (or
# pending) and a Python float: what the checks above decided for that aval, kept with it.
_device_float_runs: dict = eval_interpreter.policy_memo()


_float_values: dict = {}  # (Python float, dtype) -> its read-only 0-d NumPy value


def _float_value(number: float, dtype: np.dtype) -> np.ndarray:
  """``np.array(number, dtype)``, the same object for the same nonzero number (a loop's
  constants), so that the device buffers made of it are found by identity."""
  if number == 0.0:  # (0.0 and -0.0 are one dict key)
    return _array(number, dtype)
  key = (number, dtype)
  value = _float_values.get(key)
  if value is None:
    if len(_float_values) > 1024:
      _float_values.clear()
    value = _float_values[key] = _array(number, dtype)
    value.flags.writeable = False
  return value


def _remember_device_float_run(primitive, aval, scalar_aval, first: bool) -> None:
  run = eval_interpreter.device_entry(primitive, (aval, scalar_aval) if first
                                      else (scalar_aval, aval))
  if run is not None:
    if len(_device_float_runs) > 4096:
      _device_float_runs.clear()
    _device_float_runs[(primitive, id(aval), first)] = (aval, run, aval.dtype)


def _integer_range(dtype: np.dtype) -> tuple[int, int]:
  """The Python ints a jnp op converts to the integer ``dtype`` (int32's range at most: wider
  ints go the general way)."""
  bounds = _integer_ranges.get(dtype)
  if bounds is None:
    info = np.iinfo(dtype)
    bounds = _integer_ranges[dtype] = (max(int(info.min), -0x80000000),
                                       min(int(info.max), 0x7FFFFFFF))
  return bounds


_strong_avals: dict = {}


def strong_aval(aval: core.ShapedArray) -> core.ShapedArray:
  """``aval`` without its weak type (memoised: the eager fast paths key caches on avals)."""
  out = _strong_avals.get(aval)
  if out is None:
    if len(_strong_avals) > 4096:
      _strong_avals.clear()
    out = _strong_avals[aval] = aval.strip_weak_type()
  return out


def _run_binary(primitive: core.Primitive, avals, x1, x2, on_device: bool):
  if on_device:  # the op runs on XLA too, instead of waiting to read the operand back
    run = eval_interpreter.device_entry(primitive, avals)
    return None if run is None else run([x1, x2])[0]
  out_aval, run = eval_interpreter.dispatch(primitive, avals, {})
  if run is not None:
    return run([x1, x2])[0]
  impl = primitive.impl
  if impl is None:
    return None
  return eval_interpreter.wrap_kernel_output(
      impl(x1._value if type(x1) is Array else x1, x2._value if type(x2) is Array else x2),
      out_aval)


def _binary(name: str, lax_fn, promote=util.promote_args, primitive=None, kinds: str = ""):
  """A NumPy-style binary function over ``lax_fn``; with ``primitive``, eager operands of the
  kinds ``kinds`` take ``binary_fast``."""
  def fn(x1, x2, /):
    if primitive is not None:
      out = binary_fast(primitive, kinds, x1, x2)
      if out is not None:
        return out
    x1, x2 = promote(name, x1, x2)
    return lax_fn(x1, x2)
  fn.__name__ = name
  fn.__qualname__ = name
  fn.__doc__ = f"Elementwise ``{name}`` of two arrays, with NumPy broadcasting and JAX's type promotion."
  return fn


def _unary(name: str, lax_fn, promote=util.promote_args):
  def fn(x, /):
    (x,) = promote(name, x)
    return lax_fn(x)
  fn.__name__ = name
  fn.__qualname__ = name
  fn.__doc__ = f"Elementwise ``{name}`` of an array (JAX's ``jnp.{name}``)."
  return fn


def _bool_as(bool_fn, fn):
  """NumPy's arithmetic on booleans: ``+`` is logical or, ``*`` is logical and."""
  def apply(x1, x2):
    return bool_fn(x1, x2) if np.dtype(x1.dtype) == np.bool_ else fn(x1, x2)
  return apply


def _no_bool_subtract(x1, x2):
  if np.dtype(x1.dtype) == np.bool_:
    raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                    "the `^` operator, or the logical_xor function instead.")
  return lax_elementwise.sub(x1, x2)


add = _binary("add", _bool_as(lax_elementwise.bitwise_or, lax_elementwise.add),
              primitive=lax_elementwise.add_p, kinds="iufc")
subtract = _binary("subtract", _no_bool_subtract, primitive=lax_elementwise.sub_p, kinds="iufc")
multiply = _binary("multiply", _bool_as(lax_elementwise.bitwise_and, lax_elementwise.mul),
                   primitive=lax_elementwise.mul_p, kinds="iufc")
equal = _binary("equal", lax_elementwise.eq, primitive=lax_elementwise.eq_p, kinds="biuf")
not_equal = _binary("not_equal", lax_elementwise.ne, primitive=lax_elementwise.ne_p, kinds="biuf")
less = _binary("less", lax_elementwise.lt, primitive=lax_elementwise.lt_p, kinds="biuf")
less_equal = _binary("less_equal", lax_elementwise.le, primitive=lax_elementwise.le_p, kinds="biuf")
greater = _binary("greater", lax_elementwise.gt, primitive=lax_elementwise.gt_p, kinds="biuf")
greater_equal = _binary("greater_equal", lax_elementwise.ge, primitive=lax_elementwise.ge_p, kinds="biuf")
_EXTREMUM_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
# Larger operands run on XLA, as the elementwise kernels' do (eval's HOST_KERNEL_LIMIT): NumPy
# with the checks below beats XLA up to there on operands that are host results (maximum(x +
# 1, y) 32 us vs 56 at 32,768 elements, 59 vs 60 at 65,536).
HOST_EXTREMUM_LIMIT = eval_interpreter.HOST_KERNEL_LIMIT


def _host_extremum(ufunc, x1, x2):
  """Eager ``jnp.maximum``/``jnp.minimum`` (``ufunc``) on the host, where NumPy gives XLA's bits:
  a strongly typed float32/float64 Array with a host value and no subnormal (XLA reads those as
  zeros), against an Array of the same aval or a Python number. NaN operands (XLA's max and min
  may return another NaN than NumPy's) and zeros that could tie with zeros (XLA orders -0.0
  below +0.0, NumPy returns either) are left to XLA, except ``maximum(x, 0.0)``, whose zeros
  are all +0.0 in XLA. None where this does not apply."""
  if _context.trace is not core.eval_trace or _special_checks.enabled \
      or not _eager_mode.exact:
    return None
  if type(x1) is Array:
    array, other = x1, x2
  elif type(x2) is Array:
    array, other = x2, x1
  else:
    return None
  value = array._value
  aval = array._aval
  if type(value) is not np.ndarray or aval.weak_type or aval.dtype not in _EXTREMUM_DTYPES \
      or not 0 < value.size <= HOST_EXTREMUM_LIMIT:
    return None  # (larger arrays: XLA is faster than the kernel and its NaN and zero checks)
  exponent = _exponent_bound(value)
  if exponent is None:
    return None
  nan, zero = nan_and_zero(value)
  if nan:
    return None
  other_type = type(other)
  if other_type is Array:
    other_value = other._value
    if (other._aval is not aval and other._aval != aval) or type(other_value) is not np.ndarray:
      return None
    other_exponent = _exponent_bound(other_value)
    if other_exponent is None:
      return None
    other_nan, other_zero = nan_and_zero(other_value)
    if other_nan or (zero and other_zero):
      return None  # (zeros tie only where both operands hold one)
    out = ufunc(value, other_value)  # (no NaN: no floating-point warning)
    if other_exponent < exponent:
      exponent = other_exponent
  elif other_type is float or (other_type is int and -0x80000000 <= other < 0x80000000):
    scalar = aval.dtype.type(other)
    magnitude = math.fabs(float(scalar))
    if magnitude != magnitude or (0 < magnitude < _TINY[aval.dtype]) \
        or (magnitude == np.inf and math.fabs(other) != np.inf):
      return None  # NaN, subnormal or overflowing scalar
    out = ufunc(value, scalar)
    if magnitude:
      exponent = builtins.min(exponent, math.frexp(magnitude)[1])
    elif ufunc is np.maximum and not np.signbit(scalar):
      out += 0.0  # maximum(x, +0.0): every zero result is +0.0
    elif zero:
      return None  # (an operand without zeros cannot tie with the zero: the result's are its)
  else:
    return None
  _remember_exponent_bound(out, exponent)
  return Array(out, False, aval)


# id(value) -> (weak reference, holds a NaN, holds a zero) for the host values the extremum
# shortcut has read (a loop's operands are read again and again; NumPy values of Arrays are
# never mutated).
_operand_flags: dict = {}


def nan_and_zero(value: np.ndarray) -> tuple[bool, bool]:
  """Whether the real float ``value`` holds a NaN, and whether it holds a zero (memoised)."""
  entry = _operand_flags.get(id(value))
  if entry is not None and entry[0]() is value:
    return entry[1], entry[2]
  nan = _has_nan(value)
  zero = _count_nonzero(value) != value.size
  if len(_operand_flags) > 4096:
    _operand_flags.clear()
  _operand_flags[id(value)] = (_weakref(value), nan, zero)
  return nan, zero


_eager_mode = eval_interpreter.eager_mode
_exponent_bound = eval_interpreter.exponent_bound
_remember_exponent_bound = eval_interpreter.remember_exponent_bound
_weakref = weakref.ref
_TINY = eval_interpreter.SMALLEST_NORMAL
_quiet_floating_point = lax_convert._ignore_fp
_count_nonzero = np.count_nonzero
_has_nan = eval_interpreter.has_nan


def _one_primitive_program(x1, x2) -> bool:
  """Whether the eager ``max``/``min`` of ``x1`` and ``x2`` converts neither operand: then the
  single-primitive program it runs is the one JAX compiles for ``jnp.maximum``. Where an
  operand is converted (a Python int, an integer array against floats, mixed dtypes), XLA knows
  the converted one holds no NaN and returns the other's NaN as it is, not its own."""
  t1, t2 = type(x1), type(x2)
  if t1 is Array and t2 is Array:
    return x1._aval.dtype == x2._aval.dtype
  if t1 is Array:
    kind, scalar = x1._aval.dtype.kind, t2
  elif t2 is Array:
    kind, scalar = x2._aval.dtype.kind, t1
  else:
    return False
  return (scalar is float and kind == "f") or (scalar is int and kind in "iu")


def _extremum(name, ufunc, primitive, lax_fn):
  general = _binary(name, lax_fn, primitive=primitive, kinds="iuf")
  # JAX's jnp.maximum/minimum are jit(inline=True) functions: one compiled program eagerly
  compiled = util.jit_when_tracing(general, inline=True)

  def fn(x1, x2, /):
    out = _host_extremum(ufunc, x1, x2)
    if out is not None:
      return out
    return general(x1, x2) if _one_primitive_program(x1, x2) else compiled(x1, x2)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = general.__doc__
  return fn


maximum = _extremum("maximum", np.maximum, lax_elementwise.max_p, lax_elementwise.max)
minimum = _extremum("minimum", np.minimum, lax_elementwise.min_p, lax_elementwise.min)
arctan2 = _binary("arctan2", lax_special.atan2, util.promote_args_inexact)
nextafter = _binary("nextafter", lax_elementwise.nextafter, util.promote_args_inexact)


def _bitwise(name, lax_fn):
  def fn(x1, x2, /):
    x1, x2 = util.promote_args(name, x1, x2)
    dtype = np.dtype(x1.dtype)
    if not (dtype == np.bool_ or np.issubdtype(dtype, np.integer)):
      raise TypeError(f"{name} requires integer or boolean arguments, got {dtype.name}")
    return lax_fn(x1, x2)
  fn.__name__ = name
  fn.__doc__ = f"Elementwise ``{name}`` of integer or boolean arrays."
  return fn


bitwise_and = _bitwise("bitwise_and", lax_elementwise.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax_elementwise.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax_elementwise.bitwise_xor)
logical_and = _binary("logical_and", lambda a, b: lax_elementwise.bitwise_and(_to_bool(a), _to_bool(b)))
logical_or = _binary("logical_or", lambda a, b: lax_elementwise.bitwise_or(_to_bool(a), _to_bool(b)))
logical_xor = _binary("logical_xor", lambda a, b: lax_elementwise.bitwise_xor(_to_bool(a), _to_bool(b)))


def _to_bool(x):
  """``x != 0`` for a non-bool operand (its truth value, as NumPy's logical functions use)."""
  dtype = core.get_aval(x).dtype
  if dtype == np.bool_:
    return x
  return lax_elementwise.ne(x, lax_elementwise._convert_element_type(0, dtype, False))


def logical_not(x, /):
  """Elementwise logical NOT."""
  (x,) = util.promote_args("logical_not", x)
  return lax_elementwise.bitwise_not(_to_bool(x))


def invert(x, /):
  """Elementwise bitwise NOT (``~x``) of an integer or boolean array."""
  (x,) = util.promote_args("invert", x)
  dtype = np.dtype(x.dtype)
  if not (dtype == np.bool_ or np.issubdtype(dtype, np.integer)):
    raise TypeError(f"ufunc 'invert' not supported for the input types, and the inputs could not be "
                    f"safely coerced to any supported types according to the casting rule "
                    f"''safe'' (got dtype {dtype.name})")
  return lax_elementwise.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def left_shift(x1, x2, /):
  """Elementwise ``x1 << x2``."""
  x1, x2 = util.promote_args("left_shift", x1, x2)
  return lax_elementwise.shift_left(x1, x2)


def right_shift(x1, x2, /):
  """Elementwise ``x1 >> x2`` (arithmetic for signed, logical for unsigned integers)."""
  x1, x2 = util.promote_args("right_shift", x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.unsignedinteger):
    return lax_elementwise.shift_right_logical(x1, x2)
  return lax_elementwise.shift_right_arithmetic(x1, x2)


bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def negative(x, /):
  """Elementwise ``-x``."""
  (x,) = util.promote_args("negative", x)
  if np.dtype(x.dtype) == np.bool_:
    raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` "
                    "operator or the logical_not function instead.")
  return lax_elementwise.neg(x)


def positive(x, /):
  """Elementwise ``+x`` (returns ``x``)."""
  (x,) = util.promote_args("positive", x)
  return x


def absolute(x, /):
  """Elementwise absolute value (``abs(x)``)."""
  if type(x) is Array and x._aval.dtype.kind == "f":  # no promotion: the eager shortcut
    return _abs_shortcut(x)
  if type(x) is Array and x._value is None and x._aval.dtype.kind == "c" \
      and _context.trace is core.eval_trace and not _special_checks.enabled:
    run = eval_interpreter.device_entry(lax_elementwise.abs_p, (x._aval,))
    if run is not None:  # on the device: the op runs there
      return run([x])[0]
  (x,) = util.promote_args("absolute", x)
  dtype = np.dtype(x.dtype)
  if dtype == np.bool_ or np.issubdtype(dtype, np.unsignedinteger):
    return x
  return lax_elementwise.abs(x)


_abs_shortcut = eval_interpreter.eager_unary(lax_elementwise.abs_p, lax_elementwise.abs)
abs = absolute


def sign(x, /):
  """Elementwise sign (-1, 0 or 1; for complex ``x / |x|``)."""
  (x,) = util.promote_args("sign", x)
  return lax_elementwise.sign(x)


def true_divide(x1, x2, /):
  """Elementwise ``x1 / x2`` in floating point (``x1 / x2``)."""
  x1, x2 = util.promote_args_inexact("true_divide", x1, x2)
  return lax_elementwise.div(x1, x2)


divide = true_divide


@util.jit_when_tracing
def floor_divide(x1, x2, /):
  """Elementwise ``x1 // x2``, rounding toward negative infinity as NumPy does."""
  x1, x2 = util.promote_args_numeric("floor_divide", x1, x2)
  dtype = np.dtype(x1.dtype)
  if np.issubdtype(dtype, np.unsignedinteger):
    return lax_elementwise.div(x1, x2)
  if np.issubdtype(dtype, np.integer):
    quotient = lax_elementwise.div(x1, x2)
    select = logical_and(lax_elementwise.sign(x1) != lax_elementwise.sign(x2), lax_elementwise.rem(x1, x2) != 0)
    return _where(select, quotient - 1, quotient)
  if np.issubdtype(dtype, np.complexfloating):
    raise TypeError("floor_divide does not support complex-valued inputs")
  return _float_divmod(x1, x2)[0]


@util.jit_when_tracing
def _where(condition, x, y):
  condition, = util.promote_dtypes(condition)
  if np.dtype(condition.dtype) != np.bool_:
    condition = lax_elementwise.ne(condition, lax_elementwise._convert_element_type(0, condition.dtype, False))
  x, y = util.promote_dtypes(x, y)
  shapes = (util.shape_of(condition), util.shape_of(x), util.shape_of(y))
  if not shapes[0] and shapes[1] != shapes[2]:
    # select_n takes a scalar predicate as it is: only x and y are broadcast.
    shape = util.broadcast_shapes(shapes[1], shapes[2])
    x, y = (creation.broadcast_to(a, shape) for a in (x, y))
  elif shapes[0] and not shapes[0] == shapes[1] == shapes[2]:
    shape = util.broadcast_shapes(*shapes)
    condition, x, y = (creation.broadcast_to(a, shape) for a in (condition, x, y))
  return lax_elementwise.select(condition, x, y)


def _float_divmod(x1, x2):
  # As CPython's float divmod: x1 == div * x2 + mod with mod taking the divisor's sign.
  mod = lax_elementwise.rem(x1, x2)
  div = lax_elementwise.div(_where(x2 == 0, x1, lax_elementwise.sub(x1, mod)), x2)
  fix = logical_and(mod != 0, lax_elementwise.sign(x2) != lax_elementwise.sign(mod))
  mod = lax_elementwise.select(fix, mod + x2, mod)
  div = lax_elementwise.select(fix, div - 1, div)
  return lax_elementwise.round(div), mod


@util.jit_when_tracing
def remainder(x1, x2, /):
  """Elementwise remainder with the sign of the divisor (``x1 % x2``), as NumPy; an integer
  remainder by zero is 0."""
  x1, x2 = util.promote_args_numeric("remainder", x1, x2)
  dtype = np.dtype(x1.dtype)
  if np.issubdtype(dtype, np.complexfloating):
    raise TypeError("remainder does not support complex-valued inputs")
  zero = lax_elementwise._convert_element_type(0, dtype, False)
  if np.issubdtype(dtype, np.integer):
    x2 = _where(x2 == 0, lax_structural.full_like(x2, 1), x2)
  trunc_mod = lax_elementwise.rem(x1, x2)
  trunc_mod_not_zero = lax_elementwise.ne(trunc_mod, zero)
  do_plus = lax_elementwise.bitwise_and(lax_elementwise.ne(lax_elementwise.lt(trunc_mod, zero), lax_elementwise.lt(x2, zero)), trunc_mod_not_zero)
  return lax_elementwise.select(do_plus, lax_elementwise.add(trunc_mod, x2), trunc_mod)


mod = remainder


@util.jit_when_tracing
def fmod(x1, x2, /):
  """Elementwise C-style remainder (sign of the dividend); an integer ``fmod`` by zero is 0."""
  util.check_arraylike("fmod", x1, x2)
  if np.issubdtype(dtypes.result_type(x1, x2), np.integer):
    x2 = _where(equal(x2, 0), lax_structural.full_like(x2, 1), x2)
  x1, x2 = util.promote_args_numeric("fmod", x1, x2)
  return lax_elementwise.rem(x1, x2)


@util.jit_when_tracing
def divmod(x1, x2, /):
  """``(x1 // x2, x1 % x2)`` elementwise."""
  x1, x2 = util.promote_args_numeric("divmod", x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.integer):
    return floor_divide(x1, x2), remainder(x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.complexfloating):
    raise TypeError("divmod does not support complex-valued inputs")
  return _float_divmod(x1, x2)


def power(x1, x2, /):
  """Elementwise ``x1 ** x2``. A concrete integer exponent uses repeated multiplication
  (``lax.integer_pow``), as JAX does."""
  if type(x1) is Array and type(x2) is int and x1._aval.dtype.kind == "f":
    shortcut = _integer_pow_shortcuts.get(x2)  # (no promotion: straight to the eager path)
    if shortcut is None and -64 <= x2 <= 64:
      shortcut = _integer_pow_shortcuts[x2] = eager_unary(
          lax_elementwise.integer_pow_p, functools.partial(_integer_pow, y=x2), y=x2)
    if shortcut is not None:
      return shortcut(x1)
  if type(x2) is float and type(x1) is Array:  # (x ** 0.5: no promotion but the scalar's)
    out = binary_fast(lax_elementwise.pow_p, "f", x1, x2)
    if out is not None:
      return out
  util.check_arraylike("power", x1, x2)
  if isinstance(x2, int) and not isinstance(x2, bool) and not isinstance(x1, (int, float, complex)):
    (x1,) = util.promote_dtypes(x1) if not isinstance(x1, (bool,)) else util.promote_dtypes_numeric(x1)
    if np.dtype(x1.dtype) == np.bool_:
      x1 = lax_elementwise._convert_element_type(x1, dtypes.default_int_dtype(), False)
    if np.issubdtype(np.dtype(x1.dtype), np.integer) and x2 < 0:
      raise ValueError("Integers to negative integer powers are not allowed.")
    return lax_elementwise.integer_pow(x1, x2)
  x1, x2 = util.promote_args_numeric("power", x1, x2)
  dtype = np.dtype(x1.dtype)
  if not np.issubdtype(dtype, np.integer):
    return lax_elementwise.pow(x1, x2)
  if not isinstance(x2, Tracer) and np.any(np.asarray(x2) < 0):
    raise ValueError("Integers to negative integer powers are not allowed.")
  return _integer_power(x1, x2)


def _integer_pow(x, *, y):
  return lax_elementwise.integer_pow(x, y)


# exponent -> eager_unary shortcut of integer_pow (float Array ** small Python int)
_integer_pow_shortcuts: dict = {}


def _integer_power(x1, x2):
  """x1 ** x2 for integer arrays by binary exponentiation over the exponent's bits.

  Six rounds suffice: any base other than 0, 1 or -1 overflows past exponent 63 anyway."""
  zero = lax_elementwise._convert_element_type(0, x2.dtype, x2.weak_type)
  one = lax_elementwise._convert_element_type(1, x2.dtype, x2.weak_type)
  # pow(0, n) is 0 for n != 0 and 1 for n == 0.
  acc = _where(lax_elementwise.bitwise_and(lax_elementwise.eq(x1, zero), lax_elementwise.ne(x2, zero)), zero, one)
  for _ in range(6):
    acc = _where(lax_elementwise.bitwise_and(x2, one), lax_elementwise.mul(acc, x1), acc)
    x1 = lax_elementwise.mul(x1, x1)
    x2 = lax_elementwise.shift_right_logical(x2, one)
  return acc


def float_power(x1, x2, /):
  """Elementwise ``x1 ** x2`` computed in floating point."""
  x1, x2 = util.promote_args_inexact("float_power", x1, x2)
  return lax_elementwise.pow(x1, x2)


def square(x, /):
  """Elementwise ``x * x``."""
  (x,) = util.promote_args_numeric("square", x)
  return lax_elementwise.square(x)


def reciprocal(x, /):
  """Elementwise ``1 / x`` in floating point."""
  if type(x) is Array and x._aval.dtype.kind == "f":
    return power(x, -1)  # (the eager shortcut of integer_pow)
  (x,) = util.promote_args_inexact("reciprocal", x)
  return lax_elementwise.integer_pow(x, -1)


_INEXACT_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex64,
                                                  np.complex128, dtypes.bfloat16))


def _inexact_unary(name, lax_fn, primitive):
  """A one-operand inexact function binding ``primitive`` through ``lax_fn``; eagerly it goes
  straight to the kernel once the input signature has been seen."""
  # The lax functions bind their keyword parameters' defaults (e.g. accuracy=None).
  defaults = {key: p.default for key, p in inspect.signature(lax_fn).parameters.items()
              if p.default is not inspect.Parameter.empty}
  shortcut = eager_unary(primitive, lax_fn, **defaults)
  general = _unary(name, shortcut, util.promote_args_inexact)

  def fn(x, /):
    # an inexact Array needs no promotion: straight to the eager shortcut
    if type(x) is Array and x._aval.dtype in _INEXACT_DTYPES:
      return shortcut(x)
    return general(x)
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = general.__doc__
  return fn


exp = _inexact_unary("exp", lax_special.exp, lax_special.exp_p)
exp2 = _inexact_unary("exp2", lax_special.exp2, lax_special.exp2_p)
log = _inexact_unary("log", lax_special.log, lax_special.log_p)
log1p = _inexact_unary("log1p", lax_special.log1p, lax_special.log1p_p)
expm1 = _inexact_unary("expm1", lax_special.expm1, lax_special.expm1_p)
sin = _inexact_unary("sin", lax_special.sin, lax_special.sin_p)
cos = _inexact_unary("cos", lax_special.cos, lax_special.cos_p)
tan = _inexact_unary("tan", lax_special.tan, lax_special.tan_p)
arcsin = _inexact_unary("arcsin", lax_special.asin, lax_special.asin_p)
arccos = _inexact_unary("arccos", lax_special.acos, lax_special.acos_p)
arctan = _inexact_unary("arctan", lax_special.atan, lax_special.atan_p)
sinh = _inexact_unary("sinh", lax_special.sinh, lax_special.sinh_p)
cosh = _inexact_unary("cosh", lax_special.cosh, lax_special.cosh_p)
tanh = _inexact_unary("tanh", lax_special.tanh, lax_special.tanh_p)
arcsinh = _inexact_unary("arcsinh", lax_special.asinh, lax_special.asinh_p)
arccosh = util.jit_when_tracing(_inexact_unary("arccosh", lax_special.acosh, lax_special.acosh_p))
arctanh = _inexact_unary("arctanh", lax_special.atanh, lax_special.atanh_p)
sqrt = _inexact_unary("sqrt", lax_special.sqrt, lax_special.sqrt_p)
cbrt = _inexact_unary("cbrt", lax_special.cbrt, lax_special.cbrt_p)


def floor(x, /):
  """Elementwise floor (integers are returned unchanged)."""
  (x,) = util.promote_args_numeric("floor", x)
  if np.issubdtype(np.dtype(x.dtype), np.integer):
    return x
  return lax_elementwise.floor(x)


def ceil(x, /):
  """Elementwise ceiling (integers are returned unchanged)."""
  (x,) = util.promote_args_numeric("ceil", x)
  if np.issubdtype(np.dtype(x.dtype), np.integer):
    return x
  return lax_elementwise.ceil(x)


def isfinite(x, /):
  """Elementwise test for finiteness (integers and bools are always finite)."""
  (x,) = util.promote_args("isfinite", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.floating):
    return lax_elementwise.is_finite(x)
  if np.issubdtype(dtype, np.complexfloating):
    return lax_elementwise.bitwise_and(lax_elementwise.is_finite(lax_elementwise.real(x)), lax_elementwise.is_finite(lax_elementwise.imag(x)))
  return creation.full_like(x, True, dtype=np.bool_)


def isnan(x, /):
  """Elementwise test for NaN."""
  (x,) = util.promote_args("isnan", x)
  return lax_elementwise.ne(x, x)


@util.jit_when_tracing
def isinf(x, /):
  """Elementwise test for positive or negative infinity."""
  (x,) = util.promote_args("isinf", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.floating):
    return lax_elementwise.eq(lax_elementwise.abs(x), lax_elementwise._convert_element_type(np.inf, dtype, False))
  if np.issubdtype(dtype, np.complexfloating):
    return lax_elementwise.bitwise_or(isinf(lax_elementwise.real(x)), isinf(lax_elementwise.imag(x)))
  return creation.full_like(x, False, dtype=np.bool_)


def real(x, /):
  """The real part of ``x`` (``x`` itself for real input)."""
  (x,) = util.promote_args("real", x)
  return lax_elementwise.real(x) if np.issubdtype(np.dtype(x.dtype), np.complexfloating) else x


def imag(x, /):
  """The imaginary part of ``x`` (zeros for real input)."""
  (x,) = util.promote_args("imag", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    return lax_elementwise.imag(x)
  return creation.full_like(x, 0)


def conjugate(x, /):
  """The complex conjugate of ``x`` (``x`` itself for real input)."""
  (x,) = util.promote_args("conjugate", x)
  return lax_elementwise.conj(x) if np.issubdtype(np.dtype(x.dtype), np.complexfloating) else x


conj = conjugate


# ---------------------------------------------------------------------------
# More elementwise functions (the rest of NumPy's ufuncs and the array API's aliases)

__all__ += ["acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "pow", "copysign",
            "deg2rad", "degrees", "rad2deg", "radians", "fabs", "fmax", "fmin", "frexp", "gcd",
            "lcm", "heaviside", "hypot", "i0", "isneginf", "isposinf", "iscomplex", "isreal",
            "ldexp", "log10", "log2", "logaddexp", "logaddexp2", "modf", "nan_to_num", "rint",
            "signbit", "sinc", "spacing", "trunc", "bitwise_count", "angle", "isclose"]

acos, acosh, asin, asinh, atan, atanh, atan2 = (arccos, arccosh, arcsin, arcsinh, arctan,
                                                arctanh, arctan2)
pow = power


def _const(value, like):
  return lax_elementwise._convert_element_type(value, np.dtype(like.dtype), False)


@util.jit_when_tracing
def copysign(x1, x2, /):
  """``x1`` with the sign of ``x2``, elementwise, in floating point."""
  x1, x2 = util.promote_args_inexact("copysign", x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.complexfloating):
    raise TypeError("copysign does not support complex-valued inputs")
  return _where(signbit(x2), negative(absolute(x1)), absolute(x1))


def deg2rad(x, /):
  """Degrees to radians."""
  (x,) = util.promote_args_inexact("deg2rad", x)
  return lax_elementwise.mul(x, _const(np.pi / 180, x))


def rad2deg(x, /):
  """Radians to degrees."""
  (x,) = util.promote_args_inexact("rad2deg", x)
  return lax_elementwise.mul(x, _const(180 / np.pi, x))


radians = deg2rad
degrees = rad2deg


def fabs(x, /):
  """Elementwise absolute value in floating point (complex input is refused)."""
  (x,) = util.promote_args_inexact("fabs", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    raise TypeError("ufunc 'fabs' does not support complex dtypes")
  return lax_elementwise.abs(x)


@util.jit_when_tracing
def fmax(x1, x2, /):
  """Elementwise maximum ignoring NaNs (NaN only where both are NaN)."""
  util.check_arraylike("fmax", x1, x2)
  return _where(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


@util.jit_when_tracing
def fmin(x1, x2, /):
  """Elementwise minimum ignoring NaNs (NaN only where both are NaN)."""
  util.check_arraylike("fmin", x1, x2)
  return _where(logical_or(less(x1, x2), isnan(x2)), x1, x2)


@util.jit_when_tracing
def hypot(x1, x2, /):
  """``sqrt(x1**2 + x2**2)`` without intermediate overflow (inf where either is infinite)."""
  x1, x2 = util.promote_args_inexact("hypot", x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.complexfloating):
    raise TypeError("hypot does not support complex-valued inputs.")
  x1, x2 = lax_elementwise.abs(x1), lax_elementwise.abs(x2)
  either_inf = lax_elementwise.bitwise_or(isposinf(x1), isposinf(x2))
  big, small = maximum(x1, x2), minimum(x1, x2)
  big_is_zero = big == 0
  ratio = lax_elementwise.div(small, _where(big == 0, lax_structural.full_like(big, 1), big))
  scaled = lax_elementwise.mul(big, lax_special.sqrt(lax_elementwise.add(
      _const(1, ratio), lax_elementwise.square(ratio))))
  out = _where(big_is_zero, big, scaled)
  return _where(either_inf, _const(np.inf, out), out)


def _int_args(name, x1, x2):
  util.check_arraylike(name, x1, x2)
  x1, x2 = util.promote_dtypes_numeric(x1, x2)
  if not np.issubdtype(np.dtype(x1.dtype), np.integer):
    raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
  return x1, x2


def _scalar_zero_like(x):
  """A 0-d zero of ``x``'s dtype and weak type (a literal in a trace)."""
  aval = core.get_aval(x)
  return lax_elementwise._convert_element_type(0, np.dtype(aval.dtype), aval.weak_type)


def _gcd_cond(carry):
  _, b = carry
  nonzero = b != _scalar_zero_like(b)
  if core.get_aval(nonzero).weak_type:
    nonzero = lax_elementwise._convert_element_type(nonzero, np.dtype(np.bool_), False)
  return lax_reductions.reduce_or(nonzero, tuple(range(len(util.shape_of(nonzero)))))


def _gcd_body(carry):
  a, b = carry
  zero = _scalar_zero_like(b)
  a, b = (_where(b != zero, b, a), _where(b != zero, lax_elementwise.rem(a, b), zero))
  return (_where(a < b, b, a), _where(a < b, a, b))


@util.jit_when_tracing
def gcd(x1, x2, /):
  """Elementwise greatest common divisor of integers (non-negative): Euclid's algorithm in a
  while loop that runs until every remainder is 0."""
  x1, x2 = _int_args("gcd", x1, x2)
  shape = util.broadcast_shapes(util.shape_of(x1), util.shape_of(x2))
  x1, x2 = (x if util.shape_of(x) == shape else creation.broadcast_to(x, shape) for x in (x1, x2))
  out, _ = lax_loops.while_loop(_gcd_cond, _gcd_body, (absolute(x1), absolute(x2)))
  return out


@util.jit_when_tracing
def lcm(x1, x2, /):
  """Elementwise least common multiple of integers (non-negative)."""
  x1, x2 = _int_args("lcm", x1, x2)
  x1, x2 = absolute(x1), absolute(x2)
  d = gcd(x1, x2)
  return _where(d == 0, _const(0, d), multiply(x1, floor_divide(x2, d)))


@util.jit_when_tracing
def heaviside(x1, x2, /):
  """The Heaviside step: 0 for x1 < 0, ``x2`` at 0, 1 for x1 > 0."""
  util.check_arraylike("heaviside", x1, x2)
  x1, x2 = util.promote_dtypes_inexact(x1, x2)
  zero = _const(0, x1)
  return _where(lax_elementwise.lt(x1, zero), zero,
                _where(lax_elementwise.gt(x1, zero), _const(1, x1), _where(isnan(x1), x1, x2)))


@util.jit_when_tracing
def i0(x, /):
  """The modified Bessel function of the first kind, order 0."""
  (x,) = util.promote_args_inexact("i0", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    raise TypeError("i0 does not support complex-valued inputs.")
  return _i0(x)


def _i0_impl(x):
  x = lax_elementwise.abs(x)
  return lax_elementwise.mul(lax_special.exp(x), lax_special.bessel_i0e(x))


def _i0_jvp(primals, tangents):
  # The derivative through |x|, with 0 (not NaN) at x == 0.
  out, t_out = differentiation.jvp(_i0_impl, primals, tangents)
  (x,) = primals
  return out, _where(lax_elementwise.eq(x, _const(0, x)), 0.0, t_out)


_i0_impl.__name__ = "_i0"
_i0 = custom_jvp(_i0_impl)
_i0.defjvp(_i0_jvp)


def isneginf(x, /):
  """Elementwise test for negative infinity."""
  (x,) = util.promote_args("isneginf", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    raise ValueError("isneginf does not support complex-valued inputs")
  if not np.issubdtype(np.dtype(x.dtype), np.floating):
    return creation.full_like(x, False, dtype=np.bool_)
  return lax_elementwise.eq(x, _const(-np.inf, x))


def isposinf(x, /):
  """Elementwise test for positive infinity."""
  (x,) = util.promote_args("isposinf", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    raise ValueError("isposinf does not support complex-valued inputs")
  if not np.issubdtype(np.dtype(x.dtype), np.floating):
    return creation.full_like(x, False, dtype=np.bool_)
  return lax_elementwise.eq(x, _const(np.inf, x))


@util.jit_when_tracing
def iscomplex(x, /):
  """Whether each element has a nonzero imaginary part."""
  util.check_arraylike("iscomplex", x)
  i = imag(x)
  return lax_elementwise.ne(i, _const(0, i))


@util.jit_when_tracing
def isreal(x, /):
  """Whether each element has a zero imaginary part."""
  util.check_arraylike("isreal", x)
  i = imag(x)
  return lax_elementwise.eq(i, _const(0, i))


@util.jit_when_tracing
def ldexp(x1, x2, /):
  """``x1 * 2**x2`` elementwise (``x2`` integer), exact also where ``2**x2`` alone would
  overflow or underflow: ``x1``'s mantissa and exponent are combined with ``x2`` first."""
  util.check_arraylike("ldexp", x1, x2)
  x2_dtype = dtypes.dtype(x2, canonicalize=True)
  if x2_dtype == np.bool_ or not np.issubdtype(x2_dtype, np.integer):
    raise ValueError(f"ldexp not supported for input types {(dtypes.dtype(x1), x2_dtype)}")
  (x1,) = util.promote_args_inexact("ldexp", x1)
  x2 = lax_elementwise._convert_element_type(util.asarray_operand(x2), np.dtype(x1.dtype), False)
  mantissa, exponent = frexp(x1)
  exponent = lax_elementwise._convert_element_type(exponent, np.dtype(x2.dtype), False)
  exponent = add(exponent, x2)
  mantissa = _where(exponent > _const(0, exponent), lax_elementwise.mul(mantissa, _const(2, mantissa)),
                    mantissa)
  exponent = _where(exponent > _const(0, exponent),
                    lax_elementwise.sub(exponent, _const(1, exponent)), exponent)
  out = lax_elementwise.mul(mantissa, lax_elementwise.pow(_const(2, exponent), exponent))
  return _where(lax_elementwise.bitwise_or(isinf(x1), lax_elementwise.eq(x1, _const(0, x1))), x1, out)


def log10(x, /):
  """Elementwise base-10 logarithm."""
  (x,) = util.promote_args_inexact("log10", x)
  out = lax_special.log(x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    # JAX scales the real and imaginary parts separately by 1/ln(10).
    re, im = lax_elementwise.real(out), lax_elementwise.imag(out)
    scale = _const(1 / np.log(10), re)
    return lax_elementwise.complex(lax_elementwise.mul(re, scale), lax_elementwise.mul(im, scale))
  return lax_elementwise.mul(out, _const(1 / np.log(10), out))


def log2(x, /):
  """Elementwise base-2 logarithm."""
  (x,) = util.promote_args_inexact("log2", x)
  out = lax_special.log(x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    re, im = lax_elementwise.real(out), lax_elementwise.imag(out)
    ln2 = lax_special.log(_const(2, re))
    return lax_elementwise.complex(lax_elementwise.div(re, ln2), lax_elementwise.div(im, ln2))
  return lax_elementwise.div(out, lax_special.log(_const(2, out)))


@util.jit_when_tracing(inline=True)  # inlined when traced; one program eagerly
def logaddexp(x1, x2, /):
  """``log(exp(x1) + exp(x2))`` computed without overflow (derivative 0.5 each at ties)."""
  x1, x2 = util.promote_args_inexact("logaddexp", x1, x2)
  return _logaddexp(x1, x2)


def _logaddexp_impl(x1, x2):
  amax = lax_elementwise.max(x1, x2)
  if np.issubdtype(dtypes.dtype(x1), np.complexfloating):
    delta = lax_elementwise.sub(lax_elementwise.add(x1, x2), lax_elementwise.mul(amax, _const(2, amax)))
    out = lax_elementwise.add(amax, lax_special.log1p(lax_special.exp(delta)))
    return lax_elementwise.complex(lax_elementwise.real(out), _wrap_between(lax_elementwise.imag(out), np.pi))
  delta = lax_elementwise.sub(x1, x2)
  return lax_elementwise.select(lax_elementwise.ne(delta, delta), lax_elementwise.add(x1, x2),
                    lax_elementwise.add(amax, lax_special.log1p(lax_special.exp(lax_elementwise.neg(lax_elementwise.abs(delta))))))


def _replace_inf(x):
  """``x`` with +inf (of the real part) replaced by 0, so inf - inf gives no NaN tangent."""
  re_x = lax_elementwise.real(x) if np.issubdtype(dtypes.dtype(x), np.complexfloating) else x
  return lax_elementwise.select(lax_elementwise.eq(re_x, _const(np.inf, re_x)),
                                lax_structural.full_like(x, 0), x)


def _logaddexp_jvp(primals, tangents):
  x1, x2 = primals
  t1, t2 = tangents
  out = _logaddexp(x1, x2)
  return out, lax_elementwise.add(
      lax_elementwise.mul(t1, lax_special.exp(lax_elementwise.sub(_replace_inf(x1), _replace_inf(out)))),
      lax_elementwise.mul(t2, lax_special.exp(lax_elementwise.sub(_replace_inf(x2), _replace_inf(out)))))


_logaddexp_impl.__name__ = "logaddexp"
_logaddexp = custom_jvp(_logaddexp_impl)
_logaddexp.defjvp(_logaddexp_jvp)
lax_reductions.scan_combines["logsumexp"] = _logaddexp  # cumlogsumexp's JVP scans with it


def _wrap_between(x, bound):
  two = _const(2 * bound, x)
  return lax_elementwise.sub(remainder(lax_elementwise.add(x, _const(bound, x)), two), _const(bound, x))


@util.jit_when_tracing(inline=True)  # inlined when traced; one program eagerly
def logaddexp2(x1, x2, /):
  """``log2(2**x1 + 2**x2)`` computed without overflow (derivative 0.5 each at ties)."""
  x1, x2 = util.promote_args_inexact("logaddexp2", x1, x2)
  return _logaddexp2(x1, x2)


def _logaddexp2_impl(x1, x2):
  amax = lax_elementwise.max(x1, x2)
  delta = lax_elementwise.sub(x1, x2)
  log2e = lax_elementwise._convert_element_type(float(1 / np.log(2)), np.dtype(amax.dtype), True)
  return lax_elementwise.select(lax_elementwise.ne(delta, delta), lax_elementwise.add(x1, x2),
                    lax_elementwise.add(amax, lax_elementwise.mul(log2e, lax_special.log1p(lax_special.exp2(
                        lax_elementwise.neg(lax_elementwise.abs(delta)))))))


def _logaddexp2_jvp(primals, tangents):
  x1, x2 = primals
  t1, t2 = tangents
  out = _logaddexp2(x1, x2)
  return out, lax_elementwise.add(
      lax_elementwise.mul(t1, lax_special.exp2(lax_elementwise.sub(_replace_inf(x1), _replace_inf(out)))),
      lax_elementwise.mul(t2, lax_special.exp2(lax_elementwise.sub(_replace_inf(x2), _replace_inf(out)))))


_logaddexp2_impl.__name__ = "logaddexp2"
_logaddexp2 = custom_jvp(_logaddexp2_impl)
_logaddexp2.defjvp(_logaddexp2_jvp)


@util.jit_when_tracing
def modf(x, /, out=None):
  """The fractional and integral parts of ``x`` (both with ``x``'s sign)."""
  (x,) = util.promote_args_inexact("modf", x)
  whole = _where(lax_elementwise.ge(x, _const(0, x)), floor(x), ceil(x))
  return lax_elementwise.sub(x, whole), whole


@util.jit_when_tracing
def trunc(x, /):
  """Rounds toward zero (integers unchanged)."""
  (x,) = util.promote_args_numeric("trunc", x)
  if np.issubdtype(np.dtype(x.dtype), np.integer):
    return x
  return _where(lax_elementwise.lt(x, _const(0, x)), lax_elementwise.ceil(x), lax_elementwise.floor(x))


@util.jit_when_tracing
def rint(x, /):
  """Rounds to the nearest integer, halves to even (result in floating point)."""
  (x,) = util.promote_args_inexact("rint", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    return lax_elementwise.complex(lax_elementwise.round(lax_elementwise.real(x), lax_elementwise.RoundingMethod.TO_NEAREST_EVEN),
                       lax_elementwise.round(lax_elementwise.imag(x), lax_elementwise.RoundingMethod.TO_NEAREST_EVEN))
  return lax_elementwise.round(x, lax_elementwise.RoundingMethod.TO_NEAREST_EVEN)


@util.jit_when_tracing
def signbit(x, /):
  """Whether the sign bit is set (true for -0.0 and negative NaNs)."""
  (x,) = util.promote_args("signbit", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.integer):
    return lax_elementwise.lt(x, _const(0, x))
  if dtype == np.bool_:
    return creation.full_like(x, False, dtype=np.bool_)
  if not dtypes.issubdtype(dtype, np.floating):  # bfloat16 and the float8 types included
    raise ValueError(f"jnp.signbit is not well defined for {dtype}")
  int_type = {2: np.int16, 4: np.int32, 8: np.int64}[dtype.itemsize]
  bits = lax_convert.bitcast_convert_type(x, int_type)
  shift = lax_elementwise._convert_element_type(8 * dtype.itemsize - 1, np.dtype(int_type), True)
  return lax_elementwise._convert_element_type(lax_elementwise.shift_right_arithmetic(bits, shift), np.bool_, False)


@util.jit_when_tracing
def sinc(x, /):
  """``sin(pi x) / (pi x)``, 1 at 0 (with all derivatives at 0 from its Maclaurin series)."""
  (x,) = util.promote_args_inexact("sinc", x)
  zero = lax_elementwise.eq(x, _const(0, x))
  pi_x = lax_elementwise.mul(lax_elementwise._convert_element_type(np.pi, np.dtype(x.dtype), True), x)
  safe_pi_x = _where(zero, _const(1, x), pi_x)
  return _where(zero, _sinc_maclaurin(0, pi_x), lax_elementwise.div(lax_special.sin(safe_pi_x), safe_pi_x))


def _weak_const(value, like):
  return lax_elementwise._convert_element_type(value, np.dtype(like.dtype), True)


def _sinc_maclaurin_impl(k, x):
  # The k-th derivative of sin(x)/x at 0, broadcast like x: (-1)^(k/2) / (k + 1) for even k.
  if k % 2:
    return lax_elementwise.mul(x, _weak_const(0, x))
  return lax_elementwise.add(lax_elementwise.mul(x, _weak_const(0, x)), _weak_const((-1) ** (k // 2) / (k + 1), x))


def _sinc_maclaurin_jvp(k, primals, tangents):
  (x,), (t,) = primals, tangents
  return _sinc_maclaurin(k, x), lax_elementwise.mul(_sinc_maclaurin(k + 1, x), t)


_sinc_maclaurin_impl.__name__ = "_sinc_maclaurin"
_sinc_maclaurin = custom_jvp(_sinc_maclaurin_impl, nondiff_argnums=(0,))
_sinc_maclaurin.defjvp(_sinc_maclaurin_jvp)


def spacing(x, /):
  """The distance from ``x`` to the next representable number away from zero."""
  (x,) = util.promote_args_inexact("spacing", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.complexfloating):
    raise ValueError("spacing is not defined for complex inputs.")
  # JAX's program: a step that flushes to zero (a subnormal spacing) gives the smallest
  # subnormal with x's sign
  step = lax_elementwise.sub(lax_elementwise.nextafter(x, copysign(_const(np.inf, x), x)), x)
  flushed = lax_elementwise.eq(step, _const(0, x))
  tiny = copysign(_const(dtypes.finfo(dtype).smallest_subnormal, x), x)
  return _where(flushed, tiny, step)


@util.jit_when_tracing
def frexp(x, /):
  """Mantissa in [0.5, 1) and integer exponent with ``x == m * 2**e``."""
  (x,) = util.promote_args_inexact("frexp", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    raise TypeError("frexp does not support complex-valued inputs")
  return _frexp(x)


def _frexp_jvp(primals, tangents):
  (x,), (t,) = primals, tangents
  mantissa, exponent = frexp(x)  # the public (jitted) function, as in JAX
  scale = lax_special.exp2(lax_elementwise.neg(lax_elementwise._convert_element_type(exponent, np.dtype(t.dtype), False)))
  return (mantissa, exponent), (lax_elementwise.mul(t, scale), np.zeros(np.shape(exponent), dtypes.float0))


def _frexp_impl(x):
  dtype = np.dtype(x.dtype)
  info = dtypes.finfo(dtype)
  int_type = np.dtype({16: np.int16, 32: np.int32, 64: np.int64}[info.bits])
  int_const = lambda v: np.array(v, int_type)
  nmant = info.nmant
  exp_field = (1 << info.nexp) - 1  # the exponent bits, shifted down (255 for float32)
  bias = 1 - info.minexp  # 127 for float32
  # Subnormals are scaled into the normal range first (their exponent corrected after).
  small = lax_elementwise.lt(lax_elementwise.abs(x), _const(float(info.smallest_normal), x))
  scaled = _where(small, lax_elementwise.mul(x, _const(float(1 << nmant), x)), x)
  correction = _where(small, int_const(-nmant), int_const(0))
  bits = lax_convert.bitcast_convert_type(scaled, int_type)
  field = lax_elementwise.bitwise_and(lax_elementwise.shift_right_arithmetic(bits, int_const(nmant)),
                                      int_const(exp_field))
  exponent = lax_elementwise.add(correction, lax_elementwise.add(
      lax_elementwise.sub(field, int_const(bias)), int_const(1)))
  # The mantissa: the same bits with the exponent of 0.5.
  bits = lax_elementwise.bitwise_or(lax_elementwise.bitwise_and(bits, int_const(~(exp_field << nmant))),
                                    int_const((bias - 1) << nmant))
  mantissa = lax_convert.bitcast_convert_type(bits, dtype)
  special = lax_elementwise.bitwise_or(lax_elementwise.bitwise_or(isinf(x), isnan(x)),
                                       lax_elementwise.eq(x, _const(0, x)))
  exponent = _where(special, lax_structural.full_like(exponent, 0), exponent)
  return (_where(special, x, mantissa),
          lax_elementwise._convert_element_type(exponent, np.dtype(np.int32), False))


_frexp_impl.__name__ = "_frexp"
_frexp = custom_jvp(_frexp_impl)
_frexp.defjvp(_frexp_jvp)


@util.jit_when_tracing
def bitwise_count(x, /):
  """The number of 1 bits in the absolute value of each integer."""
  (x,) = util.promote_args_numeric("bitwise_count", x) if not isinstance(x, bool) else [x]
  x = util.asarray_operand(x)
  dtype = np.dtype(core.get_aval(x).dtype)
  if not (dtype == np.bool_ or np.issubdtype(dtype, np.integer)):
    raise TypeError(f"bitwise_count requires integer or boolean input, got {dtype}")
  if dtype == np.bool_:
    return lax_elementwise._convert_element_type(x, np.dtype(np.uint8), False)
  counted = lax_elementwise.population_count(absolute(x) if np.issubdtype(dtype, np.signedinteger) else x)
  return lax_elementwise._convert_element_type(counted, np.dtype(np.uint8), False)


@util.jit_when_tracing(static_argnames=("deg",))
def angle(z, deg: bool = False):
  """The angle of complex ``z`` (radians, or degrees with ``deg``)."""
  util.check_arraylike("angle", z)
  z = util.asarray_operand(z)
  re, im = real(z), imag(z)
  dtype = dtypes.dtype(re)
  if (not np.issubdtype(dtype, np.inexact)
      or (np.issubdtype(dtypes.dtype(z), np.floating) and np.ndim(z) == 0)):
    dtype = dtypes.canonicalize_dtype(dtypes.float_)
    re = lax_elementwise._convert_element_type(re, dtype, False)
    im = lax_elementwise._convert_element_type(im, dtype, False)
  out = lax_special.atan2(im, re)
  return rad2deg(out) if deg else out


@util.jit_when_tracing(static_argnames=("copy",))
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
  """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (default: the
  largest/smallest finite value of the dtype)."""
  util.check_arraylike("nan_to_num", x)
  x = util.asarray_operand(x)
  dtype = np.dtype(core.get_aval(x).dtype)
  if not np.issubdtype(dtype, np.inexact):
    return creation.asarray(x)
  if np.issubdtype(dtype, np.complexfloating):
    return lax_elementwise.complex(nan_to_num(lax_elementwise.real(x), nan=nan, posinf=posinf, neginf=neginf),
                       nan_to_num(lax_elementwise.imag(x), nan=nan, posinf=posinf, neginf=neginf))
  info = dtypes.finfo(dtype)
  posinf = float(info.max) if posinf is None else posinf
  neginf = float(info.min) if neginf is None else neginf
  out = _where(isnan(x), _const(nan, x), x)
  out = _where(isposinf(out), _const(posinf, x), out)
  return _where(isneginf(out), _const(neginf, x), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
  """Elementwise ``a == b or (isfinite(b) and |a - b| <= atol + rtol * |b|)`` in floating point,
  with NaNs equal when ``equal_nan`` (``jnp.isclose``)."""
  if isinstance(rtol, (int, float)) and isinstance(atol, (int, float)):
    return _isclose_static_tolerances(a, b, rtol, atol, equal_nan)
  return _isclose_traced_tolerances(a, b, rtol, atol, equal_nan)


def _isclose(a, b, rtol, atol, equal_nan):
  a, b = util.promote_args("isclose", a, b)
  a, b = util.promote_args_inexact("isclose", a, b)
  dtype = np.dtype(a.dtype)
  real_dtype = np.dtype(np.finfo(dtype).dtype) if dtype.kind == "c" else dtype
  rtol = lax_elementwise._convert_element_type(rtol, real_dtype, False)
  atol = lax_elementwise._convert_element_type(atol, real_dtype, False)
  both_nan = logical_and(isnan(a), isnan(b))
  check_finite = isfinite(b)
  in_range = lax_elementwise.le(lax_elementwise.abs(lax_elementwise.sub(a, b)),
                                lax_elementwise.add(atol, lax_elementwise.mul(rtol, lax_elementwise.abs(b))))
  out = logical_or(lax_elementwise.eq(a, b), logical_and(check_finite, in_range))
  return logical_or(out, both_nan) if equal_nan else out


_isclose.__name__ = _isclose.__qualname__ = "isclose"
# Python-number tolerances are constants of the program (as JAX's literals); arrays are operands.
_isclose_static_tolerances = util.jit_when_tracing(_isclose, static_argnames=("rtol", "atol", "equal_nan"))
_isclose_traced_tolerances = util.jit_when_tracing(_isclose, static_argnames=("equal_nan",))
