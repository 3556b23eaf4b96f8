"""Records real JAX's behaviour for reductions, cumulative/windowed reductions and sorting.

    $JAX_PYTHON tools/record_reductions_reference.py

Writes tests/data/reductions_reference.json with
  - "snippets": source -> what JAX printed (make_jaxpr text) or raised (type + message);
  - "cases" (arrays stored as dtype, shape and a flat list of values) : a function source (``lambda x: lax.reduce_max(x, (0,))``), its inputs and JAX's outputs on
    edge inputs (NaN, -0.0, empty axes, overflow, ties). tests/test_reductions.py evaluates the same
    source with axle and compares bitwise.
"""
import json
import os
import warnings

import jax  # noqa: E402  (this script runs under real JAX, never under pytest)
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from snippet_recorder import run_snippet

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "..", "tests", "data", "reductions_reference.json")

F = "np.ones((2, 3), np.float32)"
I = "np.ones((2, 3), np.int32)"
B = "np.ones((2, 3), bool)"
X = "np.arange(1, 7, dtype=np.float32).reshape(2, 3)"

SNIPPETS = {
    # printed jaxprs
    "reduce_sum": f"out = jax.make_jaxpr(lambda x: lax.reduce_sum(x, (0,)))({F})",
    "reduce_sum_all": f"out = jax.make_jaxpr(lambda x: lax.reduce_sum(x, (1, 0)))({F})",
    "reduce_sum_weak": "out = jax.make_jaxpr(lambda: lax.reduce_sum(3.0, ()))()",
    "reduce_prod": f"out = jax.make_jaxpr(lambda x: lax.reduce_prod(x, (0, 1)))({F})",
    "reduce_max": f"out = jax.make_jaxpr(lambda x: lax.reduce_max(x, (1,)))({F})",
    "reduce_min": f"out = jax.make_jaxpr(lambda x: lax.reduce_min(x, (1,)))({I})",
    "reduce_and": f"out = jax.make_jaxpr(lambda x: lax.reduce_and(x, (1,)))({B})",
    "reduce_or": f"out = jax.make_jaxpr(lambda x: lax.reduce_or(x, (1,)))({I})",
    "reduce_xor": f"out = jax.make_jaxpr(lambda x: lax.reduce_xor(x, (1,)))({B})",
    "argmax": f"out = jax.make_jaxpr(lambda x: lax.argmax(x, 1, np.int32))({F})",
    "argmin_uint8": f"out = jax.make_jaxpr(lambda x: lax.argmin(x, 0, np.uint8))({F})",
    "cumsum": f"out = jax.make_jaxpr(lambda x: lax.cumsum(x, 1))({F})",
    "cumsum_reverse": f"out = jax.make_jaxpr(lambda x: lax.cumsum(x, 0, reverse=True))({F})",
    "cumprod": f"out = jax.make_jaxpr(lambda x: lax.cumprod(x))({F})",
    "cummax": f"out = jax.make_jaxpr(lambda x: lax.cummax(x, 1))({I})",
    "cummin": f"out = jax.make_jaxpr(lambda x: lax.cummin(x, 1))({F})",
    "cumlogsumexp": f"out = jax.make_jaxpr(lambda x: lax.cumlogsumexp(x, 1))({F})",
    "window_sum": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, 0., lax.add, (1, 2), (1, 1), 'VALID'))({F})",
    "window_sum_int": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, 0, lax.add, (1, 2), (1, 1), 'VALID'))({I})",
    "window_max_same": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 2), (1, 1), 'SAME'))({F})",
    "window_max_bool": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, False, lax.max, (1, 2), (1, 1), 'VALID'))({B})",
    "window_min_dilated": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, np.inf, lax.min, (1, 2), (1, 1), ((0, 1), (1, 0)), (1, 2), (2, 1)))({F})",
    "window_mul_generic": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.mul, (1, 2), (1, 1), 'VALID'))({F})",
    "window_add_nonidentity": f"out = jax.make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.add, (1, 2), (1, 1), 'VALID'))({F})",
    "window_pair": f"out = jax.make_jaxpr(lambda x: lax.reduce_window((x, x), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1, 2), (1, 1), 'VALID'))({X})",
    "sort": f"out = jax.make_jaxpr(lambda x: lax.sort(x))({F})",
    "sort_unstable_dim0": f"out = jax.make_jaxpr(lambda x: lax.sort(x, dimension=0, is_stable=False))({F})",
    "sort_two": f"out = jax.make_jaxpr(lambda x, y: lax.sort((x, y), num_keys=1))({F}, {I})",
    "sort_key_val": f"out = jax.make_jaxpr(lambda x, y: lax.sort_key_val(x, y))({F}, {I})",
    "top_k": f"out = jax.make_jaxpr(lambda x: lax.top_k(x, 2))({F})",
    "top_k_axis0": f"out = jax.make_jaxpr(lambda x: lax.top_k(x, 1, axis=0))({F})",
    "reduce_add": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, 0., lax.add, (0,)))({F})",
    "reduce_add_int_init": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, 0., lax.add, (0,)))({I})",
    "reduce_mul": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, 1, lax.mul, (0,)))({I})",
    "reduce_maxop": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, -np.inf, lax.max, (0,)))({F})",
    "reduce_minop_bool": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, True, lax.min, (0,)))({B})",
    "reduce_and_bool": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, True, lax.bitwise_and, (0,)))({B})",
    "reduce_and_int": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, -1, lax.bitwise_and, (0,)))({I})",
    "reduce_or_int": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, 0, lax.bitwise_or, (0,)))({I})",
    "reduce_xor_bool": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, False, lax.bitwise_xor, (0,)))({B})",
    "reduce_generic": f"out = jax.make_jaxpr(lambda x: lax.reduce(x, 0., lambda a, b: a * b + 1, (0,)))({F})",
    "reduce_generic_pair": f"out = jax.make_jaxpr(lambda x: lax.reduce((x, x), (0., 0.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,)))({F})",
    "reduce_traced_init": f"out = jax.make_jaxpr(lambda x, y: lax.reduce(x, y, lax.add, (0,)))({F}, np.float32(0))",
    # eager values with printing
    "reduce_sum_weak_value": "out = repr(lax.reduce_sum(3.0, ()))",
    "reduce_generic_value": f"out = lax.reduce({X}, 0., lambda a, b: a * b + 1, (0,))",
    "window_generic_value": f"out = lax.reduce_window({X}, 1., lax.mul, (1, 2), (1, 1), 'SAME')",
    "window_pair_value": f"out = lax.reduce_window(({X}, {X}), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1, 2), (1, 1), 'VALID')",
    # errors
    "err_sum_bool": f"out = lax.reduce_sum({B}, (0,))",
    "err_prod_bool": f"out = lax.reduce_prod({B}, (0,))",
    "err_and_float": f"out = lax.reduce_and({F}, (0,))",
    "err_xor_float": f"out = lax.reduce_xor({F}, (0,))",
    "err_axes_oob": f"out = lax.reduce_sum({F}, (2,))",
    "err_axes_negative": f"out = lax.reduce_max({F}, (-1,))",
    "err_axes_duplicate": f"out = lax.reduce_sum({F}, (0, 0))",
    "err_argmax_empty": "out = lax.argmax(np.zeros((0, 3), np.float32), 0, np.int32)",
    "err_argmax_axis": f"out = lax.argmax({F}, 2, np.int32)",
    "err_argmax_negative_axis": f"out = lax.argmax({F}, -1, np.int32)",
    "err_argmax_index_dtype": f"out = lax.argmax({F}, 1, np.float32)",
    "err_argmax_scalar": "out = lax.argmax(np.float32(1), 0, np.int32)",
    "err_cumsum_bool": "out = lax.cumsum(np.ones(3, bool), 0)",
    "err_cummax_bool": "out = lax.cummax(np.ones(3, bool), 0)",
    "err_cumsum_axis": f"out = lax.cumsum({F}, 2)",
    "err_cumsum_negative": f"out = lax.cumsum({F}, -1)",
    "err_cumsum_scalar": "out = lax.cumsum(np.float32(1), 0)",
    "err_window_rank": f"out = lax.reduce_window({X}, 0., lax.add, (1, 2, 3), (1, 1), 'VALID')",
    "err_window_strides": f"out = lax.reduce_window({X}, 0., lax.add, (1, 2), (1, 1, 1), 'VALID')",
    "err_window_zero": f"out = lax.reduce_window({X}, 0., lax.add, (1, 0), (1, 1), 'VALID')",
    "err_window_stride_zero": f"out = lax.reduce_window({X}, 0., lax.add, (1, 2), (1, 0), 'VALID')",
    "err_window_base_dilation": f"out = lax.reduce_window({X}, 0., lax.add, (1, 2), (1, 1), 'VALID', (0, 1))",
    "err_window_dilation": f"out = lax.reduce_window({X}, 0., lax.add, (1, 2), (1, 1), 'VALID', None, (1, 0))",
    "err_window_sum_bool": f"out = lax.reduce_window({B}, 0, lax.add, (1, 2), (1, 1), 'VALID')",
    "err_sort_shapes": f"out = lax.sort(({F}, np.ones((3, 2), np.float32)))",
    "err_sort_num_keys": f"out = lax.sort(({F}, {I}), num_keys=3)",
    "err_sort_num_keys_zero": f"out = lax.sort(({F}, {I}), num_keys=0)",
    "err_sort_empty": "out = lax.sort(())",
    "err_sort_dimension": f"out = lax.sort({F}, dimension=2)",
    "err_sort_scalar": "out = lax.sort(np.float32(3))",
    "err_top_k_large": "out = lax.top_k(np.array([1, 3, 3, 2], np.float32), 5)",
    "err_top_k_negative": "out = lax.top_k(np.array([1, 3, 3, 2], np.float32), -1)",
    "err_top_k_scalar": "out = lax.top_k(np.float32(1), 1)",
    "err_top_k_complex": "out = lax.top_k(np.array([1 + 1j, 2], np.complex64), 1)",
    "err_reduce_axes": f"out = lax.reduce({X}, 0., lax.add, (2,))",
    "err_reduce_duplicate": f"out = lax.reduce({X}, 0., lax.add, (0, 0))",
}


