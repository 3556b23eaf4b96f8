"""Records JAX 0.10.2's behaviour for NumPy-style indexing, ``.at[]`` updates and lax gather/scatter.

Run under the real-JAX venv (never imported by axle or by the test process):

    $JAX_PYTHON tools/record_indexing_reference.py

Writes ``tests/data/indexing_reference.json``. Every case is a Python expression string evaluated
in a namespace with ``np``, ``jnp``, ``lax`` and the named test arrays; ``tests/test_indexing.py``
evaluates the same strings with axle and compares values, shapes, dtypes, error types/messages and
printed jaxprs.
"""
import json
import os

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "indexing_reference.json")


def arrays():
  return {
      "X": np.arange(24, dtype=np.int32).reshape(2, 3, 4),
      "F": np.arange(24, dtype=np.float32).reshape(2, 3, 4),
      "V": np.arange(5, dtype=np.float32),
      "B": np.array([[True, False, True], [False, False, True]]),
      "U": np.arange(6, dtype=np.uint8).reshape(2, 3),
      "S": np.array(7, dtype=np.int32),
      "M": np.arange(12, dtype=np.float32).reshape(3, 4),
      "E": np.zeros((0, 3), dtype=np.float32),
  }


def namespace():
  ns = {"np": np, "jnp": jnp, "lax": lax}
  ns.update({k: jnp.asarray(v) for k, v in arrays().items()})
  return ns


def encode(value):
  value = np.asarray(value)
  flat = value.astype(np.float64) if value.dtype.name == "bfloat16" else value
  return {"value": np.asarray(flat).tolist(), "shape": list(value.shape), "dtype": value.dtype.name,
          "weak_type": bool(getattr(jnp.asarray(value), "weak_type", False))}


def run(code):
  try:
    out = eval(code, namespace())
  except Exception as e:  # noqa: BLE001 -- errors are part of the reference
    return {"error": {"type": type(e).__name__, "message": str(e)}}
  result = encode(out)
  result["weak_type"] = bool(getattr(out, "weak_type", False))
  return result


