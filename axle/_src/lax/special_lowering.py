"""StableHLO for the special-function primitives that XLA has no single operation for.

``lax.igamma``/``igammac``/``igamma_grad_a`` (Cephes' power series and continued fraction, the
gradient carried along by forward-mode differentiation of the recurrences),
``lax.betainc`` (Lentz's continued fraction), ``lax.bessel_i0e`` (Cephes' Chebyshev
expansions) and complex ``sin``/``cos`` are emitted as elementwise StableHLO with
``stablehlo.while`` loops -- the algorithms XLA computes for JAX, so jitted results agree
with JAX's to a few ulps. float16/bfloat16 operands are computed in float32 and rounded back,
float64 in float64.

The rules here are registered in ``special.py``, in each primitive's block.
"""
from __future__ import annotations

from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from axle._src.core import ShapedArray
from axle._src.interpreters import lowering as mlir

_BOOL = np.dtype(np.bool_)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_NARROW = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


# ---------------------------------------------------------------------------
# The ``accuracy`` parameter


def accuracy_attributes(accuracy) -> dict | None:
  """The ``result_accuracy`` attribute JAX attaches for ``accuracy`` (none for the default)."""
  if accuracy is None:
    return None
  mode = getattr(accuracy, "name", None)  # an AccuracyMode
  if mode == "DEFAULT":
    return None
  if mode == "HIGHEST":
    text = "#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>"
  else:  # a Tolerance
    text = (f"#stablehlo.result_accuracy<atol = {float(accuracy.atol):e}, "
            f"rtol = {float(accuracy.rtol):e}, ulps = {int(accuracy.ulps)}, "
            "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>")
  return {"result_accuracy": text}


def unary(name: str, accuracy: bool = False) -> Callable:
  """The rule of a one-operand primitive that is the single op ``name`` (``chlo.erf``,
  ``stablehlo.sine``, ...), carrying the ``accuracy`` parameter where the primitive has one."""

  def rule(ctx, x, accuracy=None):
    return mlir.op(ctx, name, [x], ctx.avals_out[0],
                   accuracy_attributes(accuracy) if accuracy else None)

  rule.__name__ = f"lower_{name.replace('.', '_')}"
  return rule


# ---------------------------------------------------------------------------
# A small expression builder: elementwise StableHLO on values of one shape


class _Expr:
  """An SSA value with arithmetic operators that emit StableHLO (both operands of one shape;
  a Python number becomes a splat constant of the value's shape and dtype)."""
  __slots__ = ("builder", "value")

  def __init__(self, builder: "_Builder", value: mlir.Value):
    self.builder = builder
    self.value = value

  @property
  def dtype(self):
    return self.value.aval.dtype

  @property
  def shape(self):
    return self.value.aval.shape

  def _binary(self, name, other, reverse=False):
    other = self.builder.lift(other, self.dtype, self.shape)
    operands = [other, self.value] if reverse else [self.value, other]
    return self.builder.emit(name, operands, self.dtype)

  def __add__(self, other): return self._binary("stablehlo.add", other)
  def __radd__(self, other): return self._binary("stablehlo.add", other, True)
  def __sub__(self, other): return self._binary("stablehlo.subtract", other)
  def __rsub__(self, other): return self._binary("stablehlo.subtract", other, True)
  def __mul__(self, other): return self._binary("stablehlo.multiply", other)
  def __rmul__(self, other): return self._binary("stablehlo.multiply", other, True)
  def __truediv__(self, other): return self._binary("stablehlo.divide", other)
  def __rtruediv__(self, other): return self._binary("stablehlo.divide", other, True)
  def __and__(self, other): return self._binary("stablehlo.and", other)
  def __or__(self, other): return self._binary("stablehlo.or", other)
  def __neg__(self): return self.builder.emit("stablehlo.negate", [self.value], self.dtype)
  def __invert__(self): return self.builder.emit("stablehlo.not", [self.value], self.dtype)

  def _compare(self, other, direction):
    other = self.builder.lift(other, self.dtype, self.shape)
    return _Expr(self.builder, mlir.compare(self.builder.ctx, self.value, other, direction))

  def lt(self, other): return self._compare(other, "LT")
  def le(self, other): return self._compare(other, "LE")
  def gt(self, other): return self._compare(other, "GT")
  def ge(self, other): return self._compare(other, "GE")
  def eq(self, other): return self._compare(other, "EQ")
  def ne(self, other): return self._compare(other, "NE")

  def apply(self, name):
    """The one-operand op ``name`` (``"stablehlo.log"``, ``"chlo.lgamma"``, ...) of this value."""
    return self.builder.emit(name, [self.value], self.dtype)

  def isnan(self): return self.ne(self)