# ---------------------------------------------------------------------------
# Value cases: (name, function source, inputs)

def _float_list(x: np.ndarray):
  """Flat list of floats; inf and -0.0 survive JSON, a NaN with its sign bit set is "-nan"."""
  wide = x.astype(np.float64).ravel()
  return ["-nan" if np.isnan(v) and np.signbit(v) else float(v) for v in wide]


def encode(x) -> dict:
  x = np.asarray(x)
  dtype = x.dtype
  if dtype == np.bool_:
    values = x.ravel().tolist()
  elif np.issubdtype(dtype, np.integer):
    values = x.ravel().astype(np.int64).tolist() if dtype != np.uint64 else x.ravel().tolist()
  elif np.issubdtype(dtype, np.complexfloating):
    values = [_float_list(x.real), _float_list(x.imag)]
  else:
    values = _float_list(x)
  return {"dtype": "bfloat16" if dtype == ml_dtypes.bfloat16 else dtype.name, "shape": list(x.shape),
          "values": values}


nan, inf = np.nan, np.inf
f32 = lambda v: np.array(v, np.float32)  # noqa: E731
SPECIAL = f32([1, nan, -0., 0., -inf, inf, 3, -nan, -0., 2])
ZEROS = f32([0., -0., 0., -0.])
NZEROS = f32([-0., 0., -0.])
rng = np.random.default_rng(0)
TIES = rng.integers(0, 3, (4, 6)).astype(np.float32)
INT8 = np.array([[127, 1, 1], [-128, -1, 5]], np.int8)
UINT8 = np.array([[255, 1, 2], [0, 7, 200]], np.uint8)
EMPTY = np.zeros((0, 3), np.float32)
COMPLEX = np.array([1 + 2j, 1 + 3j, 2 - 1j, -1 + 0j], np.complex64)
BOOLS = np.array([[True, False, True], [True, True, True]])
INTS = np.array([[6, 3, 5], [-1, 12, 10]], np.int32)

