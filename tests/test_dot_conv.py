"""dot_general / conv_general_dilated against what real JAX 0.10.2 printed, raised and computed.

The reference (tests/data/dot_conv_reference.json) was recorded by
tools/record_dot_conv_reference.py under JAX; it stores each snippet's source, and each value case's
inputs, params and JAX's output.
"""
import json
import os
import re
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.reference_data import load_reference
from tests.snippet_harness import assert_matches, run_snippet, snippet_params
import axle
from axle import lax
from tests.records.dot_conv import reference_conv, reference_dot_general

_REFERENCE = load_reference("dot_conv_reference.json")


def _dtype(name: str) -> np.dtype:
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def decode(encoded: dict) -> np.ndarray:
  dtype = _dtype(encoded["dtype"])
  values = encoded["values"]
  if dtype.kind == "c":
    real, imag = (np.asarray(v, np.float64) for v in values)
    return (real + 1j * imag).astype(dtype).reshape(encoded["shape"])
  return np.asarray(values, np.float64 if dtype.kind == "f" or dtype == ml_dtypes.bfloat16 else None) \
      .astype(dtype).reshape(encoded["shape"])


def assert_same(actual, expected: np.ndarray, what: str):
  actual_np = np.asarray(actual)
  assert actual_np.dtype == expected.dtype, f"{what}: dtype {actual_np.dtype} != {expected.dtype}"
  assert actual_np.shape == expected.shape, f"{what}: shape {actual_np.shape} != {expected.shape}"
  np.testing.assert_array_equal(actual_np, expected, err_msg=what)


# ---------------------------------------------------------------------------
# Printed jaxprs, reprs and error messages


# Differences we know of, with the reason; each stays visible as an xfail.
KNOWN_DIFFERENCES: dict = {}


@pytest.mark.parametrize("name", snippet_params(_REFERENCE["snippets"], KNOWN_DIFFERENCES))
def test_snippet_matches_jax(name):
  expected = _REFERENCE["snippets"][name]
  assert_matches(expected, run_snippet(expected["source"]))


# ---------------------------------------------------------------------------
# Values recorded from JAX


@pytest.mark.parametrize("case", _REFERENCE["dot_cases"], ids=lambda c: c["name"])
def test_dot_general_matches_jax(case):
  lhs, rhs, expected = decode(case["lhs"]), decode(case["rhs"]), decode(case["out"])
  kwargs = dict(precision=case["precision"], preferred_element_type=case["preferred_element_type"])
  dims = case["dimension_numbers"]
  assert_same(lax.dot_general(lhs, rhs, dims, **kwargs), expected, f"{case['name']} eager")
  jitted = axle.jit(lambda a, b: lax.dot_general(a, b, dims, **kwargs))(lhs, rhs)
  assert_same(jitted, expected, f"{case['name']} jit")


def _conv_kwargs(case):
  params = dict(case["params"])
  padding = params["padding"]
  params["padding"] = padding if isinstance(padding, str) else [tuple(p) for p in padding]
  return dict(params, dimension_numbers=tuple(case["dimension_numbers"]))


@pytest.mark.parametrize("case", _REFERENCE["conv_cases"], ids=lambda c: c["name"])
def test_conv_general_dilated_matches_jax(case):
  lhs, rhs = decode(case["lhs"]), decode(case["rhs"])
  kwargs = _conv_kwargs(case)
  if "error" in case:
    with pytest.raises(Exception) as info:
      lax.conv_general_dilated(lhs, rhs, **kwargs)
    assert type(info.value).__name__ == case["error"] and str(info.value) == case["message"]
    return
  expected = decode(case["out"])
  assert_same(lax.conv_general_dilated(lhs, rhs, **kwargs), expected, f"{case['name']} eager")
  jitted = axle.jit(lambda a, b: lax.conv_general_dilated(a, b, **kwargs))(lhs, rhs)
  assert_same(jitted, expected, f"{case['name']} jit")