class _Builder:
  """Emits elementwise operations into the rule context ``ctx``; ``shape`` is the shape of the
  values computed (loop counters may be scalars)."""

  def __init__(self, ctx, shape: Sequence[int]):
    self.ctx = ctx
    self.shape = tuple(shape)

  def emit(self, name, operands, dtype, attributes=None) -> _Expr:
    aval = ShapedArray(operands[0].aval.shape, np.dtype(dtype))
    return _Expr(self, mlir.op(self.ctx, name, list(operands), aval, attributes))

  def wrap(self, x) -> _Expr:
    """``x`` (a Value or an expression) broadcast to the builder's shape."""
    value = x.value if isinstance(x, _Expr) else x
    return _Expr(self, mlir.broadcast_to(self.ctx, value, self.shape))

  def lift(self, x, dtype, shape=None) -> mlir.Value:
    if isinstance(x, _Expr):
      return x.value
    if isinstance(x, mlir.Value):
      return x
    shape = self.shape if shape is None else shape
    return mlir.full_like_aval(self.ctx, np.asarray(x).astype(dtype), ShapedArray(shape, dtype))

  def const(self, x, dtype) -> _Expr:
    return _Expr(self, self.lift(x, dtype))

  def where(self, predicate: _Expr, on_true, on_false) -> _Expr:
    dtype = on_true.dtype if isinstance(on_true, _Expr) else on_false.dtype
    shape = predicate.shape
    return _Expr(self, mlir.select(self.ctx, predicate.value, self.lift(on_true, dtype, shape),
                                   self.lift(on_false, dtype, shape)))

  def convert(self, x: _Expr, dtype) -> _Expr:
    return _Expr(self, mlir.convert(self.ctx, x.value, dtype))

  def any(self, mask: _Expr) -> _Expr:
    """A scalar ``i1``: whether any element of ``mask`` is true."""
    if not mask.shape:
      return mask
    ctx = self.ctx
    scalar = ShapedArray((), _BOOL)
    init = mlir.constant(ctx, np.array(False))

    def body(ctx, a, b):
      return mlir.op(ctx, "stablehlo.or", [a, b], scalar)

    return _Expr(self, mlir.op(ctx, "stablehlo.reduce", [mask.value, init], scalar,
                               {"dimensions": mlir.dense_array(range(len(mask.shape)))},
                               regions=[mlir.region(ctx, [scalar, scalar], body)]))

  def while_loop(self, cond: Callable, body: Callable, init: Sequence) -> list[_Expr]:
    """``stablehlo.while`` over the loop-carried expressions ``init``: ``cond(*values)`` returns
    a scalar boolean expression, ``body(*values)`` the next values. The regions use only the
    carried values (and constants they make), never values from outside the loop."""
    ctx = self.ctx
    init_values = [v.value if isinstance(v, _Expr) else mlir.constant(ctx, v) for v in init]
    avals = [v.aval for v in init_values]

    def cond_region(ctx, *args):
      return cond(*[_Expr(self, a) for a in args]).value

    def body_region(ctx, *args):
      outs = body(*[_Expr(self, a) for a in args])
      return [self.lift(o, a.dtype, a.shape) for o, a in zip(outs, avals)]

    outs = mlir.op(ctx, "stablehlo.while", init_values, avals,
                   regions=[mlir.region(ctx, avals, cond_region), mlir.region(ctx, avals, body_region)])
    return [_Expr(self, v) for v in outs]


def _compute_dtype(dtype) -> np.dtype:
  """float16/bfloat16 are computed in float32 (as XLA's expansions do); others in themselves."""
  dtype = np.dtype(dtype)
  return _F32 if dtype in _NARROW else dtype


def _composite(fun: Callable) -> Callable:
  """A lowering rule running ``fun(builder, dtype, *operands)`` on operands broadcast to the
  output shape and converted to the computation dtype; the result is converted back."""

  def rule(ctx, *operands, **params):
    out = ctx.avals_out[0]
    b = _Builder(ctx, out.shape)
    dtype = _compute_dtype(out.dtype)
    args = [b.convert(b.wrap(x), dtype) for x in operands]
    result = fun(b, dtype, *args)
    return mlir.convert(ctx, result.value, out.dtype)

  rule.__name__ = f"lower_{fun.__name__.lstrip('_')}"
  return rule


