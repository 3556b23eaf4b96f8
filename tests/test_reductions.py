"""Reductions, cumulative/windowed reductions and sorting against what real JAX 0.10.2 printed,
raised and computed.

The reference (tests/data/reductions_reference.json) was recorded by
tools/record_reductions_reference.py under JAX: each snippet's source with JAX's printed text or
error, and each value case's function source, inputs and JAX's outputs on edge inputs.
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
from tests.snippet_harness import assert_matches, run_snippet
import axle
from axle import lax

_REFERENCE = load_reference("reductions_reference.json")


def _dtype(name: str) -> np.dtype:
  return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _floats(values) -> np.ndarray:
  return np.array([float(v) for v in values], np.float64)  # "-nan" keeps its sign bit


def decode(encoded: dict) -> np.ndarray:
  """An array from its JSON form: dtype, shape and a flat value list ([real, imag] for complex)."""
  dtype, shape, values = _dtype(encoded["dtype"]), encoded["shape"], encoded["values"]
  if dtype.kind == "c":
    out = np.empty(shape, dtype)
    out.real, out.imag = (_floats(v).reshape(shape) for v in values)
    return out
  if dtype.kind == "f" or dtype == ml_dtypes.bfloat16:
    return _floats(values).astype(dtype).reshape(shape)
  return np.asarray(values, np.int64 if dtype != np.uint64 else np.uint64).astype(dtype).reshape(shape)


def _bits(x: np.ndarray) -> np.ndarray:
  """A bitwise-comparable view; NaNs compare by NaN-ness only (XLA's NaN payload/sign is not
  specified for propagated NaNs)."""
  if x.dtype.kind == "c":
    return np.stack([_bits(x.real), _bits(x.imag)])
  if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16:
    wide = x.astype(np.float64)
    return np.where(np.isnan(wide), np.nan, wide)
  return x


def assert_same(actual, expected: np.ndarray, what: str, rtol: float = 0.0):
  actual_np = np.asarray(actual)
  assert actual_np.dtype == expected.dtype, f"{what}: dtype {actual_np.dtype} != {expected.dtype}"
  assert actual_np.shape == expected.shape, f"{what}: shape {actual_np.shape} != {expected.shape}"
  a, e = _bits(actual_np), _bits(expected)
  if rtol:
    np.testing.assert_allclose(a, e, rtol=rtol, err_msg=what)
  else:
    np.testing.assert_array_equal(a, e, err_msg=what)
    if expected.dtype.kind in "fc" or expected.dtype == ml_dtypes.bfloat16:
      # -0.0 vs +0.0 matters (max/min/sort semantics).
      zero = (e == 0)
      assert np.array_equal(np.signbit(a)[zero], np.signbit(e)[zero]), f"{what}: signs of zeros differ"


@pytest.mark.parametrize("name", sorted(_REFERENCE["snippets"]))
def test_snippet_matches_jax(name):
  expected = _REFERENCE["snippets"][name]
  assert_matches(expected, run_snippet(expected["source"]))


# ---------------------------------------------------------------------------
# Values recorded from JAX

# XLA on CPU accumulates float16/bfloat16 sums in the narrow type (in a size-dependent order);
# axle accumulates in float32 and rounds once, so these differ in the last bits.
_APPROXIMATE = {"sum_f16_small": 2e-3, "cumsum_f16_small": 2e-3}
# transcendental results: compare to a few ulps
_TRANSCENDENTAL = ("cumlogsumexp",)


@pytest.mark.parametrize("case", _REFERENCE["cases"], ids=lambda c: c["name"])
def test_case_matches_jax(case):
  fun = eval(case["source"], {"lax": lax, "np": np, "jax": axle})
  inputs = [decode(x) for x in case["inputs"]]
  expected = [decode(x) for x in case["outputs"]]
  rtol = _APPROXIMATE.get(case["name"], 1e-6 if case["name"].startswith(_TRANSCENDENTAL) else 0.0)
  for mode, f in [("eager", fun), ("jit", axle.jit(fun))]:
    out = f(*inputs)
    outs = list(out) if case["tuple"] else [out]
    assert len(outs) == len(expected)
    for a, e in zip(outs, expected):
      assert_same(a, e, f"{case['name']} {mode}", rtol)


# ---------------------------------------------------------------------------
# Properties


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan]), min_size=1,
                max_size=12), st.booleans())
def test_sort_is_stable_nan_last_and_keeps_zero_order(values, descending_values):
  keys = np.array(values, np.float32)
  payload = np.arange(len(keys), dtype=np.int32)
  sorted_keys, perm = lax.sort_key_val(keys, payload)
  sorted_keys, perm = np.asarray(sorted_keys), np.asarray(perm)
  canon = np.where(keys == 0, 0.0, keys)
  # Stable order by (canonical value with NaN last, original position).
  expected = sorted(range(len(keys)), key=lambda i: (np.isnan(canon[i]), 0 if np.isnan(canon[i]) else canon[i], i))
  assert perm.tolist() == expected
  np.testing.assert_array_equal(sorted_keys.view(np.int32), keys[expected].view(np.int32))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2),
       st.integers(0, 2), st.integers(1, 2), st.integers(1, 2))
def test_reduce_window_sum_matches_loop(n, w, stride, _unused, lo, hi, base, wdil):
  x = np.arange(1, n + 1, dtype=np.float32) * 3 - 4
  out = np.asarray(lax.reduce_window(x, 0.0, lax.add, (w,), (stride,), ((lo, hi),), (base,), (wdil,)))
  dilated = np.zeros((n - 1) * base + 1, np.float32)
  dilated[::base] = x
  padded = np.concatenate([np.zeros(lo, np.float32), dilated, np.zeros(hi, np.float32)])
  span = (w - 1) * wdil + 1
  count = max(0, (len(padded) - span) // stride + 1) if len(padded) >= span else 0
  expected = np.array([padded[i * stride:i * stride + span:wdil].sum() for i in range(count)],
                      np.float32)
  np.testing.assert_array_equal(out, expected)


def test_reduce_window_generic_matches_specific():
  x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
  specific = lax.reduce_window(x, -np.inf, lax.max, (2, 3), (1, 2), "SAME")
  generic = lax.reduce_window(x, -np.inf, lambda a, b: lax.max(a, b), (2, 3), (1, 2), "SAME")
  np.testing.assert_array_equal(np.asarray(specific), np.asarray(generic))


def test_reduce_generic_matches_specific_over_several_axes():
  x = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 7
  specific = lax.reduce(x, 0, lax.add, (0, 2))
  generic = lax.reduce(x, 0, lambda a, b: a + b, (0, 2))
  np.testing.assert_array_equal(np.asarray(specific), np.asarray(generic))
  assert "reduce_sum" in str(axle.make_jaxpr(lambda v: lax.reduce(v, 0, lax.add, (0, 2)))(x))
  assert "reduce[" in str(axle.make_jaxpr(lambda v: lax.reduce(v, 0, lambda a, b: a + b, (0, 2)))(x))


def test_reduce_tree_structure_mismatch_is_clear():
  x = np.ones(3, np.float32)
  with pytest.raises(ValueError, match="same tree structure"):
    lax.reduce((x, x), 0.0, lax.add, (0,))


def test_top_k_matches_sorted_descending_with_index_ties():
  x = np.random.default_rng(1).integers(-3, 3, (5, 7)).astype(np.int32)
  values, indices = lax.top_k(x, 4)
  order = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")[:, :4]
  np.testing.assert_array_equal(np.asarray(indices), order)
  np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, -1))
  assert np.asarray(indices).dtype == np.int32


# ---------------------------------------------------------------------------
# Lowering (jit on XLA)


def _lowered(fun, *args) -> str:
  return axle.jit(fun).lower(*args).as_text()


def test_reductions_lower_to_stablehlo_reduce_with_identity_init():
  text = _lowered(lambda x: lax.reduce_max(x, (0,)), np.ones((3, 4), np.float32))
  assert text.count("stablehlo.reduce") == 1 and "stablehlo.maximum" in text
  assert "0xFF800000" in text  # -inf as init value
  text = _lowered(lambda x: lax.reduce_and(x, (1,)), np.ones((3, 4), np.int8))
  assert "dense<-1> : tensor<i8>" in text and "stablehlo.and" in text


@pytest.mark.parametrize("reverse, padding", [(False, "[[4, 0]]"), (True, "[[0, 4]]")])
def test_cumulative_ops_lower_to_one_full_axis_reduce_window(reverse, padding):
  # XLA:CPU's (and JAX's) form: a window spanning the axis, padded with n - 1 identities.
  text = _lowered(lambda x: lax.cumsum(x, 0, reverse=reverse), np.ones(5, np.float32))
  assert text.count("stablehlo.reduce_window") == 1
  assert f"padding = dense<{padding}>" in text and "window_dimensions = array<i64: 5>" in text


@pytest.mark.parametrize("values, expected_max, expected_min", [
    # What JAX 0.10.2 computes on CPU (jax.jit(lax.reduce_max) / reduce_min over axis 0): XLA's
    # lexicographic complex comparison is false both ways for NaN, so a NaN is replaced by the next
    # element combined with it and survives only as the last one.
    ([5, np.nan, 1], 1, 1),
    ([1, np.nan, 5], 5, 5),
    ([5, 1, np.nan], np.nan, np.nan),
    ([np.nan, 5, 1], 5, 1),
    ([5, complex(5, np.nan), 1], complex(5, np.nan), 1),
])
def test_complex_max_min_with_nan_match_xla(values, expected_max, expected_min):
  x = np.array(values, np.complex64)
  for name, fun, expected in [("max", lax.reduce_max, expected_max),
                              ("min", lax.reduce_min, expected_min)]:
    expected = np.asarray(expected, np.complex64)
    for mode, f in [("eager", fun), ("jit", axle.jit(fun, static_argnums=1))]:
      assert_same(f(x, (0,)), expected, f"{name} {mode} {values}")


def test_argmax_first_nan_wins_under_jit_on_large_inputs():
  x = np.arange(5000, dtype=np.float32)
  x[[37, 4000, 2500]] = np.nan
  for fun in (lax.argmax, lax.argmin):
    assert int(axle.jit(lambda v: fun(v, 0, np.int32))(x)) == 37  # JAX 0.10.2 gives 37 too
    rows = axle.jit(lambda v: fun(v, 1, np.int32))(np.tile(x, (3, 1)))
    np.testing.assert_array_equal(np.asarray(rows), [37, 37, 37])


def test_generic_reduce_with_captured_constant_under_jit():
  scale = np.array(0.5, np.float32)
  x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
  fun = lambda v: lax.reduce(v, np.float32(1), lambda a, b: a * scale + b, (1,))
  assert_same(axle.jit(fun)(x), np.asarray(fun(x)), "captured constant")


_RANDOM_DTYPES = [np.int8, np.uint16, np.int32, np.float32, np.bool_]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_jit_matches_eager_on_random_reductions(data):
  rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
  shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
  axes = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1)))))
  dtype = np.dtype(data.draw(st.sampled_from(_RANDOM_DTYPES)))
  if dtype == np.bool_:
    x = rng.random(shape) < 0.5
  elif dtype.kind == "f":
    x = rng.integers(-3, 4, shape).astype(dtype)
    x[rng.random(shape) < 0.1] = np.nan
  else:
    x = rng.integers(0 if dtype.kind == "u" else -100, 100, shape).astype(dtype)
  funs = [lax.reduce_max, lax.reduce_min]
  if dtype != np.bool_:
    funs += [lax.reduce_sum, lax.reduce_prod]
  if dtype.kind in "biu":
    funs += [lax.reduce_and, lax.reduce_or, lax.reduce_xor]
  for fun in funs:
    assert_same(axle.jit(fun, static_argnums=1)(x, axes), np.asarray(fun(x, axes)),
                f"{fun.__name__} {dtype} {shape} {axes}")
  axis = data.draw(st.integers(0, len(shape) - 1))
  reverse = data.draw(st.booleans())
  if dtype != np.bool_:
    for fun in (lax.cumsum, lax.cummax, lax.cummin):
      assert_same(axle.jit(fun, static_argnums=(1, 2))(x, axis, reverse),
                  np.asarray(fun(x, axis, reverse)), f"{fun.__name__} {dtype} {shape} {axis}")
  if x.shape[axis]:
    for fun in (lax.argmax, lax.argmin):
      assert_same(axle.jit(lambda v: fun(v, axis, np.int32))(x), np.asarray(fun(x, axis, np.int32)),
                  f"{fun.__name__} {dtype} {shape} {axis}")


@pytest.mark.parametrize("fun", [
    lambda v: lax.cummax(v, 1), lambda v: lax.cummin(v, 1, reverse=True),
    lambda v: lax.reduce_window(v, np.complex64(-np.inf), lax.max, (1, 2), (1, 1), "SAME"),
    lambda v: lax.reduce_window(v, np.complex64(np.inf), lax.min, (1, 3), (1, 1), "VALID")],
    ids=["cummax", "cummin_reverse", "window_max", "window_min"])
def test_complex_nan_windowed_eager_matches_xla(fun):
  # Eager runs these on XLA when a NaN is present (eval.run_on_xla, from the kernels).
  x = np.array([[5, np.nan, 1, 2], [1, 2, complex(2, np.nan), 0]], np.complex64)
  assert_same(fun(x), np.asarray(axle.jit(fun)(x)), "eager vs jit")
