"""The transcendental and special-function lax primitives against real JAX 0.10.2.

``tests/data/special_reference.json`` was recorded by tools/record_special_reference.py: printed
jaxprs, reprs and error messages (``snippets``), and JAX's eager outputs on edge and random inputs
(``values``, ``values_x64``), the ground truth for what XLA computes on the CPU.

Comparison rules (what "matches" means here):
- Under ``jit`` (StableHLO lowered by axle, compiled by XLA) every recorded output is reproduced
  to within 2 ulps (bitwise on this machine), NaN/infinity positions and signs of zero included.
- Eagerly, complex operands and the primitives without a NumPy kernel (igamma, igammac,
  igamma_grad_a, polygamma, zeta, betainc) run on XLA too, so they must match the same way.
- The real NumPy/SciPy kernels: NaN and infinity positions must be identical; finite values agree
  to a per-dtype tolerance (XLA's CPU kernels are polynomial approximations a few ulps off libm);
  signs of zero must match. Known, accepted differences (each listed in ``_known_difference``
  with the reason): XLA's CPU runtime flushes subnormal inputs and results to zero (NumPy keeps
  them), and a few XLA float32 approximations lose accuracy near zeros of the function.
"""
import json
import os
import warnings

import ml_dtypes
import numpy as np
import pytest

import axle
from axle import lax as public_lax
from axle._src.interpreters import eval as _eval  # noqa: F401  (installs the eager trace)
from axle._src.interpreters import lowering
from axle._src.lax import sorting
from axle._src.lax import special

_DATA = json.load(open(os.path.join(os.path.dirname(__file__), "data", "special_reference.json")))


def _np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _decode(encoded):
  dtype = _np_dtype(encoded["dtype"])
  return np.frombuffer(bytes.fromhex(encoded["hex"]), dtype).reshape(encoded["shape"]).copy()


_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}
# Functions where XLA's own float32/float64 algorithm is less accurate than SciPy's.
_LOOSE = {"lgamma": 1e-4, "digamma": 1e-4}
_ATOL = {"lgamma": 1e-6, "digamma": 1e-6}
# Primitives whose eager evaluation runs XLA (no NumPy kernel).
_ON_XLA = {"igamma", "igammac", "igamma_grad_a", "polygamma", "zeta", "betainc"}


def _subnormal(x: np.ndarray) -> np.ndarray:
  """Elements XLA's CPU runtime flushes to zero (float16 computes in float32, where they are normal)."""
  if x.dtype == np.float16:
    return np.zeros(x.shape, bool)
  wide = x.astype(np.float64)
  return (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(x.dtype).tiny))


def _known_difference(primitive, args, expected) -> np.ndarray:
  """Positions where XLA's result is an artefact of its algorithm that the kernels do not copy."""
  x = args[0].astype(np.float64)
  info = ml_dtypes.finfo(args[0].dtype)
  mask = np.zeros(expected.shape, bool)
  tiny = np.abs(x) <= float(info.tiny) * 2
  if primitive == "asin" and args[0].dtype == np.float16:
    mask |= np.abs(x) < 6.2e-5  # a float16 subnormal result is flushed by XLA
  if primitive == "asin":
    mask |= tiny  # XLA: asin(smallest normal) == 0
  if primitive == "cbrt":
    mask |= tiny  # XLA's cbrt is wrong near zero (cbrt(1e-45) < 0)
  if primitive == "lgamma":
    mask |= np.abs(np.abs(x) - 1) < 1e-2  # XLA: lgamma(1) == 4.8e-7; near-zero results differ
    mask |= np.abs(np.abs(x) - 2) < 1e-2
    mask |= np.abs(x + np.pi) < 1e-2  # float32 cancellation near a zero of lgamma
  if primitive == "digamma" and args[0].dtype == np.float64:
    with np.errstate(invalid="ignore"):
      mask |= (x < 0) & (np.abs(x - np.round(x)) < 1e-9)  # next to a pole
  return mask


