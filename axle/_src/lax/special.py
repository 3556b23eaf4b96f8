"""Transcendental and special-function elementwise lax primitives (JAX's ``lax.exp``,
``lax.sin``, ``lax.erf_inv``, ``lax.igamma``, ...).

Eagerly these run on XLA (JAX's numbers are XLA's approximations), except ``sqrt``, which
is correctly rounded in both. The NumPy kernels below run with ``axle_fast_eager``: each
real-valued one is a NumPy ufunc or a ``scipy.special`` function on the operand's dtype;
float16 and bfloat16 are computed in float32 and rounded back, as XLA does on the CPU.
Where NumPy/SciPy and XLA disagree on special inputs (poles of lgamma/digamma, ...), the kernel
follows XLA's result, recorded from real JAX in ``tests/data/special_reference.json``.

XLA is the spec where a kernel cannot follow it: complex operands run on XLA eagerly (its complex
formulas differ from NumPy's C99 functions on infinities and in overflow/underflow), and igamma,
igammac, igamma_grad_a, polygamma, zeta and regularized_incomplete_beta have no NumPy kernel at
all (XLA's float32/float64 series, continued fractions and expansions differ from SciPy's far
beyond rounding for small ``a``, large arguments, negative ``x``...). Lowerings: one StableHLO or
CHLO op each, as JAX emits, or the compositions in ``special_lowering``.
"""
from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

from axle._src import core
from axle._src import ir
from axle._src import dtypes
from axle._src.core import ShapedArray
from axle._src.interpreters import ad
from axle._src.interpreters import batching
from axle._src.interpreters import eval as eval_interpreter
from axle._src.interpreters import lowering as mlir
from axle._src.lax import elementwise
from axle._src.lax import elementwise_convert
from axle._src.lax import special_lowering
from axle._src.lax import structural
from axle._src.lax import utils

try:
  from axle._src import _host_kernels  # the optional C module (setup.py)
except ImportError:
  _host_kernels = None


class _LazyScipySpecial:
  """``scipy.special``, imported on the first kernel call (importing it costs ~0.3 s)."""

  def __getattr__(self, name):
    import scipy.special
    return getattr(scipy.special, name)


_sc = _LazyScipySpecial()

__all__ = [
    "AccuracyMode", "Tolerance",
    "acos", "acos_p", "acosh", "acosh_p", "asin", "asin_p", "asinh", "asinh_p", "atan", "atan_p",
    "atan2", "atan2_p", "atanh", "atanh_p", "bessel_i0e", "bessel_i0e_p", "bessel_i1e",
    "bessel_i1e_p", "betainc", "cbrt", "cbrt_p", "cos", "cos_p", "cosh", "cosh_p", "digamma",
    "digamma_p", "erf", "erf_inv", "erf_inv_p", "erf_p", "erfc", "erfc_p", "exp", "exp2", "exp2_p",
    "exp_p", "expm1", "expm1_p", "igamma", "igamma_grad_a", "igamma_grad_a_p", "igamma_p",
    "igammac", "igammac_p", "lgamma", "lgamma_p", "log", "log1p", "log1p_p", "log_p", "logistic",
    "logistic_p", "polygamma", "polygamma_p", "regularized_incomplete_beta_p", "rsqrt", "rsqrt_p",
    "sin", "sin_p", "sinh", "sinh_p", "sqrt", "sqrt_p", "tan", "tan_p", "tanh", "tanh_p", "zeta",
    "zeta_p",
]

# ---------------------------------------------------------------------------
# The ``accuracy`` parameter of exp, log, sin, tanh, sqrt, ...


class AccuracyMode(enum.Enum):
  """A requested accuracy level for a unary transcendental function (``lax.AccuracyMode``)."""
  HIGHEST = 1
  DEFAULT = 2

  def __repr__(self):
    return f"AccuracyMode.{self.name}"  # as printed in jaxprs


class Tolerance:
  """Tolerances a unary transcendental function's result must meet (``lax.Tolerance``).

  At most two are meaningful together: ``atol`` and ``rtol``, or ``atol`` and ``ulps``. The eager
  NumPy kernels are already as accurate as the platform's libm, so the request only shows in
  printed jaxprs.
  """

  def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
    if atol < 0.0 or rtol < 0.0 or ulps < 0:
      raise ValueError("Tolerances must be non-negative.")
    if atol == 0.0 and rtol == 0.0 and ulps == 0:
      raise ValueError("At least one of atol, rtol, or ulps must be set.")
    self.atol = atol
    self.rtol = rtol
    self.ulps = ulps


