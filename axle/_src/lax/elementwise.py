"""Elementwise lax primitives that are not transcendental: arithmetic, comparisons, bitwise
operations, selection and rounding (JAX's ``lax.add``, ``lax.select_n``, ...).

Conversions (``convert_element_type``, ``bitcast_convert_type``, ``reduce_precision``,
``copy``) live in ``elementwise_convert.py`` and are re-exported from here.

Each primitive's eager kernel is a NumPy function reproducing what XLA computes on the CPU:
integer division truncates toward zero with ``x / 0 == -1`` and ``x % 0 == x``, shifts by at
least the bit width give 0 (or the sign fill), ``max``/``min`` propagate NaN and order
``-0.0 < 0.0``, ``sign(-0.0) == -0.0``, a float divided by a broadcast divisor is multiplied by
its reciprocal (XLA's rewrite: JAX's ``x / 6`` is ``x * (1 / 6)``), complex ``clamp`` compares
real parts only. Complex ``pow`` runs on XLA (its exp(y log x) is not NumPy's). The eager
policy at the end of this module says which kernels give XLA's bits: XLA's CPU runtime flushes
float32/float64/bfloat16 subnormals to zero, so those kernels hand operands or results holding
subnormals to XLA; complex multiply/divide/abs/sign run on XLA (NumPy's formulas differ in the
last bits and on infinite or NaN parts). With ``axle_fast_eager`` the NumPy kernels always run.

Each primitive's block also registers its lowering to StableHLO (what JAX emits).
"""
from __future__ import annotations

import builtins
import enum

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import errors
from axle._src import ir
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise_convert
from axle._src.lax import utils
from axle._src.lax.elementwise_convert import (  # noqa: F401  (re-exported)
    _convert_element_type, bitcast_convert_type, bitcast_convert_type_p, convert_element_type,
    convert_element_type_p, copy_p, reduce_precision, reduce_precision_p)

__all__ = [
    "RoundingMethod",
    "abs", "abs_p", "add", "add_p", "and_p", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "ceil", "ceil_p", "clamp", "clamp_p", "clz", "clz_p", "complex", "complex_p",
    "conj", "conj_p", "div", "div_p", "eq", "eq_p", "floor", "floor_p", "ge", "ge_p", "gt", "gt_p",
    "imag", "imag_p", "integer_pow", "integer_pow_p", "is_finite", "is_finite_p", "le", "le_p",
    "lt", "lt_p", "max", "max_p", "min", "min_p", "mul", "mul_p", "ne", "ne_p", "neg", "neg_p",
    "nextafter", "nextafter_p", "not_p", "or_p", "population_count", "population_count_p", "pow",
    "pow_p", "real", "real_p", "reciprocal", "rem", "rem_p", "round", "round_p", "select",
    "select_n", "select_n_p", "shift_left", "shift_left_p", "shift_right_arithmetic",
    "shift_right_arithmetic_p", "shift_right_logical", "shift_right_logical_p", "sign", "sign_p",
    "square", "square_p", "sub", "sub_p", "xor_p",
    "convert_element_type", "convert_element_type_p", "bitcast_convert_type",
    "bitcast_convert_type_p", "reduce_precision", "reduce_precision_p", "copy_p",
]

_builtin_abs = abs

# ---------------------------------------------------------------------------
# Shape and dtype rules

# Accepted dtype classes, in the order JAX's error messages list them.
_int = (np.integer,)
_float = (np.floating,)
_complex = (np.complexfloating,)
_bool = (np.bool_,)
_num = (np.integer, np.floating, np.complexfloating)
_any = (np.integer, np.floating, np.complexfloating, np.bool_)
_bool_or_int = (np.integer, np.bool_)
_ordered = (np.integer, np.floating, np.bool_)
_complex_elem = (np.float32, np.float64)



# ---------------------------------------------------------------------------
# Kernel helpers

_ignore_fp = elementwise_convert._ignore_fp  # a cheap np.errstate(all="ignore")


def _exact(ufunc):
  """A kernel for a ufunc whose NumPy result already is XLA's: integers call it directly
  (fixed-width wrap-around, no warnings on arrays), inexact dtypes silence FP warnings."""
  quiet = elementwise_convert.quiet(ufunc)
  extobj = elementwise_convert._extobj_contextvar
  ignore_all = elementwise_convert._IGNORE_ALL
  if extobj is None:  # pragma: no cover (NumPy without the error-state context variable)
    def kernel(*args):
      if args[0].dtype.kind in "iub":
        return ufunc(*args)
      return quiet(*args)
  else:
    def kernel(*args):  # the same as above with quiet() inlined: this is every eager x + y
      if args[0].dtype.kind in "iub":
        return ufunc(*args)
      token = extobj.set(ignore_all)
      try:
        return ufunc(*args)
      finally:
        extobj.reset(token)
  kernel.__name__ = f"_{ufunc.__name__}_kernel"
  kernel.ufunc = ufunc  # for callers that silence FP warnings themselves (xla/host_calls)
  return kernel


def _unsigned_view_dtype(dtype: np.dtype) -> np.dtype:
  return np.dtype(f"u{dtype.itemsize}")


# ---------------------------------------------------------------------------
# Transformation helpers (JVP, transpose and batching rules)
#
# Tangent computations are written with lax functions, so that they are themselves
# differentiable (higher order) and batchable. Constants have the dtype of the value they
# combine with (lax does not promote).


# The rules below broadcast, reshape, fill and sum with structural and reduction ops. Those
# families are built on this one (in JAX all of them are one module), so these four helpers
# import them at call time; every other use goes through the helpers.


def _full_like(x, value, shape=None):
  from axle._src.lax import structural  # call time: structural is built on this family
  return structural.full_like(x, value, shape=shape)


def _broadcast_in_dim(x, shape, broadcast_dimensions):
  from axle._src.lax import structural  # call time: structural is built on this family
  return structural.broadcast_in_dim(x, shape, broadcast_dimensions)


def _reshape(x, shape):
  from axle._src.lax import structural  # call time: structural is built on this family
  return structural.reshape(x, shape)


def _reduce_sum(x, axes):
  from axle._src.lax import reductions  # call time: reductions is built on this family
  return reductions.reduce_sum(x, axes)


def _const(example, value):
  """``value`` as a scalar constant of ``example``'s dtype (a Python scalar stays a Python
  scalar when ``example`` is one, so weak typing is kept)."""
  if type(example) in (int, float, builtins.complex):
    return type(example)(value)
  return np.array(value, core.get_aval(example).dtype)


def _zeros(x):
  """Zeros with ``x``'s shape, dtype and weak type (``full_like(x, 0)``)."""
  return ad.note_instantiated_zero(_full_like(x, 0))


def _ones(x):
  return _full_like(x, 1)


def _twos(x):
  return _full_like(x, 2)


def _one(x):
  """A scalar 1 of ``x``'s dtype (and weak type)."""
  return _full_like(x, 1, shape=())


def _shape(x) -> tuple:
  return core.get_aval(x).shape


def _dtype_of(x) -> np.dtype:
  return core.get_aval(x).dtype


def _replace_zero(x):
  """``x`` with its zeros replaced by ones (a safe divisor or logarithm argument)."""
  return select(eq(x, _const(x, 0)), _ones(x), x)