# ---------------------------------------------------------------------------
# exp2, logistic, complex sin and cos


def exp2_rule(ctx, x, accuracy=None):
  """``exp(x * log(2))`` in the operand's dtype, as JAX lowers ``exp2``."""
  out = ctx.avals_out[0]
  ln2 = mlir.full_like_aval(ctx, np.log(2.0), out)
  scaled = mlir.op(ctx, "stablehlo.multiply", [ln2, x], out)
  return mlir.op(ctx, "stablehlo.exponential", [scaled], out, accuracy_attributes(accuracy))


def logistic_rule(ctx, x, accuracy=None):
  """``1 / (1 + exp(-x))`` in the operand's dtype, as JAX lowers ``logistic``."""
  out = ctx.avals_out[0]
  e = mlir.op(ctx, "stablehlo.exponential", [mlir.op(ctx, "stablehlo.negate", [x], out)], out)
  denominator = mlir.op(ctx, "stablehlo.add", [mlir.full_like_aval(ctx, 1, out), e], out)
  return mlir.op(ctx, "stablehlo.divide", [mlir.full_like_aval(ctx, 1, out), denominator], out)


def _complex_parts_sin_cos(ctx, z):
  """(re == 0, sin(re), cos(re), sinh(im), cosh(im)) of a complex ``z``; sinh and cosh come
  from ``expm1`` so that small imaginary parts stay accurate."""
  b = _Builder(ctx, z.aval.shape)
  part = z.aval.dtype.type(0).real.dtype
  re = b.emit("stablehlo.real", [z], part)
  im = b.emit("stablehlo.imag", [z], part)
  re_is_zero = re.eq(0.0)
  sin_re, cos_re = re.apply("stablehlo.sine"), re.apply("stablehlo.cosine")
  up, down = im.apply("stablehlo.exponential_minus_one"), (-im).apply("stablehlo.exponential_minus_one")
  sinh_im = (up - down) / 2.0
  cosh_im = (up + down + 2.0) / 2.0
  return b, re_is_zero, sin_re, cos_re, sinh_im, cosh_im


def _complex(b, real, imag):
  return b.emit("stablehlo.complex", [real.value, imag.value],
                np.result_type(real.dtype, np.complex64))


def sin_rule(ctx, x, accuracy=None):
  """``stablehlo.sine``; complex: ``sin(a) cosh(b) + i cos(a) sinh(b)`` (real part exactly 0
  when ``a == 0``)."""
  if x.aval.dtype.kind != "c":
    return mlir.op(ctx, "stablehlo.sine", [x], ctx.avals_out[0], accuracy_attributes(accuracy))
  b, re_is_zero, sin_re, cos_re, sinh_im, cosh_im = _complex_parts_sin_cos(ctx, x)
  imag = cos_re * sinh_im
  result = b.where(re_is_zero, _complex(b, b.const(0.0, imag.dtype), imag),
                   _complex(b, sin_re * cosh_im, imag))
  return result.value


def cos_rule(ctx, x, accuracy=None):
  """``stablehlo.cosine``; complex: ``cos(a) cosh(b) - i sin(a) sinh(b)`` (imaginary part
  exactly 0 when ``a == 0``)."""
  if x.aval.dtype.kind != "c":
    return mlir.op(ctx, "stablehlo.cosine", [x], ctx.avals_out[0], accuracy_attributes(accuracy))
  b, re_is_zero, sin_re, cos_re, sinh_im, cosh_im = _complex_parts_sin_cos(ctx, x)
  real = cos_re * cosh_im
  imag = -sin_re * sinh_im
  result = b.where(re_is_zero, _complex(b, real, b.const(0.0, real.dtype)), _complex(b, real, imag))
  return result.value


# ---------------------------------------------------------------------------
# bessel_i0e: Cephes' Chebyshev expansions of exp(-|x|) I0(x) on [0, 8] and (8, inf)

# Coefficients of exp(-x) I0(x) in Chebyshev polynomials of x/2 - 2 (|x| <= 8) and of
# sqrt(x) exp(-x) I0(x) in those of 32/x - 2 (|x| > 8): Cephes' i0.c (float64) and i0f.c (float32).
_I0E_A64 = [
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1]
_I0E_B64 = [
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1]
_I0E_A32 = [
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1]
_I0E_B32 = [
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1]


