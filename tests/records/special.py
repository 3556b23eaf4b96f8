"""Op records for the transcendental and special-function primitives (exp, sin, erf_inv, igamma,
...).

Two kinds of records:
- random inputs inside each function's domain (plus NaN and signed zeros), against NumPy/SciPy
  references computed in float64 (complex128) and rounded to the operand dtype -- what XLA
  computes up to its approximation error (the tolerances);
- ``*_jax_points``: the inputs recorded by tools/record_special_reference.py -- every value of
  ``edge_values(dtype)`` (all pairs/triples of them for the n-ary functions, the full complex
  grid) and points where the functions change behaviour -- against JAX's own outputs on them.
  Subnormal inputs are left out (XLA flushes them to zero; the NumPy kernels do not).
"""
from __future__ import annotations

import json
import os

import ml_dtypes
import numpy as np
import scipy.special as sc

from axle import lax
from tests.op_record import OpRecord

F16, BF16, F32, C64 = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32),
                       np.dtype(np.complex64))
SHAPES = [(), (5,), (2, 3)]
# 2 ulps (float16/bfloat16: computed in float32 and rounded) and 4 ulps (float32/complex64): the
# kernels and XLA are both within a couple of ulps of the correctly rounded value on these domains.
_RTOL = {F16: 2e-3, BF16: 1.6e-2, F32: 5e-7, C64: 5e-7}


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
# Functions whose XLA float32 algorithm is a little less accurate than the float64 reference
# (8 ulps; eager runs XLA for the incomplete gamma/beta functions, polygamma and zeta).
_LOOSE = {"lgamma": 1e-6, "digamma": 1e-6, "igamma": 1e-6, "igammac": 1e-6, "polygamma": 1e-6,
          "zeta": 1e-6, "igamma_grad_a": 1e-6, "regularized_incomplete_beta": 1e-6}
# exp2 on float16/bfloat16: XLA (and the kernel) compute exp(x * log 2) with the product rounded
# to the narrow type, up to |x| log(2) eps / 2 relative error -- 4 ulps for |x| <= 10.
_EXP2_NARROW_RTOL = {F16: 4e-3, BF16: 3.2e-2}
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
        if name == "exp2":
          rtol = _EXP2_NARROW_RTOL.get(dtype, rtol)
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
        records.append(OpRecord(
            name=f"special_{name}_{dtype.name}_{'x'.join(map(str, shape)) or 'scalar'}",
            primitive=name, fun=fun, reference=_reference(ref),
            make_args=_nary_args(dtype, shape, domains, integer_first=name == "polygamma"),
            rtol=rtol, atol=1e-6 if dtype == F32 else 1e-4))
  # atan2 over complex64 follows XLA's -i log((y + i x) / sqrt(x**2 + y**2)).
  complex_ref = lambda x, y: -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))
  for shape in SHAPES:
    records.append(OpRecord(
        name=f"special_atan2_complex64_{'x'.join(map(str, shape)) or 'scalar'}", primitive="atan2",
        fun=lax.atan2, reference=_reference(complex_ref),
        make_args=_nary_args(C64, shape, [(0.2, 3), (0.2, 3)]), rtol=5e-7, atol=1e-6))
  return records


# ---------------------------------------------------------------------------
# JAX's recorded outputs on edge values

_DATA_FILE = os.path.join(os.path.dirname(__file__), "..", "data", "special_reference.json")
_FUNCTIONS = {"betainc": lax.betainc}
_PRIMITIVES = {"betainc": "regularized_incomplete_beta"}
# Primitives whose eager evaluation runs XLA (no NumPy kernel), like every complex operand: eager,
# jit and JAX agree bit for bit, so only a rounding-level tolerance is allowed.
_ON_XLA = {"igamma", "igammac", "igamma_grad_a", "polygamma", "zeta", "betainc"}
# (rtol, atol) of the real NumPy kernels against XLA, float32, where wider than 4 ulps:
_KERNEL_TOLERANCE_F32 = {
    "sinh": (2e-6, 0),  # XLA: exp(|x| - log 2) for large |x|, the shifted argument rounded (13 ulps)
    "cosh": (2e-6, 0),
    "erfc": (2e-6, 0),  # XLA's tail polynomial (16 ulps near erfc's underflow)
    "erf_inv": (1e-6, 5e-7),  # ill-conditioned next to +-1
    "bessel_i1e": (1e-6, 0),  # 6 ulps
    "lgamma": (5e-7, 2e-6),  # XLA's lgamma is ~1e-6 off in absolute terms next to its zeros 1, 2
    "digamma": (5e-7, 5e-7),  # likewise next to digamma's zero 1.4616
}