def _check_accuracy(accuracy) -> None:
  if accuracy is not None and not isinstance(accuracy, (Tolerance, AccuracyMode)):
    raise NotImplementedError(f"Accuracy {accuracy} not supported")


def _hide_default_accuracy(params: dict) -> dict:
  return {k: v for k, v in params.items() if not (k == "accuracy" and v is None)}


# ---------------------------------------------------------------------------
# Shape and dtype rules (JAX's messages)

_float = (np.floating,)
_float_complex = (np.floating, np.complexfloating)

def _unop_rule(name: str, accepted):
  rule = utils.unop_abstract_eval(name, accepted)

  def checked(x: ShapedArray, accuracy=None) -> ShapedArray:
    out = rule(x)
    _check_accuracy(accuracy)
    return out
  return checked


# ---------------------------------------------------------------------------
# Kernels

_ignore_fp = elementwise_convert._ignore_fp  # np.errstate(all="ignore") without its overhead
_F32 = np.dtype(np.float32)
_NARROW = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


_F64 = np.dtype(np.float64)
_WIDE_MAX_SIZE = 4096


def _kernel(primitive, fn, narrow=None, wide=False):
  """An eager kernel computing ``fn`` with FP warnings silenced. float16/bfloat16 operands are
  computed in float32 and the result rounded back (XLA's CPU behaviour), or by ``narrow`` where
  XLA does part of the arithmetic in the narrow type. Complex operands run on XLA: its complex
  formulas (overflow and underflow of intermediate terms, infinite and NaN parts, a few
  inaccurate ones such as sinh) are JAX's answers and NumPy's C99 functions differ from them."""
  def impl(*args, **params):
    dtype = args[0].dtype
    if dtype.kind == "c":
      return eval_interpreter.run_on_xla(primitive, args, params)
    with _ignore_fp():
      if dtype in _NARROW:
        if narrow is not None:
          return np.asarray(narrow(*args)).astype(dtype)
        return np.asarray(fn(*[a.astype(_F32) for a in args])).astype(dtype)
      if wide and dtype == _F32 and args[0].size <= _WIDE_MAX_SIZE:
        # float32 computed in float64 and rounded once: XLA's float32 kernels for these are
        # closer to the correctly rounded result than NumPy's float32 SIMD loops (which are
        # 1 ulp off, e.g. exp(1.) == 2.718282). Large arrays keep the fast float32 loops,
        # which are about 10x faster; both are within 1 ulp of XLA.
        return fn(*[a.astype(_F64) for a in args]).astype(_F32)
      out = fn(*args)
      if out.dtype != dtype:
        out = out.astype(dtype)
      return out
  return impl


def _unary_kernel(primitive, fn, narrow=None, wide=False):
  """``_kernel`` for one operand, with float32 -- every eager ``jnp.exp(x)`` -- handled first and
  without the generic argument plumbing (it is most of the cost on small arrays)."""
  generic = _kernel(primitive, fn, narrow, wide)
  extobj = elementwise_convert._extobj_contextvar
  ignore_all = elementwise_convert._IGNORE_ALL
  if extobj is None:  # pragma: no cover (NumPy without the error-state context variable)
    return generic

  def impl(x, **params):
    if x.dtype is not _F32:
      return generic(x, **params)
    token = extobj.set(ignore_all)
    try:
      if wide and x.size <= _WIDE_MAX_SIZE:
        return fn(x.astype(_F64)).astype(_F32)
      out = fn(x)
      return out if out.dtype is _F32 else out.astype(_F32)
    finally:
      extobj.reset(token)
  impl.ignores_params = True  # (``accuracy`` selects nothing on the host: callers may omit it)
  return impl


def _c_function(name: str, available: str):
  """The C module's function ``name``, where its check ``available`` says that it gives XLA's
  bits here; else None."""
  try:
    return getattr(_host_kernels, name) if getattr(_host_kernels, available)() else None
  except AttributeError:  # not built (or built from an older source)
    return None


# primitive name -> the C function giving XLA CPU's float32 bits of it, element for element
# (compared on every float32 input): tanh is a copy of XLA's own approximation; for the others
# XLA calls the C library's function, which the module calls too (not for atan, which XLA
# computes otherwise on short arrays).
_c_kernels = {"tanh": _c_function("float32_tanh", "float32_tanh_available")}
_c_kernels.update({name: _c_function(f"float32_{name}", "float32_libm_matches")
                   for name in ("sin", "cos", "tan")})


