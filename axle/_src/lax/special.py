"""Transcendental and special-function elementwise lax primitives (JAX's ``lax.exp``,
``lax.sin``, ``lax.erf_inv``, ``lax.igamma``, ...).

Each eager kernel is a NumPy ufunc or a ``scipy.special`` function on the operand's dtype;
float16 and bfloat16 are computed in float32 and rounded back, as XLA does on the CPU. Where
NumPy/SciPy and XLA disagree on special inputs (poles of lgamma/digamma, the edges of the
incomplete gamma functions, complex infinities), the kernel follows XLA's result, recorded
from real JAX in ``tests/data/special_reference.json``.
"""
from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

from axle._src import core
from axle._src import ir
from axle._src.core import ShapedArray
from axle._src.lax import elementwise_convert
from axle._src.lax import utils


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

def _type_names(accepted) -> str:
  return ", ".join(t.__name__ for t in accepted)


def _unop_rule(name: str, accepted):
  message = f"Accepted dtypes are subtypes of {_type_names(accepted)}."

  def rule(x: ShapedArray, accuracy=None) -> ShapedArray:
    if not utils.dtype_in(x.dtype, accepted):
      raise TypeError(f"{name} does not accept dtype {x.dtype.name}. {message}")
    _check_accuracy(accuracy)
    return ShapedArray(x.shape, x.dtype, x.weak_type)
  return rule


def _naryop_rule(name: str, accepted):
  return utils.naryop_abstract_eval(name, accepted)


# ---------------------------------------------------------------------------
# Kernels

_ignore_fp = elementwise_convert._ignore_fp  # np.errstate(all="ignore") without its overhead
_F32 = np.dtype(np.float32)
_NARROW = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


_F64 = np.dtype(np.float64)
_WIDE_MAX_SIZE = 4096


def _kernel(fn, narrow=None, wide=False):
  """An eager kernel computing ``fn`` with FP warnings silenced. float16/bfloat16 operands are
  computed in float32 and the result rounded back (XLA's CPU behaviour), or by ``narrow`` where
  XLA does part of the arithmetic in the narrow type."""
  def impl(*args, **params):
    dtype = args[0].dtype
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


def _unary_kernel(fn, narrow=None, wide=False):
  """``_kernel`` for one operand, with float32 -- every eager ``jnp.exp(x)`` -- handled first and
  without the generic argument plumbing (it is most of the cost on small arrays)."""
  generic = _kernel(fn, narrow, wide)
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
  return impl


def _unop(name, accepted, fn, accuracy=False, narrow=None, wide=False) -> core.Primitive:
  primitive = core.Primitive(name)
  primitive.def_abstract_eval(_unop_rule(name, accepted))
  primitive.def_impl(_unary_kernel(fn, narrow, wide))
  if accuracy:
    ir.pp_param_rules[primitive] = _hide_default_accuracy
  return primitive


def _naryop(name, fn, wide=False) -> core.Primitive:
  primitive = core.Primitive(name)
  primitive.def_abstract_eval(_naryop_rule(name, _float_complex if name == "atan2" else _float))
  primitive.def_impl(_kernel(fn, wide=wide))
  return primitive


def _where_complex(fn_real, fn_complex):
  def fn(x):
    return fn_complex(x) if x.dtype.kind == "c" else fn_real(x)
  return fn


def _complex_from_parts(real, imag):
  out = np.empty(np.shape(real), np.result_type(real.dtype, np.complex64))
  out.real, out.imag = real, imag
  return out


def _unsigned_zero_imag(fn):
  """``fn`` on complex operands whose imaginary zeros are +0 (XLA puts ``x - 0j`` with x beyond
  a branch point on the upper side of the cut)."""
  def kernel(x):
    if x.dtype.kind == "c":
      return fn(_complex_from_parts(x.real, x.imag + x.real.dtype.type(0)))
    return fn(x)
  return kernel


