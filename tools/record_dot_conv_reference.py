"""Records real JAX's behaviour for dot_general / conv_general_dilated (run under JAX 0.10.2).

    $JAX_PYTHON tools/record_dot_conv_reference.py

Writes tests/data/dot_conv_reference.json with
  - "snippets": source -> what JAX printed (make_jaxpr text, reprs) or raised (type + message);
  - "dot_cases" / "conv_cases" / "conv_transpose_cases": inputs, params and JAX's outputs.
Inputs are small integer-valued arrays so every result is exact; the inputs are stored in the file,
so tests/test_dot_conv.py needs neither JAX nor a matching random generator.
"""
import itertools
import json
import os

import jax  # noqa: E402  (this script runs under real JAX, never under pytest)
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from snippet_recorder import run_snippet

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "..", "tests", "data", "dot_conv_reference.json")

# ---------------------------------------------------------------------------
# Snippets: run with jax, lax, np in scope; `out` is printed (str) or the exception recorded.

F32_23 = "np.ones((2, 3), np.float32)"
F32_34 = "np.ones((3, 4), np.float32)"
SNIPPETS = {
    # printed jaxprs
    "dot_plain": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b))({F32_23}, {F32_34})",
    "dot_vec": "out = jax.make_jaxpr(lambda a: lax.dot(a, a))(np.ones(3, np.float32))",
    "dot_precision_highest": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=lax.Precision.HIGHEST))({F32_23}, {F32_34})",
    "dot_precision_str": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision='float32'))({F32_23}, {F32_34})",
    "dot_precision_pair": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)))({F32_23}, {F32_34})",
    "dot_precision_str_pair": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=('high', 'fastest')))({F32_23}, {F32_34})",
    "dot_precision_preset": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32))({F32_23}, {F32_34})",
    "dot_precision_preset_name": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision='BF16_BF16_F32'))({F32_23}, {F32_34})",
    "dot_preferred": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, preferred_element_type=np.float16))({F32_23}, {F32_34})",
    "dot_preferred_and_precision": f"out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision='highest', preferred_element_type=np.float32))({F32_23}, {F32_34})",
    "dot_int8_to_int32": "out = jax.make_jaxpr(lambda a, b: lax.dot(a, b, preferred_element_type=np.int32))(np.ones((2, 3), np.int8), np.ones((3, 2), np.int8))",
    "dot_general_batch": "out = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))))(np.ones((5, 2, 3), np.float32), np.ones((5, 3, 4), np.float32))",
    "dot_general_multi_contract": "out = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, (((0, 2), (2, 1)), ((1,), (0,)))))(np.ones((3, 2, 4, 5), np.float32), np.ones((2, 4, 3, 6), np.float32))",
    "dot_general_int_dims": "out = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, ((1, 0), ((), ()))))(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))",
    "dot_mixed_dtypes": "out = jax.make_jaxpr(lambda a, b: lax.dot(a, b))(np.ones((2, 3), np.int8), np.ones((3, 4), np.float32))",
    "batch_matmul": "out = jax.make_jaxpr(lambda a, b: lax.batch_matmul(a, b))(np.ones((5, 2, 3), np.float32), np.ones((5, 3, 4), np.float32))",
    "dot_weak": "out = jax.eval_shape(lambda: lax.dot(lax.broadcast_in_dim(1.0, (3,), ()), lax.broadcast_in_dim(2.0, (3,), ())))",
    "conv_same": "out = jax.make_jaxpr(lambda a, b: lax.conv(a, b, (1, 1), 'SAME'))(np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32))",
    "conv_nhwc": "out = jax.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'), preferred_element_type=np.float32, precision='highest'))(np.ones((1, 5, 5, 2), np.float32), np.ones((3, 3, 2, 3), np.float32))",
    "conv_1d_explicit": "out = jax.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, window_strides=(1,), padding=[(9, 9)]))(np.ones((1, 1, 3), np.float32), np.ones((1, 1, 10), np.float32))",
    "conv_grouped_f16": "out = jax.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (2,), [(0, 0)], feature_group_count=3))(np.ones((2, 3, 4), np.float16), np.ones((6, 1, 2), np.float16))",
    "conv_dilated": "out = jax.make_jaxpr(lambda a, b: lax.conv_with_general_padding(a, b, (2, 1), [(1, 2), (-1, 0)], (2, 1), (1, 3)))(np.ones((2, 3, 5, 9), np.float32), np.ones((4, 3, 2, 2), np.float32))",
    "conv_transpose_jaxpr": "out = jax.make_jaxpr(lambda a, b: lax.conv_transpose(a, b, (2, 2), 'SAME'))(np.ones((1, 5, 5, 2), np.float32), np.ones((3, 3, 2, 3), np.float32))",
    "conv_int8_preferred": "out = jax.make_jaxpr(lambda a, b: lax.conv(a, b, (1,), 'VALID', preferred_element_type=np.int32))(np.ones((1, 2, 4), np.int8), np.ones((3, 2, 2), np.int8))",
    "conv_batch_group": "out = jax.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (1,), 'VALID', batch_group_count=2))(np.ones((4, 2, 5), np.float32), np.ones((6, 2, 3), np.float32))",
    # reprs and helpers
    "precision_reprs": "out = (repr(lax.Precision.HIGHEST), str(lax.Precision.HIGH), lax.Precision('highest'), lax.Precision('bfloat16'), lax.Precision(None), list(lax.Precision))",
    "preset_reprs": "out = (repr(lax.DotAlgorithmPreset.F32_F32_F32), str(lax.DotAlgorithmPreset.BF16_BF16_F32), lax.DotAlgorithmPreset['DEFAULT'])",
    "conv_dimension_numbers": "out = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ('NHWC', 'HWIO', 'NHWC'))",
    "conv_dimension_numbers_odd": "out = lax.conv_dimension_numbers((1, 2, 3, 4, 5), (1, 2, 3, 4, 5), ('NWDHC', 'DOHWI', 'CHWDN'))",
    "conv_dimension_numbers_none": "out = lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None)",
    "padtype_same": "out = lax.padtype_to_pads((5, 6), (3, 2), (2, 1), 'SAME')",
    "padtype_same_lower": "out = lax.padtype_to_pads((5, 6, 7), (3, 2, 4), (2, 1, 3), 'same_lower')",
    "padtype_valid": "out = lax.padtype_to_pads((5, 6), (3, 2), (2, 1), 'VALID')",
    "padtype_bad": "out = lax.padtype_to_pads((5,), (3,), (1,), 'FULL')",
    # dot errors
    "err_dot_contract_shape": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1], [0]), ([], [])))",
    "err_dot_batch_shape": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1], [1]), ([0], [0])))",
    "err_dot_lhs_out_of_range": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([5], [1]), ([], [])))",
    "err_dot_negative_dim": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([-1], [1]), ([], [])))",
    "err_dot_rhs_out_of_range": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1], [3]), ([], [])))",
    "err_dot_batch_count": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1], [1]), ([0], [])))",
    "err_dot_contract_distinct": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1, 1], [1, 1]), ([], [])))",
    "err_dot_batch_distinct": "out = lax.dot_general(np.ones((2, 2, 3), np.float32), np.ones((2, 2, 3), np.float32), (([2], [2]), ([0, 0], [0, 1])))",
    "err_dot_disjoint": "out = lax.dot_general(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), (([1], [1]), ([1], [0])))",
    "err_dot_needs_dims": "out = lax.dot(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32))",
    "err_dot_needs_dims_3d": "out = lax.dot(np.ones((2, 3, 4), np.float32), np.ones(4, np.float32))",
    "err_dot_scalar": "out = lax.dot(np.float32(1), np.float32(2))",
    "err_dot_precision": "out = lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), precision='bogus')",
    "err_dot_precision_mixed_pair": "out = lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), precision=(lax.Precision.HIGH, 'fastest'))",
    "err_dot_narrow_preferred": "out = lax.dot(np.ones(3, np.int32), np.ones(3, np.int32), preferred_element_type=np.int8)",
    "err_dot_preferred_dtype": "out = lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), preferred_element_type='bogus')",
    "err_batch_matmul_rank": "out = lax.batch_matmul(np.ones((2, 3), np.float32), np.ones(3, np.float32))",
    "err_batch_matmul_ndim": "out = lax.batch_matmul(np.ones((5, 2, 3), np.float32), np.ones((3, 4), np.float32))",
    "err_dot_cpu_preset": "out = lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), precision='TF32_TF32_F32')",
    # conv errors
    "err_conv_dtypes": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float16), (1,), 'VALID')",
    "err_conv_strides_len": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1, 1), 'VALID')",
    "err_conv_pads_len": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), [(0, 0), (0, 0)])",
    "err_conv_padding_string": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'FOO')",
    "err_conv_padding_int": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 3)",
    "err_conv_padding_pairs": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), [1])",
    "err_conv_padding_float": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), ((1.0, 1),))",
    "err_conv_negative_pad": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), [(-4, -2)])",
    "err_conv_string_pad_lhs_dilation": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'SAME', lhs_dilation=(2,))",
    "err_conv_rhs_dilation_zero": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), [(0, 0)], rhs_dilation=(0,))",
    "err_conv_features": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 3, 3), np.float32), (1,), 'VALID')",
    "err_conv_group_divide": "out = lax.conv_general_dilated(np.ones((1, 3, 5), np.float32), np.ones((3, 1, 3), np.float32), (1,), 'VALID', feature_group_count=2)",
    "err_conv_group_in_features": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', feature_group_count=2)",
    "err_conv_group_out_features": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 1, 3), np.float32), (1,), 'VALID', feature_group_count=2)",
    "err_conv_group_zero": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', feature_group_count=0)",
    "err_conv_batch_group_divide": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((4, 2, 3), np.float32), (1,), 'VALID', batch_group_count=2)",
    "err_conv_batch_group_out": "out = lax.conv_general_dilated(np.ones((2, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', batch_group_count=2)",
    "err_conv_both_groups": "out = lax.conv_general_dilated(np.ones((2, 2, 5), np.float32), np.ones((4, 1, 3), np.float32), (1,), 'VALID', batch_group_count=2, feature_group_count=2)",
    "err_conv_rank": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3, 3), np.float32), (1,), 'VALID')",
    "err_conv_dn_len": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=('NCH', 'OIH'))",
    "err_conv_dn_spatial": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=('NCH', 'OIH', 'NCW'))",
    "err_conv_dn_rank": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=('NCH', 'OIH', 'NCHH'))",
    "err_conv_dn_chars": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=('NCH', 'OXH', 'NCH'))",
    "err_conv_dn_type": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=('NCH', 'OIH', 3))",
    "err_conv_dn_not_tuple": "out = lax.conv_general_dilated(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', dimension_numbers=5)",
    "err_conv_dn_duplicate": "out = lax.conv_general_dilated(np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32), (1, 1), 'VALID', dimension_numbers=('NCHH', 'OIHW', 'NCHW'))",
    "err_conv_preferred_sign": "out = lax.conv(np.ones((1, 2, 5), np.int8), np.ones((3, 2, 3), np.int8), (1,), 'VALID', preferred_element_type=np.uint32)",
    "err_conv_preferred_narrow": "out = lax.conv(np.ones((1, 2, 5), np.int32), np.ones((3, 2, 3), np.int32), (1,), 'VALID', preferred_element_type=np.int16)",
    "err_conv_preferred_kind": "out = lax.conv(np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32), (1,), 'VALID', preferred_element_type=np.int32)",
}


