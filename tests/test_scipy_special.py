"""axle.scipy.special against SciPy (float64 references) and JAX's recorded outputs (dtypes,
weak types, edge values and errors), eagerly and under jit."""
import numpy as np
import pytest
import scipy.special as osp

import axle
from axle.scipy import special as sp
from tests import nn_inputs
from tests.nn_reference_check import REFERENCE, check_case

# Functions computed by series/rational approximations in float32: JAX's and ours agree to a
# few float32 ulps, not bitwise.
_LOOSE = {"betaln": 2e-5, "beta": 1e-4, "gamma": 2e-5, "factorial": 2e-5, "comb": 1e-4,
          "poch": 5e-5, "multigammaln": 1e-5, "ndtri": 1e-5, "log_ndtr": 1e-5, "zeta": 1e-5,
          "polygamma": 1e-5, "gammainc": 1e-5, "gammaincc": 1e-5, "betainc": 5e-5,
          "i0": 1e-5, "i1": 1e-5, "kl_div": 1e-5, "rel_entr": 1e-5, "boxcox": 1e-5,
          "boxcox1p": 1e-5, "softmax": 1e-5, "log_softmax": 1e-5, "logsumexp": 1e-5}


def _name(source):
  return source.split("(")[0].split(".")[1]


# Cases JAX computes that axle does not yet (the reason is the xfail message).
_NOT_YET = {"sp.gamma(c2)": "complex gamma needs a complex lgamma, which lax.lgamma lacks"}


def _rtol(source):
  return _LOOSE.get(_name(source), 5e-6)


@pytest.mark.parametrize("source", nn_inputs.SPECIAL_CASES)
def test_special_eager(source):
  if source in _NOT_YET:
    pytest.xfail(_NOT_YET[source])
  name = _name(source)
  if not hasattr(sp, name):
    pytest.xfail(f"axle.scipy.special.{name} is not implemented")
  check_case(source, jit=False, rtol=_rtol(source), atol=1e-6, check_message=False)


@pytest.mark.parametrize("source", [s for s in nn_inputs.SPECIAL_CASES
                                    if "error" not in REFERENCE["cases"][s]][::4])
def test_special_jit(source):
  if source in _NOT_YET:
    pytest.xfail(_NOT_YET[source])
  name = _name(source)
  if not hasattr(sp, name):
    pytest.xfail(f"axle.scipy.special.{name} is not implemented")
  check_case(source, jit=True, rtol=_rtol(source), atol=1e-6)


_RNG = np.random.default_rng(7)
_X = np.concatenate([np.linspace(-6, 6, 41), _RNG.normal(size=20) * 3]).astype(np.float32)
_POS = np.concatenate([np.geomspace(1e-3, 50, 30), _RNG.uniform(0.1, 10, 20)]).astype(np.float32)
_UNIT = np.concatenate([np.linspace(0.001, 0.999, 30), _RNG.uniform(size=20)]).astype(np.float32)

SCIPY_UNARY = [
    ("gammaln", osp.gammaln, _X, 1e-5), ("gamma", osp.gamma, _X, 1e-4),
    ("gammasgn", osp.gammasgn, _X, 0), ("digamma", osp.digamma, _POS, 1e-5),
    ("erf", osp.erf, _X, 1e-6), ("erfc", osp.erfc, _X, 1e-5), ("erfinv", osp.erfinv, _UNIT * 2 - 1, 1e-5),
    ("expit", osp.expit, _X, 1e-6), ("logit", osp.logit, _UNIT, 1e-5), ("ndtr", osp.ndtr, _X, 1e-5),
    ("ndtri", osp.ndtri, _UNIT, 1e-5), ("log_ndtr", osp.log_ndtr, _X * 5, 1e-5),
    ("i0", osp.i0, _X, 1e-5), ("i0e", osp.i0e, _X, 1e-5), ("i1", osp.i1, _X, 1e-5),
    ("i1e", osp.i1e, _X, 1e-5), ("entr", osp.entr, _X, 1e-5), ("factorial", osp.factorial, _POS * 2, 1e-4),
    ("loggamma", lambda x: np.where(x > 0, osp.loggamma(x), np.nan), _X, 1e-5),
]