def _np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _decode(encoded):
  dtype = _np_dtype(encoded["dtype"])
  return np.frombuffer(bytes.fromhex(encoded["hex"]), dtype).reshape(encoded["shape"]).copy()


def _subnormal(x):
  if x.dtype.kind == "c":
    return _subnormal(x.real) | _subnormal(x.imag)
  if x.dtype == F16:  # computed in float32, where float16 subnormals are normal
    return np.zeros(x.shape, bool)
  wide = x.astype(np.float64)
  return (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(x.dtype).tiny))


def _tolerance(primitive, dtype):
  real = np.dtype(dtype.type(0).real.dtype) if dtype.kind == "c" else dtype
  eps = float(ml_dtypes.finfo(real).eps)
  if primitive in _ON_XLA or dtype.kind == "c":
    return 2 * eps, 0.0
  if dtype == F32:
    # 4 ulps; atol covers results XLA flushes to zero (below the smallest normal).
    rtol, atol = _KERNEL_TOLERANCE_F32.get(primitive, (4 * eps, 0.0))
    return rtol, max(atol, 2e-38)
  # float16/bfloat16: the kernels and XLA both compute in float32 and round; 1 ulp apart at most.
  atol = 5e-7 if primitive == "lgamma" else 1e-7  # lgamma near 1, 2; flushed float16 results
  return 2 * eps, atol


def _jax_point_records():
  with open(_DATA_FILE) as f:
    entries = json.load(f)["values"]
  records = []
  for entry in entries:
    name = entry["primitive"]
    args = [_decode(a) for a in entry["args"]]
    expected = _decode(entry["out"])
    keep = ~np.any([_subnormal(a) for a in args], axis=0)
    args = [a[keep] for a in args]
    expected = expected[keep]
    rtol, atol = _tolerance(name, expected.dtype)
    records.append(OpRecord(
        name=f"special_{name}_{expected.dtype.name}_jax_points",
        primitive=_PRIMITIVES.get(name, name), fun=_FUNCTIONS.get(name) or getattr(lax, name),
        reference=lambda *_, out=expected: out,  # JAX's output on exactly these inputs
        make_args=lambda rng, args=args: [a.copy() for a in args], trials=1, rtol=rtol, atol=atol))
  return records


RECORDS = _unary_records() + _nary_records() + _jax_point_records()

# ---------------------------------------------------------------------------
# Transformations: vmap vs a loop for the float32 and complex64 2x3 records; check_grads
# (order 2, both modes) at points inside each function's domain, away from poles.

for _record in RECORDS:
  if _record.name.endswith(("float32_2x3", "complex64_2x3")):
    _record.transforms = _record.transforms | {"vmap"}

_GRAD_DOMAINS = {  # where the finite differences of float32 values are well conditioned
    "exp": (-2, 2), "exp2": (-2, 2), "log": (0.5, 3), "log1p": (-0.5, 3), "expm1": (-2, 2),
    "sin": (-3, 3), "cos": (-3, 3), "tan": (-1, 1), "asin": (-0.7, 0.7), "acos": (-0.7, 0.7),
    "atan": (-3, 3), "sinh": (-2, 2), "cosh": (-2, 2), "tanh": (-2, 2), "asinh": (-3, 3),
    "acosh": (1.5, 4), "atanh": (-0.7, 0.7), "sqrt": (0.5, 4), "rsqrt": (0.5, 4),
    "cbrt": (0.5, 4), "logistic": (-3, 3), "erf": (-1.5, 1.5), "erfc": (-1.5, 1.5),
    "erf_inv": (-0.7, 0.7), "lgamma": (0.5, 4), "digamma": (0.5, 4), "bessel_i0e": (0.3, 3),
    "bessel_i1e": (0.3, 3),
}
_COMPLEX_GRAD = {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                 "sqrt", "rsqrt", "logistic", "atan", "asinh", "asin", "acos", "acosh", "atanh"}