# ---------------------------------------------------------------------------
# Value cases

def _dtype(name):
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _float_values(x: np.ndarray):
  x = x.astype(np.float64)
  if np.all(np.isfinite(x)) and np.all(x == np.round(x)) and not np.any(np.signbit(x) & (x == 0)):
    return x.astype(np.int64).tolist()  # integer-valued: shorter, and exact
  return x.tolist()


def _encode(x: np.ndarray):
  """JSON form of an array: values as nested lists (bool/int/float; [real, imag] for complex)."""
  dtype = x.dtype
  if dtype == np.bool_:
    values = x.tolist()
  elif np.issubdtype(dtype, np.integer):
    values = x.astype(np.int64).tolist()
  elif np.issubdtype(dtype, np.complexfloating):
    values = [_float_values(x.real), _float_values(x.imag)]
  else:
    values = _float_values(x)
  return {"dtype": "bfloat16" if dtype == ml_dtypes.bfloat16 else dtype.name, "shape": list(x.shape),
          "values": values}


def _random(rng, shape, dtype_name, low=-3, high=3):
  dtype = _dtype(dtype_name)
  if dtype == np.bool_:
    return rng.random(shape) < 0.5
  return rng.integers(low, high + 1, size=shape).astype(dtype)


def dot_cases(rng):
  cases = []

  def add(name, lhs, rhs, dims, preferred=None, precision=None):
    kwargs = {"preferred_element_type": preferred, "precision": precision}
    out = np.asarray(lax.dot_general(lhs, rhs, dims, **kwargs))
    cases.append({"name": name, "lhs": _encode(lhs), "rhs": _encode(rhs),
                  "dimension_numbers": dims, "preferred_element_type": preferred,
                  "precision": precision, "out": _encode(out)})

  mm = (([1], [0]), ([], []))
  for dt in ["float32", "float16", "bfloat16", "int8", "int16", "int32", "uint8", "uint32", "bool"]:
    add(f"mm_{dt}", _random(rng, (3, 4), dt), _random(rng, (4, 5), dt), mm)
  add("mm_complex64", (_random(rng, (2, 3), "float32") + 1j * _random(rng, (2, 3), "float32")).astype(np.complex64),
      (_random(rng, (3, 2), "float32") - 1j * _random(rng, (3, 2), "float32")).astype(np.complex64), mm)
  add("batch_multi", _random(rng, (3, 2, 4, 5), "float32"), _random(rng, (2, 4, 3, 6), "float32"),
      (([0, 2], [2, 1]), ([1], [0])))
  add("batch_transposed", _random(rng, (4, 5, 3), "int32"), _random(rng, (3, 5, 4), "int32"),
      (([1], [1]), ([2, 0], [0, 2])))
  add("outer", _random(rng, (3,), "float32"), _random(rng, (4,), "float32"), (([], []), ([], [])))
  add("empty_contract", np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32), mm)
  # Integer overflow wraps; preferred_element_type accumulates wider.
  big = np.full((2, 4), 100, np.int8)
  add("int8_wrap", big, np.full((4, 3), 100, np.int8), mm)
  add("int8_pref_int16", big, np.full((4, 3), 100, np.int8), mm, preferred="int16")
  add("int8_pref_int32", big, np.full((4, 3), 100, np.int8), mm, preferred="int32")
  add("int8_pref_float32", big, np.full((4, 3), 100, np.int8), mm, preferred="float32")
  add("int8_pref_uint32", big, np.full((4, 3), 100, np.int8), mm, preferred="uint32")
  add("uint8_wrap", np.full((1, 2), 200, np.uint8), np.full((2, 1), 2, np.uint8), mm)
  add("int32_wrap", np.array([[2 ** 30, 2 ** 30]], np.int32), np.array([[4], [4]], np.int32), mm)
  add("bool_pref_int32", np.ones((2, 3), bool), np.ones((3, 2), bool), mm, preferred="int32")
  add("bool_pref_float32", np.ones((2, 3), bool), np.ones((3, 2), bool), mm, preferred="float32")
  # Half precision accumulates in float32 and rounds once.
  acc = np.array([[2048] + [1] * 16], np.float16)
  add("f16_accumulate", acc, np.ones((17, 1), np.float16), mm)
  add("bf16_accumulate", acc.astype(ml_dtypes.bfloat16), np.ones((17, 1), ml_dtypes.bfloat16), mm)
  add("f16_pref_f32", acc, np.ones((17, 1), np.float16), mm, preferred="float32")
  add("f32_pref_f16", np.full((1, 17), 129.0, np.float32), np.ones((17, 1), np.float32), mm, preferred="float16")
  # Mixed operand dtypes: the wider operand's dtype wins.
  add("mixed_int8_f32", _random(rng, (2, 3), "int8"), _random(rng, (3, 2), "float32"), mm)
  add("mixed_f32_f16", _random(rng, (2, 3), "float32"), _random(rng, (3, 2), "float16"), mm)
  add("mixed_bf16_f16", _random(rng, (2, 3), "bfloat16"), _random(rng, (3, 2), "float16"), mm)
  add("mixed_uint8_int8", np.array([[200, 3]], np.uint8), np.array([[-1], [2]], np.int8), mm)
  add("mixed_uint32_int32", np.array([[4000000000, 3]], np.uint32), np.array([[1], [2]], np.int32), mm)
  add("mixed_bool_int8", np.array([[True, False, True]]), np.array([[5], [6], [7]], np.int8), mm)
  add("mixed_f32_c64", _random(rng, (2, 3), "float32"), (1j * _random(rng, (3, 2), "float32")).astype(np.complex64), mm)
  # Algorithm presets: BF16_BF16_F32 rounds the operands to bfloat16 first.
  vv = (([0], [0]), ([], []))
  add("preset_bf16", np.array([1.00390625, 3.0], np.float32), np.array([1.0, 1.0], np.float32), vv,
      precision="BF16_BF16_F32")
  add("preset_f32", np.array([1.00390625, 3.0], np.float32), np.array([1.0, 1.0], np.float32), vv,
      precision="F32_F32_F32")
  return cases