def _same_real(actual, expected, rtol, atol, check_zero_sign=True):
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  with np.errstate(all="ignore"):
    close = np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e))
  same = (a == e) | (np.isnan(a) & np.isnan(e)) | close
  if check_zero_sign:
    same &= ~((a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e)))
  return same


def _report(primitive, args, expected, actual, bad, what):
  if bad.any():
    i = np.flatnonzero(bad)[0]
    shown = [np.broadcast_to(a, expected.shape).ravel()[i] for a in args]
    raise AssertionError(f"{what} {primitive} {expected.dtype}: {bad.sum()} of {bad.size} elements "
                         f"differ; first: args {shown} -> axle {actual.ravel()[i]!r}, JAX "
                         f"{expected.ravel()[i]!r}")


def _assert_matches_xla(primitive, args, expected, actual, what):
  """Equal up to 2 ulps with identical NaN/infinity positions and signs of zero."""
  actual = np.asarray(actual)
  assert actual.dtype == expected.dtype and actual.shape == expected.shape
  if expected.dtype.kind == "c":
    real_dtype = expected.real.dtype
    pairs = [(actual.real, expected.real), (actual.imag, expected.imag)]
  else:
    real_dtype = expected.dtype
    pairs = [(actual, expected)]
  eps = float(ml_dtypes.finfo(real_dtype).eps)
  tiny = float(ml_dtypes.finfo(real_dtype).tiny)
  same = np.ones(expected.shape, bool)
  for a, e in pairs:
    same &= _same_real(a, e, 2 * eps, 2 * eps * tiny)
  _report(primitive, args, expected, actual, ~same, what)


def _compare(primitive, args, expected, actual):
  actual = np.asarray(actual)
  assert actual.dtype == expected.dtype and actual.shape == expected.shape
  if primitive in _ON_XLA or expected.dtype.kind == "c":
    _assert_matches_xla(primitive, args, expected, actual, "eager (on XLA)")
    return
  name = "bfloat16" if expected.dtype == ml_dtypes.bfloat16 else expected.dtype.name
  rtol = max(_RTOL[name], _LOOSE.get(primitive, 0) if name == "float32" else 0)
  if name == "float64" and primitive in _LOOSE:
    rtol = 1e-9
  atol = _ATOL.get(primitive, 0)
  skip = _known_difference(primitive, args, expected)
  for a in args:
    skip |= np.broadcast_to(_subnormal(a), expected.shape)
  skip |= _subnormal(actual)  # XLA flushes subnormal results too
  same = _same_real(actual, expected, rtol, atol)
  _report(primitive, args, expected, actual, ~same & ~skip, "eager")


_FUNCTIONS = {"betainc": special.betainc}


def _function(primitive):
  return _FUNCTIONS.get(primitive) or getattr(special, primitive)


def _value_cases(section):
  for i, entry in enumerate(_DATA[section]):
    yield pytest.param(entry, id=f"{entry['primitive']}-{entry['out']['dtype']}-{i}")


def _run_value(entry):
  args = [_decode(a) for a in entry["args"]]
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # no RuntimeWarning may leak out of a kernel
    actual = _function(entry["primitive"])(*args)
  _compare(entry["primitive"], args, _decode(entry["out"]), actual)


@pytest.mark.parametrize("entry", list(_value_cases("values")))
def test_eager_values_match_jax(entry):
  _run_value(entry)


@pytest.mark.parametrize("entry", list(_value_cases("values_x64")))
def test_eager_values_match_jax_x64(entry, x64):
  _run_value(entry)


def _run_jit_value(entry):
  args = [_decode(a) for a in entry["args"]]
  actual = axle.jit(_function(entry["primitive"]))(*args)
  _assert_matches_xla(entry["primitive"], args, _decode(entry["out"]), actual, "jit")


@pytest.mark.parametrize("entry", list(_value_cases("values")))
def test_jit_values_match_jax(entry):
  """The lowerings compute what JAX's do: recorded outputs reproduced under jit, edges included."""
  _run_jit_value(entry)