CASES = []


def case(name, source, *inputs):
  CASES.append((name, source, inputs))


for prim in ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min"]:
  case(f"{prim}_special", f"lambda x: lax.{prim}(x, (0,))", SPECIAL)
  case(f"{prim}_empty_f32", f"lambda x: lax.{prim}(x, (0,))", EMPTY)
  case(f"{prim}_empty_int32", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), np.int32))
  case(f"{prim}_empty_uint8", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), np.uint8))
  case(f"{prim}_int8_wrap", f"lambda x: lax.{prim}(x, (0,))", INT8)
  case(f"{prim}_uint8", f"lambda x: lax.{prim}(x, (1,))", UINT8)
  case(f"{prim}_complex", f"lambda x: lax.{prim}(x, (0,))", COMPLEX)
  case(f"{prim}_scalar_noaxes", f"lambda x: lax.{prim}(x, ())", np.float32(2.5))
  case(f"{prim}_all_axes", f"lambda x: lax.{prim}(x, (1, 0))", INTS)
for prim in ["reduce_max", "reduce_min"]:
  case(f"{prim}_zeros", f"lambda x: lax.{prim}(x, (0,))", ZEROS)
  case(f"{prim}_nzeros", f"lambda x: lax.{prim}(x, (0,))", NZEROS)
  case(f"{prim}_bool", f"lambda x: lax.{prim}(x, (1,))", BOOLS)
  case(f"{prim}_empty_bool", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), bool))
  case(f"{prim}_empty_complex", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), np.complex64))
  case(f"{prim}_bf16", f"lambda x: lax.{prim}(x, (0,))", SPECIAL.astype(ml_dtypes.bfloat16))
  case(f"{prim}_f16", f"lambda x: lax.{prim}(x, (0,))", SPECIAL.astype(np.float16))