def conv_cases(rng):
  layouts = {
      1: [("NCH", "OIH", "NCH"), ("NHC", "HIO", "NHC"), ("HNC", "OHI", "CHN")],
      2: [("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"), ("NWHC", "OHWI", "NCWH"),
          ("HWNC", "IOWH", "CNHW")],
      3: [("NCDHW", "OIDHW", "NCDHW"), ("NDHWC", "DHWIO", "NDHWC")],
  }
  cases = []

  def add(name, lhs_shape_c, rhs_shape_c, layout, dtype="float32", **params):
    """Shapes given canonically ((N, C, S...), (O, I, K...)); laid out per ``layout``."""
    lhs_spec, rhs_spec, out_spec = layout
    n_sp = len(lhs_shape_c) - 2
    spatial_chars = [c for c in rhs_spec if c not in "OI"]
    def place(shape_c, spec, first, second):
      sizes = {first: shape_c[0], second: shape_c[1]}
      sizes.update({c: shape_c[2 + i] for i, c in enumerate(spatial_chars)})
      return tuple(sizes[c] for c in spec)
    lhs = _random(rng, place(lhs_shape_c, lhs_spec, "N", "C"), dtype)
    rhs = _random(rng, place(rhs_shape_c, rhs_spec, "O", "I"), dtype)
    kwargs = dict(params)
    kwargs.setdefault("window_strides", (1,) * n_sp)
    try:
      out = np.asarray(lax.conv_general_dilated(lhs, rhs, dimension_numbers=layout, **kwargs))
      result = {"out": _encode(out)}
    except Exception as e:
      result = {"error": type(e).__name__, "message": str(e)}
    padding = kwargs["padding"]
    kwargs["padding"] = padding if isinstance(padding, str) else [list(p) for p in padding]
    cases.append({"name": name, "lhs": _encode(lhs), "rhs": _encode(rhs),
                  "dimension_numbers": list(layout), "params": kwargs, **result})

  paddings = {1: ["VALID", "SAME", "SAME_LOWER", [(2, 1)], [(-1, 2)], [(0, -2)]],
              2: ["VALID", "SAME", "SAME_LOWER", [(1, 2), (0, 1)], [(-1, 0), (2, -1)]],
              3: ["VALID", "SAME", [(1, 0), (0, 1), (-1, 1)]]}
  spatial_sizes = {1: (7,), 2: (6, 5), 3: (4, 5, 3)}
  kernel_sizes = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}
  count = 0
  for n_sp in (1, 2, 3):
    for layout_i, layout in enumerate(layouts[n_sp]):
      combos = list(itertools.product(paddings[n_sp], [1, 2], [1, 2], [1, 2], [(1, 1), (2, 1), (1, 2)]))
      rng.shuffle(combos)
      for padding, stride, lhs_dil, rhs_dil, (fgc, bgc) in combos[: (14 if n_sp < 3 else 8)]:
        if isinstance(padding, str) and lhs_dil != 1:
          padding = [(1, 1)] * n_sp
        batch = 2 * bgc
        in_feat = 2
        lhs_c = (batch, in_feat * fgc) + spatial_sizes[n_sp]
        rhs_c = (3 * fgc * bgc, in_feat) + kernel_sizes[n_sp]
        add(f"grid{count}_{n_sp}d_{layout[0]}", lhs_c, rhs_c, layout, padding=padding,
            window_strides=(stride,) * n_sp, lhs_dilation=(lhs_dil,) * n_sp,
            rhs_dilation=(rhs_dil,) * n_sp, feature_group_count=fgc, batch_group_count=bgc)
        count += 1
  # dtypes and preferred element types
  base = dict(padding=[(1, 1)], window_strides=(1,))
  lay = ("NCH", "OIH", "NCH")
  for dt in ["float16", "bfloat16", "int8", "int32", "uint8", "bool", "complex64"]:
    if dt == "complex64":
      lhs = (_random(rng, (2, 2, 5), "float32") + 1j * _random(rng, (2, 2, 5), "float32")).astype(np.complex64)
      rhs = (_random(rng, (3, 2, 3), "float32") - 1j * _random(rng, (3, 2, 3), "float32")).astype(np.complex64)
      out = np.asarray(lax.conv_general_dilated(lhs, rhs, dimension_numbers=lay, **base))
      cases.append({"name": "dtype_complex64", "lhs": _encode(lhs), "rhs": _encode(rhs),
                    "dimension_numbers": list(lay), "params": {**base, "padding": [[1, 1]]},
                    "out": _encode(out)})
      continue
    add(f"dtype_{dt}", (2, 2, 5), (3, 2, 3), lay, dtype=dt, **base)
  # Integer overflow wraps; preferred_element_type accumulates wider.
  for name, pref in [("int8_wrap", None), ("int8_pref_int32", "int32"),
                     ("int8_pref_float32", "float32"), ("int8_pref_int16", "int16")]:
    lhs = np.full((1, 4, 3), 100, np.int8)
    rhs = np.full((2, 4, 3), 3, np.int8)
    out = np.asarray(lax.conv_general_dilated(lhs, rhs, (1,), [(0, 0)], dimension_numbers=lay,
                                              preferred_element_type=pref))
    cases.append({"name": name, "lhs": _encode(lhs), "rhs": _encode(rhs), "dimension_numbers": list(lay),
                  "params": {"padding": [[0, 0]], "window_strides": [1], "preferred_element_type": pref},
                  "out": _encode(out)})
  acc = np.array([[[2048] + [1] * 16]], np.float16)
  for dt in [np.float16, ml_dtypes.bfloat16]:
    lhs, rhs = acc.astype(dt), np.ones((1, 1, 17), dt)
    out = np.asarray(lax.conv_general_dilated(lhs, rhs, (1,), "VALID", dimension_numbers=lay))
    cases.append({"name": f"accumulate_{np.dtype(dt).name}", "lhs": _encode(lhs), "rhs": _encode(rhs),
                  "dimension_numbers": list(lay), "params": {"padding": "VALID", "window_strides": [1]},
                  "out": _encode(out)})
  # Zero-size outputs and 0-d spatial convolutions.
  add("zero_out", (1, 2, 5), (3, 2, 3), lay, padding=[(-3, 0)])
  add("zero_batch", (0, 2, 5), (3, 2, 3), lay, padding="VALID")
  add("spatial_0d", (2, 3), (4, 3), ("NC", "OI", "NC"), padding=[], window_strides=())
  add("kernel_bigger_than_input", (1, 2, 2), (3, 2, 5), lay, padding="VALID")
  add("stride_bigger_than_kernel", (1, 1, 11), (2, 1, 2), lay, padding="SAME", window_strides=(4,))
  return cases