@pytest.mark.parametrize("entry", list(_value_cases("values_x64")))
def test_jit_values_match_jax_x64(entry, x64):
  _run_jit_value(entry)


def _snippet_cases():
  for i, entry in enumerate(_DATA["snippets"]):
    yield pytest.param(entry, id=f"{i}-{entry['source'][6:70]}")


@pytest.mark.parametrize("entry", list(_snippet_cases()))
def test_snippet_matches_jax(entry):
  """Printed jaxprs, eager reprs and error types/messages are JAX's."""
  import axle
  from axle import lax as public_lax
  namespace = {"jax": axle, "lax": public_lax, "np": np}
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      exec(compile(entry["source"], "<snippet>", "exec"), namespace)
    got = {"out": str(namespace.get("out"))}
  except Exception as e:
    got = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
  want = {k: entry[k] for k in ("out", "error", "message") if k in entry}
  assert got == want


def test_accuracy_param_is_validated_and_shown_only_when_set():
  import axle
  x = np.float32(1.0)
  assert float(special.exp(x, accuracy=special.AccuracyMode.HIGHEST)) == float(special.exp(x))
  text = str(axle.make_jaxpr(lambda v: special.exp(v, accuracy=special.AccuracyMode.HIGHEST))(x))
  assert "exp[accuracy=AccuracyMode.HIGHEST] a" in text
  with pytest.raises(NotImplementedError, match="Accuracy x not supported"):
    special.exp(x, accuracy="x")
  with pytest.raises(ValueError, match="non-negative"):
    special.Tolerance(atol=-1.0)
  with pytest.raises(ValueError, match="At least one"):
    special.Tolerance()
  tolerance = special.Tolerance(rtol=1e-3)
  assert float(special.sin(x, accuracy=tolerance)) == pytest.approx(np.sin(1.0), rel=1e-6)


def test_weak_type_and_dtype_are_kept():
  out = special.exp(1.0)
  assert out.dtype == np.float32 and out.weak_type
  out = special.igamma(1.0, np.float32(2.0))
  assert out.dtype == np.float32 and not out.weak_type
  for dtype in (np.float16, ml_dtypes.bfloat16, np.float32, np.complex64):
    assert special.sqrt(np.ones(3, dtype)).dtype == dtype


def test_kernels_do_not_mutate_inputs():
  x = np.array([-1.0, 0.0, 0.5, 2.0, np.nan], np.float32)
  before = x.copy()
  for fun in (special.log, special.sqrt, special.erf_inv, special.lgamma, special.digamma,
              special.logistic, special.exp2):
    fun(x)
  np.testing.assert_array_equal(x, before)


# ---------------------------------------------------------------------------
# Lowerings: the ops JAX emits, the accuracy attribute, and kernels dropped for XLA

# primitive -> an operation JAX 0.10.2 emits for it (``jax.jit(f).lower(x).as_text()``).
_EMITTED = {
    "exp": "stablehlo.exponential", "exp2": "stablehlo.exponential", "log": "stablehlo.log",
    "log1p": "stablehlo.log_plus_one", "expm1": "stablehlo.exponential_minus_one",
    "logistic": "stablehlo.divide", "sin": "stablehlo.sine", "cos": "stablehlo.cosine",
    "tan": "stablehlo.tan", "asin": "chlo.asin", "acos": "chlo.acos", "atan": "chlo.atan",
    "sinh": "chlo.sinh", "cosh": "chlo.cosh", "tanh": "stablehlo.tanh", "asinh": "chlo.asinh",
    "acosh": "chlo.acosh", "atanh": "chlo.atanh", "sqrt": "stablehlo.sqrt",
    "rsqrt": "stablehlo.rsqrt", "cbrt": "stablehlo.cbrt", "erf": "chlo.erf", "erfc": "chlo.erfc",
    "erf_inv": "chlo.erf_inv", "lgamma": "chlo.lgamma", "digamma": "chlo.digamma",
    "bessel_i0e": "stablehlo.sqrt", "bessel_i1e": "chlo.bessel_i1e", "atan2": "stablehlo.atan2",
    "igamma": "stablehlo.while", "igammac": "stablehlo.while", "igamma_grad_a": "chlo.digamma",
    "polygamma": "chlo.polygamma", "zeta": "chlo.zeta", "betainc": "stablehlo.while",
}