def _maybe_broadcast(shape, x):
  """``x`` broadcast to ``shape`` (the result shape of an elementwise op it took part in)."""
  x_shape = _shape(x)
  if x_shape == tuple(shape):
    return x
  if not x_shape:
    return _broadcast_in_dim(x, tuple(shape), ())
  kept = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
  return _broadcast_in_dim(_reshape(x, tuple(x_shape[i] for i in kept)), tuple(shape),
                           tuple(kept))


def _unbroadcast(aval: ShapedArray, x):
  """The cotangent ``x`` of an elementwise op's result summed back to the shape of an operand
  of abstract value ``aval`` (a scalar, or a shape with 1s where the op broadcast)."""
  x_shape = _shape(x)
  if x_shape == aval.shape:
    return x
  if not aval.shape:
    return _reduce_sum(x, tuple(range(len(x_shape))))
  dims = tuple(i for i, (a, b) in enumerate(zip(x_shape, aval.shape)) if a != b)
  if dims:
    x = _reduce_sum(x, dims)
  return _reshape(x, aval.shape)


def _not_differentiable(primitive):
  """A JVP rule for a float-valued primitive JAX does not differentiate: raises JAX's error."""
  def rule(primals, tangents, **params):
    raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented")
  ad.primitive_jvps[primitive] = rule


# ---------------------------------------------------------------------------
# Arithmetic

add_p = utils.binop("add", _num, _exact(np.add))
mlir.register(add_p, mlir.elementwise("stablehlo.add"))


def _add_jvp(primals, tangents):
  x, y = primals
  x_dot, y_dot = tangents
  out = add_p.bind(x, y)
  if type(x_dot) is ad.Zero:
    return out, _maybe_broadcast(_shape(out), y_dot)
  if type(y_dot) is ad.Zero:
    return out, _maybe_broadcast(_shape(out), x_dot)
  return out, add(x_dot, y_dot)


def _add_transpose(ct, x, y):
  return [_unbroadcast(x.aval, ct) if ad.is_undefined_primal(x) else None,
          _unbroadcast(y.aval, ct) if ad.is_undefined_primal(y) else None]


ad.primitive_jvps[add_p] = _add_jvp
ad.primitive_transposes[add_p] = _add_transpose
batching.defbroadcasting(add_p)

sub_p = utils.binop("sub", _num, _exact(np.subtract))
mlir.register(sub_p, mlir.elementwise("stablehlo.subtract"))


def _sub_jvp(primals, tangents):
  x, y = primals
  x_dot, y_dot = tangents
  out = sub_p.bind(x, y)
  if type(x_dot) is ad.Zero:
    return out, _maybe_broadcast(_shape(out), neg(y_dot))
  if type(y_dot) is ad.Zero:
    return out, _maybe_broadcast(_shape(out), x_dot)
  return out, sub(x_dot, y_dot)


def _sub_transpose(ct, x, y):
  return [_unbroadcast(x.aval, ct) if ad.is_undefined_primal(x) else None,
          _unbroadcast(y.aval, neg(ct)) if ad.is_undefined_primal(y) else None]


ad.primitive_jvps[sub_p] = _sub_jvp
ad.primitive_transposes[sub_p] = _sub_transpose
batching.defbroadcasting(sub_p)

mul_p = utils.binop("mul", _num, _exact(np.multiply))
mlir.register(mul_p, mlir.elementwise("stablehlo.multiply"))
ad.defbilinear(mul_p, lambda ct, x, y: _unbroadcast(x.aval, mul(ct, y)),
               lambda ct, x, y: _unbroadcast(y.aval, mul(x, ct)))
batching.defbroadcasting(mul_p)


def _div_impl(x, y):
  kind = x.dtype.kind
  if kind not in "iu":
    with _ignore_fp():
      if kind == "f":
        y_shape = getattr(y, "shape", ())  # (a Python scalar: 0-d)
        x_shape = x.shape
        if y_shape != x_shape and (not y_shape or np.broadcast_shapes(x_shape, y_shape) != y_shape):
          # XLA rewrites a division by a broadcast divisor (a scalar included) as a multiplication
          # by its reciprocal, so JAX's x / 6 is x * (1 / 6), not the correctly rounded quotient.
          # (bfloat16 rounds to the same value either way; complex division is another algorithm.)
          dtype = x.dtype
          reciprocal = np.true_divide(dtype.type(1), y if hasattr(y, "dtype") else dtype.type(y))
          # a subnormal reciprocal is flushed to (signed) zero, as XLA flushes it
          tiny = eval_interpreter.SMALLEST_NORMAL.get(dtype)
          if tiny is not None:
            if not y_shape:
              if 0 < builtins.abs(reciprocal) < tiny:
                reciprocal = reciprocal * 0
            else:
              reciprocal = np.where(np.abs(reciprocal) < tiny, reciprocal * 0, reciprocal)
          return np.multiply(x, reciprocal)
      return np.true_divide(x, y)
  # XLA: truncation toward zero; x / 0 is -1 (all bits set); INT_MIN / -1 wraps to INT_MIN.
  zero = y == 0
  any_zero = zero.any()
  if any_zero:
    y = np.where(zero, np.ones((), y.dtype), y)
  with _ignore_fp():
    if kind == "u":
      q = np.floor_divide(x, y)
    else:
      # floor division is off by one where the remainder is nonzero and the signs differ
      q, r = np.divmod(x, y)
      q = q + ((r != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
  if any_zero:
    q = np.where(zero, np.array(-1).astype(x.dtype), q)
  return q


div_p = utils.binop("div", _num, _div_impl)
# XLA's divide already has the semantics above (C truncation, x / 0 == -1, INT_MIN / -1 wraps).
mlir.register(div_p, mlir.elementwise("stablehlo.divide"))
ad.defjvp(div_p, lambda g, x, y: div(g, y),
          lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))


def _div_transpose(ct, x, y):
  if ad.is_undefined_primal(y):
    raise RuntimeError("nonlinear div can't be transposed")
  return [_unbroadcast(x.aval, div(ct, y)), None]


ad.primitive_transposes[div_p] = _div_transpose
batching.defbroadcasting(div_p)


def _rem_impl(x, y):
  if x.dtype.kind not in "iu":
    with _ignore_fp():
      return np.fmod(x, y)
  # XLA: the sign of the dividend (C's %); x % 0 is x; INT_MIN % -1 is 0.
  zero = y == 0
  if not zero.any():
    with _ignore_fp():
      return np.fmod(x, y)
  with _ignore_fp():
    r = np.fmod(x, np.where(zero, np.ones((), y.dtype), y))
  return np.where(zero, x, r)


rem_p = utils.primitive(
    "rem", utils.naryop_abstract_eval("rem", [(np.integer, np.floating)] * 2), _rem_impl)
mlir.register(rem_p, mlir.elementwise("stablehlo.remainder"))
# d/dx rem(x, y) = 1; d/dy = -trunc(x / y) (as JAX: sign(x / y) * floor(abs(x / y))).
ad.defjvp(rem_p,
          lambda g, x, y: _maybe_broadcast(np.broadcast_shapes(_shape(x), _shape(y)), g),
          lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))
batching.defbroadcasting(rem_p)


def _pow_result_dtype(x, y):
  if dtypes.issubdtype(x, np.inexact) and dtypes.issubdtype(y, np.integer):
    return x
  if x == y:
    return x
  raise TypeError("the first argument to pow must have an inexact dtype (float or complex), and "
                  "the second argument must have an inexact or integer dtype, and two inexact "
                  f"dtypes must match, but got {x.name} and {y.name} respectively.")


