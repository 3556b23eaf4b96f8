"""Op records for the transcendental and special-function primitives (exp, sin, erf_inv, igamma,
...).

References compute in float64 (complex128) with NumPy/SciPy and round to the operand dtype, which
is what XLA computes up to a few ulps; edge semantics that differ from SciPy's (poles, incomplete
gamma edges, complex branch cuts) are covered against recorded JAX outputs in tests/test_special.py,
so the inputs here stay inside each function's domain plus NaN and signed zeros.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import scipy.special as sc

from axle import lax
from tests.op_record import OpRecord

F16, BF16, F32, C64 = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32),
                       np.dtype(np.complex64))
SHAPES = [(), (5,), (2, 3)]
_RTOL = {F16: 4e-3, BF16: 3e-2, F32: 2e-5, C64: 2e-5}


def _wide(dtype):
  return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def _reference(fn):
  def ref(*args):
    dtype = args[0].dtype
    with np.errstate(all="ignore"):
      out = fn(*[a.astype(_wide(dtype)) for a in args])
    return np.asarray(out).astype(dtype)
  return ref


def _values(rng, shape, dtype, low, high, edges=(0.0, -0.0, np.nan)):
  dtype = np.dtype(dtype)
  if dtype.kind == "c":
    out = (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
  else:
    out = np.asarray(rng.uniform(low, high, shape)).astype(dtype)
  if out.size >= 4 and dtype.kind != "c":
    flat = out.reshape(-1)
    flat[:len(edges)] = np.array(edges, np.float64).astype(dtype)[:flat.size]
  return out


def _unary_args(dtype, shape, low, high, edges=(0.0, -0.0, np.nan)):
  return lambda rng: [_values(rng, shape, dtype, low, high, edges)]


def _erf_inv_ref(x):
  return np.copysign(sc.erfinv(x), x)


# name -> (lax function, float64 reference, domain, accepts complex, edges that follow the reference)
_UNARY = {
    "exp": (lax.exp, np.exp, (-10, 10), True),
    "exp2": (lax.exp2, np.exp2, (-10, 10), True),
    "log": (lax.log, np.log, (0.01, 50), True),
    "log1p": (lax.log1p, np.log1p, (-0.9, 50), True),
    "expm1": (lax.expm1, np.expm1, (-5, 5), True),
    "sin": (lax.sin, np.sin, (-6, 6), True),
    "cos": (lax.cos, np.cos, (-6, 6), True),
    "tan": (lax.tan, np.tan, (-1.5, 1.5), True),
    "asin": (lax.asin, np.arcsin, (-0.99, 0.99), True),
    "acos": (lax.acos, np.arccos, (-0.99, 0.99), True),
    "atan": (lax.atan, np.arctan, (-20, 20), True),
    "sinh": (lax.sinh, np.sinh, (-5, 5), True),
    "cosh": (lax.cosh, np.cosh, (-5, 5), True),
    "tanh": (lax.tanh, np.tanh, (-5, 5), True),
    "asinh": (lax.asinh, np.arcsinh, (-20, 20), True),
    "acosh": (lax.acosh, np.arccosh, (1.01, 30), True),
    "atanh": (lax.atanh, np.arctanh, (-0.99, 0.99), True),
    "sqrt": (lax.sqrt, np.sqrt, (0.01, 100), True),
    "rsqrt": (lax.rsqrt, lambda x: 1 / np.sqrt(x), (0.01, 100), True),
    "cbrt": (lax.cbrt, np.cbrt, (-100, 100), False),
    "logistic": (lax.logistic, lambda x: 1 / (1 + np.exp(-x)), (-10, 10), True),
    "erf": (lax.erf, sc.erf, (-3, 3), False),
    "erfc": (lax.erfc, sc.erfc, (-3, 3), False),
    "erf_inv": (lax.erf_inv, _erf_inv_ref, (-0.99, 0.99), False),
    "lgamma": (lax.lgamma, sc.gammaln, (0.1, 20), False),
    "digamma": (lax.digamma, sc.psi, (0.1, 20), False),
    "bessel_i0e": (lax.bessel_i0e, sc.i0e, (-20, 20), False),
    "bessel_i1e": (lax.bessel_i1e, lambda x: np.copysign(sc.i1e(x), x), (-20, 20), False),
}
# Functions whose XLA float32 algorithm is a little less accurate than the reference.
_LOOSE = {"lgamma": 1e-4, "digamma": 1e-4, "igamma": 1e-4, "igammac": 1e-3, "polygamma": 1e-4,
          "zeta": 1e-4, "igamma_grad_a": 1e-3, "regularized_incomplete_beta": 1e-4}
# Edges whose result depends on the sign of a zero where XLA's convention differs from NumPy's.
_NO_SIGNED_ZERO = {"lgamma", "digamma", "log", "rsqrt", "acosh", "log1p"}


def _unary_records():
  records = []
  for name, (fun, ref, (low, high), complex_ok) in _UNARY.items():
    dtypes = [F32, F16, BF16] + ([C64] if complex_ok else [])
    for dtype in dtypes:
      for shape in SHAPES:
        edges = (np.nan,) if name in _NO_SIGNED_ZERO else (0.0, -0.0, np.nan)
        if name in ("acosh", "lgamma", "digamma", "log", "rsqrt"):
          edges = (np.nan,)
        rtol = max(_RTOL[dtype], _LOOSE.get(name, 0) if dtype in (F32, C64) else 0)
        records.append(OpRecord(
            name=f"special_{name}_{dtype.name}_{'x'.join(map(str, shape)) or 'scalar'}",
            primitive=name, fun=fun, reference=_reference(ref),
            make_args=_unary_args(dtype, shape, low, high, edges), rtol=rtol, atol=1e-6))
  return records


def _igamma_grad_a_ref(a, x):
  h = a * 1e-4
  return (sc.gammainc(a + h, x) - sc.gammainc(a - h, x)) / (2 * h)


def _polygamma_ref(m, x):
  return sc.polygamma(m.astype(np.int64), x)


# name -> (lax function, reference, per-operand domain)
_NARY = {
    "atan2": (lax.atan2, np.arctan2, [(-5, 5), (-5, 5)]),
    "igamma": (lax.igamma, sc.gammainc, [(0.1, 10), (0.1, 10)]),
    "igammac": (lax.igammac, sc.gammaincc, [(0.1, 10), (0.1, 10)]),
    "igamma_grad_a": (lax.igamma_grad_a, _igamma_grad_a_ref, [(0.5, 10), (0.1, 10)]),
    "polygamma": (lax.polygamma, _polygamma_ref, [(0, 4), (0.5, 10)]),
    "zeta": (lax.zeta, sc.zeta, [(1.5, 8), (0.5, 10)]),
    "regularized_incomplete_beta": (lax.betainc, sc.betainc, [(0.5, 5), (0.5, 5), (0, 1)]),
}


def _nary_args(dtype, shape, domains, integer_first=False):
  def make(rng):
    args = [_values(rng, shape, dtype, lo, hi, edges=()) for lo, hi in domains]
    if integer_first:
      args[0] = np.floor(args[0].astype(np.float64)).astype(dtype)
    return args
  return make


def _nary_records():
  records = []
  for name, (fun, ref, domains) in _NARY.items():
    dtypes = [F32, F16, BF16]
    for dtype in dtypes:
      for shape in SHAPES:
        rtol = max(_RTOL[dtype], _LOOSE.get(name, 0) if dtype == F32 else 0)
        if name == "igammac" and dtype != F32:
          rtol *= 2
        records.append(OpRecord(
            name=f"special_{name}_{dtype.name}_{'x'.join(map(str, shape)) or 'scalar'}",
            primitive=name, fun=fun, reference=_reference(ref),
            make_args=_nary_args(dtype, shape, domains, integer_first=name == "polygamma"),
            rtol=rtol, atol=1e-5 if dtype == F32 else 1e-3))
  # atan2 over complex64 follows XLA's -i log((y + i x) / sqrt(x**2 + y**2)).
  complex_ref = lambda x, y: -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))
  for shape in SHAPES:
    records.append(OpRecord(
        name=f"special_atan2_complex64_{'x'.join(map(str, shape)) or 'scalar'}", primitive="atan2",
        fun=lax.atan2, reference=_reference(complex_ref),
        make_args=_nary_args(C64, shape, [(0.2, 3), (0.2, 3)]), rtol=2e-5, atol=1e-6))
  return records


RECORDS = _unary_records() + _nary_records()