def _module_text(fun, *args):
  return lowering.lower_jaxpr_to_module(axle.make_jaxpr(fun)(*args), "f")


@pytest.mark.parametrize("primitive", sorted(_EMITTED))
def test_lowering_emits_jax_ops(primitive):
  arity = {"atan2": 2, "igamma": 2, "igammac": 2, "igamma_grad_a": 2, "polygamma": 2, "zeta": 2,
           "betainc": 3}.get(primitive, 1)
  args = [np.full((2, 3), 0.5, np.float32)] * arity
  assert f'"{_EMITTED[primitive]}"' in _module_text(_function(primitive), *args)


def test_complex_sin_cos_are_composed_like_jax():
  z = np.array([0.5 + 1j], np.complex64)
  for fun in (special.sin, special.cos):
    text = _module_text(fun, z)
    assert '"stablehlo.exponential_minus_one"' in text and '"stablehlo.complex"' in text


def test_accuracy_lowers_to_result_accuracy_attribute():
  x = np.array([0.5, 1.0, 2.0], np.float32)
  highest = _module_text(lambda v: special.exp(v, accuracy=special.AccuracyMode.HIGHEST), x)
  assert ("result_accuracy = #stablehlo.result_accuracy<mode = "
          "#stablehlo.result_accuracy_mode<HIGHEST>>") in highest
  tolerance = special.Tolerance(atol=1e-3, rtol=1e-4, ulps=2)
  text = _module_text(lambda v: special.tanh(v, accuracy=tolerance), x)
  assert ("#stablehlo.result_accuracy<atol = 1.000000e-03, rtol = 1.000000e-04, ulps = 2, "
          "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>") in text
  assert "result_accuracy" not in _module_text(
      lambda v: special.sin(v, accuracy=special.AccuracyMode.DEFAULT), x)
  for fun in (special.exp, special.exp2, special.log, special.sqrt, special.cbrt, special.tanh):
    out = axle.jit(lambda v, f=fun: f(v, accuracy=special.AccuracyMode.HIGHEST))(x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(fun(x)), rtol=1e-6)
    out = axle.jit(lambda v, f=fun: f(v, accuracy=tolerance))(x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(fun(x)), rtol=1e-6)


def test_special_functions_without_kernel_run_on_xla_eagerly():
  for primitive in (special.igamma_p, special.igammac_p, special.igamma_grad_a_p, special.polygamma_p,
                    special.zeta_p, special.regularized_incomplete_beta_p):
    assert primitive.impl is None
  a = np.array([0.5, 2.0, 1e-3], np.float32)
  out = special.igammac(a, np.float32(0.75))
  assert out.dtype == np.float32 and out.shape == (3,)
  np.testing.assert_array_equal(np.asarray(out), np.asarray(axle.jit(special.igammac)(a, np.float32(0.75))))


def test_igamma_loops_on_multidimensional_operands():
  # The while loops run until every element has converged: a mix of fast and slow elements.
  rng = np.random.default_rng(0)
  a = rng.uniform(0.1, 30, (3, 4, 5)).astype(np.float32)
  x = rng.uniform(0.1, 30, (3, 4, 5)).astype(np.float32)
  b = rng.uniform(0.1, 30, (3, 4, 5)).astype(np.float32)
  y = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
  for fun, args in [(special.igamma, (a, x)), (special.igammac, (a, x)),
                    (special.igamma_grad_a, (a, x)), (special.betainc, (a, b, y))]:
    whole = np.asarray(axle.jit(fun)(*args))
    one_by_one = np.array([np.asarray(axle.jit(fun)(*[v.ravel()[i] for v in args]))
                           for i in range(a.size)]).reshape(a.shape)
    # betainc's loop runs until all elements have converged and keeps refining the finished
    # ones (as JAX's does: real JAX shows the same 5.5e-6 difference on these inputs).
    rtol = 1e-5 if fun is special.betainc else 1e-6
    np.testing.assert_allclose(whole, one_by_one, rtol=rtol, atol=1e-30)