def _float32_host_kernel(name: str, generic):
  """The kernel of primitive ``name``: ``generic`` (NumPy's, float64-rounded), but the C
  module's function (``_c_kernels``) for float32 operands where it is built."""
  if _c_kernels[name] is None:
    return generic
  empty = np.empty
  kernels = _c_kernels

  def impl(x, **params):
    c_kernel = kernels[name]
    if x.dtype is not _F32 or c_kernel is None:
      return generic(x, **params)
    out = empty(x.shape, _F32)
    try:
      c_kernel(x, out)
    except (ValueError, BufferError):  # not C-contiguous (a strided view)
      c_kernel(np.ascontiguousarray(x), out)
    return out
  impl.ignores_params = True
  return impl


def _on_host(name: str):
  """The eager policy's test for ``name``: float32, default accuracy, its C function built."""
  def predicate(avals, params) -> bool:
    return (_c_kernels[name] is not None and avals[0].dtype == _F32
            and params.get("accuracy") is None)
  return predicate


def _unop(name, accepted, fn, accuracy=False, narrow=None, wide=False) -> core.Primitive:
  primitive = utils.primitive(name, _unop_rule(name, accepted))
  primitive.def_impl(_unary_kernel(primitive, fn, narrow, wide))
  if accuracy:
    ir.pp_param_rules[primitive] = _hide_default_accuracy
  return primitive


def _naryop(name, fn, wide=False) -> core.Primitive:
  """An n-ary floating primitive; ``fn=None`` leaves it without a kernel (eager runs XLA)."""
  primitive = utils.primitive(
      name, utils.naryop_abstract_eval(name, _float_complex if name == "atan2" else _float))
  if fn is not None:
    primitive.def_impl(_kernel(primitive, fn, wide=wide))
  return primitive


# ---------------------------------------------------------------------------
# Transformation helpers. JVPs are written with lax functions (JAX's formulas), so they are
# differentiable again and batchable; every primitive here is elementwise.

_const = elementwise._const
_one = elementwise._one
_ones = elementwise._ones
mul, div, add, sub = elementwise.mul, elementwise.div, elementwise.add, elementwise.sub
neg = elementwise.neg
square, select = elementwise.square, elementwise.select


def _unary_transforms(primitive, jvp=None, jvp2=None):
  """Registers an elementwise unary primitive's JVP (``jvp(g, x, **params)`` or
  ``jvp2(g, ans, x, **params)``) and its batching rule."""
  if jvp is not None:
    ad.defjvp(primitive, jvp)
  else:
    ad.defjvp2(primitive, jvp2)
  batching.defvectorized(primitive)


# ---------------------------------------------------------------------------
# Exponentials and logarithms

exp_p = _unop("exp", _float_complex, np.exp, accuracy=True, wide=True)
mlir.register(exp_p, special_lowering.unary("stablehlo.exponential", accuracy=True))
_unary_transforms(exp_p, jvp2=lambda g, ans, x, **params: mul(g, ans))


def exp(x, *, accuracy=None):
  """Elementwise exponential ``e**x`` (``lax.exp``)."""
  return exp_p.bind(x, accuracy=accuracy)


_LN2 = float(np.log(2.0))


def _exp2(x):
  # XLA computes exp2(x) as exp(x * ln 2) with the product rounded to the operand's dtype (off
  # from 2**x by up to a few hundred ulps for large |x|); the exponential itself is computed
  # in float64 for float32 operands, as accurate as XLA's.
  product = x * x.dtype.type(_LN2)
  if product.dtype == _F64:
    return np.exp(product)
  return np.exp(product.astype(_F64)).astype(x.dtype)


exp2_p = _unop("exp2", _float_complex, _exp2, accuracy=True,
               narrow=lambda x: np.exp((x * x.dtype.type(_LN2)).astype(_F32)))
mlir.register(exp2_p, special_lowering.exp2_rule)
_unary_transforms(exp2_p, jvp2=lambda g, ans, x, **params: mul(log(_const(x, 2)), mul(g, ans)))


def exp2(x, *, accuracy=None):
  """Elementwise base-2 exponential ``2**x`` (``lax.exp2``)."""
  return exp2_p.bind(x, accuracy=accuracy)


log_p = _unop("log", _float_complex, np.log, accuracy=True, wide=True)
mlir.register(log_p, special_lowering.unary("stablehlo.log", accuracy=True))
_unary_transforms(log_p, jvp=lambda g, x, **params: div(g, x))


def log(x, *, accuracy=None):
  """Elementwise natural logarithm (``lax.log``); negative reals give NaN, zero gives -inf."""
  return log_p.bind(x, accuracy=accuracy)


