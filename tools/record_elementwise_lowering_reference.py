"""Records what real JAX 0.10.2 emits and computes for the elementwise primitives' lowerings.

    $JAX_PYTHON tools/record_elementwise_lowering_reference.py

Writes ``tests/data/elementwise_lowering_reference.json`` with two sections, read by
``tests/test_elementwise_lowering.py``:

- ``ops``: for a set of (expression, argument types), the StableHLO/CHLO operation names JAX's
  lowering emits (a multiset: which ops, how many; converts and broadcasts to the same type left out);
- ``values``: JAX's outputs where XLA's answer is not the obvious one: division by a broadcast
  divisor (rewritten by XLA as a multiplication by the reciprocal), clamp of complex numbers
  (real parts compared), complex powers (exp(y * log(x))), stored as raw bytes (hex).
"""
import json
import os
import re
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "elementwise_lowering_reference.json")


def np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def encode(x):
  x = np.asarray(x)
  return {"dtype": x.dtype.name, "shape": list(x.shape), "hex": x.tobytes().hex()}


def op_names(source, specs):
  """The operation names in JAX's lowering of ``lambda a0, a1, ...: source``."""
  names = [f"a{i}" for i in range(len(specs))]
  fun = eval(f"lambda {', '.join(names)}: {source}", {"lax": lax, "jnp": jnp, "np": np})
  args = [jax.ShapeDtypeStruct(tuple(shape), np_dtype(dtype)) for dtype, shape in specs]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    text = jax.jit(fun).lower(*args).as_text()
  body = text.split("func.func public @main", 1)[1]
  ops = []
  for line in body.splitlines():
    if "stablehlo.convert" in line and "->" not in line:
      continue  # a convert to the same type (JAX emits one after some compares): no operation
    same = re.search(r": \((tensor<[^>]*>)\) -> (tensor<[^>]*>)$", line)
    if "stablehlo.broadcast_in_dim" in line and same and same.group(1) == same.group(2):
      continue  # a broadcast of a scalar to a scalar: no operation
    ops += re.findall(r"\b((?:stablehlo|chlo)\.[a-z_]+)\b", line)
  return {"source": source, "args": specs, "ops": sorted(ops)}


def value(source, args):
  names = [f"a{i}" for i in range(len(args))]
  fun = eval(f"lambda {', '.join(names)}: {source}", {"lax": lax, "jnp": jnp, "np": np})
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = np.asarray(fun(*[jnp.asarray(a) for a in args]))
  return {"source": source, "args": [encode(a) for a in args], "out": encode(out)}