def _pow_impl(x, y):
  if x.dtype.kind == "c":
    # XLA computes complex powers as exp(y * log(x)): other values than NumPy's (0 ** z is NaN,
    # results with large exponents differ by ~1e-5 relative), so they run on XLA.
    return eval_interpreter.run_on_xla(pow_p, [x, y], {})
  if y.dtype != x.dtype:
    y = y.astype(x.dtype)  # as XLA: the integer exponent is converted to the base's dtype
  with _ignore_fp():
    return np.power(x, y)


pow_p = utils.primitive(
    "pow", utils.naryop_abstract_eval("pow", [(np.floating, np.complexfloating),
                                              (np.integer, np.floating, np.complexfloating)],
                                      _pow_result_dtype, require_same_dtypes=False), _pow_impl)


def _pow_lowering(ctx, x, y):
  out = ctx.avals_out[0]
  y = mlir.convert(ctx, y, out.dtype)  # an integer exponent becomes the base's dtype, as in JAX
  return mlir.op(ctx, "stablehlo.power", [mlir.broadcast_to(ctx, x, out.shape),
                                          mlir.broadcast_to(ctx, y, out.shape)], out)


mlir.register(pow_p, _pow_lowering)


def _pow_jvp_lhs(g, ans, x, y):
  # d/dx x**y = y * x**(y - 1); with an integer exponent, 0 where y == 0 (so 0**0 has slope 0).
  y_dtype = _dtype_of(y)
  x_dtype = _dtype_of(x)
  if dtypes.issubdtype(y_dtype, np.integer):
    shape = np.broadcast_shapes(_shape(x), _shape(y))
    x = _maybe_broadcast(shape, x)
    y = _maybe_broadcast(shape, _convert_element_type(y, x_dtype))
    jac = select(eq(y, _const(y, 0)), _zeros(y),
                 mul(_replace_zero(y), pow(x, sub(y, _ones(y)))))
  else:
    jac = mul(y, pow(x, sub(y, _ones(y))))
  return mul(g, jac)


# The JVP (its y part needs log) is registered in special.py.
batching.defbroadcasting(pow_p)


def _integer_pow_rule(x: ShapedArray, *, y: int) -> ShapedArray:
  utils.check_accepted_dtype("integer_pow", x, _num)
  if y < 0 and dtypes.issubdtype(x.dtype, np.integer):
    raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x.str_short(short_dtypes=False)}, {y})")
  return x


def _integer_pow_impl(x, *, y: int):
  # Binary exponentiation with a multiply per step, as XLA evaluates integer_pow.
  if y == 0:
    return np.ones(np.shape(x), x.dtype)
  with _ignore_fp():
    acc = None
    power = x
    n = int(-y if y < 0 else y)
    while n:
      if n & 1:
        acc = power if acc is None else np.multiply(acc, power)
      n >>= 1
      if n:
        power = np.multiply(power, power)
    if y < 0:
      acc = np.true_divide(np.ones((), x.dtype), acc)
  return acc


integer_pow_p = utils.primitive("integer_pow", _integer_pow_rule, _integer_pow_impl)


def _integer_pow_lowering(ctx, x, *, y: int):
  # Binary exponentiation, the multiplies JAX emits; a negative power is 1 / x**-y.
  out = ctx.avals_out[0]
  if y == 0:
    return mlir.full_like_aval(ctx, 1, out)
  if y == 3:  # JAX emits (x * x) * x here; the operand order matters for complex products
    return mlir.op(ctx, "stablehlo.multiply", [mlir.op(ctx, "stablehlo.multiply", [x, x], out), x],
                   out)
  acc = None
  power = x
  n = -y if y < 0 else y
  while n:
    if n & 1:
      acc = power if acc is None else mlir.op(ctx, "stablehlo.multiply", [acc, power], out)
    n >>= 1
    if n:
      power = mlir.op(ctx, "stablehlo.multiply", [power, power], out)
  if y < 0:
    acc = mlir.op(ctx, "stablehlo.divide", [mlir.full_like_aval(ctx, 1, out), acc], out)
  return acc


mlir.register(integer_pow_p, _integer_pow_lowering)


def _integer_pow_jvp(g, x, *, y: int):
  if y == 0:
    return _zeros(g)
  if y == 1:
    return g
  if y == 2:
    return mul(g, mul(_const(x, 2), x))
  return mul(g, mul(_const(x, y), integer_pow(x, y - 1)))


ad.defjvp(integer_pow_p, _integer_pow_jvp)
batching.defvectorized(integer_pow_p)

_multiply_kernel = _exact(np.multiply)


def _square_kernel(x):
  # x * x: the same bits as np.square, except that ml_dtypes' bfloat16 square drops a NaN's
  # sign where XLA (which multiplies) keeps it
  return _multiply_kernel(x, x)


square_p = utils.unop("square", _num, _square_kernel)


def _square_lowering(ctx, x):
  # JAX: chlo.square for inexact dtypes, a multiply for integers.
  out = ctx.avals_out[0]
  if out.dtype.kind in "iu":
    return mlir.op(ctx, "stablehlo.multiply", [x, x], out)
  return mlir.op(ctx, "chlo.square", [x], out)


mlir.register(square_p, _square_lowering)
ad.defjvp2(square_p, lambda g, ans, x: mul(g, mul(_const(x, 2), x)))
batching.defvectorized(square_p)


neg_p = utils.unop("neg", _num, np.negative)
mlir.register(neg_p, mlir.elementwise("stablehlo.negate"))
ad.deflinear2(neg_p, lambda ct, x: [neg(ct)])
batching.defvectorized(neg_p)


def _sign_impl(x):
  kind = x.dtype.kind
  if kind in "iu":
    return np.sign(x)
  if kind == "c":
    with _ignore_fp():
      magnitude = _abs_impl(x)
      unit = np.empty(np.shape(x), x.dtype)  # each part divided by the real magnitude, as XLA
      unit.real = x.real / magnitude
      unit.imag = x.imag / magnitude
      return np.where(magnitude == 0, x, unit)
  with _ignore_fp():
    # copysign keeps the sign of -0.0 (XLA's sign(-0.0) is -0.0); NaN stays NaN.
    return np.copysign(np.sign(x), x)


sign_p = utils.unop("sign", _num, _sign_impl)


def _sign_lowering(ctx, x):
  out = ctx.avals_out[0]
  if out.dtype.kind == "u":  # stablehlo.sign takes no unsigned operand: x == 0 ? 0 : 1
    is_zero = mlir.compare(ctx, x, mlir.full_like_aval(ctx, 0, out), "EQ")
    return mlir.select(ctx, is_zero, mlir.full_like_aval(ctx, 0, out),
                       mlir.full_like_aval(ctx, 1, out))
  return mlir.op(ctx, "stablehlo.sign", [x], out)


mlir.register(sign_p, _sign_lowering)
ad.defjvp_zero(sign_p)
batching.defvectorized(sign_p)


def _abs_impl(x):
  if x.dtype.kind != "c":
    return np.abs(x)  # (no floating-point warning can arise)
  with _ignore_fp():
    out = np.abs(x)
    # XLA: a NaN part gives NaN even when the other part is infinite
    return np.where(np.isnan(x.real) | np.isnan(x.imag), np.array(np.nan, out.dtype), out)


abs_p = utils.unop("abs", (np.floating, np.complexfloating, np.signedinteger), _abs_impl,
                   utils.real_dtype_of)
mlir.register(abs_p, mlir.elementwise("stablehlo.abs"))


