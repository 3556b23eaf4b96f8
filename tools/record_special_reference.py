"""Records real JAX's behaviour for the transcendental and special-function lax primitives.

    $JAX_PYTHON tools/record_special_reference.py

Writes ``tests/data/special_reference.json``, read by ``tests/test_special.py``:

- ``snippets``: printed jaxprs, eager reprs and error types/messages (each source assigns
  ``out`` or raises);
- ``values``: JAX's eager outputs of each primitive on edge and random inputs for float16,
  bfloat16, float32 and complex64 (where the primitive accepts complex), stored as raw bytes
  (hex): the ground truth for what XLA computes on the CPU;
- ``values_x64``: the same for float64/complex128, recorded with x64 enabled.
"""
import itertools
import json
import os

import jax
import ml_dtypes
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "special_reference.json")

UNARY_FLOAT_COMPLEX = ["exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos",
                       "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sqrt", "rsqrt",
                       "logistic"]
UNARY_FLOAT = ["cbrt", "erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i0e", "bessel_i1e"]
# lax.random_gamma_grad is not a primitive in JAX 0.10.2 (it stages a while loop): not recorded.
BINARY_FLOAT = ["igamma", "igammac", "igamma_grad_a", "polygamma", "zeta"]
BINARY_FLOAT_COMPLEX = ["atan2"]
TERNARY_FLOAT = ["betainc"]


def np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def encode(x):
  x = np.ascontiguousarray(x)
  name = "bfloat16" if x.dtype == ml_dtypes.bfloat16 else x.dtype.name
  return {"dtype": name, "shape": list(x.shape), "hex": x.tobytes().hex()}


def real_points(name):
  """Edge values and points where the functions of this family change behaviour."""
  dtype = np_dtype(name)
  info = ml_dtypes.finfo(dtype)
  vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, -2.5, 10.0, -10.0,
          20.0, -20.0, 88.0, 89.0, -88.0, -104.0, 100.0, -100.0, 710.0, -745.0, 1e-3, -1e-3, 1e-8, 3.5,
          1e4, 1e10, -1e10, 1e30, np.pi, -np.pi, np.pi / 2, 0.999, -0.999, 1.001, 0.25, 4.5,
          np.inf, -np.inf, np.nan, float(info.max), float(info.min), float(info.tiny),
          -float(info.tiny), float(info.smallest_subnormal), 1.0 - float(info.epsneg),
          -(1.0 - float(info.epsneg)), 1.0 + float(info.eps)]
  with np.errstate(over="ignore"):
    out = np.array(vals, np.float64).astype(dtype)
  rng = np.random.default_rng(0)
  rand = rng.normal(size=48) * 10.0 ** rng.integers(-2, 3, size=48)
  return np.concatenate([out, rand.astype(dtype)])


def complex_points(name):
  dtype = np_dtype(name)
  real_dtype = np.float32 if dtype == np.complex64 else np.float64
  info = np.finfo(real_dtype)
  parts = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 3.5, 20.0, -20.0, 100.0, 1e-3, 1e-20,
                    1e20, np.inf, -np.inf, np.nan, info.max, info.min, info.tiny, -info.tiny],
                   real_dtype)
  grid = np.zeros((len(parts), len(parts)), dtype)
  grid.real, grid.imag = parts[:, None], parts[None, :]
  rng = np.random.default_rng(1)
  rand = (rng.normal(size=48) * 3 + 1j * rng.normal(size=48) * 3).astype(dtype)
  return np.concatenate([grid.ravel(), rand])


def unit_interval_points(name):
  dtype = np_dtype(name)
  rng = np.random.default_rng(2)
  return rng.uniform(-1, 1, size=32).astype(dtype)


def binary_grid(name):
  dtype = np_dtype(name)
  info = ml_dtypes.finfo(dtype)
  # Every value of tests/op_record.py's edge_values(dtype) is among these.
  parts = [0.0, -0.0, 0.5, 1.0, 2.0, 3.0, 3.5, -1.0, -2.0, -2.5, 10.0, 30.0, 100.0, 1e-3, np.inf,
           -np.inf, np.nan, float(info.min), -float(info.tiny)]
  if dtype != np.float64:  # XLA's float64 igamma loops (practically) forever on some of these
    parts += [float(info.max), float(info.tiny)]
  parts = np.array(parts, np.float64)
  with np.errstate(over="ignore"):
    parts = parts.astype(dtype)
  a, b = (np.array(list(itertools.product(parts, parts))).T).astype(dtype)
  rng = np.random.default_rng(3)
  ra = rng.uniform(0.05, 12, size=48).astype(dtype)
  rb = rng.uniform(0.05, 12, size=48).astype(dtype)
  return np.concatenate([a, ra]), np.concatenate([b, rb])


def ternary_grid(name):
  dtype = np_dtype(name)
  info = ml_dtypes.finfo(dtype)
  # Every value of tests/op_record.py's edge_values(dtype) for each operand.
  edges = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, np.inf, -np.inf, np.nan, float(info.max),
           float(info.min), float(info.tiny), -float(info.tiny), 1e-3, 100.0]
  parts = np.array(edges + [2.5], np.float64)
  xs = np.array(edges + [0.3, -0.1, 1.5], np.float64)
  a, b, x = np.array(list(itertools.product(parts, parts, xs))).T
  rng = np.random.default_rng(4)
  ra, rb, rx = rng.uniform(0.1, 8, 32), rng.uniform(0.1, 8, 32), rng.uniform(0, 1, 32)
  with np.errstate(over="ignore"):
    return [np.concatenate([a, ra]).astype(dtype), np.concatenate([b, rb]).astype(dtype),
            np.concatenate([x, rx]).astype(dtype)]