def _pow_jvp_rhs(g, ans, x, y):
  # d/dy x**y = log(x) * x**y, with log(0) replaced by log(1) (0**y has slope 0 in y).
  return mul(g, mul(log(elementwise._replace_zero(x)), ans))


# pow (elementwise.py) differentiates in y with log: its JVP is registered here.
ad.defjvp2(elementwise.pow_p, elementwise._pow_jvp_lhs, _pow_jvp_rhs)


log1p_p = _unop("log1p", _float_complex, np.log1p, accuracy=True)
mlir.register(log1p_p, special_lowering.unary("stablehlo.log_plus_one", accuracy=True))
_unary_transforms(log1p_p, jvp=lambda g, x, **params: div(g, add(x, _one(x))))


def log1p(x, *, accuracy=None):
  """Elementwise ``log(1 + x)``, accurate for small ``x`` (``lax.log1p``)."""
  return log1p_p.bind(x, accuracy=accuracy)


expm1_p = _unop("expm1", _float_complex, np.expm1, accuracy=True)
mlir.register(expm1_p, special_lowering.unary("stablehlo.exponential_minus_one", accuracy=True))
# exp(x) = expm1(x) + 1; with accuracy=HIGHEST exp(x) is recomputed (as JAX).
_unary_transforms(expm1_p, jvp2=lambda g, ans, x, accuracy: (
    mul(g, exp(x, accuracy=accuracy)) if accuracy is AccuracyMode.HIGHEST
    else mul(g, add(ans, _one(ans)))))


def expm1(x, *, accuracy=None):
  """Elementwise ``exp(x) - 1``, accurate for small ``x`` (``lax.expm1``)."""
  return expm1_p.bind(x, accuracy=accuracy)


def _logistic_narrow(x):
  # XLA: 1 / (1 + exp(-x)), the exponential in float32 and the rest in the narrow type.
  one = x.dtype.type(1)
  return one / (one + np.exp(-x.astype(_F32)).astype(x.dtype))


logistic_p = _unop("logistic", _float_complex, lambda x: _sc.expit(x), accuracy=True,
                   narrow=_logistic_narrow)
mlir.register(logistic_p, special_lowering.logistic_rule)
# logistic' = s (1 - s); with accuracy=HIGHEST s * logistic(-x) (as JAX).
_unary_transforms(logistic_p, jvp2=lambda g, ans, x, accuracy: (
    mul(g, mul(ans, logistic(neg(x), accuracy=accuracy))) if accuracy is AccuracyMode.HIGHEST
    else mul(g, mul(ans, sub(_one(ans), ans)))))


def logistic(x, *, accuracy=None):
  """Elementwise logistic sigmoid ``1 / (1 + exp(-x))`` (``lax.logistic``)."""
  return logistic_p.bind(x, accuracy=accuracy)


# ---------------------------------------------------------------------------
# Trigonometric and hyperbolic functions

sin_p = _unop("sin", _float_complex, np.sin, accuracy=True, wide=True)
sin_p.def_impl(_float32_host_kernel("sin", sin_p.impl))
mlir.register(sin_p, special_lowering.sin_rule)
_unary_transforms(sin_p, jvp=lambda g, x, accuracy: mul(g, cos(x, accuracy=accuracy)))


def sin(x, *, accuracy=None):
  """Elementwise sine (``lax.sin``)."""
  return sin_p.bind(x, accuracy=accuracy)


cos_p = _unop("cos", _float_complex, np.cos, accuracy=True, wide=True)
cos_p.def_impl(_float32_host_kernel("cos", cos_p.impl))
mlir.register(cos_p, special_lowering.cos_rule)
_unary_transforms(cos_p, jvp=lambda g, x, accuracy: neg(mul(g, sin(x, accuracy=accuracy))))


def cos(x, *, accuracy=None):
  """Elementwise cosine (``lax.cos``)."""
  return cos_p.bind(x, accuracy=accuracy)


tan_p = _unop("tan", _float_complex, np.tan, accuracy=True, wide=True)
tan_p.def_impl(_float32_host_kernel("tan", tan_p.impl))
mlir.register(tan_p, special_lowering.unary("stablehlo.tan", accuracy=True))
_unary_transforms(tan_p, jvp2=lambda g, ans, x, **params: mul(g, add(_const(x, 1), square(ans))))


def tan(x, *, accuracy=None):
  """Elementwise tangent (``lax.tan``)."""
  return tan_p.bind(x, accuracy=accuracy)


