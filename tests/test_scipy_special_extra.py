"""The less common axle.scipy.special functions (expi, exp1, expn, sici, fresnel, spence, hyp1f1,
hyp2f1, owens_t, wofz, bessel_jn, sph_harm_y) and axle.nn's scaled-dot helpers: against SciPy
(float64 references; float32 tolerance, and float64 under x64) and against JAX's recorded
outputs (values, dtypes, weak types, errors and derivatives; tests/data/
special_extra_reference.json, written by tools/record_special_extra_reference.py), eagerly and
under jit."""
import json
import os
import warnings

import ml_dtypes
import numpy as np
import pytest
import scipy.special as osp

import axle
import axle.numpy as jnp
from axle import nn
from axle.scipy import special as sp
from axle.test_util import check_grads

_DATA = os.path.join(os.path.dirname(__file__), "data", "special_extra_reference.json")
with open(_DATA) as _f:
  REFERENCE = json.load(_f)


def _decode(leaf):
  dtype = ml_dtypes.bfloat16 if leaf["dtype"] == "bfloat16" else np.dtype(leaf["dtype"])
  return np.frombuffer(bytes.fromhex(leaf["hex"]), dtype=dtype).reshape(tuple(leaf["shape"]))


INPUTS = {name: _decode(leaf) for name, leaf in REFERENCE["inputs"].items()}


def _namespace():
  return dict(INPUTS, jax=axle, jnp=jnp, np=np, sp=sp, nn=nn,
              mx=nn.get_scaled_dot_general_config("mxfp8"),
              nv=nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32)))


# Where axle deliberately gives SciPy's value and JAX a wrong one (NaN): those elements are
# checked against SciPy instead (test_*_fixed_edges). (expi, exp1, expn and spence give JAX's
# values, NaNs included, bit for bit: see test_bits_match_jax.)
_JAX_WRONG = {
    "sp.bessel_jn(jn_z, v=4)": "no overflow for small z (JAX: NaN)",
    "sp.bessel_jn(jn_z.reshape(1, 17), v=0)": "no overflow for small z (JAX: NaN)",
    "sp.bessel_jn(jn_z, v=3, n_iter=80)": "no overflow for small z (JAX: NaN)",
    "sp.bessel_jn(xi32, v=1)": "J_n(0) (JAX: NaN)",
    "sp.bessel_jn(x16, v=1)": "no overflow for small z (JAX: NaN)",
    "sp.bessel_jn(2.0, v=2)": "no overflow (JAX: NaN)",
}
# Errors where axle's differs on purpose (JAX's is incidental).
_OWN_ERROR = {"sp.bessel_jn(z, v=1)": "TypeError"}
# Looser relative tolerances (series and recurrences in float32; quantised matmuls).
_RTOL = {"hyp2f1": 2e-4, "hyp1f1": 5e-5, "bessel_jn": 1e-4, "sph_harm_y": 1e-4,
         "owens_t": 2e-5, "scaled_dot_general": 1e-5, "grad": 1e-4, "jvp": 1e-5, "expn": 2e-5,
         "exp1": 2e-5, "expi": 2e-5, "sici": 2e-5, "wofz": 2e-5, "spence": 2e-5}


def _rtol(source):
  for key, value in _RTOL.items():
    if key in source:
      return value
  return 5e-6


def _evaluate(source, jit):
  env = _namespace()
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if jit:
      return axle.jit(lambda: eval(source, env))()
    return eval(source, env)


def _compare(source, out, expected, rtol):
  leaves = axle.tree_util.tree_leaves(out)
  assert len(leaves) == len(expected["leaves"]), source
  for leaf, ref in zip(leaves, expected["leaves"]):
    want = _decode(ref)
    got = np.asarray(leaf)
    assert got.dtype == want.dtype, f"{source}: dtype {got.dtype}, JAX {want.dtype}"
    assert got.shape == want.shape, f"{source}: shape {got.shape}, JAX {want.shape}"
    assert bool(getattr(leaf, "weak_type", False)) == ref["weak_type"], source
    if want.dtype.kind in "biu":
      np.testing.assert_array_equal(got, want, err_msg=source)
      continue
    kind = np.complex128 if want.dtype.kind == "c" else np.float64
    got, want = got.astype(kind), want.astype(kind)
    if source in _JAX_WRONG:  # compare only where JAX's value is right (finite, x != 0, n >= 0)
      keep = np.isfinite(want)
      got, want = got[keep], want[keep]
    if ref["dtype"] in ("float16", "bfloat16") or "x16" in source:
      rtol = max(rtol, 1e-2)  # half precision (axle computes in float32 throughout)
    finite = np.abs(want[np.isfinite(want)])
    scale = float(finite.max()) if finite.size else 0.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 * max(scale, 1.0),
                               equal_nan=True, err_msg=source)