def conv_transpose_cases(rng):
  cases = []
  configs = [
      ((1, 5, 5, 2), (3, 3, 2, 3), (2, 2), "SAME", {}),
      ((1, 5, 5, 2), (3, 3, 2, 3), (2, 2), "VALID", {}),
      ((2, 4, 3), (3, 3, 4), (3,), "SAME", {}),
      ((1, 5, 5, 2), (3, 3, 2, 3), (2, 1), [(1, 2), (0, 1)], {}),
      ((1, 5, 5, 2), (3, 3, 2, 3), (2, 2), [(1, 1), (1, 1)], {"use_consistent_padding": True}),
      ((1, 5, 5, 2), (3, 3, 2, 3), (2, 2), "SAME", {"rhs_dilation": (2, 1)}),
      ((1, 2, 5, 5), (2, 3, 3, 3), (2, 2), "SAME", {"dimension_numbers": ("NCHW", "IOHW", "NCHW")}),
      ((1, 4, 5, 2), (3, 2, 3, 2), (2, 1), "VALID", {"transpose_kernel": True}),
      ((2, 2, 7), (2, 4, 3), (3,), [(1, 2)], {"transpose_kernel": True,
                                              "dimension_numbers": ("NCH", "OIH", "NCH")}),
  ]
  for i, (lhs_shape, rhs_shape, strides, padding, extra) in enumerate(configs):
    lhs = _random(rng, lhs_shape, "float32")
    rhs = _random(rng, rhs_shape, "float32")
    out = np.asarray(lax.conv_transpose(lhs, rhs, strides, padding, **extra))
    extra = {k: list(v) if isinstance(v, tuple) else v for k, v in extra.items()}
    cases.append({"name": f"conv_transpose{i}", "lhs": _encode(lhs), "rhs": _encode(rhs),
                  "strides": list(strides), "padding": padding if isinstance(padding, str) else
                  [list(p) for p in padding], "kwargs": extra, "out": _encode(out)})
  return cases