# ---------------------------------------------------------------------------
# sorting.py lowerings (the sort/top_k semantics tests live in test_reductions.py): jit must give
# exactly what the eager kernels (validated against JAX there) give, bit for bit.

def _bits(x):
  x = np.asarray(x)
  if x.dtype.kind == "c":
    x = x.view(np.float32 if x.dtype == np.complex64 else np.float64)
  return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind in "fV" or x.dtype == ml_dtypes.bfloat16 else x


def _assert_jit_bitwise(fun, *args):
  eager = fun(*args)
  jitted = axle.jit(fun)(*args)
  eager = eager if isinstance(eager, (list, tuple)) else [eager]
  jitted = jitted if isinstance(jitted, (list, tuple)) else [jitted]
  for e, j in zip(eager, jitted):
    assert np.asarray(e).dtype == np.asarray(j).dtype
    np.testing.assert_array_equal(_bits(j), _bits(e))


_SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 2.5, 0.0, -0.0, np.nan,
                   -2.5, 1.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_sort_lowering_orders_zeros_and_nans_like_the_kernel(dtype):
  keys = np.array(_SPECIAL_FLOATS, np.float32).astype(dtype)
  keys[7] = -np.abs(keys[7])  # a negative NaN
  payload = np.arange(len(keys), dtype=np.int32)
  _assert_jit_bitwise(lambda k, v: public_lax.sort((k, v), num_keys=1), keys, payload)
  _assert_jit_bitwise(lambda k: public_lax.sort(k), np.stack([keys, keys[::-1]]))
  _assert_jit_bitwise(lambda k: public_lax.sort(k, dimension=0), np.stack([keys, keys[::-1]]))


def test_sort_lowering_multiple_keys_and_dtypes():
  rng = np.random.default_rng(0)
  first = rng.integers(0, 3, (4, 9)).astype(np.float32)
  first[0, :3] = [np.nan, -0.0, 0.0]
  second = rng.integers(-2, 2, (4, 9)).astype(np.int8)
  third = rng.standard_normal((4, 9)).astype(np.float32)
  _assert_jit_bitwise(lambda a, b, c: public_lax.sort((a, b, c), num_keys=2), first, second, third)
  _assert_jit_bitwise(lambda a, b, c: public_lax.sort((a, b, c), num_keys=3, dimension=0),
                      first, second, third)
  z = (rng.integers(0, 2, 12) + 1j * rng.integers(0, 3, 12)).astype(np.complex64)
  z[:2] = [complex(np.nan, 0), complex(-0.0, np.nan)]
  _assert_jit_bitwise(lambda k, v: public_lax.sort((k, v)), z, np.arange(12, dtype=np.uint16))
  flags = rng.random(10) < 0.5
  _assert_jit_bitwise(lambda k, v: public_lax.sort((k, v)), flags, np.arange(10, dtype=np.int32))
  unique = rng.permutation(20).astype(np.uint32)
  _assert_jit_bitwise(lambda k: public_lax.sort(k, is_stable=False), unique)
  for dtype in (np.int16, np.uint8, np.int32):
    _assert_jit_bitwise(public_lax.sort, rng.integers(0, 100, (3, 7)).astype(dtype))
  assert '"stablehlo.sort"' in _module_text(lambda k: public_lax.sort(k), first)