asin_p = _unop("asin", _float_complex, np.arcsin)
mlir.register(asin_p, special_lowering.unary("chlo.asin"))
_unary_transforms(asin_p, jvp=lambda g, x: mul(g, rsqrt(sub(_const(x, 1), square(x)))))


def asin(x):
  """Elementwise arc sine (``lax.asin``); real inputs outside [-1, 1] give NaN."""
  return asin_p.bind(x)


acos_p = _unop("acos", _float_complex, np.arccos, wide=True)
mlir.register(acos_p, special_lowering.unary("chlo.acos"))
_unary_transforms(acos_p, jvp=lambda g, x: mul(g, neg(rsqrt(sub(_const(x, 1), square(x))))))


def acos(x):
  """Elementwise arc cosine (``lax.acos``); real inputs outside [-1, 1] give NaN."""
  return acos_p.bind(x)


atan_p = _unop("atan", _float_complex, np.arctan, wide=True)
mlir.register(atan_p, special_lowering.unary("chlo.atan"))
_unary_transforms(atan_p, jvp=lambda g, x: div(g, add(_const(x, 1), square(x))))


def atan(x):
  """Elementwise arc tangent (``lax.atan``)."""
  return atan_p.bind(x)


atan2_p = _naryop("atan2", np.arctan2, wide=True)
mlir.register(atan2_p, mlir.elementwise("stablehlo.atan2"))
ad.defjvp(atan2_p, lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),
          lambda g, x, y: mul(g, div(neg(x), add(square(x), square(y)))))
batching.defbroadcasting(atan2_p)


def atan2(x, y):
  """Elementwise four-quadrant arc tangent of ``x / y`` (``lax.atan2``); operands must share a
  floating or complex dtype."""
  return atan2_p.bind(x, y)


sinh_p = _unop("sinh", _float_complex, np.sinh)
mlir.register(sinh_p, special_lowering.unary("chlo.sinh"))
_unary_transforms(sinh_p, jvp=lambda g, x: mul(g, cosh(x)))


def sinh(x):
  """Elementwise hyperbolic sine (``lax.sinh``)."""
  return sinh_p.bind(x)


cosh_p = _unop("cosh", _float_complex, np.cosh, wide=True)
mlir.register(cosh_p, special_lowering.unary("chlo.cosh"))
_unary_transforms(cosh_p, jvp=lambda g, x: mul(g, sinh(x)))


def cosh(x):
  """Elementwise hyperbolic cosine (``lax.cosh``)."""
  return cosh_p.bind(x)


tanh_p = _unop("tanh", _float_complex, np.tanh, accuracy=True)
tanh_p.def_impl(_float32_host_kernel("tanh", tanh_p.impl))
mlir.register(tanh_p, special_lowering.unary("stablehlo.tanh", accuracy=True))
# tanh' = 1 - t**2, written (g + g t)(1 - t) as JAX; with accuracy=HIGHEST
# 4 logistic(2x) logistic(-2x).
_unary_transforms(tanh_p, jvp2=lambda g, ans, x, accuracy: (
    mul(g, mul(_const(x, 4), mul(logistic(mul(_const(x, 2), x), accuracy=accuracy),
                                 logistic(mul(_const(x, -2), x), accuracy=accuracy))))
    if accuracy is AccuracyMode.HIGHEST
    else mul(add(g, mul(g, ans)), sub(_one(x), ans))))


def tanh(x, *, accuracy=None):
  """Elementwise hyperbolic tangent (``lax.tanh``)."""
  return tanh_p.bind(x, accuracy=accuracy)


asinh_p = _unop("asinh", _float_complex, np.arcsinh)
mlir.register(asinh_p, special_lowering.unary("chlo.asinh"))
_unary_transforms(asinh_p, jvp=lambda g, x: mul(g, rsqrt(add(square(x), _one(x)))))


def asinh(x):
  """Elementwise inverse hyperbolic sine (``lax.asinh``)."""
  return asinh_p.bind(x)


acosh_p = _unop("acosh", _float_complex, np.arccosh)
mlir.register(acosh_p, special_lowering.unary("chlo.acosh"))
_unary_transforms(acosh_p, jvp=lambda g, x: mul(g, rsqrt(sub(square(x), _one(x)))))


def acosh(x):
  """Elementwise inverse hyperbolic cosine (``lax.acosh``); real inputs below 1 give NaN."""
  return acosh_p.bind(x)


atanh_p = _unop("atanh", _float_complex, np.arctanh)
mlir.register(atanh_p, special_lowering.unary("chlo.atanh"))
_unary_transforms(atanh_p, jvp=lambda g, x: mul(elementwise.reciprocal(add(_one(x), x)),
                                                div(g, sub(_one(x), x))))