def _unsigned_zero_real(fn):
  """``fn`` on complex operands whose real zeros are +0."""
  def kernel(x):
    if x.dtype.kind == "c":
      return fn(_complex_from_parts(x.real + x.real.dtype.type(0), x.imag))
    return fn(x)
  return kernel


def _unsigned_zero_parts(fn):
  """``fn`` on complex operands whose zero parts are +0: XLA's formulas for these functions
  give the result for +0 on a -0 real or imaginary part (``sqrt(-1-0j) == 1j``)."""
  def kernel(x):
    if x.dtype.kind == "c":
      return fn(x + x.dtype.type(0))
    return fn(x)
  return kernel


# ---------------------------------------------------------------------------
# Exponentials and logarithms

exp_p = _unop("exp", _float_complex, _unsigned_zero_parts(np.exp), accuracy=True, wide=True)


def exp(x, *, accuracy=None):
  """Elementwise exponential ``e**x`` (``lax.exp``)."""
  return exp_p.bind(x, accuracy=accuracy)


_LN2 = float(np.log(2.0))


def _exp2_narrow(x):
  # XLA computes exp2(x) as exp(x * ln 2) with the product rounded to the narrow type.
  return np.exp((x * x.dtype.type(_LN2)).astype(_F32))


exp2_p = _unop("exp2", _float_complex,
               _where_complex(np.exp2, lambda z: np.exp(z * z.real.dtype.type(_LN2))),
               accuracy=True, narrow=_exp2_narrow)


def exp2(x, *, accuracy=None):
  """Elementwise base-2 exponential ``2**x`` (``lax.exp2``)."""
  return exp2_p.bind(x, accuracy=accuracy)


log_p = _unop("log", _float_complex, np.log, accuracy=True, wide=True)


def log(x, *, accuracy=None):
  """Elementwise natural logarithm (``lax.log``); negative reals give NaN, zero gives -inf."""
  return log_p.bind(x, accuracy=accuracy)


log1p_p = _unop("log1p", _float_complex, np.log1p, accuracy=True)


def log1p(x, *, accuracy=None):
  """Elementwise ``log(1 + x)``, accurate for small ``x`` (``lax.log1p``)."""
  return log1p_p.bind(x, accuracy=accuracy)


def _expm1(x):
  out = np.expm1(x)
  if x.dtype.kind == "c" and not np.all(x.imag):  # XLA: a real operand gives a real result
    out = np.where(x.imag == 0, _complex_from_parts(np.expm1(x.real), x.imag), out)
  return out


expm1_p = _unop("expm1", _float_complex, _unsigned_zero_parts(_expm1), accuracy=True)


def expm1(x, *, accuracy=None):
  """Elementwise ``exp(x) - 1``, accurate for small ``x`` (``lax.expm1``)."""
  return expm1_p.bind(x, accuracy=accuracy)


def _logistic_real(x):
  return _sc.expit(x)


def _logistic_complex(z):
  one = z.dtype.type(1)
  return one / (one + np.exp(-z))


def _logistic_narrow(x):
  # XLA: 1 / (1 + exp(-x)), the exponential in float32 and the rest in the narrow type.
  one = x.dtype.type(1)
  return one / (one + np.exp(-x.astype(_F32)).astype(x.dtype))


logistic_p = _unop("logistic", _float_complex, _where_complex(_logistic_real, _logistic_complex),
                   accuracy=True, narrow=_logistic_narrow)


def logistic(x, *, accuracy=None):
  """Elementwise logistic sigmoid ``1 / (1 + exp(-x))`` (``lax.logistic``)."""
  return logistic_p.bind(x, accuracy=accuracy)


# ---------------------------------------------------------------------------
# Trigonometric and hyperbolic functions

sin_p = _unop("sin", _float_complex, np.sin, accuracy=True, wide=True)


def sin(x, *, accuracy=None):
  """Elementwise sine (``lax.sin``)."""
  return sin_p.bind(x, accuracy=accuracy)


cos_p = _unop("cos", _float_complex, np.cos, accuracy=True, wide=True)


def cos(x, *, accuracy=None):
  """Elementwise cosine (``lax.cos``)."""
  return cos_p.bind(x, accuracy=accuracy)


