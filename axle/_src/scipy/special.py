"""``axle.scipy.special``: SciPy's special functions on axle arrays (JAX's ``jax.scipy.special``).

Every function promotes its arguments as JAX does (integers and booleans become the default
float dtype) and is written in lax operations: the gamma family, error functions, incomplete
gamma/beta functions, Bessel functions and the Hurwitz zeta function use their lax primitives;
the rest are compositions of those (series, continued fractions and rational approximations
with a fixed number of terms, so they trace to straight-line jaxprs). The less common functions
(exponential, sine/cosine and Fresnel integrals, hypergeometric functions, Owen's T, spence,
wofz, bessel_jn, sph_harm_y) live in ``special_extra`` and are re-exported here.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from axle._src import core
from axle._src import differentiation
from axle._src import dtypes
from axle._src import lax
from axle._src import numpy as jnp
from axle._src.nn import functions as nn_functions
from axle._src.numpy import util

__all__ = [
    "bernoulli", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "dawsn", "digamma", "entr",
    "erf", "erfc", "erfcx", "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln",
    "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma",
    "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr",
    "softmax", "xlog1py", "xlogy", "zeta",
    # from special_extra
    "bessel_jn", "exp1", "expi", "expn", "fresnel", "hyp1f1", "hyp2f1", "owens_t", "sici",
    "spence", "sph_harm_y", "wofz",
]

logsumexp = nn_functions.logsumexp
custom_jvp = nn_functions.custom_jvp  # None until axle has custom_jvp


def _const(x, value):
  """``value`` as a constant for lax operations with ``x``: a 0-d NumPy constant of ``x``'s
  dtype, or a Python float when ``x`` is weakly typed (so the result stays weak, as in JAX)."""
  if getattr(x, "weak_type", False) and not isinstance(value, (bool, np.bool_)):
    return float(value)
  return np.array(value, dtype=x.dtype)


def _strong(x):
  """``x`` without a weak type (functions JAX computes with NumPy-typed constants)."""
  return util.lax_elementwise._convert_element_type(x, x.dtype, False)


def _no_complex(name: str, x) -> None:
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise ValueError(f"{name} does not support complex-valued inputs.")


def signbit(x):
  """Whether the sign bit of floating ``x`` is set (true for -0.0)."""
  bits = {2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(x.dtype).itemsize]
  return lax.lt(lax.bitcast_convert_type(x, bits), np.array(0, bits))


def polyval(coeffs, x):
  """Horner evaluation of a polynomial with constant coefficients (highest power first)."""
  coeffs = np.asarray(coeffs, dtype=x.dtype)
  out = lax.full_like(x, coeffs[0])
  for c in coeffs[1:]:
    out = lax.add(lax.mul(out, x), _const(x, c))
  return out


def _jnp_polyval(coeffs, x):
  """``jnp.polyval`` of constant coefficients (highest power first) at ``x``: JAX's program,
  ``jit[name=polyval]`` scanning ``y * x + c`` from zero."""
  return jnp.polyval(np.asarray(coeffs, dtype=x.dtype), x)


def _where(cond, x, y):
  return jnp.where(cond, x, y)


# ---------------------------------------------------------------------------
# Gamma family


def gammaln(x):
  """Natural log of the absolute value of the gamma function (``scipy.special.gammaln``)."""
  x, = util.promote_args_inexact("gammaln", x)
  return lax.lgamma(x)


@util.jit_when_tracing
def gammasgn(x):
  """Sign of the gamma function: +-1, NaN at the poles (non-positive integers) and for NaN;
  ``gammasgn(-0.0) == -1``."""
  x, = util.promote_args_inexact("gammasgn", x)
  _no_complex("gammasgn", x)
  floor_x = lax.floor(x)
  negative = lax.lt(x, _const(x, 0))
  is_nan = jnp.logical_or(jnp.logical_and(negative, lax.eq(x, floor_x)), jnp.isnan(x))
  odd_floor = lax.ne(jnp.remainder(floor_x, 2), _const(x, 0))
  minus = jnp.logical_or(jnp.logical_and(negative, odd_floor),
                         jnp.logical_and(lax.eq(x, _const(x, 0)), jnp.signbit(x)))
  dtype = np.dtype(x.dtype)  # strong choices: the result is strong, as JAX's
  return jnp.select([is_nan, minus], [np.array(np.nan, dtype), np.array(-1, dtype)],
                    default=np.array(1, dtype))


def gamma(x):
  """The gamma function (``scipy.special.gamma``), as ``gammasgn(x) * exp(gammaln(x))``."""
  x, = util.promote_args_inexact("gamma", x)
  _no_complex("gamma", x)
  return lax.mul(gammasgn(x), lax.exp(lax.lgamma(x)))


def loggamma(x):
  """Principal branch of the log of the gamma function; NaN for real ``x <= 0``
  (``scipy.special.loggamma``; complex inputs are not supported)."""
  x, = util.promote_args_inexact("loggamma", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise NotImplementedError("axle.scipy.special.loggamma does not support complex inputs yet.")
  value = lax.lgamma(x)
  return _where(lax.gt(x, _const(x, 0)), value, np.nan)


def _betaln(a, b):
  # lgamma(a) + lgamma(b) - lgamma(a + b) with a <= b; once b >= 8, lgamma(b) - lgamma(a + b)
  # comes from algdiv, where subtracting the two large lgammas would cancel (as JAX).
  small = jnp.minimum(a, b)
  big = jnp.maximum(a, b)
  direct = lax.add(lax.lgamma(small), lax.sub(lax.lgamma(big), lax.lgamma(lax.add(small, big))))
  large = lax.add(lax.lgamma(small), _algdiv(small, big))
  return _where(lax.lt(big, _const(a, 8)), direct, large)


# algdiv's Stirling-series coefficients (TOMS 708, Didonato & Morris)
_ALGDIV_C = (0.0833333333333333, -0.00277777777760991, 0.000793650666825390,
             -0.000595202931351870, 0.000837308034031215, -0.00165322962780713)


def _algdiv(a, b):
  """``lgamma(b) - lgamma(a + b)`` for b >= 8 (TOMS 708's algdiv, as JAX computes it)."""
  c0, c1, c2, c3, c4, c5 = (_const(a, c) for c in _ALGDIV_C)
  one = _const(a, 1)
  h = lax.div(a, b)
  c = lax.div(h, lax.add(one, h))
  x = lax.div(h, lax.add(one, h))
  d = lax.add(b, lax.sub(a, _const(a, 0.5)))
  # s_n = (1 - x**n) / (1 - x)
  x2 = lax.mul(x, x)
  s3 = lax.add(one, lax.add(x, x2))
  s5 = lax.add(one, lax.add(x, lax.mul(x2, s3)))
  s7 = lax.add(one, lax.add(x, lax.mul(x2, s5)))
  s9 = lax.add(one, lax.add(x, lax.mul(x2, s7)))
  s11 = lax.add(one, lax.add(x, lax.mul(x2, s9)))
  t = lax.integer_pow(lax.div(one, b), 2)
  w = lax.add(lax.mul(lax.mul(c5, s11), t), lax.mul(c4, s9))
  w = lax.add(lax.mul(w, t), lax.mul(c3, s7))
  w = lax.add(lax.mul(w, t), lax.mul(c2, s5))
  w = lax.add(lax.mul(w, t), lax.mul(c1, s3))
  w = lax.add(lax.mul(w, t), c0)
  w = lax.mul(w, lax.div(c, b))
  u = lax.mul(d, lax.log1p(lax.div(a, b)))
  v = lax.mul(a, lax.sub(lax.log(b), one))
  return _where(lax.le(u, v), lax.sub(lax.sub(w, v), u), lax.sub(lax.sub(w, u), v))


def betaln(a, b):
  """Natural log of the absolute value of the beta function (``scipy.special.betaln``)."""
  a, b = util.promote_args_inexact("betaln", a, b)
  return _betaln(a, b)


def beta(a, b):
  """The beta function ``gamma(a) gamma(b) / gamma(a + b)`` (``scipy.special.beta``)."""
  a, b = util.promote_args_inexact("beta", a, b)
  _no_complex("beta", a)
  sign = lax.mul(lax.mul(gammasgn(a), gammasgn(b)), gammasgn(lax.add(a, b)))
  return lax.mul(sign, lax.exp(_betaln(a, b)))


def betainc(a, b, x):
  """Regularized incomplete beta function ``I_x(a, b)`` (``scipy.special.betainc``)."""
  a, b, x = util.promote_args_inexact("betainc", a, b, x)
  _no_complex("betainc", x)
  return lax.betainc(a, b, x)


def factorial(n, exact: bool = False):
  """``n!`` computed as ``gamma(n + 1)`` in floating point; 0 for negative ``n``
  (``scipy.special.factorial``). ``exact=True`` is not supported (as in JAX)."""
  if exact:
    raise NotImplementedError("factorial with exact=True")
  n, = util.promote_args_inexact("factorial", n)
  return _where(lax.lt(n, _const(n, 0)), 0, lax.exp(lax.lgamma(lax.add(n, _const(n, 1)))))


def comb(N, k, *, repetition: bool = False):
  """Number of combinations of ``N`` things taken ``k`` at a time, in floating point
  (``scipy.special.comb`` with ``exact=False``); 0 outside ``0 <= k <= N``."""
  N, k = util.promote_args_inexact("comb", N, k)
  if repetition:
    result = comb(lax.sub(lax.add(N, k), _const(N, 1)), k)
    return _where(jnp.logical_and(lax.eq(k, _const(k, 0)), lax.ge(N, _const(N, 0))),
                  _const(N, 1), result)
  valid = jnp.logical_and(jnp.logical_and(lax.le(k, N), lax.ge(N, _const(N, 0))),
                          lax.ge(k, _const(k, 0)))
  safe_N = _where(valid, N, 0.0)
  safe_k = _where(valid, k, 0.0)
  one = _const(N, 1)
  log_comb = lax.sub(lax.sub(lax.lgamma(lax.add(safe_N, one)), lax.lgamma(lax.add(safe_k, one))),
                     lax.lgamma(lax.sub(lax.add(safe_N, one), safe_k)))
  return _where(valid, lax.exp(log_comb), 0.0)


def poch(z, m):
  """Pochhammer symbol ``gamma(z + m) / gamma(z)`` (rising factorial; ``scipy.special.poch``)."""
  z, m = util.promote_args_inexact("poch", z, m)
  _no_complex("jnp.poch", z)
  return _poch(z, m)


def _poch_impl(z, m):
  return _where(lax.eq(m, _const(m, 0)), _const(z, 1),
                lax.div(gamma(lax.add(z, m)), gamma(z)))


def digamma(x):
  """The digamma function, derivative of ``gammaln`` (``scipy.special.digamma``)."""
  x, = util.promote_args_inexact("digamma", x)
  return lax.digamma(x)


def gammainc(a, x):
  """Regularized lower incomplete gamma function ``P(a, x)`` (``scipy.special.gammainc``)."""
  a, x = util.promote_args_inexact("gammainc", a, x)
  return lax.igamma(a, x)


def gammaincc(a, x):
  """Regularized upper incomplete gamma function ``Q(a, x)`` (``scipy.special.gammaincc``)."""
  a, x = util.promote_args_inexact("gammaincc", a, x)
  return lax.igammac(a, x)


def multigammaln(a, d):
  """Log of the multivariate gamma function of dimension ``d`` (a static integer)
  (``scipy.special.multigammaln``)."""
  d = core.concrete_or_error(int, d, "d argument of multigammaln")
  a, d_arr = util.promote_args_inexact("multigammaln", a, d)
  constant = lax.mul(lax.mul(lax.mul(_const(a, 0.25), d_arr), lax.sub(d_arr, _const(a, 1))),
                     lax.log(_const(a, np.pi)))
  offsets = lax.div(lax.iota(a.dtype, d), _const(a, 2))
  shifted = jnp.subtract(jnp.expand_dims(a, -1), offsets)
  return lax.add(jnp.sum(lax.lgamma(shifted), axis=-1), constant)


# ---------------------------------------------------------------------------
# Error functions and the normal distribution


def erf(x):
  """The error function (``scipy.special.erf``)."""
  x, = util.promote_args_inexact("erf", x)
  return lax.erf(x)


def erfc(x):
  """The complementary error function ``1 - erf(x)`` (``scipy.special.erfc``)."""
  x, = util.promote_args_inexact("erfc", x)
  return lax.erfc(x)


def erfinv(x):
  """The inverse error function (``scipy.special.erfinv``)."""
  x, = util.promote_args_inexact("erfinv", x)
  return lax.erf_inv(x)


def _check_ndtr_dtype(x) -> None:
  if np.dtype(x.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
    raise TypeError(f"x.dtype={np.dtype(x.dtype)} is not supported, see docstring for supported "
                    "types.")


def _ndtr(x):
  half_sqrt_2 = _const(x, 0.5 * math.sqrt(2.0))
  w = lax.mul(x, half_sqrt_2)
  z = lax.abs(w)
  y = lax.select(lax.lt(z, half_sqrt_2), lax.add(_const(x, 1), lax.erf(w)),
                 lax.select(lax.gt(w, _const(x, 0)), lax.sub(_const(x, 2), lax.erfc(z)), lax.erfc(z)))
  return lax.mul(_const(x, 0.5), y)


def ndtr(x):
  """Standard normal CDF (``scipy.special.ndtr``); float32 and float64 inputs only, as in JAX."""
  x = jnp.asarray(x)
  _check_ndtr_dtype(x)
  return _ndtr(_strong(x))


# Rational approximations of the normal quantile (Cephes ndtri): for the central region
# (|p - 1/2| <= 1/2 - exp(-2)) and for the tails with z = sqrt(-2 log p) below/above 8.
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
  """Inverse of ``ndtr``: the standard normal quantile (``scipy.special.ndtri``); -inf at 0,
  inf at 1, NaN outside [0, 1]. float32 and float64 only."""
  p = jnp.asarray(p)
  _check_ndtr_dtype(p)
  p = _strong(p)
  one = _const(p, 1)
  # the tail nearer p: 1 - p above 1 - exp(-2)
  complement = _where(lax.gt(p, _const(p, -np.expm1(-2.0))), lax.sub(one, p), p)
  safe = _where(lax.eq(complement, _const(p, 0)), lax.full_like(p, 0.5), complement)
  w = lax.sub(safe, _const(p, 0.5))
  ww = lax.square(w)
  central = lax.add(w, lax.mul(lax.mul(w, ww), lax.div(_jnp_polyval(_NDTRI_P0, ww),
                                                       _jnp_polyval(_NDTRI_Q0, ww))))
  central = lax.mul(central, _const(p, -math.sqrt(2.0 * math.pi)))
  z = lax.sqrt(lax.mul(_const(p, -2), lax.log(safe)))
  first = lax.sub(z, lax.div(lax.log(z), z))

  def tail_term(num, den):
    ratio = lax.div(_jnp_polyval(num, lax.div(one, z)), _jnp_polyval(den, lax.div(one, z)))
    return lax.div(ratio, z)

  far_term = tail_term(_NDTRI_P2, _NDTRI_Q2)
  near_term = tail_term(_NDTRI_P1, _NDTRI_Q1)
  far_tail = lax.sub(first, far_term)
  near_tail = lax.sub(first, near_term)
  x = _where(lax.gt(safe, _const(p, math.exp(-2.0))), central,
             _where(lax.ge(z, _const(p, 8)), far_tail, near_tail))
  x = _where(lax.gt(p, _const(p, 1.0 - math.exp(-2.0))), x, lax.neg(x))
  infinity = lax.full_like(x, np.inf)
  at_zero = lax.eq(p, _const(p, 0))
  minus_infinity = lax.neg(infinity)
  return _where(at_zero, minus_infinity, _where(lax.eq(p, one), infinity, x))


def _double_factorial(n: int) -> int:
  return math.prod(range(n, 1, -2))


def log_ndtr(x, series_order: int = 3):
  """Log of the standard normal CDF, accurate far into both tails (an asymptotic series of
  ``series_order`` terms below -20 (float64) / -10 (float32)) (``scipy.special.log_ndtr``)."""
  if not isinstance(series_order, int):
    raise TypeError("series_order must be a Python integer.")
  if series_order < 0:
    raise ValueError("series_order must be non-negative.")
  if series_order > 30:
    raise ValueError("series_order must be <= 30.")
  x = jnp.asarray(x)
  if np.dtype(x.dtype) == np.float64:
    lower, upper = -20.0, 8.0
  elif np.dtype(x.dtype) == np.float32:
    lower, upper = -10.0, 5.0
  else:
    raise TypeError(f"x.dtype={np.dtype(x.dtype)} is not supported.")
  return _log_ndtr(series_order, _strong(x))


def _log_ndtr_impl(series_order, x):
  lower, upper = (-20.0, 8.0) if np.dtype(x.dtype) == np.float64 else (-10.0, 5.0)
  lower_c, upper_c = _const(x, lower), _const(x, upper)
  above = lax.gt(x, upper_c)
  ndtr_value = _ndtr(_where(above, lax.neg(x), lax.max(x, lower_c)))
  return _where(above, lax.neg(ndtr_value),
                _where(lax.gt(x, lower_c), lax.log(ndtr_value),
                       _log_ndtr_lower(lax.min(x, lower_c), series_order)))


def _log_ndtr_lower(x, series_order: int):
  x_2 = lax.square(x)
  log_scale = lax.sub(lax.sub(lax.mul(_const(x, -0.5), x_2), lax.log(lax.neg(x))),
                      _const(x, 0.5 * math.log(2.0 * math.pi)))
  return lax.add(log_scale, lax.log(_log_ndtr_asymptotic_series(x, series_order)))


def _log_ndtr_asymptotic_series(x, series_order: int):
  """``1 - 1/x**2 + 3/x**4 - 15/x**6 ...`` (``series_order`` terms), the even and odd terms
  summed separately as JAX does."""
  if series_order <= 0:
    return _const(x, 1)
  x_2 = lax.square(x)
  even_sum = lax.full_like(x, 0)
  odd_sum = lax.full_like(x, 0)
  x_2n = x_2
  for n in range(1, series_order + 1):
    term = lax.div(_const(x, _double_factorial(2 * n - 1)), x_2n)
    if n % 2:
      odd_sum = lax.add(odd_sum, term)
    else:
      even_sum = lax.add(even_sum, term)
    x_2n = lax.mul(x_2n, x_2)
  return lax.sub(lax.add(_const(x, 1), even_sum), odd_sum)


# ---------------------------------------------------------------------------
# Logistic function, logs and entropies


def expit(x):
  """The logistic sigmoid ``1 / (1 + exp(-x))`` (``scipy.special.expit``)."""
  x, = util.promote_args_inexact("expit", x)
  return lax.logistic(x)


def _logit(x):
  x, = util.promote_args_inexact("logit", x)
  return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


def _xlogy(x, y):
  x, y = util.promote_args_inexact("xlogy", x, y)
  keep = jnp.logical_or(lax.ne(x, _const(x, 0)), jnp.isnan(y))
  return _where(keep, lax.mul(x, lax.log(y)), lax.full_like(x, 0))


def _xlog1py(x, y):
  x, y = util.promote_args_inexact("xlog1py", x, y)
  keep = jnp.logical_or(lax.ne(x, _const(x, 0)), jnp.isnan(y))
  return _where(keep, lax.mul(x, lax.log1p(y)), lax.full_like(x, 0))


def _xlogx(x):
  return _xlogy(x, x)


# Named as JAX's functions are (custom_jvp equations print the function's name).
_logit.__name__ = _logit.__qualname__ = "logit"
_xlogy.__name__ = _xlogy.__qualname__ = "xlogy"
_xlog1py.__name__ = _xlog1py.__qualname__ = "xlog1py"

if custom_jvp is not None:  # derivatives as JAX defines them (finite at x == 0)
  _logit = custom_jvp(_logit)
  _logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))
  _xlogy = custom_jvp(_xlogy)

  @_xlogy.defjvp
  def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlogy(x, y)
    return out, (x_dot * lax.log(y) + y_dot * x / y).astype(out.dtype)

  _xlog1py = custom_jvp(_xlog1py)

  @_xlog1py.defjvp
  def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = _xlog1py(x, y)
    return out, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)

  _xlogx = custom_jvp(_xlogx)

  @_xlogx.defjvp
  def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def logit(x):
  """The log-odds ``log(x / (1 - x))``, inverse of ``expit`` (``scipy.special.logit``)."""
  return _logit(x)