def _abs_jvp(g, ans, x):
  if _dtype_of(x).kind == "c":
    # d|z| = Re(conj(z) dz) / |z| (0 where z == 0)
    conj_x = conj(x)
    return real(mul(g, div(conj_x, _replace_zero(_convert_element_type(ans, _dtype_of(x))))))
  # As JAX: the slope at 0 is +1 (x >= 0 picks g).
  return select(ge(x, _const(x, 0)), g, neg(g))


ad.defjvp2(abs_p, _abs_jvp)
batching.defvectorized(abs_p)


def _zero_signs_fixed(out, x, y, combine):
  """max/min of two zeros: XLA orders -0.0 below 0.0, NumPy returns either operand."""
  if out.dtype.kind in "iub" or out.dtype.kind == "c":
    return out
  zero = out == 0
  if not zero.any():
    return out
  both = zero & (x == 0) & (y == 0)
  return np.where(both, combine(x, y), out)


def _max_impl(x, y):
  if x.dtype.kind == "c":
    return _complex_extremum(x, y, np.greater)
  with _ignore_fp():
    out = np.maximum(x, y)
    if x.dtype.kind in "iub":
      return out
    return _zero_signs_fixed(out, x, y, lambda a, b: a + b)  # +0 unless both are -0


def _min_impl(x, y):
  if x.dtype.kind == "c":
    return _complex_extremum(x, y, np.less)
  with _ignore_fp():
    out = np.minimum(x, y)
    if x.dtype.kind in "iub":
      return out
    return _zero_signs_fixed(out, x, y, lambda a, b: -((-a) + (-b)))  # -0 unless both are +0


def _complex_extremum(x, y, better):
  """max/min of complex numbers as XLA computes them: ``x`` if it compares better
  lexicographically on (real, imag), else ``y`` (so a NaN part does not propagate)."""
  with _ignore_fp():
    xr, yr = x.real, y.real
    pick_x = better(xr, yr) | ((xr == yr) & better(x.imag, y.imag))
    return np.where(pick_x, x, y)


max_p = utils.binop("max", _any, _max_impl)
min_p = utils.binop("min", _any, _min_impl)


def lower_complex_extremum(ctx, x, y, direction: str):
  """Lexicographic max (direction GT) or min (LT) of complex values of one shape, as lax.max and
  lax.min order them (and JAX lowers them): by real part, then imaginary part; one operand whole,
  ``y`` where the comparison is false (NaN). Also the combiner of complex max/min reductions."""
  xr, yr = mlir.real_part(ctx, x), mlir.real_part(ctx, y)
  real_equal = mlir.compare(ctx, xr, yr, "EQ")
  real_better = mlir.compare(ctx, xr, yr, direction)
  imag_better = mlir.compare(ctx, mlir.imag_part(ctx, x), mlir.imag_part(ctx, y), direction)
  pick_x = mlir.select(ctx, real_equal, imag_better, real_better)
  return mlir.select(ctx, pick_x, x, y)


def _extremum_lowering(op_name: str, direction: str):
  """stablehlo.maximum/minimum (NaN-propagating); complex operands: ``lower_complex_extremum``."""
  def rule(ctx, x, y):
    out = ctx.avals_out[0]
    x = mlir.broadcast_to(ctx, x, out.shape)
    y = mlir.broadcast_to(ctx, y, out.shape)
    if out.dtype.kind != "c":
      return mlir.op(ctx, op_name, [x, y], out)
    return lower_complex_extremum(ctx, x, y, direction)
  return rule


mlir.register(max_p, _extremum_lowering("stablehlo.maximum", "GT"))
mlir.register(min_p, _extremum_lowering("stablehlo.minimum", "LT"))


def _balanced_eq(x, z, y):
  """1 where ``x`` is the extremum ``z`` and ``y`` is not, 0.5 where both are (a tie splits the
  gradient evenly, as in JAX), 0 elsewhere."""
  return div(select(eq(x, z), _ones(z), _zeros(z)), select(eq(y, z), _twos(z), _ones(z)))