# --- getitem: index expressions on the arrays above --------------------------------------------
GETITEM_X = [
    "0", "1", "-1", "-2", "2", "-3", "1000", "-1000", "np.int32(1)", "np.int64(-1)", "np.uint8(1)",
    "slice(None)", "slice(1, None)", "slice(None, 1)", "slice(None, None, 2)", "slice(None, None, -1)",
    "slice(1, None, -1)", "slice(-1, None)", "slice(5, 10)", "slice(None, None, -2)", "slice(0, 0)",
    "slice(-100, 100)", "slice(100, -100, -1)",
    "(0, 1)", "(0, 1, 2)", "(-1, -1, -1)", "(0, slice(None), 1)", "(Ellipsis, 0)", "(Ellipsis, None)",
    "(None,)", "(None, 0)", "(0, None, 1)", "(Ellipsis, 1, None)", "(slice(None), None, slice(None), None)",
    "(None, None)", "(0, Ellipsis, 1)", "(Ellipsis,)", "()", "Ellipsis", "None",
    "(slice(None), slice(1, 3), slice(None, None, 2))", "(slice(None), slice(None, None, -1), 0)",
    "(1, slice(2, 0, -1), slice(1, None, 3))", "(slice(None), 5)", "(slice(None), slice(None), -5)",
    "(0, 1, slice(1, 3))", "(slice(None, None, 3), 2)",
    "np.array([0, 1])", "np.array([1, 0, 1])", "np.array([-1])", "np.array([[0, 1], [1, 0]])",
    "np.array(1)", "np.array(-1)", "np.array([5])", "np.array([-5])", "np.array([], dtype=np.int32)",
    "np.array([0, 1], dtype=np.uint8)", "np.array([0, -1], dtype=np.int8)", "np.array([1, 0], dtype=np.int64)",
    "(slice(None), np.array([0, 2]))", "(np.array([0, 1]), np.array([1, 2]))",
    "(np.array([0, 1]), slice(None), np.array([1, 2]))",
    "(slice(None), np.array([0, 2]), np.array([1, 3]))",
    "(np.array([[0], [1]]), np.array([0, 1, 2]))",
    "(0, slice(None), np.array([1, 2]))", "(np.array([1, 0]), 1)", "(1, np.array([1, 0]))",
    "(np.array([0, 1]), None, slice(None))", "(None, np.array([0, 1]))", "(Ellipsis, np.array([0, 3]))",
    "(np.array([0, 1]), Ellipsis)", "(slice(1, 3), np.array([0, 1]))",
    "(slice(None, None, -1), np.array([0, 2]))", "(np.array([1, 0]), slice(None, None, -1), np.array([3, 0]))",
    "(np.array([1, 0]), slice(None, None, 2), slice(None, None, -1))",
    "(slice(None), np.array([[0, 1], [2, 0]]), slice(1, 3))",
    "(np.array([0, 1]), np.array([1, 2]), np.array([3, 0]))",
    "(np.array(1), slice(None), np.array([0, 1]))", "(np.array(1), np.array(2))",
    "(None, np.array([0, 1]), None, np.array([1, 2]))", "(np.array([0, 1]), None, np.array([1, 2]))",
    "([0, 1],)", "([0, 1], [1, 2])", "([[0, 1]],)", "([],)", "(0, [1, 2], slice(None))",
    "np.array([True, False])", "np.array([False, False])", "(slice(None), np.array([True, False, True]))",
    "np.array([[True, False, True], [False, True, True]])",
    "(np.array([[True, False, True], [False, True, True]]), slice(None, 2))",
    "(Ellipsis, np.array([True, False, False, True]))", "np.array(True)", "np.array(False)", "True", "False",
    "(0, True)", "(True, 0)", "(np.array([True, False]), np.array([0]))", "([True, False],)",
    "(np.array([True, True]), np.array([1, 2]))",
    # errors
    "(0, 0, 0, 0)", "1.5", "np.array([1.5])", "'a'", "[0, 1]", "[0, slice(None)]", "(Ellipsis, Ellipsis)",
    "np.array([True])", "(slice(0.5, 2),)", "(1.0,)", "np.float32(1)", "(np.array([0, 1]), np.array([0, 1, 2]))",
    "object()", "1j", "(0, 1, 2, None, 0)",
    "(None, True)", "(0, None, False)", "(Ellipsis, True, None)",
]

GETITEM_OTHER = [
    ("V", "3"), ("V", "-6"), ("V", "slice(None, None, -2)"), ("V", "np.array([4, 0, 9, -9])"),
    ("V", "(None, slice(1, 4))"), ("V", "np.array([[0, 1], [2, 3]])"),
    ("B", "0"), ("B", "np.array([1, 0])"), ("B", "B"), ("B", "(slice(None), np.array([2, 0]))"),
    ("U", "(1, 2)"), ("U", "np.array([1, 1, 0])"), ("U", "(np.array([0, 1]), np.array([2, 0]))"),
    ("S", "()"), ("S", "None"), ("S", "Ellipsis"), ("S", "0"), ("S", "(None, Ellipsis, None)"),
    ("S", "np.array(True)"), ("S", "np.array(False)"), ("S", "True"),
    ("F", "F > 10"), ("F", "(0, F[0] > 3)"), ("F", "(1, slice(None), np.array([3, 2, 1]))"),
    ("M", "(np.array([0, 2]), slice(1, None, 2))"), ("M", "M[:, 0] > 3"), ("M", "(slice(None), M[0] > 1)"),
    ("E", "0"), ("E", "np.array([], dtype=np.int32)"), ("E", "(slice(None), 1)"),
    ("E", "(slice(None), np.array([0, 2]))"), ("E", "slice(None, None, -1)"),
]