@pytest.mark.parametrize("case", _REFERENCE["conv_cases"][:40], ids=lambda c: c["name"])
def test_conv_reference_implementation_matches_jax(case):
  """The op records' independent reference agrees with JAX (so the records test the right thing)."""
  if "error" in case:
    pytest.skip("error case")
  lhs, rhs = decode(case["lhs"]), decode(case["rhs"])
  kwargs = _conv_kwargs(case)
  ndim = lhs.ndim
  dnums = tuple(lax.conv_dimension_numbers(lhs.shape, rhs.shape, kwargs.pop("dimension_numbers")))
  padding = kwargs.pop("padding")
  if isinstance(padding, str):
    lhs_spatial = [lhs.shape[i] for i in dnums[0][2:]]
    rhs_spatial = [rhs.shape[i] for i in dnums[1][2:]]
    dil = kwargs.get("rhs_dilation") or (1,) * (ndim - 2)
    window = [(k - 1) * r + 1 for k, r in zip(rhs_spatial, dil)]
    padding = lax.padtype_to_pads(lhs_spatial, window, kwargs["window_strides"], padding)
  kwargs.pop("preferred_element_type", None)
  out = reference_conv(lhs, rhs, padding=padding, dimension_numbers=dnums, **kwargs)
  np.testing.assert_array_equal(out, decode(case["out"]))


@pytest.mark.parametrize("case", _REFERENCE["conv_transpose_cases"], ids=lambda c: c["name"])
def test_conv_transpose_matches_jax(case):
  lhs, rhs, expected = decode(case["lhs"]), decode(case["rhs"]), decode(case["out"])
  padding = case["padding"] if isinstance(case["padding"], str) else [tuple(p) for p in case["padding"]]
  kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
  out = lax.conv_transpose(lhs, rhs, tuple(case["strides"]), padding, **kwargs)
  assert_same(out, expected, case["name"])


def test_seed_example_full_convolution():
  x = np.array([1, 2, 1])
  y = np.ones(10)
  out = lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10),
                                 window_strides=(1,), padding=[(9, 9)])
  assert out.dtype == np.float32 and out.shape == (1, 1, 12)
  np.testing.assert_array_equal(np.asarray(out)[0, 0], [1, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 1])


# ---------------------------------------------------------------------------
# API details


def test_precision_enum():
  assert lax.Precision("highest") is lax.Precision.HIGHEST
  assert lax.Precision("tensorfloat32") is lax.Precision.HIGH
  assert lax.Precision(0) is lax.Precision.DEFAULT
  assert repr(lax.Precision.HIGH) == "Precision.HIGH" and str(lax.Precision.HIGH) == "HIGH"
  with pytest.raises(ValueError):
    lax.Precision("nope")


def test_default_matmul_precision_flag_sets_param():
  a = np.ones((2, 2), np.float32)
  axle.config.update("jax_default_matmul_precision", "highest")
  try:
    jaxpr = axle.make_jaxpr(lambda x: lax.dot(x, x))(a)
  finally:
    axle.config.update("jax_default_matmul_precision", None)
  assert jaxpr.eqns[0].params["precision"] == (lax.Precision.HIGHEST, lax.Precision.HIGHEST)


def test_dot_general_params_are_canonical():
  jaxpr = axle.make_jaxpr(lambda a, b: lax.dot_general(a, b, (([1], [0]), ([], []))))(
      np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))
  params = jaxpr.eqns[0].params
  assert params == {"dimension_numbers": (((1,), (0,)), ((), ())), "precision": None,
                    "preferred_element_type": None, "out_sharding": None}


def test_conv_params_are_python_ints():
  jaxpr = axle.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, np.array([1]), ((np.int64(1), 1),)))(
      np.ones((1, 2, 5), np.float32), np.ones((3, 2, 3), np.float32))
  params = jaxpr.eqns[0].params
  assert params["padding"] == ((1, 1),) and type(params["padding"][0][0]) is int
  assert type(params["window_strides"][0]) is int
  assert isinstance(params["dimension_numbers"], lax.ConvDimensionNumbers)


def test_out_sharding_rejected_clearly():
  with pytest.raises(NotImplementedError, match="out_sharding"):
    lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), out_sharding="x")


def test_conv_zero_stride_is_an_error():
  with pytest.raises(ValueError, match="window_strides must be positive"):
    lax.conv_general_dilated(np.ones((1, 1, 5), np.float32), np.ones((1, 1, 2), np.float32), (0,), "VALID")


def test_dot_weak_type_only_when_both_weak():
  out = axle.eval_shape(lambda a: lax.dot(a, a), axle.ShapeDtypeStruct((3,), np.float32))
  assert out.dtype == np.float32


