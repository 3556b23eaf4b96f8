"""Records real JAX's behaviour for the elementwise lax primitives (run under real JAX 0.10.2).

    $JAX_PYTHON tools/record_elementwise_reference.py

Writes ``tests/data/elementwise_reference.json`` with three sections, each entry carrying the
source it ran so ``tests/test_elementwise.py`` can re-run it under axle:

- ``snippets``: printed jaxprs and error types/messages (source assigns ``out`` or raises);
- ``values``: JAX's eager outputs on edge inputs, stored as raw bytes (hex) so integer results
  compare bitwise: the ground truth for XLA's semantics on the CPU;
- ``values_x64``: the same for 64-bit dtypes, recorded with x64 enabled.
"""
import hashlib
import itertools
import json
import os
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "elementwise_reference.json")

INT32 = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]
INT64 = ["int64", "uint64"]
FLOAT32 = ["float16", "bfloat16", "float32"]
FLOAT64 = ["float64"]


def np_dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def edge_values(name):
  dtype = np_dtype(name)
  if dtype == np.bool_:
    return np.array([False, True])
  if dtype.kind in "iu":
    info = np.iinfo(dtype)
    vals = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1]
    if info.min < 0:
      vals += [-1, -2, -3, -7]
    return np.array(vals, dtype)
  if dtype.kind == "c":
    real = np.array([0.0, -0.0, 1.0, -2.5, np.inf, np.nan], np.float64)
    out = np.zeros((len(real), len(real)), dtype)
    out.real, out.imag = real[:, None], real[None, :]
    return out.ravel()
  info = ml_dtypes.finfo(dtype)
  vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.5, 0.49999997, np.inf, -np.inf, np.nan,
          float(info.max), float(info.min), float(info.tiny), -float(info.tiny),
          float(info.smallest_subnormal), 1e-3, 100.0, 7.0, -3.0]
  with np.errstate(over="ignore"):
    return np.array(vals, dtype)


def random_values(name, n=48, seed=0):
  rng = np.random.default_rng(seed)
  dtype = np_dtype(name)
  if dtype.kind in "iu":
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=n, dtype=np.int64 if info.max < 2**63 else np.uint64).astype(dtype)
  if dtype.kind == "c":
    return (rng.normal(size=n) * 10 + 1j * rng.normal(size=n) * 10).astype(dtype)
  return (rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)).astype(dtype)


def pairs(name):
  """All pairs of edge values plus random pairs, as two flat arrays."""
  edges = edge_values(name)
  a, b = np.array(list(itertools.product(edges, edges))).T.astype(np_dtype(name))
  ra, rb = random_values(name, seed=1), random_values(name, seed=2)
  return np.concatenate([a, ra]), np.concatenate([b, rb])


def unary_args(name):
  return np.concatenate([edge_values(name), random_values(name)])


def encode(x):
  x = np.asarray(x)
  return {"dtype": x.dtype.name, "shape": list(x.shape), "hex": x.tobytes().hex()}


ARRAYS = {}  # key -> encoded array; value entries refer to their inputs by key


def pooled(x):
  encoded = encode(x)
  key = f"{encoded['dtype']}:{hashlib.sha1(encoded['hex'].encode()).hexdigest()[:12]}"
  ARRAYS[key] = encoded
  return key


def record_value(source, args):
  """Runs ``source`` (an expression of ``args``, named a0, a1, ...) under JAX eagerly."""
  namespace = {"lax": lax, "jnp": jnp, "np": np, "jax": jax}
  for i, a in enumerate(args):
    namespace[f"a{i}"] = jnp.asarray(a)
  entry = {"source": source, "args": [pooled(a) for a in args]}
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      out = eval(source, namespace)
    entry["out"] = encode(np.asarray(out))
  except Exception as e:
    entry["error"] = type(e).__name__
    entry["message"] = str(e).split("\n")[0]
  return entry