_VALUE_CASES = [s for s, r in REFERENCE["cases"].items()
                if "error" not in r and "get_scaled_dot_general_config" not in s]
_ERROR_CASES = [s for s, r in REFERENCE["cases"].items() if "error" in r]


@pytest.mark.parametrize("source", _VALUE_CASES)
def test_matches_jax_eager(source):
  _compare(source, _evaluate(source, jit=False), REFERENCE["cases"][source], _rtol(source))


@pytest.mark.parametrize("source", [s for s in _VALUE_CASES if "jax.grad" not in s
                                    and "jax.jvp" not in s and "jax.vmap" not in s])
def test_matches_jax_jit(source):
  _compare(source, _evaluate(source, jit=True), REFERENCE["cases"][source], _rtol(source))


# Functions whose programs are JAX's, operation for operation: their outputs are JAX's bits
# (eagerly, as recorded; a jit of the recorded expressions would fold the constant inputs).
_BIT_EXACT = ("sp.expi(", "sp.exp1(", "sp.expn(", "sp.spence(", "sp.sph_harm_y(", "jax.vmap(jax.grad(sp.expi))",
              "jax.vmap(jax.grad(sp.exp1))", "jax.vmap(jax.grad(lambda x: sp.expn(3, x)))")


@pytest.mark.parametrize("source", [s for s in _VALUE_CASES if s.startswith(_BIT_EXACT)])
def test_bits_match_jax(source):
  out = _evaluate(source, jit=False)
  for leaf, ref in zip(axle.tree_util.tree_leaves(out), REFERENCE["cases"][source]["leaves"]):
    want = _decode(ref)
    got = np.asarray(leaf)
    assert got.dtype == want.dtype and got.shape == want.shape, source
    assert got.tobytes() == want.tobytes(), f"{source}: {got} (JAX: {want})"


@pytest.mark.parametrize("source", _ERROR_CASES)
def test_errors_match_jax(source):
  expected = REFERENCE["cases"][source]
  if source in _OWN_ERROR:
    with pytest.raises(getattr(__builtins__, _OWN_ERROR[source], None) or TypeError,
                       match="bessel_jn requires real z"):
      _evaluate(source, jit=False)
    return
  with pytest.raises(Exception) as info:
    _evaluate(source, jit=False)
  assert type(info.value).__name__ == expected["error"], (source, info.value)
  assert str(info.value) == expected["message"], source


def test_config_reprs_match_jax():
  assert repr(nn.get_scaled_dot_general_config("mxfp8")) == REFERENCE["config_reprs"]["mxfp8"]
  assert repr(nn.get_scaled_dot_general_config("nvfp4")) == REFERENCE["config_reprs"]["nvfp4"]
  assert nn.get_scaled_dot_general_config("mxfp8").block_size == 32
  assert nn.get_scaled_dot_general_config("nvfp4").block_size == 16


# ---------------------------------------------------------------------------
# SciPy references on sampled points

_RNG = np.random.default_rng(3)
_X = np.concatenate([np.linspace(-12, 12, 49), _RNG.normal(size=16) * 5]).astype(np.float32)
_POS = np.concatenate([np.geomspace(1e-4, 70, 40), _RNG.uniform(0.01, 20, 16)]).astype(np.float32)


def _unary_cases():
  yield "expi", sp.expi, osp.expi, (_X[_X != 0],)  # (JAX's Ei(0) is NaN, SciPy's -inf)
  yield "exp1", sp.exp1, osp.exp1, (_POS,)
  n = np.arange(0, 8).reshape(-1, 1).astype(np.float32)
  yield "expn", sp.expn, osp.expn, (n, _POS)
  yield "sici", sp.sici, osp.sici, (_X,)
  yield "fresnel", sp.fresnel, osp.fresnel, (_X,)
  yield "spence", sp.spence, osp.spence, (np.concatenate([_POS, [0.0, 1.0]]).astype(np.float32),)
  a, b = _RNG.uniform(0.1, 5, (2, 40)).astype(np.float32)
  # (the Taylor series cancels for x << 0, in JAX as here: keep float32 samples above -2)
  x = _RNG.uniform(-2, 10, 40).astype(np.float32)
  yield "hyp1f1", sp.hyp1f1, osp.hyp1f1, (a, b, x)
  a, b, c = _RNG.uniform(0.1, 3, (3, 40)).astype(np.float32)
  x = _RNG.uniform(-0.95, 0.95, 40).astype(np.float32)
  yield "hyp2f1", sp.hyp2f1, osp.hyp2f1, (a, b, c, x)
  h, a = (_RNG.normal(size=(2, 40)) * 2).astype(np.float32)
  yield "owens_t", sp.owens_t, osp.owens_t, (h, a)
  z = (_RNG.normal(size=40) * 3 + 1j * _RNG.normal(size=40) * 3).astype(np.complex64)
  yield "wofz", sp.wofz, osp.wofz, (z,)