def _chebyshev(b, x, coefficients, dtype):
  """Clenshaw's recurrence for sum' c_k T_k(x/2) (Cephes' ``chbevl``)."""
  b0 = b.const(0.0, dtype)
  b1 = b.const(0.0, dtype)
  b2 = b.const(0.0, dtype)
  for c in coefficients:
    b2, b1 = b1, b0
    b0 = x * b1 - b2 + float(c)
  return 0.5 * (b0 - b2)


def _bessel_i0e(b, dtype, x):
  z = x.apply("stablehlo.abs")
  wide = dtype == _F64
  # As JAX's: the constants of both arguments made once, up front (2 is shared).
  half, two, thirty_two = b.const(0.5, dtype), b.const(2.0, dtype), b.const(32.0, dtype)
  small = _chebyshev(b, half * z - two, _I0E_A64 if wide else _I0E_A32, dtype)
  large = _chebyshev(b, thirty_two / z - two, _I0E_B64 if wide else _I0E_B32, dtype) / z.apply("stablehlo.sqrt")
  return b.where(z.le(8.0), small, large)


bessel_i0e_rule = _composite(_bessel_i0e)


# ---------------------------------------------------------------------------
# Incomplete gamma functions (Cephes' igam/igamc) and d igamma / da

_LOWER, _UPPER, _GRAD_A = "lower", "upper", "grad_a"
_MAX_CONTINUED_FRACTION_STEPS = 2000


def _eps(dtype) -> float:
  return float(np.finfo(dtype).eps)


def _gamma_series(b, dtype, enabled, a, x, grad: bool):
  """sum_{n>=0} x**n / ((a+1)...(a+n)) and, with ``grad``, its derivative in ``a``: the
  terms' recurrence runs while any element has not converged (relative term size > eps)."""
  eps = _eps(dtype)

  def cond(enabled, *rest):
    return b.any(enabled)

  def body(enabled, r, c, total, x, dc, dtotal):
    r_next = r + 1.0
    dc_next = dc * (x / r_next) - (c * x) / (r_next * r_next)
    dtotal_next = dtotal + dc_next
    c_next = c * (x / r_next)
    total_next = total + c_next
    if grad:
      going = enabled & (dc_next / dtotal_next).apply("stablehlo.abs").gt(eps)
    else:
      going = enabled & (c_next / total_next).gt(eps)
    keep = lambda new, old: b.where(enabled, new, old)
    return [going, keep(r_next, r), keep(c_next, c), keep(total_next, total), x,
            keep(dc_next, dc), keep(dtotal_next, dtotal)]

  one, zero = b.const(1.0, dtype), b.const(0.0, dtype)
  outs = b.while_loop(cond, body, [enabled, a, one, one, x, zero, zero])
  return outs[3], outs[6]


def _gamma_continued_fraction(b, dtype, enabled, a, x, grad: bool):
  """Cephes' continued fraction for the upper incomplete gamma function (without the prefactor)
  and, with ``grad``, its derivative in ``a``; at most 2000 steps, numerators and denominators
  rescaled by eps when they grow past 1/eps."""
  eps = _eps(dtype)
  y = 1.0 - a
  z = x + y + 1.0
  pkm1 = x + 1.0
  qkm1 = z * x
  ans = pkm1 / qkm1
  dqkm1 = -x
  dans = (0.0 - ans * dqkm1) / qkm1
  one, zero = b.const(1.0, dtype), b.const(0.0, dtype)

  def cond(enabled, ans, t, y, z, step, *rest):
    return step.lt(float(_MAX_CONTINUED_FRACTION_STEPS)) & b.any(enabled)

  def body(enabled, ans, t, y, z, step, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans):
    step = step + 1.0
    c_next = b.wrap(step)  # the step number, which every element still going shares
    y_next = y + 1.0
    z_next = z + 2.0
    yc = y_next * c_next
    pk = pkm1 * z_next - pkm2 * yc
    qk = qkm1 * z_next - qkm2 * yc
    qk_nonzero = qk.ne(0.0)
    r = pk / qk
    t_next = b.where(qk_nonzero, ((ans - r) / r).apply("stablehlo.abs"), 1.0)
    ans_next = b.where(qk_nonzero, r, ans)
    dpk = dpkm1 * z_next - pkm1 - dpkm2 * yc + pkm2 * c_next
    dqk = dqkm1 * z_next - qkm1 - dqkm2 * yc + qkm2 * c_next
    dans_next = b.where(qk_nonzero, (dpk - ans_next * dqk) / qk, dans)
    grad_t = b.where(qk_nonzero, (dans_next - dans).apply("stablehlo.abs"), 1.0)
    rescale = pk.apply("stablehlo.abs").gt(1.0 / eps)
    scaled = lambda v: b.where(rescale, v * eps, v)
    pkm2_next, pk, qkm2_next, qk = scaled(pkm1), scaled(pk), scaled(qkm1), scaled(qk)
    dpkm2_next, dqkm2_next, dpk, dqk = scaled(dpkm1), scaled(dqkm1), scaled(dpk), scaled(dqk)
    going = enabled & (grad_t if grad else t_next).gt(eps)
    keep = lambda new, old: b.where(enabled, new, old)
    return [going, keep(ans_next, ans), keep(t_next, t), keep(y_next, y), keep(z_next, z), step,
            keep(pk, pkm1), keep(qk, qkm1), keep(pkm2_next, pkm2), keep(qkm2_next, qkm2),
            keep(dpkm2_next, dpkm2), keep(dqkm2_next, dqkm2), keep(dpk, dpkm1), keep(dqk, dqkm1),
            keep(dans_next, dans)]

  outs = b.while_loop(cond, body, [enabled, ans, one, y, z, np.zeros((), dtype), pkm1, qkm1, one, x,
                                   zero, zero, zero, dqkm1, dans])
  return outs[1], outs[14]