def _grad_record(name, primitive, fun, make_args, reference=None, **kw):
  """A check_grads/vmap record; its eager check compares against ``reference`` or, where that
  is None, is skipped (and reported so)."""
  RECORDS.append(OpRecord(
      name=name, primitive=primitive, fun=fun, reference=reference,
      make_args=make_args, trials=1, transforms=frozenset({"jit", "grad", "vmap"}),
      rtol=1e-5, atol=1e-5, **kw))  # jit (XLA) vs the eager kernels: a few ulps apart


def _grad_args(dtype, low, high, count=1, shape=(2, 3)):
  return lambda rng: [_values(rng, shape, dtype, low, high, edges=()) for _ in range(count)]


for _name, (_low, _high) in _GRAD_DOMAINS.items():
  _fun, _reference = _UNARY[_name][:2]
  _grad_record(f"special_grad_{_name}_float32", _name, _fun, _grad_args(F32, _low, _high),
               _reference)
  if _name in _COMPLEX_GRAD:
    if _name in ("acosh",):
      _low, _high = 1.5, 3
    _grad_record(f"special_grad_{_name}_complex64", _name, _fun,
                 _grad_args(C64, _low if _name not in ("log", "sqrt", "rsqrt") else 0.5, _high),
                 _reference)
_grad_record("special_grad_bessel_i1e_near_zero_float32", "bessel_i1e", lax.bessel_i1e,
             lambda rng: [np.array([[0.0, 1e-8, -1e-8], [0.05, -0.05, 0.2]], np.float32)])
_grad_record("special_grad_atan2_float32", "atan2", lax.atan2, _grad_args(F32, 0.5, 3, 2),
             np.arctan2)
_grad_record("special_grad_atan2_float32_broadcast", "atan2", lax.atan2,
             lambda rng: [_values(rng, (2, 3), F32, -3, 3, edges=()),
                          _values(rng, (1, 3), F32, 0.5, 3, edges=())], np.arctan2)
# igamma's second derivative in a needs igamma_grad_a's derivative in a (JAX has none): order 1
# in both arguments, order 2 in x alone.
for _name in ("igamma", "igammac"):
  _fun = getattr(lax, _name)
  _grad_record(f"special_grad_{_name}_float32", _name, _fun, _grad_args(F32, 1.0, 3.0, 2),
               grad_order=1)
  _grad_record(f"special_grad_{_name}_x_float32", _name,
               lambda x, f=_fun: f(np.full((2, 3), 2.5, np.float32), x), _grad_args(F32, 1.0, 3.0))
_grad_record("special_grad_igamma_grad_a_x_float32", "igamma_grad_a",
             lambda x: lax.igamma_grad_a(np.full((2, 3), 2.5, np.float32), x),
             _grad_args(F32, 1.0, 3.0), grad_order=1)
_grad_record("special_grad_polygamma_x_float32", "polygamma",
             lambda x: lax.polygamma(np.array([[0, 1, 2], [1, 0, 3]], np.float32), x),
             _grad_args(F32, 1.0, 3.0))
_grad_record("special_grad_zeta_q_float32", "zeta",
             lambda q: lax.zeta(np.full((2, 3), 3.0, np.float32), q), _grad_args(F32, 1.0, 3.0))
_grad_record("special_grad_betainc_x_float32", "regularized_incomplete_beta",
             lambda x: lax.betainc(np.full((2, 3), 2.0, np.float32),
                                   np.full((2, 3), 3.0, np.float32), x),
             _grad_args(F32, 0.2, 0.8))