# --- .at[] updates -------------------------------------------------------------------------------
AT_INDICES = [
    "0", "-1", "5", "-5", "(0, 1)", "(1, 2, 3)", "slice(1, None)", "slice(None, None, 2)",
    "slice(None, None, -1)", "np.array([0, 0, 1])", "np.array([[0, 1]])", "(slice(None), np.array([0, 2, 0]))",
    "(np.array([0, 1]), slice(None), np.array([1, 3]))", "(Ellipsis, 1)", "None", "(None, 0)",
    "(slice(None), None, 1)", "np.array([1, 7, -1, -9])", "(0, np.array([0, 5, 1]))",
    "(1, slice(None, None, -2), np.array([3, 0]))", "(np.array([True, False]),)", "F > 12",
    "(slice(None), np.array([True, False, True]))", "np.array(True)", "()",
]
AT_CASES = []
for idx in AT_INDICES:
  AT_CASES += [
      f"F.at[{idx}].set(-100.)", f"F.at[{idx}].add(100.)", f"F.at[{idx}].get()", f"X.at[{idx}].set(-1)",
      f"X.at[{idx}].add(3)", f"X.at[{idx}].mul(2)", f"X.at[{idx}].min(5)", f"X.at[{idx}].max(5)",
  ]
AT_CASES += [
    "F.at[0].set(np.arange(4, dtype=np.float32))", "F.at[0].set(np.arange(12, dtype=np.float32).reshape(3, 4))",
    "F.at[np.array([1, 1, 0])].add(np.arange(3, dtype=np.float32)[:, None, None])",
    "V.at[np.array([0, 0, 1])].set(np.array([1., 2., 3.]))",
    "V.at[np.array([0, 0, 1, 1, 0])].set(np.array([1., 2., 3., 4., 5.]))",
    "V.at[np.array([0, 0, 1, 7])].add(np.array([1., 2., 3., 4.]))",
    "V.at[np.array([0, 0, 1, 7])].mul(np.array([1., 2., 3., 4.]))",
    "V.at[np.array([2, 2, 4])].min(np.array([-1., -3., 9.]))",
    "V.at[np.array([2, 2, 4])].max(np.array([10., 30., -9.]))",
    "V.at[7].get()", "V.at[7].get(mode='fill')", "V.at[7].get(mode='fill', fill_value=3)",
    "V.at[-7].get(mode='fill')", "V.at[-6].get(mode='clip')", "V.at[np.array([1, 9, -9])].get(mode='clip')",
    "V.at[np.array([1, 9, -9])].get(mode='fill', fill_value=-2.5)", "V.at[np.array([1, 9, -9])].get(mode='drop')",
    "X.at[0, 7].get(mode='fill')", "U.at[0, 7].get(mode='fill')", "B.at[0, 7].get(mode='fill')",
    "X.at[0, 7].get(mode='fill', fill_value=np.array(11))",
    "V.at[slice(None, None, 2)].get(mode='fill')", "X.at[np.array([0, 3])].get(mode='fill', fill_value=-7)",
    "V.at[7].set(1.)", "V.at[7].set(1., mode='clip')", "V.at[-7].set(1., mode='clip')", "V.at[-1].set(9.)",
    "V.at[7].add(10., mode='drop')", "V.at[20].add(10, mode='clip')", "V.at[np.array([3, 9])].add(1., mode='clip')",
    "V.at[np.array([3, 9])].add(1., mode='promise_in_bounds')",
    "V.at[1].subtract(3.)", "V.at[np.array([1, 1])].subtract(np.array([2., 5.]))",
    "V.at[1].divide(4.)", "V.at[np.array([1, 1, 3])].divide(2.)", "V.at[2].power(3.)",
    "V.at[np.array([1, 1, 4])].apply(lambda v: v * 2 + 1)", "X.at[0, 1].apply(jnp.negative)",
    "V.at[np.array([0, 0, 1])].set(np.array([1., 2., 3.]), unique_indices=True, indices_are_sorted=True)",
    "X.at[0].set(1.5)", "X.at[0].add(2.7)", "X.at[0].set(np.float32(2.5))", "U.at[0].set(300)", "U.at[0].set(-1)",
    "U.at[0, 1].add(255)", "B.at[0].set(False)", "B.at[0, 1].set(1)", "B.at[np.array([0, 1])].max(True)",
    "B.at[0].min(False)", "B.at[0].add(True)", "B.at[0].mul(True)",
    "F.at[0].set(np.ones(5, np.float32))", "F.at[0].set(np.ones((2, 3, 4), np.float32))",
    "F.at[0].set(np.ones((1, 3, 4), np.float32))", "F.at[1.5].set(0.)", "F.at[0].get(mode='bogus')",
    "F.at[0].get(fill_value=np.array([1, 2]))", "V.at[0].set(1j)", "S.at[()].set(3)", "S.at[None].add(3)",
    "E.at[0].set(1.)", "E.at[np.array([], np.int32)].add(1.)", "E.at[:, 1].set(2.)",
    "F.at[np.array([[True, False, True], [False, True, True]])].set(np.array([1., 2., 3., 4.], np.float32))",
    "V.at[np.array([True, False, True, False, True])].add(np.array([10., 20., 30.]))",
]