tan_p = _unop("tan", _float_complex, _unsigned_zero_parts(np.tan), accuracy=True, wide=True)


def tan(x, *, accuracy=None):
  """Elementwise tangent (``lax.tan``)."""
  return tan_p.bind(x, accuracy=accuracy)


asin_p = _unop("asin", _float_complex, _unsigned_zero_imag(np.arcsin))


def asin(x):
  """Elementwise arc sine (``lax.asin``); real inputs outside [-1, 1] give NaN."""
  return asin_p.bind(x)


acos_p = _unop("acos", _float_complex, _unsigned_zero_parts(np.arccos), wide=True)


def acos(x):
  """Elementwise arc cosine (``lax.acos``); real inputs outside [-1, 1] give NaN."""
  return acos_p.bind(x)


atan_p = _unop("atan", _float_complex, np.arctan, wide=True)


def atan(x):
  """Elementwise arc tangent (``lax.atan``)."""
  return atan_p.bind(x)


def _atan2_complex(x, y):
  # XLA's complex atan2: -i * log((y + i x) / sqrt(x**2 + y**2)) with (x, y) = (numerator, denominator).
  numerator = y + 1j * x
  return -1j * np.log(numerator / np.sqrt(x * x + y * y))


def _atan2(x, y):
  if x.dtype.kind == "c":
    return np.asarray(_atan2_complex(x, y)).astype(x.dtype)
  return np.arctan2(x, y)


atan2_p = _naryop("atan2", _atan2, wide=True)


def atan2(x, y):
  """Elementwise four-quadrant arc tangent of ``x / y`` (``lax.atan2``); operands must share a
  floating or complex dtype."""
  return atan2_p.bind(x, y)


sinh_p = _unop("sinh", _float_complex, _unsigned_zero_parts(np.sinh))


def sinh(x):
  """Elementwise hyperbolic sine (``lax.sinh``)."""
  return sinh_p.bind(x)


cosh_p = _unop("cosh", _float_complex, _unsigned_zero_parts(np.cosh), wide=True)


def cosh(x):
  """Elementwise hyperbolic cosine (``lax.cosh``)."""
  return cosh_p.bind(x)


tanh_p = _unop("tanh", _float_complex, _unsigned_zero_parts(np.tanh), accuracy=True)


def tanh(x, *, accuracy=None):
  """Elementwise hyperbolic tangent (``lax.tanh``)."""
  return tanh_p.bind(x, accuracy=accuracy)


asinh_p = _unop("asinh", _float_complex, _unsigned_zero_real(np.arcsinh))


def asinh(x):
  """Elementwise inverse hyperbolic sine (``lax.asinh``)."""
  return asinh_p.bind(x)


acosh_p = _unop("acosh", _float_complex, _unsigned_zero_parts(np.arccosh))


def acosh(x):
  """Elementwise inverse hyperbolic cosine (``lax.acosh``); real inputs below 1 give NaN."""
  return acosh_p.bind(x)


atanh_p = _unop("atanh", _float_complex, np.arctanh)


def atanh(x):
  """Elementwise inverse hyperbolic tangent (``lax.atanh``); +-1 give +-inf, real inputs
  outside [-1, 1] give NaN."""
  return atanh_p.bind(x)


# ---------------------------------------------------------------------------
# Roots

sqrt_p = _unop("sqrt", _float_complex, _unsigned_zero_parts(np.sqrt), accuracy=True)


def sqrt(x, *, accuracy=None):
  """Elementwise square root (``lax.sqrt``); negative reals give NaN, ``sqrt(-0.) == -0.``."""
  return sqrt_p.bind(x, accuracy=accuracy)


def _rsqrt(x):
  out = np.reciprocal(np.sqrt(x))
  if x.dtype.kind == "c" and not np.all(x):
    out = np.where(x == 0, _complex_from_parts(np.array(np.inf, x.real.dtype), np.nan), out)
  return out