_SCIPY_CASES = list(_unary_cases())


def _scipy_compare(got, want, rtol, atol):
  got_leaves = got if isinstance(got, tuple) else (got,)
  want_leaves = want if isinstance(want, tuple) else (want,)
  for g, w in zip(got_leaves, want_leaves):
    g = np.asarray(g)
    np.testing.assert_allclose(g.astype(np.complex128 if g.dtype.kind == "c" else np.float64), w,
                               rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name,fn,reference,args", _SCIPY_CASES, ids=[c[0] for c in _SCIPY_CASES])
def test_values_match_scipy_float32(name, fn, reference, args, jit):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    want = reference(*[a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                       for a in args])
  got = (axle.jit(fn) if jit else fn)(*args)
  leaves = got if isinstance(got, tuple) else (got,)
  assert all(np.asarray(v).dtype in (np.float32, np.complex64) for v in leaves)
  rtol = {"hyp2f1": 1e-4, "hyp1f1": 1e-4}.get(name, 1e-5)
  _scipy_compare(got, want, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name,fn,reference,args", _SCIPY_CASES, ids=[c[0] for c in _SCIPY_CASES])
def test_values_match_scipy_float64(name, fn, reference, args, x64):
  args = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) for a in args]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    want = reference(*args)
  got = fn(*[jnp.asarray(a) for a in args])
  leaves = got if isinstance(got, tuple) else (got,)
  assert all(np.asarray(v).dtype in (np.float64, np.complex128) for v in leaves)
  # float32-era approximations (Weideman's N=32 wofz, the 13-point Owen's T quadrature) and
  # series summed to float64 epsilon
  rtol = {"wofz": 1e-12, "owens_t": 1e-9, "hyp1f1": 1e-9, "hyp2f1": 1e-9}.get(name, 1e-12)
  _scipy_compare(got, want, rtol=max(rtol, 1e-12), atol=1e-14)


@pytest.mark.parametrize("jit", [False, True])
def test_bessel_jn_matches_scipy(jit):
  z = np.concatenate([[0.0, 1e-3, 0.3], np.linspace(0.5, 25, 20), [-2.5, -7.0]]).astype(np.float32)
  fn = (axle.jit(sp.bessel_jn, static_argnames=("v", "n_iter")) if jit else sp.bessel_jn)
  got = np.asarray(fn(z, v=5))
  assert got.shape == (6, z.size) and got.dtype == np.float32
  want = np.stack([osp.jv(k, z.astype(np.float64)) for k in range(6)])
  np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-6)


@pytest.mark.parametrize("jit", [False, True])
def test_sph_harm_y_matches_scipy(jit):
  n = np.array([0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 3])
  m = np.array([0, 0, 1, -1, 2, -3, 1, 0, 5, -2, -6, 3, 2])
  theta = np.linspace(0.05, 3.1, 13)
  phi = np.linspace(0.0, 6.2, 13)
  fn = axle.jit(sp.sph_harm_y, static_argnames=("n_max",)) if jit else sp.sph_harm_y
  kwargs = {"n_max": 6} if jit else {}
  got = np.asarray(fn(jnp.asarray(n), jnp.asarray(m), theta.astype(np.float32),
                      phi.astype(np.float32), **kwargs))
  assert got.dtype == np.complex64
  np.testing.assert_allclose(got, osp.sph_harm_y(n, m, theta, phi), rtol=1e-4, atol=1e-5)


def test_fixed_edges_match_scipy():
  # Values JAX gets wrong (see _JAX_WRONG); axle gives SciPy's.
  np.testing.assert_allclose(np.asarray(sp.bessel_jn(np.float32(0.0), v=2)), [1.0, 0.0, 0.0])


def test_spence_rejects_integers():
  with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
    sp.spence(np.arange(3, dtype=np.int32))