def atanh(x):
  """Elementwise inverse hyperbolic tangent (``lax.atanh``); +-1 give +-inf, real inputs
  outside [-1, 1] give NaN."""
  return atanh_p.bind(x)


# ---------------------------------------------------------------------------
# Roots

sqrt_p = _unop("sqrt", _float_complex, np.sqrt, accuracy=True)
mlir.register(sqrt_p, special_lowering.unary("stablehlo.sqrt", accuracy=True))
# 0.5 / sqrt(x): infinite at 0, as JAX.
_unary_transforms(sqrt_p, jvp2=lambda g, ans, x, **params: mul(g, div(_const(x, 0.5), ans)))


def sqrt(x, *, accuracy=None):
  """Elementwise square root (``lax.sqrt``); negative reals give NaN, ``sqrt(-0.) == -0.``."""
  return sqrt_p.bind(x, accuracy=accuracy)


rsqrt_p = _unop("rsqrt", _float_complex, lambda x: np.reciprocal(np.sqrt(x)), accuracy=True,
                wide=True)
mlir.register(rsqrt_p, special_lowering.unary("stablehlo.rsqrt", accuracy=True))
_unary_transforms(rsqrt_p, jvp2=lambda g, ans, x, **params: mul(g, mul(_const(x, -0.5),
                                                                        div(ans, x))))


def rsqrt(x, *, accuracy=None):
  """Elementwise reciprocal square root ``1 / sqrt(x)`` (``lax.rsqrt``)."""
  return rsqrt_p.bind(x, accuracy=accuracy)


cbrt_p = _unop("cbrt", _float, np.cbrt, accuracy=True, wide=True)
mlir.register(cbrt_p, special_lowering.unary("stablehlo.cbrt", accuracy=True))
_unary_transforms(cbrt_p, jvp2=lambda g, ans, x, **params: mul(
    g, mul(_const(x, 1 / 3), elementwise.integer_pow(ans, -2))))


def cbrt(x, *, accuracy=None):
  """Elementwise real cube root (``lax.cbrt``); defined for negative inputs too."""
  return cbrt_p.bind(x, accuracy=accuracy)


# ---------------------------------------------------------------------------
# Error function, gamma function and Bessel functions (floating only)

erf_p = _unop("erf", _float, lambda x: _sc.erf(x))
mlir.register(erf_p, special_lowering.unary("chlo.erf"))
_unary_transforms(erf_p, jvp=lambda g, x: mul(_const(x, 2 / np.sqrt(np.pi)),
                                              mul(g, exp(neg(square(x))))))


def erf(x):
  """Elementwise error function (``lax.erf``)."""
  return erf_p.bind(x)


erfc_p = _unop("erfc", _float, lambda x: _sc.erfc(x))
mlir.register(erfc_p, special_lowering.unary("chlo.erfc"))
_unary_transforms(erfc_p, jvp=lambda g, x: mul(_const(x, -2 / np.sqrt(np.pi)),
                                               mul(g, exp(neg(square(x))))))


def erfc(x):
  """Elementwise complementary error function ``1 - erf(x)`` (``lax.erfc``)."""
  return erfc_p.bind(x)


def _odd(fn):
  """An odd function's kernel that keeps the sign of zero (``f(-0.) == -0.``) as XLA does."""
  def kernel(x):
    return np.copysign(fn(x), x)
  return kernel


erf_inv_p = _unop("erf_inv", _float, _odd(lambda x: _sc.erfinv(x)))
# No NumPy kernel: XLA's float32 erf_inv (Giles' polynomials over its own log) differs from
# SciPy's in the last bits for two thirds of the inputs, and jax.random.normal is erf_inv of
# uniform bits, so eager normal draws would not be JAX's. Eagerly erf_inv runs on XLA (fast too).
erf_inv_p.impl = None
mlir.register(erf_inv_p, special_lowering.unary("chlo.erf_inv"))
_unary_transforms(erf_inv_p, jvp2=lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2),
                                                        mul(g, exp(square(ans)))))


def erf_inv(x):
  """Elementwise inverse error function (``lax.erf_inv``); +-1 give +-inf, inputs outside
  [-1, 1] give NaN."""
  return erf_inv_p.bind(x)


def _lgamma(x):
  out = _sc.gammaln(x)
  if not np.isinf(out).any():
    return out
  return np.where(np.isneginf(x), np.inf, out)  # lgamma(-inf) is +inf in XLA