rsqrt_p = _unop("rsqrt", _float_complex, _rsqrt, accuracy=True, wide=True)


def rsqrt(x, *, accuracy=None):
  """Elementwise reciprocal square root ``1 / sqrt(x)`` (``lax.rsqrt``)."""
  return rsqrt_p.bind(x, accuracy=accuracy)


cbrt_p = _unop("cbrt", _float, np.cbrt, accuracy=True, wide=True)


def cbrt(x, *, accuracy=None):
  """Elementwise real cube root (``lax.cbrt``); defined for negative inputs too."""
  return cbrt_p.bind(x, accuracy=accuracy)


# ---------------------------------------------------------------------------
# Error function, gamma function and Bessel functions (floating only)

erf_p = _unop("erf", _float, lambda x: _sc.erf(x))


def erf(x):
  """Elementwise error function (``lax.erf``)."""
  return erf_p.bind(x)


erfc_p = _unop("erfc", _float, lambda x: _sc.erfc(x))


def erfc(x):
  """Elementwise complementary error function ``1 - erf(x)`` (``lax.erfc``)."""
  return erfc_p.bind(x)


def _odd(fn):
  """An odd function's kernel that keeps the sign of zero (``f(-0.) == -0.``) as XLA does."""
  def kernel(x):
    return np.copysign(fn(x), x)
  return kernel


erf_inv_p = _unop("erf_inv", _float, _odd(lambda x: _sc.erfinv(x)))


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


def lgamma(x):
  """Elementwise log of the absolute value of the gamma function (``lax.lgamma``)."""
  return lgamma_p.bind(x)


def _digamma(x):
  out = _sc.psi(x)
  if not np.isinf(out).any():
    return out
  return np.where(x == 0, np.nan, out)  # XLA: the pole at 0 is NaN like the negative integers


digamma_p = _unop("digamma", _float, _digamma)


def digamma(x):
  """Elementwise digamma function, the derivative of ``lgamma`` (``lax.digamma``)."""
  return digamma_p.bind(x)


bessel_i0e_p = _unop("bessel_i0e", _float, lambda x: _sc.i0e(x))


def bessel_i0e(x):
  """Elementwise exponentially scaled modified Bessel function of order 0,
  ``exp(-abs(x)) * I0(x)`` (``lax.bessel_i0e``)."""
  return bessel_i0e_p.bind(x)


bessel_i1e_p = _unop("bessel_i1e", _float, _odd(lambda x: _sc.i1e(x)))


def bessel_i1e(x):
  """Elementwise exponentially scaled modified Bessel function of order 1,
  ``exp(-abs(x)) * I1(x)`` (``lax.bessel_i1e``)."""
  return bessel_i1e_p.bind(x)


# ---------------------------------------------------------------------------
# Incomplete gamma and beta functions, polygamma, Hurwitz zeta (floating only)

def _igamma_underflow_nan(a, x):
  """Where XLA's ``a * log(x) - x - lgamma(a)`` (computed in the operand dtype) is NaN, its
  incomplete gamma functions are NaN (e.g. ``a == inf`` with ``x >= 1``)."""
  return np.isnan(a * np.log(x) - x - _sc.gammaln(a).astype(a.dtype))


def _igamma(a, x):
  out = _sc.gammainc(a, x)
  special = (a == 0) | np.isinf(a) | np.isinf(x)
  if not special.any() and not (a > 1e30).any():
    return out
  out = np.where(_igamma_underflow_nan(a, x), np.nan, out)
  out = np.where((x == 0) & (a > 0), 0, out)
  out = np.where((x == np.inf) & (a >= 0), 1, out)
  return np.where(a == 0, np.where(x >= 1, 1, np.nan), out)


igamma_p = _naryop("igamma", _igamma)


def igamma(a, x):
  """Regularized lower incomplete gamma function ``P(a, x)`` (``lax.igamma``)."""
  return igamma_p.bind(a, x)