def value_entries(int_names, float_names, complex_names):
  entries = []
  binary_num = ["add", "sub", "mul", "div", "max", "min"]
  for name in int_names:
    a, b = pairs(name)
    for op in binary_num + ["rem", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or",
                            "bitwise_xor"]:
      entries.append(record_value(f"lax.{op}(a0, a1)", [a, b]))
    x = unary_args(name)
    for op in ["neg", "sign", "bitwise_not", "population_count", "clz", "square"] + (
        ["abs"] if name.startswith("int") else []):
      entries.append(record_value(f"lax.{op}(a0)", [x]))
    for y in [0, 1, 2, 3, 5]:
      entries.append(record_value(f"lax.integer_pow(a0, {y})", [x]))
    bits = np_dtype(name).itemsize * 8
    amounts = np.array([0, 1, 2, bits - 1, bits, bits + 1, 2 * bits, 100] +
                       ([-1, -bits, np.iinfo(np_dtype(name)).min] if name.startswith("int") else
                        [-1]), np.int64)  # -1 wraps to the unsigned maximum
    xs, ss = np.array(list(itertools.product(edge_values(name), amounts.astype(np_dtype(name))))).T
    xs, ss = xs.astype(np_dtype(name)), ss.astype(np_dtype(name))
    for op in ["shift_left", "shift_right_logical", "shift_right_arithmetic"]:
      entries.append(record_value(f"lax.{op}(a0, a1)", [xs, ss]))
    lo, hi = np.array([2, 5], np_dtype(name))
    entries.append(record_value("lax.clamp(a1, a0, a2)", [x, np.array(lo), np.array(hi)]))
  for name in float_names:
    a, b = pairs(name)
    for op in binary_num + ["rem", "pow", "nextafter", "eq", "ne", "lt", "le", "gt", "ge"]:
      entries.append(record_value(f"lax.{op}(a0, a1)", [a, b]))
    x = unary_args(name)
    for op in ["neg", "sign", "abs", "floor", "ceil", "is_finite", "square", "reciprocal"]:
      entries.append(record_value(f"lax.{op}(a0)", [x]))
    for method in [0, 1]:
      entries.append(record_value(f"lax.round(a0, {method})", [x]))
    for y in [-3, -2, -1, 0, 1, 2, 3, 4, 7]:
      entries.append(record_value(f"lax.integer_pow(a0, {y})", [x]))
    for ename in ["int8", "int32", "uint8"]:
      e = np.array([0, 1, 2, 3, -1, -2, 5, 127, -128] if ename != "uint8" else [0, 1, 2, 3, 5, 127, 255],
                   np_dtype(ename))
      xs, es = np.array(list(itertools.product(edge_values(name).astype(np.float64), e.astype(np.float64)))).T
      entries.append(record_value("lax.pow(a0, a1)", [xs.astype(np_dtype(name)), es.astype(np_dtype(ename))]))
    lo, hi = np.array([-1.5, 2.0], np_dtype(name))
    entries.append(record_value("lax.clamp(a1, a0, a2)", [x, np.array(lo), np.array(hi)]))
    entries.append(record_value("lax.clamp(a1, a0, a2)", [x, np.array(np.nan, np_dtype(name)), np.array(hi)]))
    for bits in [(5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (11, 52), (2, 1), (1, 0)]:
      entries.append(record_value(f"lax.reduce_precision(a0, {bits[0]}, {bits[1]})", [x]))
  for name in complex_names:
    a, b = pairs(name)
    for op in ["add", "sub", "mul", "div", "eq", "ne", "pow", "max", "min"]:
      entries.append(record_value(f"lax.{op}(a0, a1)", [a, b]))
    x = unary_args(name)
    for op in ["neg", "sign", "abs", "real", "imag", "conj", "square", "reciprocal"]:
      entries.append(record_value(f"lax.{op}(a0)", [x]))
    for y in [-2, -1, 0, 1, 2, 3]:
      entries.append(record_value(f"lax.integer_pow(a0, {y})", [x]))
    e = np.array([0, 1, 2, 3, -1, -2], np.int32)
    xs, es = np.array(list(itertools.product(x[:30].astype(np.complex128), e.astype(np.complex128)))).T
    entries.append(record_value("lax.pow(a0, a1)", [xs.astype(np_dtype(name)), es.real.astype(np.int32)]))
  # Conversions between every pair of dtypes in the set, on edge values.
  all_names = ["bool"] + int_names + float_names + complex_names
  for src in all_names:
    x = unary_args(src) if src != "bool" else edge_values("bool")
    if np_dtype(src).kind == "f":
      extra = np.array([1e10, -1e10, 3e9, -3e9, 70000.0, -70000.0, 255.5, 256.0, -129.0, 4294967295.0,
                        2147483648.0, -2147483904.0, 0.9, -0.9, 1.0000001, 16777217.0],
                       np.float64)
      with np.errstate(over="ignore"):
        x = np.concatenate([x, extra.astype(np_dtype(src))])
    for dst in all_names:
      entries.append(record_value(f"lax.convert_element_type(a0, jnp.{dst})", [x]))
  for name in int_names + float_names:
    x = unary_args(name)
    for dst in int_names + float_names:
      if np_dtype(dst).itemsize == np_dtype(name).itemsize:
        entries.append(record_value(f"lax.bitcast_convert_type(a0, jnp.{dst})", [x]))
  for name in float_names:
    x = edge_values(name)
    entries.append(record_value("lax.nextafter(a0, a1)", [x, x[::-1].copy()]))
  return entries


def snippet(source):
  namespace = {"lax": lax, "jnp": jnp, "np": np, "jax": jax}
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:
    return {"source": source, "error": type(e).__name__, "message": str(e).split("\n")[0]}
  return {"source": source, "out": str(namespace.get("out"))}


f32 = "jnp.ones(3, jnp.float32)"
SNIPPET_SOURCES = [
    # jaxprs
    *[f"out = jax.make_jaxpr(lambda x, y: lax.{op}(x, y))({f32}, {f32})"
      for op in ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "nextafter", "eq", "ne",
                 "lt", "le", "gt", "ge", "complex"]],
    *[f"out = jax.make_jaxpr(lambda x, y: lax.{op}(x, y))(jnp.ones(3, jnp.int32), jnp.ones(3, jnp.int32))"
      for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right_logical",
                 "shift_right_arithmetic", "div", "rem"]],
    *[f"out = jax.make_jaxpr(lambda x: lax.{op}(x))({f32})"
      for op in ["neg", "sign", "abs", "floor", "ceil", "round", "is_finite", "square", "reciprocal",
                 "conj"]],
    *[f"out = jax.make_jaxpr(lambda x: lax.{op}(x))(jnp.ones((2, 3), jnp.int8))"
      for op in ["bitwise_not", "population_count", "clz", "neg", "sign", "abs"]],
    *[f"out = jax.make_jaxpr(lambda x: lax.{op}(x))(jnp.ones(2, jnp.complex64))"
      for op in ["real", "imag", "conj", "abs", "sign", "neg"]],
    "out = jax.make_jaxpr(lambda x: lax.bitwise_not(x))(jnp.ones(2, bool))",
    "out = jax.make_jaxpr(lambda x: lax.bitwise_and(x, x))(jnp.ones(2, bool))",
    "out = jax.make_jaxpr(lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.round(x, 1))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.integer_pow(x, -2))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.integer_pow(x, 3))(jnp.int32(1))",
    "out = jax.make_jaxpr(lambda x: lax.pow(x, 2))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.pow(x, jnp.int8(2)))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.add(x, 2))(1)",
    "out = jax.make_jaxpr(lambda x: lax.add(x, 2.0))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.mul(2.0, x))(jnp.ones((2, 3), jnp.bfloat16))",
    "out = jax.make_jaxpr(lambda x: lax.sub(x, jnp.ones((1, 3))))(jnp.ones((2, 1)))",
    "out = jax.make_jaxpr(lambda x: lax.clamp(0.0, x, 1.0))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.clamp(jnp.zeros(3), x, 1.0))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.select(x > 0, x, -x))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.select(x > 0, x, 2.0))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.select_n(jnp.int32(1), x, x, -x))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.select_n(x > 0, x))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.complex(x, 2.0))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.int32))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, 'bfloat16'))(jnp.int8(1))",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, float))(1)",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.float32))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.float32))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.float32))(jnp.ones(3, jnp.complex64))",
    "out = jax.make_jaxpr(lambda x: x + lax.convert_element_type(3, jnp.float32))(2.0)",
    "out = jax.make_jaxpr(lambda x: x + lax.convert_element_type(np.int8(3), jnp.float32))(2.0)",
    "out = jax.make_jaxpr(lambda x: x + lax.convert_element_type(2 ** 40, jnp.float32))(2.0)",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.int32))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.int8))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.uint16))(jnp.ones((2, 3)))",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.float32))(jnp.ones((3, 2), jnp.bfloat16))",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.float32))(jnp.ones((4,), jnp.uint8))",
    "out = jax.make_jaxpr(lambda x: lax.bitcast_convert_type(x, jnp.int8))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.reduce_precision(x, 5, 10))(jnp.ones(3))",
    "out = jax.make_jaxpr(lambda x: lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.nextafter(x, 2.0))(jnp.ones(3, jnp.float16))",
    "out = jax.make_jaxpr(lambda x: lax.abs(x) + lax.sign(x))(1.0)",
    "out = jax.make_jaxpr(lambda x: lax.shift_left(x, 2))(jnp.int8(1))",
    # eager results: dtypes and weak types
    "out = repr(lax.add(1, 2))",
    "out = repr(lax.add(1.0, 2.0))",
    "out = repr(lax.add(jnp.float32(1), 2.0))",
    "out = repr(lax.mul(jnp.ones(2, jnp.bfloat16), 3.0))",
    "out = repr(lax.convert_element_type(2.5, jnp.int32))",
    "out = repr(lax.convert_element_type(2 ** 40, jnp.float32))",
    "out = repr(lax.convert_element_type(jnp.arange(3), jnp.float16))",
    "out = repr(lax.convert_element_type(jnp.array([1 + 2j, -3.5j]), jnp.float32))",
    "out = repr(lax.convert_element_type(jnp.array([1.5, -0.0, 2.0]), bool))",
    "out = repr(lax.complex(1.0, 2.0))",
    "out = repr(lax.conj(2.0))",
    "out = repr(lax.real(lax.complex(1.0, 2.0)))",
    "out = repr(lax.select(True, 1.0, 2.0))",
    "out = repr(lax.clamp(0, 5, 3))",
    "out = repr(lax.integer_pow(2.0, -2))",
    "out = repr(lax.round(jnp.array([0.5, 1.5, 2.5, -0.5, -2.5])))",
    "out = repr(lax.round(jnp.array([0.5, 1.5, 2.5, -0.5, -2.5]), lax.RoundingMethod.TO_NEAREST_EVEN))",
    "out = repr(lax.bitcast_convert_type(jnp.float32(1.0), jnp.int8))",
    "out = repr(lax.bitcast_convert_type(jnp.array([0, 0, 128, 63], jnp.uint8), jnp.float32))",
    "out = repr(lax.population_count(jnp.array([-1, 0, 7], jnp.int8)))",
    "out = repr(lax.pow(2.0, 3))",
    "out = repr(lax.select_n(jnp.array([0, 1, 2]), jnp.zeros(3), jnp.ones(3), jnp.full(3, 2.0)))",
    "out = repr(lax.reduce_precision(jnp.float32(1.0001), 5, 10))",
    "out = str(lax.RoundingMethod.TO_NEAREST_EVEN) + ' ' + repr(lax.RoundingMethod(0))",
    # errors
    "out = lax.pow(jnp.int32(2), jnp.int32(3))",
    "out = lax.pow(jnp.float32(2), jnp.float16(3))",
    "out = lax.integer_pow(jnp.int32(2), -1)",
    "out = lax.integer_pow(jnp.bool_(1), 2)",
    "out = lax.integer_pow(jnp.float32(2), 2.0)",
    "out = lax.neg(jnp.bool_(1))",
    "out = lax.abs(jnp.uint8(1))",
    "out = lax.sign(jnp.bool_(1))",
    "out = lax.add(jnp.bool_(1), jnp.bool_(1))",
    "out = lax.sub(jnp.bool_(1), jnp.bool_(1))",
    "out = lax.mul(jnp.bool_(1), jnp.bool_(1))",
    "out = lax.div(jnp.bool_(1), jnp.bool_(1))",
    "out = lax.rem(jnp.bool_(1), jnp.bool_(1))",
    "out = lax.rem(jnp.complex64(1), jnp.complex64(1))",
    "out = lax.floor(jnp.int32(1))",
    "out = lax.ceil(jnp.complex64(1))",
    "out = lax.round(jnp.int32(1))",
    "out = lax.round(jnp.float32(2.5), 'x')",
    "out = lax.is_finite(jnp.int32(1))",
    "out = lax.nextafter(jnp.int32(1), jnp.int32(1))",
    "out = lax.real(jnp.float32(1))",
    "out = lax.imag(jnp.int32(1))",
    "out = lax.conj(jnp.int32(1))",
    "out = lax.complex(jnp.int32(1), jnp.int32(1))",
    "out = lax.complex(jnp.float16(1), jnp.float16(1))",
    "out = lax.complex(jnp.float32(1), jnp.complex64(1))",
    "out = lax.lt(jnp.complex64(1), jnp.complex64(1))",
    "out = lax.ge(jnp.float32(1), jnp.int32(1))",
    "out = lax.shift_left(jnp.float32(1), jnp.float32(1))",
    "out = lax.shift_right_logical(jnp.int32(1), jnp.uint32(1))",
    "out = lax.bitwise_and(jnp.float32(1), jnp.float32(1))",
    "out = lax.bitwise_or(jnp.int32(1), jnp.bool_(1))",
    "out = lax.bitwise_xor(jnp.int32(1), jnp.int8(1))",
    "out = lax.bitwise_not(jnp.float32(1))",
    "out = lax.population_count(jnp.bool_(1))",
    "out = lax.clz(jnp.float32(1))",
    "out = lax.max(jnp.int32(1), jnp.float32(1))",
    "out = lax.add(1, 1.0)",
    "out = lax.add(jnp.ones(3), jnp.ones(4))",
    "out = lax.add(jnp.ones(3), jnp.ones((1, 3)))",
    "out = lax.div(jnp.ones((2, 3)), jnp.ones((3, 2)))",
    "out = lax.add(jnp.ones(3), jnp.ones(3, jnp.int32))",
    "out = lax.sub(jnp.ones(3), jnp.ones(3, jnp.int32))",
    "out = lax.mul(jnp.ones(3), jnp.ones(3, jnp.int32))",
    "out = lax.eq(jnp.ones(3), jnp.ones(3, jnp.int32))",
    "out = lax.clamp(jnp.ones(2), jnp.ones(3), jnp.ones(3))",
    "out = lax.clamp(jnp.ones(()), jnp.ones(3), jnp.ones(2))",
    "out = lax.clamp(0, jnp.ones(3), 1.0)",
    "out = lax.clamp(jnp.complex64(0), jnp.complex64(1), jnp.complex64(2))",
    "out = lax.select(jnp.ones(3), jnp.ones(3), jnp.ones(3))",
    "out = lax.select(jnp.ones(3) > 0, jnp.ones(3), jnp.ones(3, jnp.int32))",
    "out = lax.select(jnp.ones(2) > 0, jnp.ones(3), jnp.ones(3))",
    "out = lax.select(True, jnp.ones(3), jnp.ones(2))",
    "out = lax.select_n(jnp.ones(3) > 0, jnp.ones(3), jnp.ones(3), jnp.ones(3))",
    "out = lax.select_n(jnp.ones(3) > 0)",
    "out = lax.select_n(jnp.float32(1), jnp.ones(3), jnp.ones(3))",
    "out = lax.bitcast_convert_type(jnp.ones(3, jnp.int8), jnp.int32)",
    "out = lax.bitcast_convert_type(jnp.ones((3, 4), jnp.int8), jnp.bool_)",
    "out = lax.bitcast_convert_type(jnp.ones((3,), jnp.complex64), jnp.int32)",
    "out = lax.bitcast_convert_type(jnp.ones((3,), jnp.float32), 'foo')",
    "out = lax.convert_element_type(jnp.ones(3), 'foo')",
    "out = lax.convert_element_type(jnp.ones(3), object)",
    "out = lax.reduce_precision(jnp.int32(1), 5, 10)",
    "out = lax.reduce_precision(jnp.float32(1), 0, 10)",
    "out = lax.reduce_precision(jnp.float32(1), 5, -1)",
]