def xlogy(x, y):
  """``x * log(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN)
  (``scipy.special.xlogy``)."""
  return _xlogy(x, y)


def xlog1py(x, y):
  """``x * log1p(y)``, defined as 0 where ``x == 0`` (unless ``y`` is NaN)
  (``scipy.special.xlog1py``)."""
  return _xlog1py(x, y)


def entr(x):
  """Elementwise entropy ``-x log(x)``: 0 at 0, -inf for negative ``x``
  (``scipy.special.entr``)."""
  x, = util.promote_args_inexact("entr", x)
  _no_complex("entr", x)
  return lax.select(lax.lt(x, _const(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p, q):
  """Elementwise relative entropy ``p log(p / q)``: 0 where ``p == 0 <= q``, inf where the
  arguments are otherwise outside the positive quadrant (``scipy.special.rel_entr``)."""
  p, q = util.promote_args_inexact("rel_entr", p, q)
  _no_complex("rel_entr", p)
  zero = _const(p, 0)
  both_positive = jnp.logical_and(lax.gt(p, zero), lax.gt(q, zero))
  p_zero = jnp.logical_and(lax.eq(p, zero), lax.ge(q, zero))
  safe_p = _where(both_positive, p, 1)
  safe_q = _where(both_positive, q, 1)
  value = lax.sub(_xlogx(safe_p), _xlogy(safe_p, safe_q))
  return _where(both_positive, value, _where(p_zero, zero, np.inf))


def kl_div(p, q):
  """Elementwise Kullback-Leibler divergence term ``p log(p / q) - p + q``
  (``scipy.special.kl_div``)."""
  p, q = util.promote_args_inexact("kl_div", p, q)
  _no_complex("kl_div", p)
  return lax.add(lax.sub(rel_entr(p, q), p), q)


def boxcox(x, lmbda):
  """Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` where ``lmbda == 0``)
  (``scipy.special.boxcox``)."""
  x, lmbda = util.promote_args_inexact("boxcox", x, lmbda)
  return _boxcox(jnp.log, x, lmbda)


def boxcox1p(x, lmbda):
  """Box-Cox transform of ``1 + x`` (``scipy.special.boxcox1p``)."""
  x, lmbda = util.promote_args_inexact("boxcox1p", x, lmbda)
  return _boxcox(jnp.log1p, x, lmbda)


def _boxcox(log, x, lmbda):
  is_zero = lax.eq(lmbda, _const(lmbda, 0))
  safe = _where(is_zero, _const(lmbda, 1), lmbda)
  log_x = log(x)
  return _where(is_zero, log_x, jnp.expm1(safe * log_x) / safe)


# ---------------------------------------------------------------------------
# Bessel functions, zeta, polygamma


def i0e(x):
  """Exponentially scaled modified Bessel function of order 0 (``scipy.special.i0e``)."""
  x, = util.promote_args_inexact("i0e", x)
  return lax.bessel_i0e(x)


def i0(x):
  """Modified Bessel function of order 0 (``scipy.special.i0``)."""
  x, = util.promote_args_inexact("i0", x)
  return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
  """Exponentially scaled modified Bessel function of order 1 (``scipy.special.i1e``)."""
  x, = util.promote_args_inexact("i1e", x)
  return lax.bessel_i1e(x)


def i1(x):
  """Modified Bessel function of order 1 (``scipy.special.i1``)."""
  x, = util.promote_args_inexact("i1", x)
  return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def zeta(x, q=None):
  """Hurwitz zeta function ``sum((k + q) ** -x for k >= 0)`` (``scipy.special.zeta``); the
  Riemann zeta function (``q=None``) is not implemented, as in JAX."""
  if q is None:
    raise NotImplementedError("Riemann zeta function not implemented; pass q != None to compute "
                              "the Hurwitz Zeta function.")
  x, q = util.promote_args_inexact("zeta", x, q)
  return _zeta(x, q)


def _zeta_impl(x, q):
  return lax.zeta(x, q)


_ZETA_TERMS = 8  # Euler-Maclaurin: terms summed directly, and Bernoulli corrections
# (2k)! / B_2k for k = 1..8
_ZETA_FACTORIAL_OVER_BERNOULLI = np.array([
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183384, 74724249600.0,
    -2950130727192.1406])


def _zeta_series(s, q):
  """Hurwitz zeta by the Euler-Maclaurin formula as JAX writes it: the derivative rule of zeta
  differentiates this (the zeta primitive has none)."""
  dtype = s.dtype
  n = _ZETA_TERMS
  s_col = s[..., None]
  q_col = q[..., None]
  head = jnp.sum((q_col + np.arange(n, dtype=dtype)) ** -s_col, axis=-1)
  integral = (q + n) ** (1 - s) / (s - 1)
  scale = (q + n) ** -s
  ratios = jnp.cumprod((s_col + np.arange(2 * n, dtype=dtype)) / (q_col + n), axis=-1)
  terms = jnp.clip(ratios[..., ::2], max=np.finfo(dtype).max)
  terms = terms / _ZETA_FACTORIAL_OVER_BERNOULLI.astype(dtype).reshape((1,) * s.ndim + (n,))
  tail = scale * (0.5 + jnp.sum(terms, axis=-1))
  return head + integral + tail


_zeta_impl.__name__ = _zeta_impl.__qualname__ = "zeta"
_zeta = custom_jvp(_zeta_impl)


def _zeta_jvp(primals, tangents):
  return differentiation.jvp(_zeta_series, primals, tangents)


_zeta_jvp.__name__ = _zeta_jvp.__qualname__ = "jvp"
_zeta.defjvp(_zeta_jvp)


def polygamma(n, x):
  """Polygamma function of integer order ``n``, the ``n + 1``-th derivative of ``gammaln``
  (``scipy.special.polygamma``)."""
  n_dtype = dtypes.dtype(n, canonicalize=True)
  if not dtypes.issubdtype(n_dtype, np.integer):
    raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
  n, x = util.promote_args_inexact("polygamma", n, x)
  _no_complex("polygamma", x)
  return lax.polygamma(n, x)


def bernoulli(n: int):
  """The Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``) as a float array of length
  ``n + 1`` (``scipy.special.bernoulli``); ``n`` must be a concrete non-negative integer.

  Computed as JAX does, in the default float type: ``B_0..B_2`` exactly, and the even
  ``B_m`` (``m >= 4``; odd ones are 0) from ``B_m = -(m - 1) m / (4 pi**2) B_{m-2} zeta(m) /
  zeta(m - 2)`` as a cumulative product, ``zeta(m)`` summed over ``k = 1..49``."""
  n = core.concrete_or_error(operator.index, n, "Argument n of bernoulli")
  if n < 0:
    raise ValueError("n must be a non-negative integer.")
  b3 = jnp.array([1, -1 / 2, 1 / 6])
  if n < 3:
    return b3[:n + 1]
  bn = jnp.zeros(n + 1).at[:3].set(b3)
  m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
  q1 = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
  k = jnp.arange(2, 50, dtype=bn.dtype)  # 2**-50 is below float32's epsilon
  q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
  return bn.at[4::2].set(q1 * (1 + q2))


# ---------------------------------------------------------------------------
# softmax, log_softmax


def softmax(x, /, *, axis=None):
  """``exp(x) / sum(exp(x), axis)``, computed stably (``scipy.special.softmax``; the default
  ``axis=None`` normalises over all elements)."""
  return nn_functions.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
  """``x - logsumexp(x, axis)``, computed stably (``scipy.special.log_softmax``)."""
  return nn_functions.log_softmax(x, axis=axis)


# ---------------------------------------------------------------------------
# Scaled complementary error function and Dawson's integral

# Cephes rational approximations of Dawson's integral on [0, 3.25), [3.25, 6.25), [6.25, inf).
_DAWSN_AN = [
    1.1368149897175597e-11, 8.492622676674738e-10, 1.9443420417555306e-08,
    9.531517412544844e-07, 3.078283098749132e-06, 0.00035251336852028877,
    -0.0008501498467244109, 0.04226182230055466, -0.09174803717734524, 1.0]
_DAWSN_AD = [
    2.403720730667626e-11, 1.488646813684934e-09, 5.212652810105416e-08,
    1.2725847827318697e-06, 2.324902498207895e-05, 0.00032552474182605793,
    0.003488058146571626, 0.027944853119882897, 0.15887424196012057, 0.5749186294893204, 1.0]
_DAWSN_BN = [
    0.5089551564179009, -0.24475441814269785, 0.09415123353035344, -0.021871125514203903,
    0.003662076123295692, -0.0004232091144603888, 3.5964130479389666e-05,
    -2.1464035171996896e-06, 9.100107800763914e-08, -2.4027452082825098e-09,
    3.592333854409284e-11]
_DAWSN_BD = [
    1.0, -0.6318398698733682, 0.2367067882282487, -0.053180636700322324, 0.008480417185862954,
    -0.0009479967684866654, 7.810255929445524e-05, -4.558751532524426e-06,
    1.8910035811142186e-07, -4.913246913319206e-09, 7.184664032357345e-11]
_DAWSN_CN = [
    -0.5905928605347732, 0.6292352427243688, -0.17285897538038814, 0.016483704782518965,
    -0.0004868276130204627]
_DAWSN_CD = [
    1.0, -2.698200571975449, 1.7327079904594784, -0.3937085822819395, 0.03442789240412334,
    -0.0009736552260409412]


def _erfcx_real(x):
  """exp(x**2) erfc(x); past sqrt(log(max)) the asymptotic series in 1/x**2."""
  nterms = 9 if np.dtype(x.dtype) == np.float64 else 5
  coeffs = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5,
            1.0][-nterms:]
  threshold = float(np.sqrt(np.log(dtypes.finfo(x.dtype).max)))
  large = lax.gt(x, _const(x, threshold))
  safe_x = lax.select(large, lax.full_like(x, 1), x)
  direct = lax.mul(lax.exp(lax.square(safe_x)), lax.erfc(safe_x))
  asymptotic = lax.div(_jnp_polyval(coeffs, lax.div(_const(x, 1), lax.square(x))),
                       lax.mul(x, _const(x, math.sqrt(math.pi))))
  return lax.select(large, asymptotic, direct)


def _in_float32(fn, x):
  if np.dtype(x.dtype) in (np.dtype(np.float32), np.dtype(np.float64)):
    return fn(x)
  return fn(x.astype(np.float32)).astype(x.dtype)


def erfcx(x):
  """Scaled complementary error function ``exp(x**2) * erfc(x)`` (``scipy.special.erfcx``;
  real inputs)."""
  x, = util.promote_args_inexact("erfcx", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    raise NotImplementedError("axle.scipy.special.erfcx does not support complex inputs yet.")
  return _in_float32(_erfcx_real, _strong(x))


def _dawsn_real(x):
  # JAX's program: each region's condition is computed where it is used.
  sign = lax.sign(x)
  ax = lax.abs(x)
  one = _const(x, 1)
  t = lax.div(one, lax.square(ax))
  ax1 = lax.select(lax.lt(ax, _const(x, 3.25)), ax, lax.full_like(ax, 1))
  ax1_2 = lax.square(ax1)
  val1 = lax.div(lax.mul(ax1, _jnp_polyval(_DAWSN_AN, ax1_2)), _jnp_polyval(_DAWSN_AD, ax1_2))

  def tail(region, num, den):
    t_r = lax.select(region(), t, lax.full_like(t, 1))
    ax_r = lax.select(region(), ax, lax.full_like(ax, 1))
    scale = lax.div(_const(x, 0.5), ax_r)
    return lax.mul(scale, lax.add(one, lax.div(lax.mul(t_r, _jnp_polyval(num, t_r)),
                                              _jnp_polyval(den, t_r))))

  val2 = tail(lambda: jnp.logical_and(lax.ge(ax, _const(x, 3.25)), lax.lt(ax, _const(x, 6.25))),
              _DAWSN_BN, _DAWSN_BD)
  val3 = tail(lambda: lax.ge(ax, _const(x, 6.25)), _DAWSN_CN, _DAWSN_CD)
  val = lax.select(lax.lt(ax, _const(x, 3.25)), val1,
                   lax.select(lax.lt(ax, _const(x, 6.25)), val2, val3))
  return lax.mul(sign, val)


def dawsn(x):
  """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt`` (``scipy.special.dawsn``)."""
  x, = util.promote_args_inexact("dawsn", x)
  _no_complex("dawsn", x)
  return _in_float32(_dawsn_real, _strong(x))


# Derivative rules as JAX defines them (custom_jvp equations print these names).
_log_ndtr_impl.__name__ = "log_ndtr"
_log_ndtr = custom_jvp(_log_ndtr_impl, nondiff_argnums=(0,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
  (x,), (t,) = primals, tangents
  out = _log_ndtr(series_order, x)
  # d/dx log Phi(x) = phi(x) / Phi(x) = exp(log phi(x) - log Phi(x))
  log_pdf = lax.sub(lax.mul(_const(x, -0.5), lax.square(x)),
                    _const(x, 0.5 * math.log(2.0 * math.pi)))
  return out, lax.mul(t, lax.exp(lax.sub(log_pdf, out)))


_poch_impl.__name__ = "poch"
_poch = custom_jvp(_poch_impl)
# (As JAX's rules: each re-evaluates poch rather than reusing the primal output.)
_poch.defjvps(
    lambda z_dot, out, z, m: (digamma(z + m) - digamma(z)) * _poch(z, m) * z_dot,
    lambda m_dot, out, z, m: digamma(z + m) * _poch(z, m) * m_dot)

_dawsn_real.__name__ = "_dawsn"
_dawsn_real = custom_jvp(_dawsn_real)


# (As JAX: rules given per argument (defjvps), so the rule prints as ``jvp``.)
_dawsn_real.defjvps(
    lambda t, out, x: lax.mul(t, lax.sub(_const(x, 1), lax.mul(lax.mul(_const(x, 2), x), out))))


_erfcx_real.__name__ = "_erfcx"
_erfcx_real = custom_jvp(_erfcx_real)
_erfcx_real.defjvps(
    lambda t, out, x: lax.mul(t, lax.sub(lax.mul(lax.mul(_const(x, 2), x), out),
                                         _const(x, 2 / math.sqrt(math.pi)))))


from axle._src.scipy.special_extra import (  # noqa: E402  (re-exports; no cycle: it needs none of the above)
    bessel_jn as bessel_jn, exp1 as exp1, expi as expi, expn as expn, fresnel as fresnel,
    hyp1f1 as hyp1f1, hyp2f1 as hyp2f1, owens_t as owens_t, sici as sici, spence as spence,
    sph_harm_y as sph_harm_y, wofz as wofz,
)