for _extremum in (max_p, min_p):
  ad.defjvp2(_extremum, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
             lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
  batching.defbroadcasting(_extremum)


def _nextafter_impl(x, y):
  if x.dtype == dtypes.bfloat16:
    return _nextafter_bits(x, y)
  with _ignore_fp():
    out = np.nextafter(x, y)
    if x.dtype == np.float16:  # NumPy's float16 loop returns x, not y, when x == y (0.0 vs -0.0)
      out = np.where(x == y, y, out)
    return out


def _nextafter_bits(x, y):
  """nextafter on the bit pattern (for dtypes NumPy has no nextafter loop for)."""
  x, y = np.broadcast_arrays(x, y)
  uint = _unsigned_view_dtype(x.dtype)
  bits = np.ascontiguousarray(x).view(uint)
  sign_mask = uint.type(1 << (8 * x.dtype.itemsize - 1))
  with _ignore_fp():
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    toward_larger_magnitude = (xf < yf) == (xf > 0)
    step = np.where(toward_larger_magnitude, bits + uint.type(1), bits - uint.type(1))
    from_zero = (y.view(uint) & sign_mask) | uint.type(1)
    out = np.where(xf == 0, from_zero, step)
    out = np.where(xf == yf, y.view(uint), out)
    out = np.where(np.isnan(xf) | np.isnan(yf), (bits | uint.type(0x7fc0)) if x.dtype.itemsize == 2
                   else bits, out)
  return np.ascontiguousarray(out.astype(uint)).view(x.dtype)


nextafter_p = utils.binop("nextafter", _float, _nextafter_impl)
mlir.register(nextafter_p, mlir.elementwise("chlo.next_after"))
_not_differentiable(nextafter_p)  # as in JAX
batching.defbroadcasting(nextafter_p)

# ---------------------------------------------------------------------------
# Rounding


class RoundingMethod(enum.IntEnum):
  """How ``lax.round`` breaks ties: away from zero (C's ``round``) or to the nearest even."""
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


def _floor_impl(x):
  if x.dtype == dtypes.bfloat16:
    return np.floor(x.astype(np.float32)).astype(x.dtype)
  return np.floor(x)


def _ceil_impl(x):
  if x.dtype == dtypes.bfloat16:
    return np.ceil(x.astype(np.float32)).astype(x.dtype)
  return np.ceil(x)


floor_p = utils.unop("floor", _float, _floor_impl)
mlir.register(floor_p, mlir.elementwise("stablehlo.floor"))
ceil_p = utils.unop("ceil", _float, _ceil_impl)
mlir.register(ceil_p, mlir.elementwise("stablehlo.ceil"))
for _rounding in (floor_p, ceil_p):
  ad.defjvp_zero(_rounding)
  batching.defvectorized(_rounding)


def _round_impl(x, *, rounding_method):
  dtype = x.dtype
  if dtype.itemsize < 4:  # exact in float32; the rounded value fits back
    x = x.astype(np.float32)
  if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
    out = np.rint(x)
  else:
    with _ignore_fp():
      truncated = np.trunc(x)
      out = np.where(np.abs(x - truncated) >= 0.5, truncated + np.sign(x), truncated)
      out = np.copysign(out, x)
  return out.astype(dtype) if out.dtype != dtype else out


round_p = utils.unop("round", _float, _round_impl)
ir.pp_param_rules[round_p] = lambda params: {"rounding_method": str(int(params["rounding_method"]))}


def _round_lowering(ctx, x, *, rounding_method):
  name = ("stablehlo.round_nearest_even" if rounding_method == RoundingMethod.TO_NEAREST_EVEN
          else "stablehlo.round_nearest_afz")
  return mlir.op(ctx, name, [x], ctx.avals_out[0])


mlir.register(round_p, _round_lowering)
ad.defjvp_zero(round_p)
batching.defvectorized(round_p)


def _is_finite_impl(x):
  if x.dtype == dtypes.bfloat16:
    x = x.astype(np.float32)
  return np.isfinite(x)


is_finite_p = utils.unop("is_finite", _float, _is_finite_impl, utils.bool_result)
mlir.register(is_finite_p, mlir.elementwise("stablehlo.is_finite"))
ad.defjvp_zero(is_finite_p)
batching.defvectorized(is_finite_p)

# ---------------------------------------------------------------------------
# Complex numbers


def _complex_dtype(dtype):
  return np.dtype(np.complex128) if np.dtype(dtype) in (np.float64, np.complex128) else np.dtype(np.complex64)


def _real_impl(x):
  return np.array(x.real, copy=True)


def _imag_impl(x):
  return np.array(x.imag, copy=True)


real_p = utils.unop("real", _complex, _real_impl, utils.real_dtype_of)
mlir.register(real_p, mlir.elementwise("stablehlo.real"))
imag_p = utils.unop("imag", _complex, _imag_impl, utils.real_dtype_of)
mlir.register(imag_p, mlir.elementwise("stablehlo.imag"))
# Cotangents of complex values are conjugated (JAX's convention): real's transpose is
# complex(ct, 0), imag's is complex(0, -ct).
ad.deflinear2(real_p, lambda ct, x: [complex(ct, np.zeros((), _dtype_of(ct)))])
ad.deflinear2(imag_p, lambda ct, x: [complex(np.zeros((), _dtype_of(ct)), neg(ct))])
batching.defvectorized(real_p)
batching.defvectorized(imag_p)


def _complex_impl(x, y):
  shape = np.broadcast_shapes(np.shape(x), np.shape(y))
  out = np.empty(shape, _complex_dtype(x.dtype))
  out.real = x
  out.imag = y
  return out


complex_p = utils.primitive(
    "complex", utils.naryop_abstract_eval("complex", [_complex_elem, _complex_elem],
                                          lambda x, y: _complex_dtype(x)), _complex_impl)
mlir.register(complex_p, mlir.elementwise("stablehlo.complex"))


def _complex_transpose(ct, x, y):
  return [_unbroadcast(x.aval, real(ct)) if ad.is_undefined_primal(x) else None,
          _unbroadcast(y.aval, imag(neg(ct))) if ad.is_undefined_primal(y) else None]


ad.deflinear2(complex_p, _complex_transpose)
batching.defbroadcasting(complex_p)


def _conj_rule(x: ShapedArray, *, input_dtype) -> ShapedArray:
  utils.check_accepted_dtype("conj", x, (np.float32, np.complexfloating, np.float64))
  return ShapedArray(x.shape, _complex_dtype(x.dtype), x.weak_type)


def _conj_impl(x, *, input_dtype):
  if x.dtype.kind == "c":
    return np.conj(x)
  return x.astype(_complex_dtype(x.dtype))


conj_p = utils.primitive("conj", _conj_rule, _conj_impl)


def _conj_lowering(ctx, x, *, input_dtype):
  out = ctx.avals_out[0]
  part = ShapedArray(out.shape, utils.real_dtype_of(out.dtype))
  if x.aval.dtype.kind == "c":
    real = mlir.op(ctx, "stablehlo.real", [x], part)
    imag = mlir.op(ctx, "stablehlo.negate", [mlir.op(ctx, "stablehlo.imag", [x], part)], part)
  else:
    real = mlir.convert(ctx, x, part.dtype)
    imag = mlir.full_like_aval(ctx, 0, part)
  return mlir.op(ctx, "stablehlo.complex", [real, imag], out)


mlir.register(conj_p, _conj_lowering)


def _conj_transpose(ct, x, *, input_dtype):
  if dtypes.issubdtype(input_dtype, np.complexfloating):
    return [conj(ct)]
  return [real(ct)]


ad.deflinear2(conj_p, _conj_transpose)
batching.defvectorized(conj_p)

# ---------------------------------------------------------------------------
# Comparisons

def _compare_lowering(direction: str):
  """stablehlo.compare: FLOAT for inexact operands (complex: EQ/NE only), SIGNED for signed
  integers, UNSIGNED for unsigned integers and booleans."""
  def rule(ctx, x, y):
    shape = ctx.avals_out[0].shape
    return mlir.compare(ctx, mlir.broadcast_to(ctx, x, shape), mlir.broadcast_to(ctx, y, shape),
                        direction)
  rule.__name__ = f"_compare_{direction.lower()}_lowering"
  return rule


eq_p = utils.binop("eq", _any, _exact(np.equal), utils.bool_result)
mlir.register(eq_p, _compare_lowering("EQ"))
ne_p = utils.binop("ne", _any, _exact(np.not_equal), utils.bool_result)
mlir.register(ne_p, _compare_lowering("NE"))
lt_p = utils.binop("lt", _ordered, _exact(np.less), utils.bool_result)
mlir.register(lt_p, _compare_lowering("LT"))
le_p = utils.binop("le", _ordered, _exact(np.less_equal), utils.bool_result)
mlir.register(le_p, _compare_lowering("LE"))
gt_p = utils.binop("gt", _ordered, _exact(np.greater), utils.bool_result)
mlir.register(gt_p, _compare_lowering("GT"))
ge_p = utils.binop("ge", _ordered, _exact(np.greater_equal), utils.bool_result)
mlir.register(ge_p, _compare_lowering("GE"))
for _comparison in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
  ad.defjvp_zero(_comparison)
  batching.defbroadcasting(_comparison)

# ---------------------------------------------------------------------------
# Bitwise operations

and_p = utils.binop("and", _bool_or_int, np.bitwise_and)
mlir.register(and_p, mlir.elementwise("stablehlo.and"))
or_p = utils.binop("or", _bool_or_int, np.bitwise_or)
mlir.register(or_p, mlir.elementwise("stablehlo.or"))
xor_p = utils.binop("xor", _bool_or_int, np.bitwise_xor)
mlir.register(xor_p, mlir.elementwise("stablehlo.xor"))
not_p = utils.unop("not", _bool_or_int, np.invert)
mlir.register(not_p, mlir.elementwise("stablehlo.not"))
for _bitwise in (and_p, or_p, xor_p):
  ad.defjvp_zero(_bitwise)
  batching.defbroadcasting(_bitwise)
ad.defjvp_zero(not_p)
batching.defvectorized(not_p)


def _shift_amounts(x, y):
  """Shift amounts as unsigned (a negative amount is huge) and where they reach the width."""
  bits = 8 * x.dtype.itemsize
  uint = _unsigned_view_dtype(x.dtype)
  amount = y.astype(uint) if y.dtype != uint else y
  too_far = amount >= bits
  clipped = np.minimum(amount, uint.type(bits - 1))
  return clipped, too_far


def _shift_left_impl(x, y):
  clipped, too_far = _shift_amounts(x, y)
  out = np.left_shift(x, clipped.astype(x.dtype))
  return np.where(too_far, np.zeros((), x.dtype), out)


def _shift_right_logical_impl(x, y):
  clipped, too_far = _shift_amounts(x, y)
  uint = _unsigned_view_dtype(x.dtype)
  out = np.right_shift(x.astype(uint), clipped).astype(x.dtype)
  return np.where(too_far, np.zeros((), x.dtype), out)


def _shift_right_arithmetic_impl(x, y):
  clipped, _ = _shift_amounts(x, y)  # shifting by width-1 already fills with the sign
  signed = np.dtype(f"i{x.dtype.itemsize}")
  return np.right_shift(x.astype(signed), clipped.astype(signed)).astype(x.dtype)


# XLA's shifts are defined for every amount (an amount of at least the width, or a negative one
# read as unsigned, gives 0 or the sign fill: the kernels' results); JAX emits the plain ops.
shift_left_p = utils.binop("shift_left", _int, _shift_left_impl)
mlir.register(shift_left_p, mlir.elementwise("stablehlo.shift_left"))
shift_right_logical_p = utils.binop("shift_right_logical", _int, _shift_right_logical_impl)
mlir.register(shift_right_logical_p, mlir.elementwise("stablehlo.shift_right_logical"))
shift_right_arithmetic_p = utils.binop("shift_right_arithmetic", _int, _shift_right_arithmetic_impl)
mlir.register(shift_right_arithmetic_p, mlir.elementwise("stablehlo.shift_right_arithmetic"))
for _shift in (shift_left_p, shift_right_logical_p, shift_right_arithmetic_p):
  ad.defjvp_zero(_shift)
  batching.defbroadcasting(_shift)


def _population_count_impl(x):
  # bitwise_count of a signed integer counts the bits of its magnitude: count the raw bits.
  return np.bitwise_count(x.astype(_unsigned_view_dtype(x.dtype))).astype(x.dtype)


def _clz_impl(x):
  bits = 8 * x.dtype.itemsize
  uint = _unsigned_view_dtype(x.dtype)
  v = x.astype(uint)
  shift = 1
  while shift < bits:  # smear the highest set bit into every lower position
    v = v | (v >> uint.type(shift))
    shift *= 2
  return (bits - np.bitwise_count(v).astype(np.int64)).astype(x.dtype)


population_count_p = utils.unop("population_count", _int, _population_count_impl)
mlir.register(population_count_p, mlir.elementwise("stablehlo.popcnt"))
clz_p = utils.unop("clz", _int, _clz_impl)
mlir.register(clz_p, mlir.elementwise("stablehlo.count_leading_zeros"))
for _bit_count in (population_count_p, clz_p):
  ad.defjvp_zero(_bit_count)
  batching.defvectorized(_bit_count)

# ---------------------------------------------------------------------------
# Selection


def _select_n_rule(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
  if not cases:
    raise TypeError("select must have at least one case")
  if any(c.shape != cases[0].shape for c in cases[1:]):
    raise TypeError("select cases must have the same shapes, got "
                    f"[{', '.join(str(c.shape) for c in cases)}].")
  if which.shape and which.shape != cases[0].shape:
    raise TypeError("select `which` must be scalar or have the same shape as cases, got `which` "
                    f"shape {which.shape} but case shape {cases[0].shape}.")
  utils.check_same_dtypes("select", *cases)
  if not (dtypes.issubdtype(which.dtype, np.bool_) or dtypes.issubdtype(which.dtype, np.integer)):
    raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype.name}.")
  if which.dtype == np.bool_ and len(cases) > 2:
    raise TypeError("select with boolean `which` cannot have > 2 cases.")
  return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


def _select_n_impl(which, *cases):
  if len(cases) == 1:
    return cases[0]
  if which.dtype == np.bool_ or len(cases) == 2:
    # XLA's lowering compares `which < 1`: out-of-range indices pick the nearest case.
    pick_second = which if which.dtype == np.bool_ else which >= 1
    return np.where(pick_second, cases[1], cases[0])
  which = np.broadcast_to(which, np.shape(cases[0]))
  return np.choose(which.astype(np.intp), cases, mode="clip")


select_n_p = utils.primitive("select_n", _select_n_rule, _select_n_impl)


def _select_n_lowering(ctx, which, *cases):
  """Nested stablehlo.select: a boolean ``which`` picks between two cases directly; an integer
  one splits the cases in halves with ``which < mid`` (so out-of-range indices pick the first or
  last case, as in JAX)."""
  if len(cases) == 1:
    return cases[0]
  if which.aval.dtype == np.bool_:
    return mlir.select(ctx, which, cases[1], cases[0])

  def tree(offset, group):
    if len(group) == 1:
      return group[0]
    mid = len(group) // 2
    bound = mlir.full_like_aval(ctx, offset + mid, which.aval)
    below = mlir.compare(ctx, which, bound, "LT")
    return mlir.select(ctx, below, tree(offset, group[:mid]), tree(offset + mid, group[mid:]))

  return tree(0, list(cases))


mlir.register(select_n_p, _select_n_lowering)


def _select_n_jvp(primals, tangents):
  which, *cases = primals
  case_tangents = tangents[1:]
  out = select_n_p.bind(which, *cases)
  nonzero = [t for t in case_tangents if type(t) is not ad.Zero]
  if not nonzero:
    return out, ad.Zero(case_tangents[0].aval)
  zeros = _zeros(nonzero[0])
  return out, select_n_p.bind(which, *[zeros if type(t) is ad.Zero else t
                                       for t in case_tangents])


def _select_n_transpose(ct, which, *cases):
  if ad.is_undefined_primal(which):
    raise ValueError("select_n cannot be transposed with respect to `which`")
  if len(cases) == 1:
    return [None, ct if ad.is_undefined_primal(cases[0]) else None]
  zeros = _zeros(ct)
  if _dtype_of(which) == np.bool_:
    false_case, true_case = cases
    return [None,
            select(which, zeros, ct) if ad.is_undefined_primal(false_case) else None,
            select(which, ct, zeros) if ad.is_undefined_primal(true_case) else None]
  # Each case receives the cotangent where ``which`` equals its index (as in JAX; indices out of
  # range, whose select_n result is unspecified, pass no cotangent).
  return [None] + [select(eq(which, _const(which, i)), ct, zeros)
                   if ad.is_undefined_primal(case) else None for i, case in enumerate(cases)]


def _select_n_batcher(values, dims):
  which, *cases = values
  which_dim, *case_dims = dims
  size = next(core.get_aval(v).shape[d] for v, d in zip(values, dims) if d is not None)
  which_rank = len(_shape(which)) - (which_dim is not None)
  case_rank = len(_shape(cases[0])) - (case_dims[0] is not None)
  # Common cases without moving axes: everything batched along one axis.
  if all(d == which_dim for d in case_dims):
    if which_rank == case_rank:
      return select_n_p.bind(which, *cases), which_dim
    # a scalar `which` per example with array cases
    which = _broadcast_in_dim(which, _shape(cases[0]), (which_dim,))
    return select_n_p.bind(which, *cases), which_dim
  if which_dim is None and which_rank == 0 and all(d is not None for d in case_dims):
    target = case_dims[0]
    cases = [batching.moveaxis(c, d, target) for c, d in zip(cases, case_dims)]
    return select_n_p.bind(which, *cases), target
  # General case: batch axes first (the predicate's, then the cases'), unbatched operands
  # broadcast; an unbatched scalar predicate stays one.
  scalar_which = which_dim is None and which_rank == 0
  if not scalar_which:
    which = batching.bdim_at_front(which, which_dim, size)
  cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
  if not scalar_which and which_rank < case_rank:
    which = _broadcast_in_dim(which, _shape(cases[0]), (0,))
  return select_n_p.bind(which, *cases), 0


ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose
batching.primitive_batchers[select_n_p] = _select_n_batcher


def _clamp_rule(min: ShapedArray, x: ShapedArray, max: ShapedArray) -> ShapedArray:
  utils.check_operand_dtypes("clamp", (min, x, max), [_any] * 3)
  utils.check_same_dtypes("clamp", min, x, max)
  if min.shape and min.shape != x.shape:
    raise TypeError("clamp requires min.shape == operand.shape or min.shape == (), got "
                    f"min.shape={min.shape}, operand.shape={x.shape}.")
  if max.shape and max.shape != x.shape:
    raise TypeError("clamp requires max.shape == operand.shape or max.shape == (), got "
                    f"max.shape={max.shape}, operand.shape={x.shape}.")
  return ShapedArray(x.shape, x.dtype, all(a.weak_type for a in (min, x, max)))


def _clamp_impl(lo, x, hi):
  if x.dtype.kind == "c":
    # XLA's clamp of complex numbers compares real parts only: lo where x.real <= lo.real, then
    # hi unless that value's real part is <= hi.real (so a NaN real part gives hi).
    with _ignore_fp():
      low = np.where(x.real <= lo.real, lo, x)
      out = np.where(low.real <= hi.real, low, hi)
  else:
    # XLA: min(max(x, lo), hi), each step NaN-propagating.
    out = _min_impl(_max_impl(x, lo), hi)
  if np.shape(out) != np.shape(x):
    out = np.broadcast_to(out, np.shape(x)).copy()
  return out


clamp_p = utils.primitive("clamp", _clamp_rule, _clamp_impl)


def _clamp_lowering(ctx, lo, x, hi):
  shape = ctx.avals_out[0].shape
  return mlir.op(ctx, "stablehlo.clamp", [mlir.broadcast_to(ctx, lo, shape), x,
                                          mlir.broadcast_to(ctx, hi, shape)], ctx.avals_out[0])


mlir.register(clamp_p, _clamp_lowering)


def _clamp_jvp_fn(condition):
  def fn(g, lo, x, hi):
    return select(condition(lo, x, hi), _maybe_broadcast(_shape(x), g), _zeros(x))
  return fn


# The operand's slope is 1 strictly inside (min, max); min's where it is above x (and below
# max); max's where it is below x.
ad.defjvp(clamp_p,
          _clamp_jvp_fn(lambda lo, x, hi: bitwise_and(gt(lo, x), lt(lo, hi))),
          _clamp_jvp_fn(lambda lo, x, hi: bitwise_and(gt(x, lo), lt(x, hi))),
          _clamp_jvp_fn(lambda lo, x, hi: lt(hi, x)))


def _clamp_batcher(values, dims):
  lo, x, hi = values
  lo_dim, x_dim, hi_dim = dims
  lo_rank, hi_rank = len(_shape(lo)), len(_shape(hi))  # batched ranks
  # Without moving axes: bounds batched like x, or unbatched scalar bounds.
  if lo_dim == x_dim == hi_dim:
    if _shape(lo) == _shape(x) == _shape(hi):
      return clamp_p.bind(lo, x, hi), x_dim
    if lo_rank == hi_rank == 1:  # a scalar bound per example
      lo = _broadcast_in_dim(lo, _shape(x), (lo_dim,))
      hi = _broadcast_in_dim(hi, _shape(x), (hi_dim,))
      return clamp_p.bind(lo, x, hi), x_dim
  elif lo_rank == hi_rank == 0 and x_dim is not None:
    return clamp_p.bind(lo, x, hi), x_dim
  # Batch axes first; scalar bounds broadcast to the operand's shape.
  size = next(core.get_aval(v).shape[d] for v, d in zip(values, dims) if d is not None)
  lo = batching.bdim_at_front(lo, lo_dim, size) if lo_rank else lo
  hi = batching.bdim_at_front(hi, hi_dim, size) if hi_rank else hi
  x = batching.bdim_at_front(x, x_dim, size) if _shape(x) else x
  x_rank = len(_shape(x))
  if not _shape(lo) and x_rank:
    lo = _broadcast_in_dim(lo, _shape(x), ())
  if not _shape(hi) and x_rank:
    hi = _broadcast_in_dim(hi, _shape(x), ())
  if 0 < len(_shape(lo)) < x_rank:
    lo = _broadcast_in_dim(lo, _shape(x), (0,))
  if 0 < len(_shape(hi)) < x_rank:
    hi = _broadcast_in_dim(hi, _shape(x), (0,))
  if len(_shape(lo)) > x_rank:  # an unbatched scalar operand with batched bounds
    x = _broadcast_in_dim(x, _shape(lo), ())
  return clamp_p.bind(lo, x, hi), 0


batching.primitive_batchers[clamp_p] = _clamp_batcher

# ---------------------------------------------------------------------------
# The lax functions


def add(x, y):
  """Elementwise addition ``x + y`` (``lax.add``). Operands must have the same dtype; integer
  overflow wraps around."""
  return add_p.bind(x, y)


def sub(x, y):
  """Elementwise subtraction ``x - y`` (``lax.sub``); operands must have the same dtype."""
  return sub_p.bind(x, y)


def mul(x, y):
  """Elementwise multiplication ``x * y`` (``lax.mul``); operands must have the same dtype."""
  return mul_p.bind(x, y)


def div(x, y):
  """Elementwise division ``x / y`` (``lax.div``).

  Integer division rounds toward zero (C semantics, unlike Python's ``//``); an integer divided
  by zero gives -1 (all bits set).
  """
  return div_p.bind(x, y)


def rem(x, y):
  """Elementwise remainder of ``x / y`` with the sign of the dividend (``lax.rem``, C's ``fmod``
  and ``%``, unlike Python's ``%``). An integer remainder by zero gives ``x``."""
  return rem_p.bind(x, y)


def pow(x, y):
  """Elementwise power ``x ** y`` (``lax.pow``). ``x`` must be floating or complex; ``y`` may be
  an integer array or have ``x``'s dtype."""
  return pow_p.bind(x, y)


def integer_pow(x, y: int):
  """Elementwise ``x ** y`` for a static Python integer ``y`` (``lax.integer_pow``), computed by
  repeated multiplication. Negative ``y`` is allowed for inexact dtypes only."""
  if isinstance(y, core.Tracer):
    raise errors.ConcretizationTypeError(y, "The exponent y of lax.integer_pow must be static.")
  return integer_pow_p.bind(x, y=y)


def square(x):
  """Elementwise square ``x * x`` (``lax.square``)."""
  return square_p.bind(x)


def reciprocal(x):
  """Elementwise reciprocal ``1 / x`` (``lax.reciprocal``), i.e. ``integer_pow(x, -1)``."""
  return integer_pow(x, -1)


def neg(x):
  """Elementwise negation ``-x`` (``lax.neg``); unsigned integers wrap around."""
  return neg_p.bind(x)


def sign(x):
  """Elementwise sign (``lax.sign``): -1, 0 or 1 for integers; -1.0, -0.0, 0.0, 1.0 or NaN for
  floats; ``x / abs(x)`` (or 0) for complex numbers."""
  return sign_p.bind(x)


def abs(x):
  """Elementwise absolute value (``lax.abs``); the magnitude (a real array) for complex input."""
  return abs_p.bind(x)


def max(x, y):
  """Elementwise maximum (``lax.max``); NaN propagates and ``max(-0.0, 0.0)`` is ``0.0``."""
  return max_p.bind(x, y)


def min(x, y):
  """Elementwise minimum (``lax.min``); NaN propagates and ``min(-0.0, 0.0)`` is ``-0.0``."""
  return min_p.bind(x, y)


def floor(x):
  """Elementwise floor (``lax.floor``) of a floating-point array."""
  return floor_p.bind(x)


def ceil(x):
  """Elementwise ceiling (``lax.ceil``) of a floating-point array."""
  return ceil_p.bind(x)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
  """Elementwise rounding to the nearest integer (``lax.round``).

  ``rounding_method`` (a ``lax.RoundingMethod`` or its int value) breaks ties away from zero
  (the default) or to the nearest even integer.
  """
  rounding_method = RoundingMethod(rounding_method)
  return round_p.bind(x, rounding_method=rounding_method)


def is_finite(x):
  """Elementwise test for a finite value, neither infinite nor NaN (``lax.is_finite``)."""
  return is_finite_p.bind(x)


def nextafter(x1, x2):
  """The next representable value after ``x1`` in the direction of ``x2`` (``lax.nextafter``)."""
  return nextafter_p.bind(x1, x2)


def real(x):
  """Elementwise real part of a complex array (``lax.real``)."""
  return real_p.bind(x)


def imag(x):
  """Elementwise imaginary part of a complex array (``lax.imag``)."""
  return imag_p.bind(x)


def conj(x):
  """Elementwise complex conjugate (``lax.conj``); a real input gives a complex result."""
  return conj_p.bind(x, input_dtype=dtypes.dtype(x, canonicalize=True))


def complex(x, y):
  """Elementwise ``x + 1j * y`` from float32 or float64 parts (``lax.complex``)."""
  return complex_p.bind(x, y)


def clamp(min, x, max):
  """Elementwise clamp of ``x`` to ``[min, max]`` (``lax.clamp``): ``min(max(x, min), max)``.
  ``min`` and ``max`` are scalars or have ``x``'s shape."""
  return clamp_p.bind(min, x, max)


def eq(x, y):
  """Elementwise ``x == y`` (``lax.eq``), a boolean array."""
  return eq_p.bind(x, y)


def ne(x, y):
  """Elementwise ``x != y`` (``lax.ne``), a boolean array."""
  return ne_p.bind(x, y)


def lt(x, y):
  """Elementwise ``x < y`` (``lax.lt``), a boolean array."""
  return lt_p.bind(x, y)


def le(x, y):
  """Elementwise ``x <= y`` (``lax.le``), a boolean array."""
  return le_p.bind(x, y)


def gt(x, y):
  """Elementwise ``x > y`` (``lax.gt``), a boolean array."""
  return gt_p.bind(x, y)


def ge(x, y):
  """Elementwise ``x >= y`` (``lax.ge``), a boolean array."""
  return ge_p.bind(x, y)


def bitwise_and(x, y):
  """Elementwise bitwise AND (logical AND for booleans) (``lax.bitwise_and``)."""
  return and_p.bind(x, y)


def bitwise_or(x, y):
  """Elementwise bitwise OR (logical OR for booleans) (``lax.bitwise_or``)."""
  return or_p.bind(x, y)


def bitwise_xor(x, y):
  """Elementwise bitwise exclusive OR (``lax.bitwise_xor``)."""
  return xor_p.bind(x, y)


def bitwise_not(x):
  """Elementwise bitwise NOT (logical NOT for booleans) (``lax.bitwise_not``)."""
  return not_p.bind(x)


def shift_left(x, y):
  """Elementwise ``x << y`` (``lax.shift_left``); shifting by the bit width or more gives 0."""
  return shift_left_p.bind(x, y)


def shift_right_logical(x, y):
  """Elementwise logical right shift, filling with zeros (``lax.shift_right_logical``); shifting
  by the bit width or more gives 0."""
  return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x, y):
  """Elementwise arithmetic right shift, filling with the sign bit
  (``lax.shift_right_arithmetic``); shifting by the bit width or more gives 0 or -1."""
  return shift_right_arithmetic_p.bind(x, y)