# --- lax-level gather / scatter ------------------------------------------------------------------
GD = "lax.GatherDimensionNumbers"
SD = "lax.ScatterDimensionNumbers"
ROWS_G = f"{GD}(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))"
ROWS_S = f"{SD}(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))"
WIN_G = f"{GD}(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))"
WIN_S = f"{SD}(update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 1))"
PT_S = f"{SD}(update_window_dims=(), inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1))"
BAT_G = (f"{GD}(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,), "
         "operand_batching_dims=(0,), start_indices_batching_dims=(0,))")
BAT_S = (f"{SD}(update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), "
         "operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))")
ROW_IDX = "np.array([[0], [2], [5], [-1], [1]])"
WIN_IDX = "np.array([[0, 0], [2, 3], [1, 2], [-1, 1], [1, 1], [2, 2]])"
LAX_CASES = []
for mode in ["None", "'clip'", "'fill'", "'promise_in_bounds'"]:
  LAX_CASES += [
      f"lax.gather(M, {ROW_IDX}, {ROWS_G}, (1, 4), mode={mode})",
      f"lax.gather(M, {WIN_IDX}, {WIN_G}, (2, 2), mode={mode})",
      f"lax.gather(X, np.array([[1], [0], [3], [-1]]).reshape(2, 2, 1), {BAT_G}, (1, 1, 4), mode={mode})",
  ]
for mode in ["None", "'clip'", "'drop'", "'promise_in_bounds'"]:
  for fn in ["scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max"]:
    LAX_CASES += [
        f"lax.{fn}(M, {ROW_IDX}, np.arange(20, dtype=np.float32).reshape(5, 4) - 7, {ROWS_S}, mode={mode})",
        f"lax.{fn}(M, {WIN_IDX}, np.arange(24, dtype=np.float32).reshape(6, 2, 2) - 9, {WIN_S}, mode={mode})",
    ]
  LAX_CASES += [
      f"lax.scatter(M, np.array([[0, 0], [0, 0], [2, 1], [0, 0]]), np.array([1., 2., 3., 4.], np.float32), {PT_S}, mode={mode})",
      f"lax.scatter_add(X, np.array([[1], [0], [3], [1]]).reshape(2, 2, 1), np.ones((2, 2, 4), np.int32), {BAT_S}, mode={mode})",
      f"lax.scatter(X, np.array([[1], [0], [3], [1]]).reshape(2, 2, 1), -np.ones((2, 2, 4), np.int32), {BAT_S}, mode={mode})",
      f"lax.scatter_apply(M, {ROW_IDX}, jnp.negative, {ROWS_S}, update_shape=(5, 4), mode={mode})",
  ]