def test_unstable_sort_runs_xla_eagerly():
  # XLA's unstable sort does not keep equal keys in input order (JAX 0.10.2 gives the same
  # permutation as this jit; checked by hand with real JAX): eagerly it runs on XLA too.
  rng = np.random.default_rng(0)
  keys = rng.integers(0, 3, 1000).astype(np.float32)
  payload = np.arange(1000, dtype=np.int32)
  unstable = lambda k, v: public_lax.sort((k, v), is_stable=False)
  _assert_jit_bitwise(unstable, keys, payload)
  sorted_keys, permutation = (np.asarray(a) for a in unstable(keys, payload))
  np.testing.assert_array_equal(sorted_keys, np.sort(keys))
  np.testing.assert_array_equal(keys[permutation], sorted_keys)
  assert not np.array_equal(permutation, np.argsort(keys, kind="stable"))  # ties reordered
  _assert_jit_bitwise(lambda k, v: public_lax.sort((k, v), is_stable=False, dimension=0),
                      keys.reshape(50, 20), payload.reshape(50, 20))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.uint32,
                                   np.int32, np.bool_])
def test_top_k_lowering_matches_kernel(dtype):
  rng = np.random.default_rng(1)
  if np.dtype(dtype).kind == "b":
    x = rng.random((3, 4, 6)) < 0.5
  elif np.dtype(dtype).kind in "iu":
    x = rng.integers(0, 5, (3, 4, 6)).astype(dtype)
  else:
    x = rng.integers(-3, 3, (3, 4, 6)).astype(np.float32)
    x.reshape(-1)[:8] = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, np.nan, 0.0]
    x = x.astype(dtype)
  for k, axis in [(3, -1), (6, 2), (0, -1), (2, 0), (4, 1)]:
    _assert_jit_bitwise(lambda v, k=k, axis=axis: public_lax.top_k(v, k, axis=axis), x)
  assert '"chlo.top_k"' in _module_text(lambda v: public_lax.top_k(v, 2), x)


def test_sorting_rules_are_registered():
  assert lowering.lowering_rules[sorting.sort_p] is not None
  assert lowering.lowering_rules[sorting.top_k_p] is not None


# lax.random_gamma_grad is JAX's program (the incomplete-gamma series and continued fraction
# with derivatives, as lax while loops), so its outputs are JAX 0.10.2's bits, eagerly and under
# jit (recorded with JAX 0.10.2: jax.lax.random_gamma_grad(a, x) and its jit, float32; JAX's
# eager and compiled programs differ in one element, and so do axle's).
_GAMMA_GRAD_A = np.array([0.05, 0.5, 1.0, 2.0, 7.0, 30.0, 0.3, 4.0, 1.5, -1.0, 2.0, np.nan],
                         np.float32)
_GAMMA_GRAD_X = np.array([0.01, 0.8845648, 1.7599413, 0.3, 5.5, 28.0, 3.0, 0.5, 0.0, 1.0, -1.0, 1.0],
                         np.float32)
_GAMMA_GRAD_JAX = {
    False: "89c6543f8433e33ff534c53f47e5b73e6dcf673ffaa5783f172482404e969d3e000000000000c07f0000c07f0000c07f",
    True: "89c6543f8433e33ff534c53f47e5b73e6dcf673ffaa5783f182482404e969d3e000000000000c07f0000c07f0000c07f"}


@pytest.mark.parametrize("jit", [False, True])
def test_random_gamma_grad_bits_match_jax(jit):
  fn = axle.jit(public_lax.random_gamma_grad) if jit else public_lax.random_gamma_grad
  out = np.asarray(fn(_GAMMA_GRAD_A, _GAMMA_GRAD_X))
  assert out.dtype == np.float32
  assert out.tobytes().hex() == _GAMMA_GRAD_JAX[jit]


def test_random_gamma_grad_is_not_differentiable():
  # JAX: ValueError from the while loop's reverse-mode rule
  with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
    axle.grad(lambda a: public_lax.random_gamma_grad(a, np.float32(1.5)))(np.float32(2.0))