for prim in ["reduce_and", "reduce_or", "reduce_xor"]:
  case(f"{prim}_bool", f"lambda x: lax.{prim}(x, (1,))", BOOLS)
  case(f"{prim}_int", f"lambda x: lax.{prim}(x, (0,))", INTS)
  case(f"{prim}_uint8", f"lambda x: lax.{prim}(x, (1,))", UINT8)
  case(f"{prim}_empty_int", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), np.int32))
  case(f"{prim}_empty_uint8", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), np.uint8))
  case(f"{prim}_empty_bool", f"lambda x: lax.{prim}(x, (0,))", np.zeros((0, 2), bool))
case("sum_f16_small", "lambda x: lax.reduce_sum(x, (0,))", np.array([2048, 1, 1, 1, 1], np.float16))
case("sum_f16_overflow", "lambda x: lax.reduce_sum(x, (0,))", np.full(3, 30000, np.float16))
for prim in ["argmax", "argmin"]:
  case(f"{prim}_special", f"lambda x: lax.{prim}(x, 0, np.int32)", SPECIAL)
  case(f"{prim}_nonan", f"lambda x: lax.{prim}(x, 0, np.int32)", f32([1, 3, 3, -2, -2, 0]))
  case(f"{prim}_zeros", f"lambda x: lax.{prim}(x, 0, np.int32)", ZEROS)
  case(f"{prim}_neg_nan", f"lambda x: lax.{prim}(x, 0, np.int32)", f32([1, -nan, nan]))
  case(f"{prim}_ties_axis1", f"lambda x: lax.{prim}(x, 1, np.int32)", TIES)
  case(f"{prim}_ties_axis0_uint8", f"lambda x: lax.{prim}(x, 0, np.uint8)", TIES)
  case(f"{prim}_bool", f"lambda x: lax.{prim}(x, 1, np.int32)", BOOLS)
  case(f"{prim}_int8", f"lambda x: lax.{prim}(x, 0, np.int8)", INT8)
  case(f"{prim}_bf16", f"lambda x: lax.{prim}(x, 0, np.int32)", SPECIAL.astype(ml_dtypes.bfloat16))
  case(f"{prim}_empty_other_axis", f"lambda x: lax.{prim}(x, 0, np.int32)", np.zeros((3, 0), np.float32))
