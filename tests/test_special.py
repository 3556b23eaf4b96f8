"""The transcendental and special-function lax primitives against real JAX 0.10.2.

``tests/data/special_reference.json`` was recorded by tools/record_special_reference.py: printed
jaxprs, reprs and error messages (``snippets``), and JAX's eager outputs on edge and random inputs
(``values``, ``values_x64``), the ground truth for what XLA computes on the CPU.

Comparison rules (what "matches" means here):
- NaN and infinity positions must be identical; finite values agree to a per-dtype tolerance
  (XLA's CPU kernels are polynomial approximations a few ulps off libm).
- Signs of zero must match for real results (except igamma_grad_a, whose zeros are underflows).
- Known, accepted differences (each listed in ``_known_difference`` with the reason): XLA's CPU
  runtime flushes subnormal inputs to zero (NumPy keeps them), and XLA's float32 special functions
  lose accuracy or overflow in places where SciPy's float64-based kernels do not.
- Complex results: compared where the input is finite; infinite/NaN parts in complex inputs follow
  NumPy's C99 rules rather than XLA's formulas (not reproduced).
"""
import json
import os
import warnings

import ml_dtypes
import numpy as np
import pytest

from axle._src.interpreters import eval as _eval  # noqa: F401  (installs the eager trace)
from axle._src.lax import special

_DATA = json.load(open(os.path.join(os.path.dirname(__file__), "data", "special_reference.json")))


def _np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _decode(encoded):
  dtype = _np_dtype(encoded["dtype"])
  return np.frombuffer(bytes.fromhex(encoded["hex"]), dtype).reshape(encoded["shape"]).copy()


_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12,
         "complex64": 1e-5, "complex128": 1e-12}
# Functions where XLA's own float32/float64 algorithm is less accurate than SciPy's.
_LOOSE = {"lgamma": 1e-4, "digamma": 1e-4, "igamma": 1e-4, "igammac": 2e-3, "polygamma": 1e-4,
          "zeta": 1e-4, "igamma_grad_a": 1e-3, "regularized_incomplete_beta": 1e-4, "betainc": 1e-4}
_ATOL = {"lgamma": 1e-6, "digamma": 1e-6, "igamma": 1e-9, "igammac": 1e-9, "igamma_grad_a": 1e-9,
         "polygamma": 1e-6, "betainc": 1e-7}


def _subnormal(x: np.ndarray) -> np.ndarray:
  """Elements XLA's CPU runtime flushes to zero (float16 computes in float32, where they are normal)."""
  if x.dtype.kind == "c":
    return _subnormal(x.real) | _subnormal(x.imag)
  if x.dtype == np.float16:
    return np.zeros(x.shape, bool)
  wide = x.astype(np.float64)
  return (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(x.dtype).tiny))


def _known_difference(primitive, args, expected) -> np.ndarray:
  """Positions where XLA's result is an artefact of its algorithm that the kernels do not copy."""
  x = args[0].astype(np.float64) if args[0].dtype.kind != "c" else args[0]
  info = ml_dtypes.finfo(args[0].dtype) if args[0].dtype.kind == "f" or args[0].dtype == ml_dtypes.bfloat16 else None
  mask = np.zeros(expected.shape, bool)
  if info is not None:
    huge = np.abs(x) >= float(info.max) / 2
    tiny = np.abs(x) <= float(info.tiny) * 2
  if primitive == "asin" and args[0].dtype == np.float16:
    mask |= np.abs(x) < 6.2e-5  # a float16 subnormal result is flushed by XLA
  if primitive == "asin" and info is not None:
    mask |= tiny  # XLA: asin(smallest normal) == 0
  if args[0].dtype.kind == "c":
    z = np.broadcast_to(args[0], expected.shape)
    parts = np.stack([np.abs(z.real), np.abs(z.imag)])
    small = float(np.finfo(z.real.dtype).tiny) ** 0.5
    big = np.log(float(np.finfo(z.real.dtype).max))
    # XLA's formulas square tiny parts (underflow, flushed) and take cosh/exp of large ones
    # (overflow) where NumPy's do not: log1p(-1 + 1e-20j), sin(1e-20 + 100j), ...
    mask |= ((parts > 0) & (parts < small)).any(axis=0) | (parts > big).any(axis=0)
    if primitive == "atan2":
      w = np.broadcast_to(args[1], expected.shape)
      mask |= (np.abs(w) > 1e10) | (np.abs(w) < 1e-10) | (np.abs(z) < 1e-10) | (np.abs(z) > 1e10)
      mask |= np.abs(np.abs(expected.real) - np.pi) < 1e-3  # on the branch cut
  if primitive == "cbrt":
    mask |= tiny  # XLA's cbrt is wrong near zero (cbrt(1e-45) < 0)
  if primitive == "lgamma":
    mask |= np.abs(np.abs(x) - 1) < 1e-2  # XLA: lgamma(1) == 4.8e-7; near-zero results differ
    mask |= np.abs(np.abs(x) - 2) < 1e-2
    mask |= np.abs(x + np.pi) < 1e-2  # float32 cancellation near a zero of lgamma
  if primitive in ("igamma", "igammac", "igamma_grad_a", "polygamma", "zeta") and info is not None:
    a, b = args[0].astype(np.float64), args[1].astype(np.float64)
    mask |= huge | tiny  # overflow/underflow inside XLA's float32 series (e.g. igamma(tiny, x) == 0)
    mask |= (np.abs(b) >= float(info.max) / 2) | ((b != 0) & (np.abs(b) <= float(info.tiny) * 2))
    if primitive == "polygamma":
      mask |= (b < 0) & (b != np.floor(b)) & (a >= 10)  # XLA's float32 reflection is inaccurate
    if primitive == "igammac" and args[0].dtype != np.float64:
      mask |= a < 0.01  # XLA's continued fraction is 1e-3 off for tiny a
  if primitive == "digamma" and args[0].dtype == np.float64:
    with np.errstate(invalid="ignore"):
      mask |= (x < 0) & (np.abs(x - np.round(x)) < 1e-9)  # next to a pole
  return mask