def test_sph_harm_y_needs_static_n_max():
  with pytest.raises(axle.errors.ConcretizationTypeError):
    axle.jit(lambda n: sp.sph_harm_y(n, n, 0.5, 0.5))(jnp.array([1]))


def test_vmap_of_series_matches_elementwise():
  a, b, x = _RNG.uniform(0.2, 3, (3, 6)).astype(np.float32)
  batched = axle.vmap(sp.hyp1f1)(a, b, x)
  single = np.array([float(sp.hyp1f1(a[i], b[i], x[i])) for i in range(6)])
  np.testing.assert_allclose(np.asarray(batched), single, rtol=1e-6)


# ---------------------------------------------------------------------------
# Derivatives (JAX's custom_jvp rules), against finite differences in float64


@pytest.mark.parametrize("name,fn,args", [
    ("expi", sp.expi, (np.array([0.3, 1.7, -2.2, 5.0]),)),
    ("exp1", sp.exp1, (np.array([0.3, 1.7, 5.0]),)),
    ("expn", lambda x: sp.expn(3, x), (np.array([0.3, 1.7, 5.0]),)),
    ("sici", sp.sici, (np.array([0.3, 1.7, 5.0, -2.0]),)),
    ("fresnel", sp.fresnel, (np.array([0.3, 1.7, -2.5]),)),
    # (JAX's gradient is NaN at x > 1, through a branch it does not take; see the reference)
    ("spence", sp.spence, (np.array([0.3, 0.6, 0.9]),)),
    ("hyp1f1", sp.hyp1f1, (np.array([0.5, 1.3]), np.array([1.5, 2.2]), np.array([0.7, -1.1]))),
    ("hyp2f1", sp.hyp2f1, (np.array([0.5, 1.3]), np.array([0.4, 0.8]), np.array([1.5, 2.2]),
                           np.array([0.3, -0.4]))),
    ("owens_t", sp.owens_t, (np.array([0.4, -1.2, 2.0]), np.array([0.5, 1.7, -0.8]))),
    ("wofz", sp.wofz, (np.array([0.5 + 0.3j, -1.0 + 1.5j, 2.0 - 0.5j]),)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_check_grads(name, fn, args, x64):
  modes = ("fwd",) if name == "wofz" else ("fwd", "rev")
  check_grads(fn, args, order=1, modes=modes, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------------------
# nn: scaled_matmul / scaled_dot_general beyond the recorded cases


def test_scaled_matmul_reference_semantics():
  a = jnp.array([1.0, 2, 3]).reshape((1, 1, 3))
  b = jnp.array([4.0, 5, 6]).reshape((1, 1, 3))
  s = jnp.array([0.5]).reshape((1, 1, 1))
  out = nn.scaled_matmul(a, b, s, s)
  assert out.dtype == np.float32 and float(out[0, 0, 0]) == 8.0
  out16 = nn.scaled_matmul(a, b, s, s, preferred_element_type=jnp.bfloat16)
  assert out16.dtype == jnp.bfloat16


def test_scaled_matmul_block_mismatch_error():
  a = jnp.ones((1, 2, 6))
  with pytest.raises(ValueError, match="multiple of the scales' K=4"):
    nn.scaled_matmul(a, a, jnp.ones((1, 2, 4)), jnp.ones((1, 2, 4)))


def test_scaled_dot_general_without_configs_is_dot_general():
  lhs, rhs = INPUTS["lhs2"], INPUTS["rhs2"]
  out = nn.scaled_dot_general(lhs, rhs, (((1,), (0,)), ((), ())))
  np.testing.assert_allclose(np.asarray(out), lhs @ rhs, rtol=1e-5)


def test_scaled_dot_general_rejects_other_output_types():
  cfg = nn.get_scaled_dot_general_config("mxfp8")
  with pytest.raises(TypeError, match="float32, bfloat16 or float16"):
    nn.scaled_dot_general(INPUTS["q_lhs"], INPUTS["q_rhs"], (((2,), (2,)), ((0,), (0,))),
                          preferred_element_type=np.int32, configs=[cfg] * 3)


def test_scaled_dot_general_jit_matches_eager():
  cfg = nn.get_scaled_dot_general_config("mxfp8")
  f = lambda l, r: nn.scaled_dot_general(l, r, (((2,), (2,)), ((0,), (0,))), configs=[cfg] * 3)
  eager = np.asarray(f(INPUTS["q_lhs"], INPUTS["q_rhs"]))
  jitted = np.asarray(axle.jit(f)(INPUTS["q_lhs"], INPUTS["q_rhs"]))
  np.testing.assert_allclose(jitted, eager, rtol=1e-6, atol=1e-5)