def _igamma_kind(kind: str):
  """P(a, x) (``_LOWER``), Q(a, x) (``_UPPER``) or dP/da (``_GRAD_A``): the series for x below
  max(1, a), the continued fraction above it, times exp(a log x - x - lgamma(a)); XLA's
  conventions at the edges (x == 0, x == inf, a == 0, underflowing prefactor, NaN)."""

  def fun(b, dtype, a, x):
    nan_operand = a.isnan() | x.isnan()
    x_is_zero = x.eq(0.0)
    x_is_inf = x.eq(np.inf)
    log_prefactor = a * x.apply("stablehlo.log") - x - a.apply("chlo.lgamma")
    # exp(log_prefactor) underflows: the loops are skipped (the result keeps its initial value).
    max_log = -(b.const(float(np.finfo(dtype).max), dtype).apply("stablehlo.log"))
    underflow = log_prefactor.lt(max_log)
    prefactor = log_prefactor.apply("stablehlo.exponential")
    if kind == _GRAD_A:
      invalid = x.lt(0.0) | a.le(0.0)
      use_fraction = x.gt(1.0) & x.gt(a)
      active = ~(x_is_zero | invalid | underflow | nan_operand)
    else:
      invalid = (x.lt(0.0) | a.lt(0.0)) | (a.eq(0.0) & x_is_zero) | nan_operand
      if kind == _LOWER:
        use_fraction = x.ge(1.0) & x.gt(a)
        active = ~(x_is_zero | invalid | underflow | x_is_inf)
      else:
        use_fraction = ~(x.lt(1.0) | x.lt(a))
        active = ~(invalid | underflow | x_is_inf | a.eq(0.0))
    grad = kind == _GRAD_A
    fraction, dfraction = _gamma_continued_fraction(b, dtype, active & use_fraction, a, x, grad)
    series, dseries = _gamma_series(b, dtype, active & ~use_fraction, a, x, grad)
    if kind == _LOWER:
      result = b.where(use_fraction, 1.0 - fraction * prefactor, series * prefactor / a)
      result = b.where(x_is_zero, 0.0, result)
      result = b.where(x_is_inf, 1.0, result)
      return b.where(invalid, np.nan, result)
    if kind == _UPPER:
      result = b.where(use_fraction, fraction * prefactor, 1.0 - series * prefactor / a)
      result = b.where(x_is_inf | a.eq(0.0), 0.0, result)
      return b.where(invalid, np.nan, result)
    log_x = x.apply("stablehlo.log")
    d_fraction = -(prefactor * (fraction * (log_x - a.apply("chlo.digamma")) + dfraction))
    d_series = prefactor * (series * (log_x - (a + 1.0).apply("chlo.digamma")) + dseries) / a
    result = b.where(use_fraction, d_fraction, d_series)
    result = b.where(x_is_zero, 0.0, result)
    return b.where(invalid | nan_operand, np.nan, result)

  fun.__name__ = f"igamma_{kind}"
  return fun