def op_entries():
  s = [3]
  entries = []
  for dtype in ["float32", "int32", "uint8", "bool", "complex64", "bfloat16"]:
    pair = [[dtype, s], [dtype, s]]
    for op in ["eq", "ne", "max", "min"] + (
        ["lt", "ge"] if dtype != "complex64" else []) + (
        ["add", "mul", "div", "rem"] if dtype not in ("bool", "complex64") else []) + (
        ["bitwise_and", "bitwise_or", "bitwise_xor"] if dtype in ("int32", "uint8", "bool") else []) + (
        ["shift_left", "shift_right_logical", "shift_right_arithmetic"] if dtype in ("int32", "uint8") else []):
      entries.append(op_names(f"lax.{op}(a0, a1)", pair))
    unary = [[dtype, s]]
    ops = ["neg", "sign", "square"] if dtype != "bool" else ["bitwise_not"]
    if dtype in ("float32", "bfloat16"):
      ops += ["floor", "ceil", "round", "is_finite", "abs", "reciprocal"]
    if dtype == "complex64":
      ops += ["real", "imag", "conj", "abs", "reciprocal"]
    if dtype in ("int32", "uint8"):
      ops += ["bitwise_not", "population_count", "clz"]
    if dtype == "int32":
      ops += ["abs"]
    if dtype == "bool":
      ops = [o for o in ops if o not in ("neg", "sign", "square")]
    for op in ops:
      entries.append(op_names(f"lax.{op}(a0)", unary))
  for y in [0, 1, 2, 3, 4, 5, 7, 8, 13, -1, -2, -3, -7]:
    entries.append(op_names(f"lax.integer_pow(a0, {y})", [["float32", s]]))
  for y in [2, 3, 5]:
    entries.append(op_names(f"lax.integer_pow(a0, {y})", [["int32", s]]))
  entries.append(op_names("lax.integer_pow(a0, -2)", [["complex64", s]]))
  entries.append(op_names("lax.round(a0, 1)", [["float32", s]]))
  for e in ["int8", "uint8", "int32"]:
    entries.append(op_names("lax.pow(a0, a1)", [["float32", s], [e, s]]))
  entries.append(op_names("lax.pow(a0, a1)", [["complex64", s], ["int32", s]]))
  entries.append(op_names("lax.pow(a0, a1)", [["float32", s], ["float32", s]]))
  entries.append(op_names("lax.nextafter(a0, a1)", [["float32", s], ["float32", s]]))
  entries.append(op_names("lax.complex(a0, a1)", [["float32", s], ["float32", s]]))
  entries.append(op_names("lax.conj(a0)", [["float32", s]]))
  entries.append(op_names("lax.add(a0, a1)", [["float32", [2, 3]], ["float32", [1, 3]]]))
  entries.append(op_names("lax.add(a0, a1)", [["float32", []], ["float32", [2, 3]]]))
  entries.append(op_names("lax.clamp(a0, a1, a2)", [["float32", []], ["float32", s], ["float32", []]]))
  entries.append(op_names("lax.clamp(a0, a1, a2)", [["complex64", s]] * 3))
  entries.append(op_names("lax.select_n(a0, a1, a2)", [["bool", s], ["float32", s], ["float32", s]]))
  entries.append(op_names("lax.select_n(a0, a1, a2)", [["bool", []], ["float32", s], ["float32", s]]))
  for n in [1, 2, 3, 4, 5, 8]:
    entries.append(op_names(f"lax.select_n(a0, {', '.join(f'a{i + 1}' for i in range(n))})",
                            [["int32", s]] + [["float32", s]] * n))
  entries.append(op_names("lax.select_n(a0, a1, a2, a3)", [["uint8", []]] + [["int8", s]] * 3))
  for src in ["float32", "bfloat16", "int32", "uint8", "bool", "complex64"]:
    for dst in ["float32", "float16", "int32", "uint8", "bool", "complex64"]:
      entries.append(op_names(f"lax.convert_element_type(a0, jnp.{dst})", [[src, s]]))
  entries.append(op_names("lax.bitcast_convert_type(a0, jnp.int32)", [["float32", s]]))
  entries.append(op_names("lax.bitcast_convert_type(a0, jnp.uint8)", [["float32", s]]))
  entries.append(op_names("lax.bitcast_convert_type(a0, jnp.float32)", [["int16", [3, 2]]]))
  entries.append(op_names("lax.reduce_precision(a0, 5, 2)", [["float32", s]]))
  entries.append(op_names("lax.copy_p.bind(a0)", [["float32", s]]))
  return entries


def value_entries():
  rng = np.random.default_rng(0)
  entries = []
  for dtype in ["float16", "bfloat16", "float32"]:
    d = np_dtype(dtype)
    for xs, ys in [((40, 3), (1, 3)), ((40, 3), ()), ((1, 3), (40, 3)), ((40, 3), (40, 1)),
                   ((40, 3), (40, 3))]:
      x = rng.uniform(-5, 5, xs).astype(d)
      y = rng.uniform(-5, 5, ys).astype(d)
      y = np.where(y == 0, np.ones((), d), y).astype(d)
      entries.append(value("lax.div(a0, a1)", [x, y]))
  reals = [-1.0, 0.0, 1.0, 3.0, 4.0, np.nan]
  imags = [-1.0, 0.0, np.nan]
  x = np.array([complex(a, b) for a in reals for b in imags], np.complex64)
  for lo, hi in [(0j, 3 + 0j), (1j, 3 + 1j), (-1j, 3 - 1j), (0j, 0j), (3 + 1j, -1j),
                 (complex(np.nan, 0), 3 + 0j), (0j, complex(np.nan, 0)), (0j, complex(3, np.nan))]:
    entries.append(value("lax.clamp(a1, a0, a2)", [x, np.array(lo, np.complex64),
                                                   np.array(hi, np.complex64)]))
  base = (rng.uniform(0.2, 2, 24) + 1j * rng.uniform(-2, 2, 24)).astype(np.complex64)
  base[:3] = [0, 1j, -2]
  for e in [np.array([0, 1, 2, 3, -1, -2, 7, 40] * 3, np.int32),
            np.array([0, 1, 2, 3, 100, 255] * 4, np.uint8)]:
    entries.append(value("lax.pow(a0, a1)", [base, e]))
  exps = (rng.uniform(-2, 2, 24) + 1j * rng.uniform(-2, 2, 24)).astype(np.complex64)
  entries.append(value("lax.pow(a0, a1)", [base, exps]))
  return entries


def main():
  data = {"jax_version": jax.__version__, "ops": op_entries(), "values": value_entries()}
  with open(OUT, "w") as f:
    json.dump(data, f, indent=0)
  print(f"wrote {len(data['ops'])} op lists and {len(data['values'])} values to {OUT}")


if __name__ == "__main__":
  main()