LAX_CASES += [
    f"lax.gather(M, {ROW_IDX}, {ROWS_G}, (1, 4), mode='fill', fill_value=-1)",
    f"lax.gather(X, np.array([[0, 1]]), {GD}(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)), (1, 1, 4))",
    f"lax.gather(X, np.array([[0, 1]]), {GD}(offset_dims=(1,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)), (1, 1, 4))",
    f"lax.gather(M, np.array([[0]], np.uint8), {ROWS_G}, (1, 4))",
    f"lax.gather(M, np.array([[0.]]), {ROWS_G}, (1, 4))",
    f"lax.gather(M, np.array([[0]]), {ROWS_G}, (1, 5))",
    f"lax.gather(M, np.array([[0]]), {ROWS_G}, (2, 4))",
    f"lax.gather(M, np.array([[0]]), {ROWS_G}, (1, 4, 1))",
    f"lax.gather(M, np.array([[0, 1]]), {ROWS_G}, (1, 4))",
    f"lax.gather(M, np.array([[0]]), {GD}(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(2,)), (1, 4))",
    f"lax.gather(M, np.array([[0]]), {GD}(offset_dims=(0,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4))",
    f"lax.gather(M, np.array([[0]]), {GD}(offset_dims=(1, 2), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4))",
    f"lax.gather(M, np.array([[0]]), {GD}(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(0,)), (1, 4))",
    f"lax.gather(M, np.array([0, 2]), {GD}(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4))",
    f"lax.gather(M, np.array([[0]]), {ROWS_G}, (1, 4), mode='bogus')",
    f"lax.scatter_add(M, np.array([[0]]), np.ones((1, 4), np.int32), {ROWS_S})",
    f"lax.scatter_add(M, np.array([[0]]), np.ones((1, 5), np.float32), {ROWS_S})",
    f"lax.scatter_add(M, np.array([[0]]), np.ones((2, 4), np.float32), {ROWS_S})",
    f"lax.scatter_add(M, np.array([[0.]]), np.ones((1, 4), np.float32), {ROWS_S})",
    f"lax.scatter_add(B, np.array([[0]]), np.ones((1, 3), bool), {ROWS_S})",
    f"lax.scatter_mul(B, np.array([[0]]), np.ones((1, 3), bool), {ROWS_S})",
    f"lax.scatter_max(B, np.array([[0]]), np.ones((1, 3), bool), {ROWS_S})",
    f"lax.scatter(B, np.array([[0]]), np.zeros((1, 3), bool), {ROWS_S})",
    "lax.index_take(M, (np.array([0, 2, 5, -1]),), (0,))",
    "lax.index_take(X, (np.array([0, 1]), np.array([2, 3])), (0, 2))",
]