def main():
  rng = np.random.default_rng(0)
  data = {
      "jax_version": jax.__version__,
      "snippets": {name: {"source": source, **run_snippet(source)} for name, source in SNIPPETS.items()},
      "dot_cases": dot_cases(rng),
      "conv_cases": conv_cases(rng),
      "conv_transpose_cases": conv_transpose_cases(rng),
  }
  with open(OUT_PATH, "w") as f:
    # One case per line keeps the file small and its diffs readable.
    f.write("{\n")
    for i, key in enumerate(sorted(data)):
      value = data[key]
      if isinstance(value, dict):
        body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(value.items()))
        text = "{\n" + body + "\n }"
      elif isinstance(value, list):
        text = "[\n" + ",\n".join("  " + json.dumps(v, sort_keys=True) for v in value) + "\n ]"
      else:
        text = json.dumps(value)
      f.write(f" {json.dumps(key)}: {text}{',' if i < len(data) - 1 else ''}\n")
    f.write("}\n")
  print(f"wrote {len(data['snippets'])} snippets, {len(data['dot_cases'])} dot cases, "
        f"{len(data['conv_cases'])} conv cases, {len(data['conv_transpose_cases'])} conv_transpose "
        f"cases to {OUT_PATH}")


if __name__ == "__main__":
  main()
