"""Elementwise functions of axle.numpy (the ones Array operators use, and their relatives).

Each promotes its operands with JAX's rules (``util.promote_args``) and calls
the lax primitive; integer floor division, remainder and power follow NumPy's
sign conventions on top of lax's C-like ones.
"""
from __future__ import annotations

import inspect

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src.array import Array
from axle._src.core import Tracer
from axle._src.interpreters.eval import eager_unary
from axle._src.lax import elementwise as lax
from axle._src.lax import special as lax_special
from axle._src.numpy import util

__all__ = ["add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "arctan2", "nextafter", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "logical_not", "invert", "bitwise_not", "bitwise_invert", "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "negative", "positive", "absolute", "abs", "sign", "true_divide", "divide", "floor_divide", "remainder", "mod", "fmod", "divmod", "power", "float_power", "square", "reciprocal", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sqrt", "cbrt", "floor", "ceil", "isfinite", "isnan", "isinf", "real", "imag", "conjugate", "conj"]


def _binary(name: str, lax_fn, promote=util.promote_args):
  def fn(x1, x2, /):
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
  return lax.sub(x1, x2)


add = _binary("add", _bool_as(lax.bitwise_or, lax.add))
subtract = _binary("subtract", _no_bool_subtract)
multiply = _binary("multiply", _bool_as(lax.bitwise_and, lax.mul))
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax_special.atan2, util.promote_args_inexact)
nextafter = _binary("nextafter", lax.nextafter, util.promote_args_inexact)


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


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor)
logical_and = _binary("logical_and", lambda a, b: lax.bitwise_and(_to_bool(a), _to_bool(b)))
logical_or = _binary("logical_or", lambda a, b: lax.bitwise_or(_to_bool(a), _to_bool(b)))
logical_xor = _binary("logical_xor", lambda a, b: lax.bitwise_xor(_to_bool(a), _to_bool(b)))


def _to_bool(x):
  """``x != 0`` for a non-bool operand (its truth value, as NumPy's logical functions use)."""
  dtype = core.get_aval(x).dtype
  if dtype == np.bool_:
    return x
  return lax.ne(x, lax._convert_element_type(0, dtype, False))


def logical_not(x, /):
  """Elementwise logical NOT."""
  (x,) = util.promote_args("logical_not", x)
  return lax.bitwise_not(_to_bool(x))


def invert(x, /):
  """Elementwise bitwise NOT (``~x``) of an integer or boolean array."""
  (x,) = util.promote_args("invert", x)
  dtype = np.dtype(x.dtype)
  if not (dtype == np.bool_ or np.issubdtype(dtype, np.integer)):
    raise TypeError(f"ufunc 'invert' not supported for the input types, and the inputs could not be "
                    f"safely coerced to any supported types according to the casting rule "
                    f"''safe'' (got dtype {dtype.name})")
  return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def left_shift(x1, x2, /):
  """Elementwise ``x1 << x2``."""
  x1, x2 = util.promote_args("left_shift", x1, x2)
  return lax.shift_left(x1, x2)


def right_shift(x1, x2, /):
  """Elementwise ``x1 >> x2`` (arithmetic for signed, logical for unsigned integers)."""
  x1, x2 = util.promote_args("right_shift", x1, x2)
  if np.issubdtype(np.dtype(x1.dtype), np.unsignedinteger):
    return lax.shift_right_logical(x1, x2)
  return lax.shift_right_arithmetic(x1, x2)


bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def negative(x, /):
  """Elementwise ``-x``."""
  (x,) = util.promote_args("negative", x)
  if np.dtype(x.dtype) == np.bool_:
    raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` "
                    "operator or the logical_not function instead.")
  return lax.neg(x)


def positive(x, /):
  """Elementwise ``+x`` (returns ``x``)."""
  (x,) = util.promote_args("positive", x)
  return x


def absolute(x, /):
  """Elementwise absolute value (``abs(x)``)."""
  (x,) = util.promote_args("absolute", x)
  dtype = np.dtype(x.dtype)
  if dtype == np.bool_ or np.issubdtype(dtype, np.unsignedinteger):
    return x
  return lax.abs(x)


abs = absolute


def sign(x, /):
  """Elementwise sign (-1, 0 or 1; for complex ``x / |x|``)."""
  (x,) = util.promote_args("sign", x)
  return lax.sign(x)


def true_divide(x1, x2, /):
  """Elementwise ``x1 / x2`` in floating point (``x1 / x2``)."""
  x1, x2 = util.promote_args_inexact("true_divide", x1, x2)
  return lax.div(x1, x2)


divide = true_divide


@util.jit_when_tracing
def floor_divide(x1, x2, /):
  """Elementwise ``x1 // x2``, rounding toward negative infinity as NumPy does."""
  x1, x2 = util.promote_args_numeric("floor_divide", x1, x2)
  dtype = np.dtype(x1.dtype)
  if np.issubdtype(dtype, np.unsignedinteger):
    return lax.div(x1, x2)
  if np.issubdtype(dtype, np.integer):
    quotient = lax.div(x1, x2)
    select = logical_and(lax.sign(x1) != lax.sign(x2), lax.rem(x1, x2) != 0)
    return _where(select, quotient - 1, quotient)
  if np.issubdtype(dtype, np.complexfloating):
    raise TypeError("floor_divide does not support complex-valued inputs")
  return _float_divmod(x1, x2)[0]


def _where(condition, x, y):
  from axle._src.numpy import lax_numpy
  return lax_numpy.where(condition, x, y)


def _float_divmod(x1, x2):
  # As CPython's float divmod: x1 == div * x2 + mod with mod taking the divisor's sign.
  mod = lax.rem(x1, x2)
  div = lax.div(_where(x2 == 0, x1, lax.sub(x1, mod)), x2)
  fix = logical_and(mod != 0, lax.sign(x2) != lax.sign(mod))
  mod = lax.select(fix, mod + x2, mod)
  div = lax.select(fix, div - 1, div)
  return lax.round(div), mod


@util.jit_when_tracing
def remainder(x1, x2, /):
  """Elementwise remainder with the sign of the divisor (``x1 % x2``), as NumPy; an integer
  remainder by zero is 0."""
  x1, x2 = util.promote_args_numeric("remainder", x1, x2)
  dtype = np.dtype(x1.dtype)
  if np.issubdtype(dtype, np.complexfloating):
    raise TypeError("remainder does not support complex-valued inputs")
  zero = lax._convert_element_type(0, dtype, False)
  if np.issubdtype(dtype, np.integer):
    from axle._src.lax import structural as lax_structural
    x2 = _where(x2 == 0, lax_structural.full_like(x2, 1), x2)
  trunc_mod = lax.rem(x1, x2)
  trunc_mod_not_zero = lax.ne(trunc_mod, zero)
  do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)), trunc_mod_not_zero)
  return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


def fmod(x1, x2, /):
  """Elementwise C-style remainder (sign of the dividend)."""
  x1, x2 = util.promote_args_numeric("fmod", x1, x2)
  return lax.rem(x1, x2)


def divmod(x1, x2, /):
  """``(x1 // x2, x1 % x2)`` elementwise."""
  return floor_divide(x1, x2), remainder(x1, x2)


def power(x1, x2, /):
  """Elementwise ``x1 ** x2``. A concrete integer exponent uses repeated multiplication
  (``lax.integer_pow``), as JAX does."""
  util.check_arraylike("power", x1, x2)
  if isinstance(x2, int) and not isinstance(x2, bool) and not isinstance(x1, (int, float, complex)):
    (x1,) = util.promote_dtypes(x1) if not isinstance(x1, (bool,)) else util.promote_dtypes_numeric(x1)
    if np.dtype(x1.dtype) == np.bool_:
      x1 = lax._convert_element_type(x1, dtypes.default_int_dtype(), False)
    if np.issubdtype(np.dtype(x1.dtype), np.integer) and x2 < 0:
      raise ValueError("Integers to negative integer powers are not allowed.")
    return lax.integer_pow(x1, x2)
  x1, x2 = util.promote_args_numeric("power", x1, x2)
  dtype = np.dtype(x1.dtype)
  if not np.issubdtype(dtype, np.integer):
    return lax.pow(x1, x2)
  if not isinstance(x2, Tracer) and np.any(np.asarray(x2) < 0):
    raise ValueError("Integers to negative integer powers are not allowed.")
  return _integer_power(x1, x2)


def _integer_power(x1, x2):
  """x1 ** x2 for integer arrays by binary exponentiation over the exponent's bits.

  Six rounds suffice: any base other than 0, 1 or -1 overflows past exponent 63 anyway."""
  zero = lax._convert_element_type(0, x2.dtype, x2.weak_type)
  one = lax._convert_element_type(1, x2.dtype, x2.weak_type)
  # pow(0, n) is 0 for n != 0 and 1 for n == 0.
  acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
  for _ in range(6):
    acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
    x1 = lax.mul(x1, x1)
    x2 = lax.shift_right_logical(x2, one)
  return acc


def float_power(x1, x2, /):
  """Elementwise ``x1 ** x2`` computed in floating point."""
  x1, x2 = util.promote_args_inexact("float_power", x1, x2)
  return lax.pow(x1, x2)


def square(x, /):
  """Elementwise ``x * x``."""
  (x,) = util.promote_args_numeric("square", x)
  return lax.integer_pow(x, 2)


def reciprocal(x, /):
  """Elementwise ``1 / x`` in floating point."""
  (x,) = util.promote_args_inexact("reciprocal", x)
  return lax.integer_pow(x, -1)


def _inexact_unary(name, lax_fn, primitive):
  """A one-operand inexact function binding ``primitive`` through ``lax_fn``; eagerly it goes
  straight to the kernel once the input signature has been seen."""
  # The lax functions bind their keyword parameters' defaults (e.g. accuracy=None).
  defaults = {key: p.default for key, p in inspect.signature(lax_fn).parameters.items()
              if p.default is not inspect.Parameter.empty}
  return _unary(name, eager_unary(primitive, lax_fn, **defaults), util.promote_args_inexact)


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
arccosh = _inexact_unary("arccosh", lax_special.acosh, lax_special.acosh_p)
arctanh = _inexact_unary("arctanh", lax_special.atanh, lax_special.atanh_p)
sqrt = _inexact_unary("sqrt", lax_special.sqrt, lax_special.sqrt_p)
cbrt = _inexact_unary("cbrt", lax_special.cbrt, lax_special.cbrt_p)


def floor(x, /):
  """Elementwise floor (integers are returned unchanged)."""
  (x,) = util.promote_args_numeric("floor", x)
  if np.issubdtype(np.dtype(x.dtype), np.integer):
    return x
  return lax.floor(x)


def ceil(x, /):
  """Elementwise ceiling (integers are returned unchanged)."""
  (x,) = util.promote_args_numeric("ceil", x)
  if np.issubdtype(np.dtype(x.dtype), np.integer):
    return x
  return lax.ceil(x)


def isfinite(x, /):
  """Elementwise test for finiteness (integers and bools are always finite)."""
  (x,) = util.promote_args("isfinite", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.floating):
    return lax.is_finite(x)
  if np.issubdtype(dtype, np.complexfloating):
    return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
  from axle._src.numpy import creation
  return creation.full_like(x, True, dtype=np.bool_)


def isnan(x, /):
  """Elementwise test for NaN."""
  (x,) = util.promote_args("isnan", x)
  return lax.ne(x, x)


def isinf(x, /):
  """Elementwise test for positive or negative infinity."""
  (x,) = util.promote_args("isinf", x)
  dtype = np.dtype(x.dtype)
  if np.issubdtype(dtype, np.floating):
    return lax.eq(lax.abs(x), lax._convert_element_type(np.inf, dtype, False))
  if np.issubdtype(dtype, np.complexfloating):
    return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
  from axle._src.numpy import creation
  return creation.full_like(x, False, dtype=np.bool_)


def real(x, /):
  """The real part of ``x`` (``x`` itself for real input)."""
  (x,) = util.promote_args("real", x)
  return lax.real(x) if np.issubdtype(np.dtype(x.dtype), np.complexfloating) else x


def imag(x, /):
  """The imaginary part of ``x`` (zeros for real input)."""
  (x,) = util.promote_args("imag", x)
  if np.issubdtype(np.dtype(x.dtype), np.complexfloating):
    return lax.imag(x)
  from axle._src.numpy import creation
  return creation.full_like(x, 0)


def conjugate(x, /):
  """The complex conjugate of ``x`` (``x`` itself for real input)."""
  (x,) = util.promote_args("conjugate", x)
  return lax.conj(x) if np.issubdtype(np.dtype(x.dtype), np.complexfloating) else x


conj = conjugate