lgamma_p = _unop("lgamma", _float, _lgamma)
mlir.register(lgamma_p, special_lowering.unary("chlo.lgamma"))
_unary_transforms(lgamma_p, jvp=lambda g, x: mul(g, digamma(x)))


def lgamma(x):
  """Elementwise log of the absolute value of the gamma function (``lax.lgamma``)."""
  return lgamma_p.bind(x)


def _digamma(x):
  out = _sc.psi(x)
  if not np.isinf(out).any():
    return out
  return np.where(x == 0, np.nan, out)  # XLA: the pole at 0 is NaN like the negative integers


digamma_p = _unop("digamma", _float, _digamma)
mlir.register(digamma_p, special_lowering.unary("chlo.digamma"))
_unary_transforms(digamma_p, jvp=lambda g, x: mul(g, polygamma(_const(x, 1), x)))


def digamma(x):
  """Elementwise digamma function, the derivative of ``lgamma`` (``lax.digamma``)."""
  return digamma_p.bind(x)


bessel_i0e_p = _unop("bessel_i0e", _float, lambda x: _sc.i0e(x))
mlir.register(bessel_i0e_p, special_lowering.bessel_i0e_rule)
# d/dx i0e(x) = i1e(x) - sign(x) i0e(x)
_unary_transforms(bessel_i0e_p, jvp2=lambda g, ans, x: mul(g, sub(bessel_i1e(x),
                                                                  mul(elementwise.sign(x), ans))))


def bessel_i0e(x):
  """Elementwise exponentially scaled modified Bessel function of order 0,
  ``exp(-abs(x)) * I0(x)`` (``lax.bessel_i0e``)."""
  return bessel_i0e_p.bind(x)


bessel_i1e_p = _unop("bessel_i1e", _float, _odd(lambda x: _sc.i1e(x)))
mlir.register(bessel_i1e_p, special_lowering.unary("chlo.bessel_i1e"))


def _bessel_i1e_jvp(g, ans, x):
  # d/dx i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x), which is 0.5 at x == 0 (the 1/x term is
  # computed away from zero and the limit used within machine epsilon of it).
  eps = dtypes.finfo(elementwise._dtype_of(x)).eps
  not_tiny = elementwise.gt(elementwise.abs(x), _const(x, eps))
  safe_x = select(not_tiny, x, structural.full_like(x, eps))
  slope = sub(bessel_i0e(safe_x),
              mul(ans, add(elementwise.sign(safe_x), elementwise.reciprocal(safe_x))))
  slope = select(not_tiny, slope, structural.full_like(x, 0.5))
  return mul(g, slope)


_unary_transforms(bessel_i1e_p, jvp2=_bessel_i1e_jvp)


def bessel_i1e(x):
  """Elementwise exponentially scaled modified Bessel function of order 1,
  ``exp(-abs(x)) * I1(x)`` (``lax.bessel_i1e``)."""
  return bessel_i1e_p.bind(x)


# ---------------------------------------------------------------------------
# Incomplete gamma and beta functions, polygamma, Hurwitz zeta (floating only)

# The incomplete gamma functions, polygamma, zeta and the incomplete beta function have no NumPy
# kernel: eager evaluation runs XLA (see the module docstring).

igamma_p = _naryop("igamma", None)
mlir.register(igamma_p, special_lowering.igamma_rule)


def _igamma_gradx(g, a, x):
  # d/dx P(a, x) = x**(a - 1) exp(-x) / Gamma(a)
  return mul(g, exp(sub(add(neg(x), mul(sub(a, _ones(a)), log(x))), lgamma(a))))


ad.defjvp(igamma_p, lambda g, a, x: mul(g, igamma_grad_a(a, x)), _igamma_gradx)
batching.defbroadcasting(igamma_p)


def igamma(a, x):
  """Regularized lower incomplete gamma function ``P(a, x)`` (``lax.igamma``)."""
  return igamma_p.bind(a, x)


igammac_p = _naryop("igammac", None)
mlir.register(igammac_p, special_lowering.igammac_rule)
ad.defjvp(igammac_p, lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))),
          lambda g, a, x: neg(_igamma_gradx(g, a, x)))
batching.defbroadcasting(igammac_p)


def igammac(a, x):
  """Regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (``lax.igammac``)."""
  return igammac_p.bind(a, x)


igamma_grad_a_p = _naryop("igamma_grad_a", None)
mlir.register(igamma_grad_a_p, special_lowering.igamma_grad_a_rule)