def main():
  snippets = [snippet(s) for s in SNIPPET_SOURCES]
  values = value_entries(INT32, FLOAT32, ["complex64"])
  values.append(record_value("lax.integer_pow(a0, 7)", [np.array([3, -3, 1000, 100000], np.int32)]))
  values.append(record_value("lax.select_n(a0, a1, a2, a3)",
                             [np.array([0, 1, 2, 1], np.int32), np.arange(4.0, dtype=np.float32),
                              np.arange(4.0, 8.0, dtype=np.float32), np.arange(8.0, 12.0, dtype=np.float32)]))
  values.append(record_value("lax.select_n(a0, a1, a2)",
                             [np.array([True, False, True]), np.arange(3, dtype=np.int8),
                              np.arange(3, 6, dtype=np.int8)]))
  values.append(record_value("lax.complex(a0, a1)", [np.array([1.0, -0.0, np.inf], np.float32),
                                                      np.array([np.nan, 2.0, -1.0], np.float32)]))
  with jax.enable_x64(True):
    values_x64 = value_entries(INT64, FLOAT64, ["complex128"])
  with open(OUT, "w") as f:
    json.dump({"jax_version": jax.__version__, "snippets": snippets, "values": values,
               "values_x64": values_x64, "arrays": ARRAYS}, f, indent=0)
  print(f"wrote {len(snippets)} snippets, {len(values)} + {len(values_x64)} value records to {OUT}")


if __name__ == "__main__":
  main()