# --- printed jaxprs ------------------------------------------------------------------------------
JAXPRS = [
    ("lambda x: x[0]", "F"), ("lambda x: x[1:3]", "F"), ("lambda x: x[::2]", "F"), ("lambda x: x[::-1]", "F"),
    ("lambda x: x[:, None]", "F"), ("lambda x: x[..., 0]", "F"), ("lambda x: x[-1]", "F"),
    ("lambda x: x[0, 1, 2]", "F"), ("lambda x: x[:]", "F"), ("lambda x: x[...]", "F"), ("lambda x: x[()]", "F"),
    ("lambda x: x[None]", "F"), ("lambda x: x[1, ::-1, 1:3]", "F"), ("lambda x: x[1000]", "F"),
    ("lambda x: x[:, 1::2, ::-3]", "F"), ("lambda x: x[None, 0, None, :, 1]", "F"),
    ("lambda x: x[jnp.array([0, 1])]", "F"), ("lambda x: x[np.array([0, 1])]", "F"),
    ("lambda x: x[np.array([0, 1]), :, np.array([1, 2])]", "F"),
    ("lambda x: x[:, np.array([0, 1]), np.array([1, 2])]", "F"),
    ("lambda x: x[np.array([True, False])]", "F"), ("lambda x: x[np.array([1, 0]), 1]", "F"),
    ("lambda x: x[1, np.array([1, 0])]", "F"), ("lambda x: x[np.array([1, 0]), None]", "F"),
    ("lambda x: x[np.array([1, 0], np.uint8)]", "F"), ("lambda x: x[np.array(1)]", "F"),
    ("lambda x: x[jnp.array(1)]", "F"), ("lambda x: x[::-1, np.array([1, 0])]", "F"),
    ("lambda x: x[:, ::2, np.array([0, 1])]", "F"), ("lambda x: x[np.array([], np.int32)]", "F"),
    ("lambda x: x[True]", "F"), ("lambda x: x[0, True]", "F"), ("lambda x: x[..., np.array([True, False, True, True])]", "F"),
    ("lambda x, i: x[i]", "F, 1"), ("lambda x, i: x[:, i]", "F, 1"), ("lambda x, i: x[i, 1:]", "F, 1"),
    ("lambda x, i: x[i:]", "F, 1"), ("lambda x, i: x[i, ::-1]", "F, 1"), ("lambda x, i: x[i, None]", "F, 1"),
    ("lambda x, i: x[i, ::2]", "F, 1"), ("lambda x, i: x[i, 0]", "F, 1"), ("lambda x, i: x[i, -1]", "F, 1"),
    ("lambda x, i: x[i]", "F, jnp.array(1, jnp.uint8)"), ("lambda x, i: x[i, i]", "F, jnp.array(1, jnp.int8)"),
    ("lambda x, i: x[i]", "F, jnp.array([0, 1])"), ("lambda x, i: x[i, :, i]", "F, jnp.array([0, 1])"),
    ("lambda x, i: x[i > 0]", "F, jnp.array([0, 1])"), ("lambda x, i: x[i]", "V, jnp.array([[0, 1]], jnp.uint32)"),
    ("lambda x, i: x[i, 1:3]", "M, jnp.array([0, 1])"),
    ("lambda x: x.at[0].set(1.)", "F"), ("lambda x: x.at[np.array([0, 1])].add(1.)", "F"),
    ("lambda x: x.at[:, 1].get(mode='fill', fill_value=-1)", "F"), ("lambda x: x.at[1].min(1.)", "F"),
    ("lambda x: x.at[1].mul(1.)", "F"), ("lambda x: x.at[1].max(2)", "X"), ("lambda x: x.at[1].set(2.5)", "X"),
    ("lambda x: x.at[1].apply(lambda v: v * 2)", "M"), ("lambda x: x.at[1].divide(2.)", "M"),
    ("lambda x: x.at[1].power(2.)", "M"), ("lambda x: x.at[1].subtract(2.)", "M"), ("lambda x: x.at[1].get()", "M"),
    ("lambda x: x.at[7].get(mode='fill')", "V"), ("lambda x: x.at[7].get(mode='clip')", "V"),
    ("lambda x: x.at[7].get(mode='fill')", "X"),
    ("lambda x, i: x.at[i].set(0.)", "V, 2"), ("lambda x, i, u: x.at[i].add(u)", "V, jnp.array([1, 2]), jnp.ones(2)"),
    ("lambda x, u: x.at[::2, 1].set(u)", "M, jnp.ones(2)"), ("lambda x, u: x.at[::-1].set(u)", "V, jnp.ones(5)"),
    ("lambda x, u: x.at[None, 1].add(u)", "V, 1."), ("lambda x: x.at[np.array([True, False, True])].set(0.)", "M"),
    ("lambda x: x.at[1, np.array([0, 2])].set(-1, mode='clip')", "M"),
    ("lambda x, i: x.at[i].add(1, mode='promise_in_bounds', unique_indices=True)", "V, jnp.array([0, 4])"),
    ("lambda x: x.at[()].set(3)", "S"), ("lambda x: x.at[1].set(9)", "U"),
    ("lambda x, i: lax.gather(x, i, " + ROWS_G + ", (1, 4))", "M, jnp.array([[0], [2]])"),
    ("lambda x, i: lax.gather(x, i, " + ROWS_G + ", (1, 4), mode='clip')", "M, jnp.array([[0], [2]])"),
    ("lambda x, i: lax.gather(x, i, " + ROWS_G + ", (1, 4), mode='fill', fill_value=2.0)", "M, jnp.array([[0], [2]])"),
    ("lambda x, i: lax.gather(x, i, " + ROWS_G + ", (1, 4), mode='fill')", "M, jnp.array([[0], [2]])"),
    ("lambda x, i: lax.gather(x, i, " + BAT_G + ", (1, 1, 4))", "F, jnp.array([[[1]], [[0]]])"),
    ("lambda x, i, u: lax.scatter(x, i, u, " + ROWS_S + ")", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_add(x, i, u, " + ROWS_S + ")", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_sub(x, i, u, " + ROWS_S + ", mode='clip')", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_mul(x, i, u, " + ROWS_S + ", indices_are_sorted=True)", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_min(x, i, u, " + ROWS_S + ", unique_indices=True)", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_max(x, i, u, " + ROWS_S + ", mode='promise_in_bounds')", "M, jnp.array([[0], [2]]), jnp.ones((2, 4))"),
    ("lambda x, i, u: lax.scatter_add(x, i, u, " + ROWS_S + ")", "X[0], jnp.array([[0], [2]]), jnp.ones((2, 4), jnp.int32)"),
    ("lambda x, i: lax.scatter_apply(x, i, jnp.sin, " + ROWS_S + ", update_shape=(2, 4))", "M, jnp.array([[0], [2]])"),
    ("lambda x, i, u: lax.scatter_add(x, i, u, " + BAT_S + ")", "X, jnp.array([[[1]], [[0]]]), jnp.ones((2, 1, 4), jnp.int32)"),
    ("lambda x: x[None, True]", "F"), ("lambda x, u: x.at[np.array([[0, 1]]), 2].set(u)", "M, jnp.ones((1, 2))"),
]


def record_jaxpr(code, args):
  ns = namespace()
  try:
    fun = eval(code, ns)
    arg_values = eval(f"({args},)", ns)
    text = str(jax.make_jaxpr(fun)(*arg_values))
  except Exception as e:  # noqa: BLE001
    return {"code": code, "args": args, "error": {"type": type(e).__name__, "message": str(e)}}
  return {"code": code, "args": args, "text": text}


def record_jit_errors():
  """Errors that only occur under tracing."""
  cases = [
      ("lambda x, i: x[i:]", "F, 1"), ("lambda x, m: x[m]", "V, jnp.array([True, False, True, False, True])"),
      ("lambda x, m: x.at[m].set(-100.)", "V, jnp.array([True, False, True, False, True])"),
      ("lambda x, i: x[i]", "V, 1.5"), ("lambda x, i: x[::i]", "V, 2"),
      ("lambda x, f: x.at[0].get(mode='fill', fill_value=f)", "V, 1.0"),
      ("lambda x, i: x[i]", "V, jnp.array([0.5])"),
  ]
  out = []
  for code, args in cases:
    ns = namespace()
    fun = eval(code, ns)
    arg_values = eval(f"({args},)", ns)
    try:
      jax.jit(fun)(*arg_values)
      result = {"error": None}
    except Exception as e:  # noqa: BLE001
      result = {"error": {"type": type(e).__name__, "message": str(e)}}
    out.append({"code": code, "args": args, **result})
  return out


def main():
  jax.config.update("jax_enable_x64", False)
  reference = {
      "jax_version": jax.__version__,
      "getitem": [dict(array="X", index=i, **run(f"X[{i}]")) for i in GETITEM_X]
                 + [dict(array=a, index=i, **run(f"{a}[{i}]")) for a, i in GETITEM_OTHER],
      "at": [dict(code=c, **run(c)) for c in AT_CASES],
      "lax": [dict(code=c, **run(c)) for c in LAX_CASES],
      "jaxprs": [record_jaxpr(c, a) for c, a in JAXPRS],
      "jit_errors": record_jit_errors(),
  }
  with open(OUT, "w") as f:
    json.dump(reference, f, indent=1)
  print(f"wrote {OUT}: " + ", ".join(f"{k}={len(v)}" for k, v in reference.items() if isinstance(v, list)))


if __name__ == "__main__":
  main()