igamma_rule = _composite(_igamma_kind(_LOWER))
igammac_rule = _composite(_igamma_kind(_UPPER))
igamma_grad_a_rule = _composite(_igamma_kind(_GRAD_A))


# ---------------------------------------------------------------------------
# Regularized incomplete beta function: Lentz's method on the continued fraction


def _betainc(b, dtype, a, bb, x):
  """I_x(a, b) = x**a (1-x)**b / (a B(a, b)) / (1 + d_1 / (1 + d_2 / (1 + ...))) by Lentz's
  method, iterated (at most 200 steps in float32, 600 in float64) until no element's step
  changes its value by epsneg or more; every element takes the same number of steps, as in JAX's
  lowering (so a result can depend on the other elements at the last ulps)."""
  finfo = np.finfo(dtype)
  tiny = float(finfo.epsneg)
  max_steps = 200 if dtype == _F32 else 600
  a_zero_or_b_inf = a.eq(0.0) | bb.eq(np.inf)
  b_zero_or_a_inf = bb.eq(0.0) | a.eq(np.inf)
  x_is_zero, x_is_one = x.eq(0.0), x.eq(1.0)
  nan_operand = (a.isnan() | bb.isnan()) | x.isnan()
  result_zero = (b_zero_or_a_inf & ~x_is_one) | (a_zero_or_b_inf & x_is_zero)
  result_one = (a_zero_or_b_inf & ~x_is_zero) | (b_zero_or_a_inf & x_is_one)
  invalid = (((a.lt(0.0) | bb.lt(0.0)) | x.lt(0.0)) | x.gt(1.0)) | \
      ((a_zero_or_b_inf & b_zero_or_a_inf) | nan_operand)
  # The fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use
  # I_x(a, b) = 1 - I_{1-x}(b, a).
  direct = x.lt((a + 1.0) / (a + bb + 2.0))
  p = b.where(direct, a, bb)
  q = b.where(direct, bb, a)
  y = b.where(direct, x, 1.0 - x)

  def clamp(v):
    return b.where(v.apply("stablehlo.abs").lt(tiny), tiny, v)

  def cond(p, q, y, step, going, c, d, f):
    return step.lt(float(max_steps)) & going

  def body(p, q, y, step, going, c, d, f):
    # The n-th numerator of the fraction (every denominator is 1).
    n = b.wrap(step)
    m = ((n - 1.0) / 2.0).apply("stablehlo.floor")
    odd_first = -(p + q) * y / (p + 1.0)
    odd = -(p + m) * (p + q + m) * y / ((p + 2.0 * m) * (p + 2.0 * m + 1.0))
    even = m * (q - m) * y / ((p + 2.0 * m - 1.0) * (p + 2.0 * m))
    n_is_even = (n - 2.0 * (n / 2.0).apply("stablehlo.floor")).eq(0.0)
    numerator = b.where(n_is_even, b.where(m.eq(0.0), odd_first, odd), even)
    numerator = b.where(n.eq(1.0), 1.0, numerator)
    c = clamp(1.0 + numerator / c)
    d = 1.0 / clamp(1.0 + numerator * d)
    delta = c * d
    f = f * delta
    going = b.any((delta - 1.0).apply("stablehlo.abs").ge(tiny))
    return [p, q, y, step + 1.0, going, c, d, f]

  start = b.const(tiny, dtype)
  outs = b.while_loop(cond, body, [p, q, y, np.ones((), dtype), np.ones((), _BOOL), start,
                                   b.const(0.0, dtype), start])
  fraction = outs[7]
  lbeta_tail = q.apply("chlo.lgamma") - (p + q).apply("chlo.lgamma")
  lbeta = p.apply("chlo.lgamma") + lbeta_tail
  log1m_y = (-y).apply("stablehlo.log_plus_one")
  tiny_p = p.lt(2.0 * float(finfo.tiny))
  log_prefactor = y.apply("stablehlo.log") * p + log1m_y * q - lbeta
  prefactor = b.where(tiny_p, (log1m_y * q - lbeta_tail).apply("stablehlo.exponential"),
                      log_prefactor.apply("stablehlo.exponential") / p)
  result = fraction * prefactor
  result = b.where(direct, result, 1.0 - result)
  result = b.where(result_zero, 0.0, result)
  result = b.where(result_one, 1.0, result)
  return b.where(invalid, np.nan, result)


regularized_incomplete_beta_rule = _composite(_betainc)