def _same_real(actual, expected, rtol, atol, check_zero_sign):
  a = actual.astype(np.float64)
  e = expected.astype(np.float64)
  with np.errstate(all="ignore"):
    close = np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e))
  same = (a == e) | (np.isnan(a) & np.isnan(e)) | close
  if check_zero_sign:
    same &= ~((a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e)))
  return same


def _compare(primitive, args, expected, actual):
  actual = np.asarray(actual)
  assert actual.dtype == expected.dtype and actual.shape == expected.shape
  name = "bfloat16" if expected.dtype == ml_dtypes.bfloat16 else expected.dtype.name
  rtol = max(_RTOL[name], _LOOSE.get(primitive, 0) if name in ("float32", "complex64") else 0)
  if name == "float64" and primitive in _LOOSE:
    rtol = 1e-7 if primitive == "igamma_grad_a" else 1e-9
  atol = _ATOL.get(primitive, 0) if expected.dtype.kind == "f" or name == "bfloat16" else 0
  skip = _known_difference(primitive, args, expected)
  for a in args:
    skip |= np.broadcast_to(_subnormal(a), expected.shape)
  skip |= _subnormal(actual)  # XLA flushes subnormal results too
  if expected.dtype.kind == "c":
    finite_input = np.ones(expected.shape, bool)
    for a in args:
      finite_input &= np.isfinite(a)
    skip |= ~finite_input
    scale = np.abs(expected).astype(np.float64)  # componentwise error relative to |result|
    atol_c = rtol * np.where(np.isfinite(scale), scale, 0) + (1e-6 if name == "complex64" else 1e-15)
    same = (_same_real(actual.real, expected.real, rtol, atol_c, False) &
            _same_real(actual.imag, expected.imag, rtol, atol_c, False))
  else:
    same = _same_real(actual, expected, rtol, atol, primitive != "igamma_grad_a")
  bad = ~same & ~skip
  if bad.any():
    i = np.flatnonzero(bad)[0]
    shown = [a.ravel()[i] for a in args]
    raise AssertionError(f"{primitive} {name}: {bad.sum()} of {bad.size} elements differ; first: "
                         f"args {shown} -> axle {actual.ravel()[i]!r}, JAX {expected.ravel()[i]!r}")


_FUNCTIONS = {"betainc": special.betainc}


def _value_cases(section):
  for i, entry in enumerate(_DATA[section]):
    yield pytest.param(entry, id=f"{entry['primitive']}-{entry['out']['dtype']}-{i}")


def _run_value(entry):
  args = [_decode(a) for a in entry["args"]]
  fun = _FUNCTIONS.get(entry["primitive"]) or getattr(special, entry["primitive"])
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # no RuntimeWarning may leak out of a kernel
    actual = fun(*args)
  _compare(entry["primitive"], args, _decode(entry["out"]), actual)


@pytest.mark.parametrize("entry", list(_value_cases("values")))
def test_eager_values_match_jax(entry):
  _run_value(entry)


@pytest.mark.parametrize("entry", list(_value_cases("values_x64")))
def test_eager_values_match_jax_x64(entry, x64):
  _run_value(entry)


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