# ---------------------------------------------------------------------------
# Randomised agreement with the references


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_dot_general_random_dimension_numbers(data):
  rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
  n_batch = data.draw(st.integers(0, 2))
  n_contract = data.draw(st.integers(0, 2))
  n_lhs_free = data.draw(st.integers(0, 2))
  n_rhs_free = data.draw(st.integers(0, 2))
  batch = [int(s) for s in rng.integers(1, 4, n_batch)]
  contract = [int(s) for s in rng.integers(0, 4, n_contract)]
  lhs_roles = ["b"] * n_batch + ["c"] * n_contract + ["f"] * n_lhs_free
  rhs_roles = ["b"] * n_batch + ["c"] * n_contract + ["f"] * n_rhs_free
  lhs_order = list(rng.permutation(len(lhs_roles)))
  rhs_order = list(rng.permutation(len(rhs_roles)))
  lhs_shape = [0] * len(lhs_roles)
  rhs_shape = [0] * len(rhs_roles)
  lb, lc, rb, rc = [], [], [], []
  for k, size in enumerate(batch):
    lhs_shape[lhs_order[k]] = rhs_shape[rhs_order[k]] = size
    lb.append(int(lhs_order[k]))
    rb.append(int(rhs_order[k]))
  for k, size in enumerate(contract):
    lhs_shape[lhs_order[n_batch + k]] = rhs_shape[rhs_order[n_batch + k]] = size
    lc.append(int(lhs_order[n_batch + k]))
    rc.append(int(rhs_order[n_batch + k]))
  for k in range(n_lhs_free):
    lhs_shape[lhs_order[n_batch + n_contract + k]] = int(rng.integers(1, 4))
  for k in range(n_rhs_free):
    rhs_shape[rhs_order[n_batch + n_contract + k]] = int(rng.integers(1, 4))
  dtype = data.draw(st.sampled_from([np.float32, np.int32, np.int8]))
  lhs = rng.integers(-4, 5, lhs_shape).astype(dtype)
  rhs = rng.integers(-4, 5, rhs_shape).astype(dtype)
  dims = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
  out = lax.dot_general(lhs, rhs, dims)
  expected = reference_dot_general(lhs, rhs, dims, np.dtype(dtype))
  assert_same(out, expected, str(dims))
  assert_same(axle.jit(lambda a, b: lax.dot_general(a, b, dims))(lhs, rhs), expected, f"jit {dims}")


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_conv_random_configurations(data):
  rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
  n_sp = data.draw(st.integers(1, 2))
  groups = data.draw(st.sampled_from([(1, 1), (2, 1), (1, 2)]))
  fgc, bgc = groups
  in_feat = data.draw(st.integers(1, 2))
  lhs_shape = (2 * bgc, in_feat * fgc) + tuple(int(s) for s in rng.integers(1, 7, n_sp))
  rhs_shape = (2 * fgc * bgc, in_feat) + tuple(int(s) for s in rng.integers(1, 4, n_sp))
  strides = tuple(int(s) for s in rng.integers(1, 4, n_sp))
  lhs_dil = tuple(int(s) for s in rng.integers(1, 3, n_sp))
  rhs_dil = tuple(int(s) for s in rng.integers(1, 3, n_sp))
  padding = tuple((int(lo), int(hi)) for lo, hi in rng.integers(-1, 3, (n_sp, 2)))
  layout = data.draw(st.sampled_from([None, "channels_last"]))
  lhs = rng.integers(-3, 4, lhs_shape).astype(np.float32)
  rhs = rng.integers(-3, 4, rhs_shape).astype(np.float32)
  kwargs = dict(window_strides=strides, padding=padding, lhs_dilation=lhs_dil, rhs_dilation=rhs_dil,
                feature_group_count=fgc, batch_group_count=bgc)
  dilated = [(size - 1) * d + 1 for size, d in zip(lhs_shape[2:], lhs_dil)]
  if any(size + lo + hi < 0 for size, (lo, hi) in zip(dilated, padding)):
    with pytest.raises(ValueError, match="Negative padding is larger than the size"):
      lax.conv_general_dilated(lhs, rhs, **kwargs)
    return
  expected = reference_conv(lhs, rhs, **kwargs)
  if layout == "channels_last":
    spatial = "HW"[:n_sp]
    dn = ("N" + spatial + "C", spatial + "IO", "N" + spatial + "C")
    lhs_t = np.moveaxis(lhs, 1, -1)
    rhs_t = np.moveaxis(np.moveaxis(rhs, 0, -1), 0, -2)
    out = np.moveaxis(np.asarray(lax.conv_general_dilated(lhs_t, rhs_t, dimension_numbers=dn, **kwargs)),
                      -1, 1)
  else:
    out = lax.conv_general_dilated(lhs, rhs, **kwargs)
  assert_same(out, expected, str(kwargs))
  jitted = axle.jit(lambda a, b: lax.conv_general_dilated(a, b, **kwargs))(lhs, rhs)
  assert_same(jitted, expected, f"jit {kwargs}")


# ---------------------------------------------------------------------------
# Lowering (jit on XLA)