def _igammac(a, x):
  out = _sc.gammaincc(a, x)
  special = (a == 0) | np.isinf(a) | np.isinf(x)
  if not special.any() and not (a > 1e30).any():
    return out
  out = np.where(_igamma_underflow_nan(a, x), np.nan, out)
  out = np.where((x == 0) & (a > 0), 1, out)
  out = np.where((x == np.inf) & (a >= 0), 0, out)
  return np.where(a == 0, np.where(x > 0, 0, np.nan), out)


igammac_p = _naryop("igammac", _igammac)


def igammac(a, x):
  """Regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (``lax.igammac``)."""
  return igammac_p.bind(a, x)


def _igamma_grad_a(a, x):
  # d/da P(a, x) by a fourth-order central difference of scipy's gammainc in float64 (SciPy has
  # no closed form); accurate to about 1e-10 relative, plenty for float32.
  a64 = np.asarray(a, np.float64)
  x64 = np.asarray(x, np.float64)
  h = np.abs(a64) * 1e-3
  p = lambda d: _sc.gammainc(a64 + d * h, x64)
  out = (8 * (p(1) - p(-1)) - (p(2) - p(-2))) / (12 * h)
  out = np.where(x64 == 0, 0.0, out)
  bad = ~(a64 > 0) | ~(x64 >= 0) | np.isinf(x64) | (np.isinf(a64) & (x64 > 0))
  return np.where(bad, np.nan, out)


igamma_grad_a_p = _naryop("igamma_grad_a", _igamma_grad_a)


def igamma_grad_a(a, x):
  """Derivative of ``igamma(a, x)`` with respect to ``a`` (``lax.igamma_grad_a``)."""
  return igamma_grad_a_p.bind(a, x)


def _polygamma(m, x):
  # XLA: m must be a non-negative integer; order 0 is digamma; for m >= 1 the poles (x a
  # non-positive integer, or -inf) give inf for odd m and NaN for even m, and x == inf gives NaN.
  m_ok = (m >= 0) & (m == np.floor(m)) & (m < np.inf)
  with np.errstate(all="ignore"):
    out = _sc.polygamma(np.where(m_ok, m, 0), x)
  out = np.where(m == 0, _digamma(np.broadcast_to(x, out.shape)), out)
  pole = (x <= 0) & (x == np.floor(x))
  odd = np.fmod(m, 2) == 1
  out = np.where((m >= 1) & pole, np.where(odd, np.inf, np.nan), out)
  out = np.where((m >= 1) & (x == np.inf), np.nan, out)
  return np.where(m_ok, out, np.nan)


polygamma_p = _naryop("polygamma", _polygamma)


def polygamma(m, x):
  """Polygamma function of order ``m``, the ``m+1``-th derivative of ``lgamma`` (``lax.polygamma``);
  ``m`` must hold non-negative integer values (others give NaN)."""
  return polygamma_p.bind(m, x)


def _zeta(x, q):
  # XLA's Hurwitz zeta: NaN for x < 1 and for infinite or NaN operands, except at the poles of q
  # (a non-positive integer or -inf), where an even integer x gives inf; x == 1 gives inf.
  out = _sc.zeta(x, q)
  out = np.where((x < 1) | np.isnan(x) | (x == np.inf) | ~(q < np.inf), np.nan, out)
  pole = (q <= 0) & (q == np.floor(q))
  if pole.any():
    even = np.isfinite(x) & (x == 2 * np.floor(x / 2))
    out = np.where(pole, np.where(even, np.inf, np.nan), out)
  return np.where(x == 1, np.inf, out)


zeta_p = _naryop("zeta", _zeta)


def zeta(x, q):
  """Hurwitz zeta function ``sum((k + q) ** -x for k >= 0)`` (``lax.zeta``)."""
  return zeta_p.bind(x, q)


regularized_incomplete_beta_p = _naryop("regularized_incomplete_beta",
                                        lambda a, b, x: _sc.betainc(a, b, x))


def betainc(a, b, x):
  """Regularized incomplete beta function ``I_x(a, b)`` (``lax.betainc``)."""
  return regularized_incomplete_beta_p.bind(a, b, x)