for prim in ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]:
  case(f"{prim}_special", f"lambda x: lax.{prim}(x, 0)", SPECIAL)
  case(f"{prim}_special_reverse", f"lambda x: lax.{prim}(x, 0, reverse=True)", SPECIAL)
  case(f"{prim}_2d_axis1", f"lambda x: lax.{prim}(x, 1)", TIES - 1)
  case(f"{prim}_empty", f"lambda x: lax.{prim}(x, 0)", EMPTY)
  case(f"{prim}_complex", f"lambda x: lax.{prim}(x, 0)", COMPLEX)
  if prim != "cumlogsumexp":
    case(f"{prim}_int8_wrap", f"lambda x: lax.{prim}(x, 1)", INT8)
    case(f"{prim}_uint8", f"lambda x: lax.{prim}(x, 1, reverse=True)", UINT8)
for prim in ["cummax", "cummin"]:
  case(f"{prim}_zeros", f"lambda x: lax.{prim}(x, 0)", f32([-0., 0., -0., 1., -0.]))
case("cumlogsumexp_infs", "lambda x: lax.cumlogsumexp(x, 0)", f32([-inf, -inf, 1, inf, inf, 2]))
case("cumsum_f16_small", "lambda x: lax.cumsum(x, 0)", np.array([2048, 1, 1, 1, 1], np.float16))

WINDOW_PARAMS = [
    ("valid", "(2, 2), (1, 1), 'VALID'"),
    ("same", "(2, 3), (1, 1), 'SAME'"),
    ("same_lower_strided", "(2, 3), (2, 2), 'SAME_LOWER'"),
    ("pad_dilate", "(2, 2), (2, 3), ((1, 1), (2, 1)), (2, 2), (1, 2)"),
    ("negative_pad", "(1, 2), (1, 1), ((-1, 0), (0, 1))"),
    ("too_big", "(5, 2), (1, 1), 'VALID'"),
]
W = np.array([[1, nan, -2, 4, 0], [3, -0., 5, -inf, 2], [7, 1, 1, -3, 6]], np.float32)
for pname, params in WINDOW_PARAMS:
  case(f"window_sum_{pname}", f"lambda x: lax.reduce_window(x, 0., lax.add, {params})", W)
  case(f"window_max_{pname}", f"lambda x: lax.reduce_window(x, -np.inf, lax.max, {params})", W)
  case(f"window_min_{pname}", f"lambda x: lax.reduce_window(x, np.inf, lax.min, {params})", W)
  case(f"window_max_int_{pname}", f"lambda x: lax.reduce_window(x, np.iinfo(np.int32).min, lax.max, {params})",
       np.nan_to_num(W, posinf=9, neginf=-9).astype(np.int32))
  case(f"window_mul_{pname}", f"lambda x: lax.reduce_window(x, 1., lax.mul, {params})", W)
case("window_sum_int8_wrap", "lambda x: lax.reduce_window(x, 0, lax.add, (1, 2), (1, 1), 'VALID')", INT8)
case("window_max_bool", "lambda x: lax.reduce_window(x, False, lax.max, (1, 2), (1, 1), 'SAME')", BOOLS)
case("window_or_bool", "lambda x: lax.reduce_window(x, False, lax.bitwise_or, (1, 2), (1, 1), 'SAME')", BOOLS)
case("window_sum_nonidentity", "lambda x: lax.reduce_window(x, 1., lax.add, (2, 2), (1, 1), 'SAME')", W)
case("window_1d_dilated", "lambda x: lax.reduce_window(x, 0., lax.add, (3,), (2,), ((2, 3),), (3,), (2,))",
     f32([1, 2, 3, 4, 5, 6, 7]))
case("reduce_generic", "lambda x: lax.reduce(x, 0., lambda a, b: a * b + 1, (0,))", W)
case("reduce_generic_axes", "lambda x: lax.reduce(x, 1., lambda a, b: a - b, (1, 0))", INTS.astype(np.float32))
case("reduce_generic_pair", "lambda x, y: lax.reduce((x, y), (0., 0), lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (1,))",
     W, np.arange(15, dtype=np.int32).reshape(3, 5) % 4)