def population_count(x):
  """Elementwise number of set bits (``lax.population_count``)."""
  return population_count_p.bind(x)


def clz(x):
  """Elementwise number of leading zero bits (``lax.clz``)."""
  return clz_p.bind(x)


def select_n(which, *cases):
  """Elementwise choice among ``cases`` by ``which`` (``lax.select_n``).

  ``which`` is boolean (at most two cases: False picks ``cases[0]``) or an integer index into
  ``cases``; it is a scalar or has the cases' shape. All cases have one shape and dtype.
  """
  if not cases:
    raise ValueError("select_n() must have at least one case")
  return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
  """Elementwise ``on_true if pred else on_false`` for a boolean ``pred`` (``lax.select``)."""
  # select_n's case 0 is the False branch.
  return select_n_p.bind(pred, on_false, on_true)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

_policy = eval_interpreter
# (every kernel here: operands above HOST_KERNEL_LIMIT elements run on XLA, see eval)
_LIMIT = _policy.HOST_KERNEL_LIMIT
_NARROW_LIMIT = _policy.NARROW_HOST_LIMIT
# Bit moves and integer operations: exact on every operand.
_policy.exact_kernels(neg_p, real_p, imag_p, conj_p, complex_p, is_finite_p, and_p, or_p, xor_p,
                      not_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p,
                      population_count_p, clz_p, max_size=_LIMIT)