@pytest.mark.parametrize("name,ref,x,rtol", SCIPY_UNARY, ids=[c[0] for c in SCIPY_UNARY])
def test_unary_vs_scipy(name, ref, x, rtol):
  got = np.asarray(getattr(sp, name)(x))
  assert got.dtype == np.float32
  with np.errstate(all="ignore"):
    # SciPy computes in float64; results beyond float32's range are inf in float32 (as in JAX)
    want = ref(x.astype(np.float64)).astype(np.float32)
  np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 if rtol else 0, equal_nan=True)


SCIPY_BINARY = [
    ("betaln", osp.betaln, _POS, _POS[::-1] * 100, 2e-5), ("beta", osp.beta, _POS / 5, _POS[::-1] / 5, 5e-5),
    ("xlogy", osp.xlogy, _X, _POS[:len(_X)] if len(_POS) >= len(_X) else np.resize(_POS, len(_X)), 1e-5),
    ("xlog1py", osp.xlog1py, _X, np.resize(_POS, len(_X)), 1e-5),
    ("gammainc", osp.gammainc, _POS, _POS[::-1], 1e-4), ("gammaincc", osp.gammaincc, _POS, _POS[::-1], 1e-4),
    ("zeta", osp.zeta, _POS + 1.1, _POS[::-1], 1e-4), ("rel_entr", osp.rel_entr, _UNIT, _UNIT[::-1], 1e-5),
    ("kl_div", osp.kl_div, _UNIT, _UNIT[::-1], 1e-5), ("boxcox", osp.boxcox, _POS, _X[:len(_POS)] / 3, 1e-4),
    ("boxcox1p", osp.boxcox1p, _POS, _X[:len(_POS)] / 3, 1e-4), ("poch", osp.poch, _POS / 2, _UNIT * 3, 1e-4),
    ("comb", osp.comb, np.round(_POS * 3), np.round(_POS[::-1]), 1e-4),
]


@pytest.mark.parametrize("name,ref,a,b,rtol", SCIPY_BINARY, ids=[c[0] for c in SCIPY_BINARY])
def test_binary_vs_scipy(name, ref, a, b, rtol):
  got = np.asarray(getattr(sp, name)(a, b))
  assert got.dtype == np.float32
  with np.errstate(all="ignore"):
    want = ref(a.astype(np.float64), b.astype(np.float64))
  np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, equal_nan=True)


def test_betaln_large_arguments_do_not_cancel():
  got = np.asarray(sp.betaln(np.float32(2.5), np.float32(1e7)))
  np.testing.assert_allclose(got, osp.betaln(2.5, 1e7), rtol=1e-6)


def test_polygamma_and_multigammaln_vs_scipy():
  np.testing.assert_allclose(np.asarray(sp.polygamma(np.arange(4), np.float32(2.5))),
                             osp.polygamma(np.arange(4), 2.5), rtol=1e-5)
  a = _POS + 3
  np.testing.assert_allclose(np.asarray(sp.multigammaln(a, 3)), osp.multigammaln(a.astype(np.float64), 3),
                             rtol=1e-5)


def test_logsumexp_vs_scipy():
  a = _RNG.normal(size=(4, 5)).astype(np.float32)
  b = _RNG.normal(size=(4, 5)).astype(np.float32)
  for axis in (None, 0, 1, (0, 1)):
    np.testing.assert_allclose(np.asarray(sp.logsumexp(a, axis=axis)), osp.logsumexp(a, axis=axis),
                               rtol=1e-6)
  out, sign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
  want, want_sign = osp.logsumexp(a, axis=1, b=b, return_sign=True)
  np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)
  np.testing.assert_array_equal(np.asarray(sign), want_sign)


def test_bernoulli_vs_scipy():
  # float32 recurrence as in JAX (not exact rationals): within a few ulp of SciPy's values.
  np.testing.assert_allclose(np.asarray(sp.bernoulli(20)), osp.bernoulli(20), rtol=1e-5)


def test_errors():
  with pytest.raises(ValueError, match="integer type"):
    sp.polygamma(0.5, 1.0)
  with pytest.raises(NotImplementedError, match="Riemann"):
    sp.zeta(2.0)
  with pytest.raises(TypeError, match="not supported"):
    sp.ndtr(np.array([1, 2], np.int32))
  with pytest.raises(ValueError, match="non-negative"):
    sp.log_ndtr(1.0, series_order=-1)
  with pytest.raises(ValueError, match="complex"):
    sp.entr(np.complex64(1))
  with pytest.raises(TypeError):
    sp.erf([1.0, 2.0])
  with pytest.raises(axle.errors.ConcretizationTypeError):
    axle.jit(lambda d: sp.multigammaln(3.0, d))(2)