def test_matmul_compiles_to_a_single_dot():
  a = np.ones((1024, 1024), np.float32)
  hlo = axle.jit(lambda x, y: lax.dot(x, y)).lower(a, a).compile().as_text()
  assert len(re.findall(r"\bdot\(", hlo)) == 1, hlo
  assert "convert(" not in hlo and "transpose(" not in hlo, hlo


def test_mixed_operand_types_convert_to_the_result_type():
  text = axle.jit(lambda x, y: lax.dot(x, y)).lower(np.ones((2, 3), np.int8),
                                                    np.ones((3, 2), np.float32)).as_text()
  assert "stablehlo.convert %arg0 : (tensor<2x3xi8>) -> tensor<2x3xf32>" in text
  assert "(tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>" in text


def test_preset_lowers_with_algorithm_and_storage_conversions():
  text = axle.jit(lambda x, y: lax.dot(x, y, precision="BF16_BF16_F32")).lower(
      np.ones((2, 3), np.float16), np.ones((3, 2), np.float16)).as_text()
  assert "(tensor<2x3xf16>) -> tensor<2x3xbf16>" in text
  assert "lhs_precision_type = bf16" in text and "accumulation_type = f32" in text
  assert "(tensor<2x2xf32>) -> tensor<2x2xf16>" in text


def test_f16_preset_rounds_float32_operands_like_jax():
  # JAX 0.10.2 on CPU: 1.0001 is stored as float16 1.0, so each product sums to exactly 2.
  lhs = np.full((4, 2), 1.0001, np.float32)
  rhs = np.ones((2, 3), np.float32)
  fun = lambda a, b: lax.dot(a, b, precision="F16_F16_F16")
  for mode, f in [("eager", fun), ("jit", axle.jit(fun))]:
    assert_same(f(lhs, rhs), np.full((4, 3), 2.0, np.float32), mode)


def test_dot_preset_unsupported_on_cpu_raises_under_jit():
  with pytest.raises(ValueError, match="'TF32_TF32_F32' is not supported by dot_general on CPU"):
    axle.jit(lambda a: lax.dot(a, a, precision="TF32_TF32_F32"))(np.ones(3, np.float32))


@pytest.mark.parametrize("preset", ["TF32_TF32_F32", "F16_F16_F32", "ANY_F8_ANY_F8_F32"])
def test_conv_accepts_every_preset_like_jax(preset):
  # JAX 0.10.2 on CPU ignores the algorithm of a convolution: all of these give [4, 4, 4, 4].
  lhs, rhs = np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float32)
  fun = lambda a, b: lax.conv_general_dilated(a, b, (1,), "VALID", precision=preset)
  for mode, f in [("eager", fun), ("jit", axle.jit(fun))]:
    assert_same(np.asarray(f(lhs, rhs))[0, 0], np.full(4, 4.0, np.float32), f"{preset} {mode}")


@pytest.mark.parametrize("padding", [(-2, 1), (-2, 0), (1, -1), (-1, 2), (-3, -2)])
@pytest.mark.parametrize("lhs_dilation", [1, 2])
def test_conv_negative_padding_under_jit(padding, lhs_dilation):
  # XLA:CPU's convolution reads out of bounds for (-2, 1) (JAX 0.10.2 returns garbage there);
  # the lowering applies negative padding as a stablehlo.pad, exact for every case.
  rng = np.random.default_rng(0)
  lhs = rng.integers(-3, 4, (2, 3, 9)).astype(np.float32)
  rhs = rng.integers(-3, 4, (4, 3, 3)).astype(np.float32)
  kwargs = dict(window_strides=(1,), padding=(padding,), lhs_dilation=(lhs_dilation,))
  expected = reference_conv(lhs, rhs, **kwargs)
  out = axle.jit(lambda a, b: lax.conv_general_dilated(a, b, **kwargs))(lhs, rhs)
  assert_same(out, expected, str(kwargs))


def test_complex_conv_under_jit_matches_reference():
  rng = np.random.default_rng(1)
  lhs = (rng.integers(-3, 4, (2, 4, 6)) + 1j * rng.integers(-3, 4, (2, 4, 6))).astype(np.complex64)
  rhs = (rng.integers(-3, 4, (6, 2, 3)) + 1j * rng.integers(-3, 4, (6, 2, 3))).astype(np.complex64)
  kwargs = dict(window_strides=(2,), padding=((1, -1),), feature_group_count=2)
  out = axle.jit(lambda a, b: lax.conv_general_dilated(a, b, **kwargs))(lhs, rhs)
  assert_same(out, reference_conv(lhs, rhs, **kwargs), "complex conv")