# IEEE arithmetic and comparisons: exact, except where XLA flushes subnormals.
_policy.exact_kernels(add_p, sub_p, eq_p, ne_p, subnormals=True, max_size=_LIMIT,
                      narrow_max_size=_NARROW_LIMIT)
# Complex multiply/divide/abs/sign/... use other formulas than XLA's: those run on XLA.
# max/min run on XLA: the NaN it returns may carry another sign bit than NumPy's.
_policy.exact_kernels(mul_p, div_p, rem_p, lt_p, le_p, gt_p, ge_p, floor_p, ceil_p,
                      nextafter_p, square_p, integer_pow_p, when=_policy.no_complex,
                      subnormals=True, max_size=_LIMIT, narrow_max_size=_NARROW_LIMIT)
_policy.exact_kernels(abs_p, when=_policy.no_complex, subnormals=True,  # (a bit operation)
                      max_size=_LIMIT)
# Kernels that XLA beats from fewer elements: NumPy's where branches on each element, sign
# and clamp take several passes, round (half away from zero) more. Crossovers measured on
# float32 operands that are host results themselves (the XLA side includes their transfer),
# e.g. jnp.where(x > 0, x, 0.0) 15 us vs 21 at 8,192 elements, 23 vs 23 at 16,384, 42 vs 26
# at 32,768; sign(2x) 25 vs 23 at 16,384, 81 vs 70 at 65,536; clamp 24 vs 25 at 4,096, 36
# vs 30 at 16,384; with operands already on the device XLA wins sooner (where 26 us vs 10 at
# 16,384, round 20 vs 7 at 4,096).
HOST_SELECT_LIMIT = 16384
_policy.exact_kernels(select_n_p, max_size=HOST_SELECT_LIMIT)
_policy.exact_kernels(sign_p, when=_policy.no_complex, subnormals=True, max_size=16384,
                      narrow_max_size=_NARROW_LIMIT)
_policy.exact_kernels(clamp_p, when=_policy.no_complex, subnormals=True, max_size=8192,
                      narrow_max_size=_NARROW_LIMIT)
_policy.exact_kernels(round_p, when=_policy.no_complex, subnormals=True, max_size=4096)
_policy.exact_kernels(pow_p, when=_policy.integral, max_size=_LIMIT)