def _igamma_grad_a_grada(g, a, x):
  raise NotImplementedError("Differentiation rule for 'igamma_grad_a' with respect to a not "
                            "implemented (JAX differentiates igamma_grad_a in neither argument)")


def _igamma_grad_a_gradx(g, a, x):
  # d/dx d/da P(a, x) = d/da (x**(a-1) e**-x / Gamma(a)) = that * (log(x) - digamma(a))
  return mul(_igamma_gradx(g, a, x), sub(log(x), digamma(a)))


ad.defjvp(igamma_grad_a_p, _igamma_grad_a_grada, _igamma_grad_a_gradx)
batching.defbroadcasting(igamma_grad_a_p)


def igamma_grad_a(a, x):
  """Derivative of ``igamma(a, x)`` with respect to ``a`` (``lax.igamma_grad_a``)."""
  return igamma_grad_a_p.bind(a, x)


polygamma_p = _naryop("polygamma", None)
mlir.register(polygamma_p, mlir.elementwise("chlo.polygamma"))


def _polygamma_gradm(g, m, x):
  raise ValueError("polygamma gradient with respect to m is not supported")


ad.defjvp(polygamma_p, _polygamma_gradm,
          lambda g, m, x: mul(g, polygamma(add(m, _const(m, 1)), x)))
batching.defbroadcasting(polygamma_p)


def polygamma(m, x):
  """Polygamma function of order ``m``, the ``m+1``-th derivative of ``lgamma`` (``lax.polygamma``);
  ``m`` must hold non-negative integer values (others give NaN)."""
  return polygamma_p.bind(m, x)


zeta_p = _naryop("zeta", None)
mlir.register(zeta_p, mlir.elementwise("chlo.zeta"))


def _zeta_gradx(g, x, q):
  raise NotImplementedError("Differentiation rule for 'zeta' with respect to x not implemented")


# d/dq zeta(x, q) = -x zeta(x + 1, q). (JAX differentiates zeta in neither argument.)
ad.defjvp(zeta_p, _zeta_gradx,
          lambda g, x, q: mul(g, mul(neg(x), zeta(add(x, _const(x, 1)), q))))
batching.defbroadcasting(zeta_p)


def zeta(x, q):
  """Hurwitz zeta function ``sum((k + q) ** -x for k >= 0)`` (``lax.zeta``)."""
  return zeta_p.bind(x, q)


regularized_incomplete_beta_p = _naryop("regularized_incomplete_beta", None)
mlir.register(regularized_incomplete_beta_p, special_lowering.regularized_incomplete_beta_rule)


def _betainc_grad_not_implemented(g, a, b, x):
  raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_gradx(g, a, b, x):
  # d/dx I_x(a, b) = x**(a-1) (1-x)**(b-1) / B(a, b)
  log_beta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
  partial_x = exp(sub(add(mul(sub(b, _ones(b)), log1p(neg(x))),
                          mul(sub(a, _ones(a)), log(x))), log_beta))
  return mul(partial_x, g)


ad.defjvp(regularized_incomplete_beta_p, _betainc_grad_not_implemented,
          _betainc_grad_not_implemented, _betainc_gradx)
batching.defbroadcasting(regularized_incomplete_beta_p)


def betainc(a, b, x):
  """Regularized incomplete beta function ``I_x(a, b)`` (``lax.betainc``)."""
  return regularized_incomplete_beta_p.bind(a, b, x)


# ---------------------------------------------------------------------------
# Eager policy: the kernels above that give XLA's bits (the others run on XLA eagerly, as in
# JAX; see interpreters/eval.py).

# sqrt is correctly rounded in both; every other function here is XLA's own approximation or
# the C library's, which NumPy does not compute: float32 tanh, sin, cos and tan run the C
# module's functions (see _c_kernels; subnormal operands, which those return as XLA does,
# still go to XLA).
eval_interpreter.exact_kernels(sqrt_p, when=eval_interpreter.no_complex, subnormals=True,
                               max_size=eval_interpreter.HOST_KERNEL_LIMIT,
                               narrow_max_size=eval_interpreter.NARROW_HOST_LIMIT)
# (sinf and friends, one element at a time, fall behind XLA's loop over 16,384 elements, which
# runs on several threads: sin of f32[65536] 441 us on the host, 151 us on XLA, two cores)
for _primitive, _max_size in [(tanh_p, eval_interpreter.HOST_KERNEL_LIMIT), (sin_p, 16384),
                              (cos_p, 16384), (tan_p, 16384)]:
  eval_interpreter.exact_kernels(_primitive, when=_on_host(_primitive.name), subnormals=True,
                                 max_size=_max_size)