case("reduce_monoid_int_init", "lambda x: lax.reduce(x, 0, lax.add, (0,))", W)
case("reduce_bitwise_and", "lambda x: lax.reduce(x, -1, lax.bitwise_and, (0,))", INTS)

S = f32([3, nan, -0., 0., -inf, inf, 1, -nan, -0., 2, 1])
case("sort_special", "lambda x: lax.sort(x)", S)
case("sort_zeros_stable", "lambda x: lax.sort(x)", ZEROS)
case("sort_complex", "lambda x: lax.sort(x)", np.array([1 + 2j, 1 - 1j, complex(nan, 0), 5j, complex(1, nan), complex(-inf, 3), 1 - 1j], np.complex64))
case("sort_bool", "lambda x: lax.sort(x)", np.array([True, False, True, False]))
case("sort_uint8", "lambda x: lax.sort(x, dimension=0)", UINT8)
case("sort_int8_axis1", "lambda x: lax.sort(x)", INT8)
case("sort_bf16", "lambda x: lax.sort(x)", S.astype(ml_dtypes.bfloat16))
case("sort_f16", "lambda x: lax.sort(x)", S.astype(np.float16))
case("sort_2d_dim0", "lambda x: lax.sort(x, dimension=0)", W)
case("sort_key_val_ties", "lambda k, v: lax.sort_key_val(k, v)", f32([2, 1, 2, 1, -0., 0.]), np.arange(6, dtype=np.int32))
case("sort_two_keys", "lambda a, b, c: lax.sort((a, b, c), num_keys=2)", f32([2, 1, 2, 1, nan, 1]),
     np.array([5, 1, 3, 3, 0, 1], np.int32), np.arange(6, dtype=np.int32))
case("sort_key_val_dim0", "lambda k, v: lax.sort_key_val(k, v, dimension=0)", TIES, np.arange(24, dtype=np.int32).reshape(4, 6))
case("sort_empty", "lambda x: lax.sort(x)", EMPTY)
case("top_k_special", "lambda x: lax.top_k(x, 5)", S)
case("top_k_neg_nan", "lambda x: lax.top_k(x, 3)", f32([-nan, nan, 1]))
case("top_k_zeros", "lambda x: lax.top_k(x, 4)", ZEROS)
case("top_k_ties", "lambda x: lax.top_k(x, 6)", TIES)
case("top_k_axis0", "lambda x: lax.top_k(x, 2, axis=0)", TIES)
case("top_k_bool", "lambda x: lax.top_k(x, 2)", BOOLS)
case("top_k_uint8", "lambda x: lax.top_k(x, 3)", UINT8)
case("top_k_int8", "lambda x: lax.top_k(x, 2)", INT8)
case("top_k_bf16", "lambda x: lax.top_k(x, 4)", S.astype(ml_dtypes.bfloat16))
case("top_k_zero_k", "lambda x: lax.top_k(x, 0)", S)


def record_case(name, source, inputs):
  fun = eval(source, {"lax": lax, "np": np, "jax": jax})
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = fun(*inputs)
  outs = list(out) if isinstance(out, (list, tuple)) else [out]
  return {"name": name, "source": source, "inputs": [encode(x) for x in inputs],
          "outputs": [encode(np.asarray(o)) for o in outs], "tuple": isinstance(out, (list, tuple))}


def main():
  assert jax.__version__ == "0.10.2", jax.__version__
  data = {"jax_version": jax.__version__,
          "snippets": {name: {"source": src, **run_snippet(src)} for name, src in SNIPPETS.items()},
          "cases": [record_case(*c) for c in CASES]}
  with open(OUT_PATH, "w") as f:
    json.dump(data, f, indent=1, sort_keys=True)
  print(f"wrote {OUT_PATH}: {len(data['snippets'])} snippets, {len(data['cases'])} cases")


if __name__ == "__main__":
  main()