def value_entries(float_names, complex_names):
  entries = []

  def add(prim, args):
    out = np.asarray(getattr(lax, prim)(*args))
    entries.append({"primitive": prim, "args": [encode(a) for a in args], "out": encode(out)})

  for name in float_names:
    for prim in UNARY_FLOAT_COMPLEX + UNARY_FLOAT:
      x = real_points(name)
      if prim == "erf_inv":
        x = np.concatenate([x, unit_interval_points(name)])
      add(prim, [x])
    for prim in BINARY_FLOAT + BINARY_FLOAT_COMPLEX:
      add(prim, list(binary_grid(name)))
    for prim in TERNARY_FLOAT:
      add(prim, ternary_grid(name))
  for name in complex_names:
    for prim in UNARY_FLOAT_COMPLEX:
      add(prim, [complex_points(name)])
    for prim in BINARY_FLOAT_COMPLEX:
      z = complex_points(name)
      rng = np.random.default_rng(5)
      add(prim, [z, rng.permutation(z)])
  return entries


SNIPPETS = [
    # printed jaxprs of every primitive
    *[f"out = jax.make_jaxpr(lax.{p})(np.float32(0.5))" for p in UNARY_FLOAT_COMPLEX + UNARY_FLOAT],
    *[f"out = jax.make_jaxpr(lax.{p})(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))"
      for p in ["igamma", "igammac", "igamma_grad_a", "polygamma", "zeta", "atan2"]],
    "out = jax.make_jaxpr(lax.betainc)(np.float32(1), np.float32(2), np.float32(0.3))",
    "out = jax.make_jaxpr(lax.exp)(np.ones((2, 3), np.float16))",
    "out = jax.make_jaxpr(lax.sin)(np.ones((4,), np.complex64))",
    "out = jax.make_jaxpr(lambda x: lax.tanh(lax.exp(x)))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.exp(2.0))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.atan2(x, 2.0))(np.float32(1))",
    "out = jax.make_jaxpr(lambda x: lax.igamma(3.0, x))(np.ones(3, np.float32))",
    "out = jax.make_jaxpr(lambda x: lax.logistic(x) * 2)(np.ones(3, np.float32))",
    # eager reprs and weak types
    "out = repr(lax.exp(1.0))",
    "out = repr(lax.log(np.float32(2)))",
    "out = repr(lax.sqrt(np.ones(2, np.float16)))",
    "out = repr(lax.atan2(1.0, 2.0))",
    "out = repr(lax.erf_inv(np.float32(0.5)))",
    "out = (lax.igamma(1.0, np.float32(2)).dtype, lax.igamma(1.0, np.float32(2)).weak_type)",
    # errors
    *[f"out = lax.{p}(np.int32(1))" for p in UNARY_FLOAT_COMPLEX + UNARY_FLOAT],
    *[f"out = lax.{p}(np.complex64(1))" for p in UNARY_FLOAT],
    "out = lax.exp(True)",
    "out = lax.exp(1)",
    "out = lax.exp('a')",
    "out = lax.sin([1.0])",
    *[f"out = lax.{p}(np.float32(1), np.float16(1))"
      for p in ["atan2", "igamma", "igammac", "igamma_grad_a", "polygamma", "zeta"]],
    *[f"out = lax.{p}(np.int32(1), np.int32(1))"
      for p in ["atan2", "igamma", "igammac", "igamma_grad_a", "polygamma", "zeta"]],
    *[f"out = lax.{p}(np.float32(1), np.int32(1))" for p in ["atan2", "igamma", "zeta"]],
    *[f"out = lax.{p}(np.complex64(1), np.complex64(1))" for p in ["igamma", "zeta"]],
    "out = lax.atan2(np.ones(3, np.float32), np.ones(4, np.float32))",
    "out = lax.atan2(np.ones(3, np.float32), np.ones((1, 3), np.float32))",
    "out = lax.igamma(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))",
    "out = lax.betainc(np.float32(1), np.float32(2), np.float16(0.3))",
    "out = lax.betainc(np.int32(1), np.int32(2), np.int32(0))",
    "out = lax.atan2(np.ones(3, np.float32), np.float32(2)).shape",
    "out = lax.igamma(np.float32(2), np.ones((2, 2), np.float32)).shape",
]


def run_snippet(source):
  namespace = {"jax": jax, "lax": lax, "np": np}
  try:
    exec(source, namespace)
    return {"source": source, "out": str(namespace["out"])}
  except Exception as e:
    return {"source": source, "error": type(e).__name__, "message": str(e).split("\n")[0]}


def main():
  assert jax.__version__ == "0.10.2", jax.__version__
  data = {"jax_version": jax.__version__}
  data["snippets"] = [run_snippet(s) for s in SNIPPETS]
  data["values"] = value_entries(["float16", "bfloat16", "float32"], ["complex64"])
  jax.config.update("jax_enable_x64", True)
  data["values_x64"] = value_entries(["float64"], ["complex128"])
  with open(OUT, "w") as f:
    json.dump(data, f, indent=0)
  print(f"wrote {OUT}: {len(data['snippets'])} snippets, {len(data['values'])} + "
        f"{len(data['values_x64'])} value entries")


if __name__ == "__main__":
  main()
