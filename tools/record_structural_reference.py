"""Records what real JAX prints, raises and computes for the structural lax primitives.

    $JAX_PYTHON tools/record_structural_reference.py

Writes tests/data/structural_reference.json: for each snippet below, its source and either the
``str`` of ``out`` or the exception type and message. tests/test_structural.py runs the same
sources under axle (with ``jax`` = axle, ``lax`` = axle.lax, ``np`` = NumPy) and compares.
Snippets use only ``jax.make_jaxpr``/``jax.jit``/``jax.eval_shape``, ``lax`` and NumPy inputs, so
they exercise this family and nothing else. ``describe(a)`` prints an array's dtype, shape and
values (NaNs compare as text).
"""
import json
import os
import re

PRELUDE = '''
def describe(a):
  a = np.asarray(a)
  return f"{a.dtype}{list(a.shape)} {a.tolist()}"
x23 = np.arange(6, dtype=np.float32).reshape(2, 3)
i34 = np.arange(12, dtype=np.int32).reshape(3, 4)
'''

SNIPPETS = {
    # --- printed jaxprs -----------------------------------------------------------------------
    "jaxpr_bid": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)))(x23)",
    "jaxpr_bid_scalar": "out = jax.make_jaxpr(lambda s: lax.broadcast_in_dim(s, (3,), ()))(np.float32(2))",
    "jaxpr_bid_unsorted": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 0)))(np.ones((3, 1), np.float32))",
    "jaxpr_bid_same_shape": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 1)))(x23)",
    "jaxpr_bid_scalar_to_scalar": "out = jax.make_jaxpr(lambda s: lax.broadcast_in_dim(s, (), ()))(np.float32(2))",
    "jaxpr_broadcast": "out = jax.make_jaxpr(lambda x: lax.broadcast(x, (4, 5)))(x23)",
    "jaxpr_broadcast_none": "out = jax.make_jaxpr(lambda x: lax.broadcast(x, ()))(x23)",
    "jaxpr_broadcast_python_scalar": "out = jax.make_jaxpr(lambda: lax.broadcast(1.0, (2,)))()",
    "jaxpr_broadcast_weak_arg": "out = jax.make_jaxpr(lambda s: lax.broadcast(s, (2,)))(1)",
    "jaxpr_broadcast_to_rank": "out = jax.make_jaxpr(lambda x: (lax.broadcast_to_rank(x, 4), lax.broadcast_to_rank(x, 2)))(x23)",
    "jaxpr_reshape": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (3, 2)))(x23)",
    "jaxpr_reshape_dims": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (6,), (1, 0)))(x23)",
    "jaxpr_reshape_identity_dims": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (3, 2), (0, 1)))(x23)",
    "jaxpr_reshape_same": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (2, 3)))(x23)",
    "jaxpr_reshape_scalar": "out = jax.make_jaxpr(lambda s: (lax.reshape(s, ()), lax.reshape(s, (1, 1))))(np.float32(1))",
    "jaxpr_reshape_np_sizes": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (np.int64(3), np.int32(2))))(x23)",
    "jaxpr_collapse": "out = jax.make_jaxpr(lambda x: (lax.collapse(x, 0, 2), lax.collapse(x, 1), lax.collapse(x, 0)))(np.ones((2, 3, 4), np.float32))",
    "jaxpr_squeeze": "out = jax.make_jaxpr(lambda x: (lax.squeeze(x, (0, -1)), lax.squeeze(x, ()), lax.squeeze(x, (2,))))(np.ones((1, 3, 1), np.int32))",
    "jaxpr_expand_dims": "out = jax.make_jaxpr(lambda x: (lax.expand_dims(x, (0, 3)), lax.expand_dims(x, (-1,)), lax.expand_dims(x, [1])))(x23)",
    "jaxpr_expand_dims_scalar": "out = jax.make_jaxpr(lambda s: lax.expand_dims(s, (0, 1)))(np.int8(1))",
    "jaxpr_transpose": "out = jax.make_jaxpr(lambda x: (lax.transpose(x, (2, 0, 1)), lax.transpose(x, (0, 1, 2)), lax.transpose(x, np.array([1, 0, 2]))))(np.ones((2, 3, 4), np.float16))",
    "jaxpr_rev": "out = jax.make_jaxpr(lambda x: (lax.rev(x, (1,)), lax.rev(x, (0, 1)), lax.rev(x, ())))(x23)",
    "jaxpr_concatenate": "out = jax.make_jaxpr(lambda x, y: (lax.concatenate([x, y, x], 1), lax.concatenate([x], 0), lax.concatenate((x, x), 0)))(x23, np.ones((2, 1), np.float32))",
    "jaxpr_concatenate_const": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, np.zeros(3, np.float32)], 0))(np.ones(3, np.float32))",
    "jaxpr_pad": "out = jax.make_jaxpr(lambda x: lax.pad(x, np.float32(0), [(1, -1, 1), (0, 2, 0)]))(x23)",
    "jaxpr_pad_weak_value": "out = jax.make_jaxpr(lambda x, v: lax.pad(x, v, ((2, 3, 0),)))(np.ones(4, np.float32), np.float32(5))",
    "jaxpr_slice": "out = jax.make_jaxpr(lambda x: (lax.slice(x, (0, 1), (2, 3)), lax.slice(x, (0, 1), (2, 3), (2, 1)), lax.slice(x, [0, 0], [1, 3], [1, 1])))(x23)",
    "jaxpr_slice_in_dim": "out = jax.make_jaxpr(lambda x: (lax.slice_in_dim(x, 1, None, axis=1), lax.slice_in_dim(x, -3, -1, 2, 1), lax.slice_in_dim(x, None, 1)))(x23)",
    "jaxpr_index_in_dim": "out = jax.make_jaxpr(lambda x: (lax.index_in_dim(x, 1, axis=1), lax.index_in_dim(x, -1, 0, False)))(x23)",
    "jaxpr_dynamic_slice_traced": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2)))(x23, 0)",
    "jaxpr_dynamic_slice_strong_index": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2)))(x23, np.int32(0))",
    "jaxpr_dynamic_slice_static": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (1, -1), (1, 2)))(x23)",
    "jaxpr_dynamic_slice_uint": "out = jax.make_jaxpr(lambda x, i, j: lax.dynamic_slice(x, (i, j), (1, 2)))(x23, np.uint32(1), np.uint32(0))",
    "jaxpr_dynamic_slice_int8": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, np.int8(1)), (1, 2)))(x23, np.int8(1))",
    "jaxpr_dynamic_slice_no_negative": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2), allow_negative_indices=False))(x23, 0)",
    "jaxpr_dynamic_slice_in_dim": "out = jax.make_jaxpr(lambda x, i: (lax.dynamic_slice_in_dim(x, i, 2, 1), lax.dynamic_slice_in_dim(x, 1, 1)))(x23, 0)",
    "jaxpr_dynamic_index_in_dim": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_index_in_dim(x, i, 1, False))(x23, 0)",
    "jaxpr_dynamic_index_in_dim_static": "out = jax.make_jaxpr(lambda x: lax.dynamic_index_in_dim(x, 1))(x23)",
    "jaxpr_dynamic_update_slice": "out = jax.make_jaxpr(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)))(x23, np.zeros((1, 2), np.float32), 0)",
    "jaxpr_dynamic_update_slice_static": "out = jax.make_jaxpr(lambda x, u: lax.dynamic_update_slice(x, u, (1, -2)))(x23, np.zeros((1, 2), np.float32))",
    "jaxpr_dynamic_update_slice_in_dim": "out = jax.make_jaxpr(lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 1))(x23, np.zeros((2, 1), np.float32), 0)",
    "jaxpr_dynamic_update_index_in_dim": "out = jax.make_jaxpr(lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 1))(x23, np.zeros((2,), np.float32), 0)",
    "jaxpr_iota": "out = jax.make_jaxpr(lambda: (lax.iota(np.int32, 5), lax.iota(np.float16, 0), lax.broadcasted_iota(np.float32, (2, 3), 1), lax.broadcasted_iota('uint8', [4], 0)))()",
    "jaxpr_full": "out = jax.make_jaxpr(lambda: (lax.full((3,), 1.0), lax.full((3,), 1.0, np.int32), lax.full((3, 2), 1), lax.full((2,), True), lax.full((2,), np.float64(2.5)), lax.full((), 1.0), lax.full(2, 7, np.int8)))()",
    "jaxpr_full_traced": "out = jax.make_jaxpr(lambda y: (lax.full((3, 2), y), lax.full((3, 2), y, np.int32)))(1.0)",
    "jaxpr_full_like": "out = jax.make_jaxpr(lambda x, s: (lax.full_like(x, 2), lax.full_like(s, 2), lax.full_like(s, 2, np.int8, (2,)), lax.full_like(x, s)))(x23, 1.0)",
    "jaxpr_split": "out = jax.make_jaxpr(lambda x: (lax.split(x, (1, 2), 1), lax.split(x, (0, 2, 0), 0), lax.split(x, [3], -1)))(x23)",
    # --- weak types -----------------------------------------------------------------------------
    "weak_full": "out = (jax.eval_shape(lambda: lax.full((2,), 1.0)), jax.eval_shape(lambda: lax.full((2,), 1.0, np.float32)), jax.eval_shape(lambda: lax.full((2,), np.float32(1))))",
    "weak_structural": """
def f(s):
  v = lax.broadcast(s, (2,))
  return (v, lax.reshape(v, (2, 1)), lax.rev(v, (0,)), lax.transpose(lax.reshape(v, (1, 2)), (1, 0)),
          lax.slice(v, (0,), (1,)), lax.dynamic_slice(v, (0,), (1,)), lax.expand_dims(v, (0,)),
          lax.split(v, (1, 1)), lax.squeeze(lax.reshape(v, (1, 2)), (0,)))
out = jax.eval_shape(f, 1.0)
""",
    "weak_mixed": """
def f(s):
  v = lax.broadcast(s, (2,))
  w = np.ones(2, np.float32)
  return (lax.concatenate([v, v], 0), lax.concatenate([v, w], 0), lax.pad(v, 0.0, [(1, 1, 0)]),
          lax.pad(w, 0.0, [(1, 1, 0)]), lax.pad(v, np.float32(0), [(1, 1, 0)]),
          lax.dynamic_update_slice(v, w[:1], (0,)), lax.dynamic_update_slice(w, lax.slice(v, (0,), (1,)), (0,)),
          lax.dynamic_update_slice(v, lax.slice(v, (0,), (1,)), (0,)),
          lax.full_like(v, 3), lax.full_like(w, 3))
out = jax.eval_shape(f, 1.0)
""",
    "weak_dynamic_update_slice": "out = jax.eval_shape(lambda s, i: lax.dynamic_update_slice(lax.broadcast(s, (2,)), lax.broadcast(s, (1,)), (i,), allow_negative_indices=False), 1.0, 0)",
    # --- errors (traced, so the shape rules speak) ------------------------------------------------
    "err_reshape_negative": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (-1, 6)))(x23)",
    "err_reshape_dims": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (6,), (0, 0)))(x23)",
    "err_reshape_dims_len": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (6,), (0,)))(x23)",
    "err_reshape_float_size": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (6.0,)))(x23)",
    "err_reshape_traced_size": "out = jax.jit(lambda x, n: lax.reshape(x, (n, 6)))(x23, 1)",
    "err_reshape_size_mismatch": "out = jax.make_jaxpr(lambda x: lax.reshape(x, (4, 2)))(x23)",
    "err_bid_dims_len": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0,)))(x23)",
    "err_bid_rank": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (3,), (0, 1)))(x23)",
    "err_bid_size": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 4), (0, 1)))(x23)",
    "err_bid_range": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 2)))(x23)",
    "err_bid_order": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (3, 2, 3), (2, 0)))(x23)",
    "err_bid_duplicate": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(np.ones((2, 1), np.float32), (2, 3), (0, 0)))(x23)",
    "err_bid_negative_dim": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3, 3), (-1, 1)))(x23)",
    "err_bid_negative_shape": "out = jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, -3), (0, 1)))(x23)",
    "err_transpose_repeat": "out = jax.make_jaxpr(lambda x: lax.transpose(x, (0, 0)))(x23)",
    "err_transpose_len": "out = jax.make_jaxpr(lambda x: lax.transpose(x, (0,)))(x23)",
    "err_transpose_range": "out = jax.make_jaxpr(lambda x: lax.transpose(x, (0, 2)))(x23)",
    "err_transpose_negative": "out = jax.make_jaxpr(lambda x: lax.transpose(x, (-1, 0)))(x23)",
    "err_rev_repeat": "out = jax.make_jaxpr(lambda x: lax.rev(x, (0, 0)))(x23)",
    "err_rev_range": "out = jax.make_jaxpr(lambda x: lax.rev(x, (2,)))(x23)",
    "err_rev_negative": "out = jax.make_jaxpr(lambda x: lax.rev(x, (-1,)))(x23)",
    "err_squeeze_not_one": "out = jax.make_jaxpr(lambda x: lax.squeeze(x, (0,)))(x23)",
    "err_squeeze_range": "out = jax.make_jaxpr(lambda x: lax.squeeze(x, (3,)))(x23)",
    "err_squeeze_repeat": "out = jax.make_jaxpr(lambda x: lax.squeeze(x, (0, 0)))(np.ones((1, 2), np.float32))",
    "err_expand_dims_repeat": "out = jax.make_jaxpr(lambda x: lax.expand_dims(x, (0, 0)))(x23)",
    "err_expand_dims_repeat_after_wrap": "out = jax.make_jaxpr(lambda x: lax.expand_dims(x, (0, -4)))(x23)",
    "err_expand_dims_range": "out = jax.make_jaxpr(lambda x: lax.expand_dims(x, (5,)))(x23)",
    "err_concatenate_empty": "out = jax.make_jaxpr(lambda x: lax.concatenate([], 0))(x23)",
    "err_concatenate_dtype": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, np.ones((2, 3), np.int32)], 0))(x23)",
    "err_concatenate_rank": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, np.ones(3, np.float32)], 0))(x23)",
    "err_concatenate_shape": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, np.ones((3, 3), np.float32)], 1))(x23)",
    "err_concatenate_dimension": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, x], 2))(x23)",
    "err_concatenate_negative_dimension": "out = jax.make_jaxpr(lambda x: lax.concatenate([x, x], -1))(x23)",
    "err_concatenate_scalars": "out = jax.make_jaxpr(lambda s: lax.concatenate([s, s], 0))(np.float32(1))",
    "err_pad_interior": "out = jax.make_jaxpr(lambda x: lax.pad(x, np.float32(0), [(0, 0, -1), (0, 0, 0)]))(x23)",
    "err_pad_config_len": "out = jax.make_jaxpr(lambda x: lax.pad(x, np.float32(0), [(0, 0, 0)]))(x23)",
    "err_pad_dtype": "out = jax.make_jaxpr(lambda x: lax.pad(x, 0, [(0, 0, 0), (0, 0, 0)]))(x23)",
    "err_pad_value_shape": "out = jax.make_jaxpr(lambda x: lax.pad(x, np.zeros(2, np.float32), [(0, 0, 0), (0, 0, 0)]))(x23)",
    "err_pad_negative_size": "out = jax.make_jaxpr(lambda x: lax.pad(x, np.float32(0), [(-2, -1, 0), (0, 0, 0)]))(x23)",
    "err_slice_limit": "out = jax.make_jaxpr(lambda x: lax.slice(x, (0, 0), (3, 3)))(x23)",
    "err_slice_negative_start": "out = jax.make_jaxpr(lambda x: lax.slice(x, (-1, 0), (2, 3)))(x23)",
    "err_slice_order": "out = jax.make_jaxpr(lambda x: lax.slice(x, (2, 0), (1, 3)))(x23)",
    "err_slice_start_len": "out = jax.make_jaxpr(lambda x: lax.slice(x, (0,), (2,)))(x23)",
    "err_slice_limit_len": "out = jax.make_jaxpr(lambda x: lax.slice(x, (0, 0), (2,)))(x23)",
    "err_slice_strides_len": "out = jax.make_jaxpr(lambda x: lax.slice(x, (0, 0), (2, 3), (1,)))(x23)",
    "err_slice_strides_negative": "out = jax.make_jaxpr(lambda x: lax.slice(x, (0, 0), (2, 3), (-1, 1)))(x23)",
    "err_slice_in_dim_limit": "out = jax.make_jaxpr(lambda x: lax.slice_in_dim(x, 0, 5, axis=1))(x23)",
    "err_index_in_dim_range": "out = jax.make_jaxpr(lambda x: lax.index_in_dim(x, 3, axis=1))(x23)",
    "err_dynamic_slice_indices_len": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (0,), (1, 1)))(x23)",
    "err_dynamic_slice_size": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (0, 0), (3, 1)))(x23)",
    "err_dynamic_slice_float_index": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (0.0, 0), (1, 1)))(x23)",
    "err_dynamic_slice_mixed_index": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (np.int32(0), np.int16(0)), (1, 1)))(x23)",
    "err_dynamic_slice_mixed_unsigned": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (np.uint32(0), 0), (1, 1)))(x23)",
    "err_dynamic_slice_nonscalar_index": "out = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 1)))(x23, np.zeros(2, np.int32))",
    "err_dynamic_slice_traced_size": "out = jax.jit(lambda x, n: lax.dynamic_slice(x, (0, 0), (n, 1)))(x23, 1)",
    "err_dynamic_slice_negative_not_allowed": "out = jax.make_jaxpr(lambda x: lax.dynamic_slice(x, (-1, 0), (1, 1), allow_negative_indices=False))(x23)",
    "err_dynamic_update_slice_rank": "out = jax.make_jaxpr(lambda x: lax.dynamic_update_slice(x, np.ones(3, np.float32), (0, 0)))(x23)",
    "err_dynamic_update_slice_size": "out = jax.make_jaxpr(lambda x: lax.dynamic_update_slice(x, np.ones((3, 1), np.float32), (0, 0)))(x23)",
    "err_dynamic_update_slice_dtype": "out = jax.make_jaxpr(lambda x: lax.dynamic_update_slice(x, np.ones((1, 1), np.int32), (0, 0)))(x23)",
    "err_dynamic_update_slice_indices_len": "out = jax.make_jaxpr(lambda x: lax.dynamic_update_slice(x, np.ones((1, 1), np.float32), (0,)))(x23)",
    "err_dynamic_update_slice_float_index": "out = jax.make_jaxpr(lambda x: lax.dynamic_update_slice(x, np.ones((1, 1), np.float32), (0, 1.0)))(x23)",
    "err_iota_dimension": "out = jax.make_jaxpr(lambda: lax.broadcasted_iota(np.int32, (2, 3), 2))()",
    "err_iota_negative_dimension": "out = jax.make_jaxpr(lambda: lax.broadcasted_iota(np.int32, (2, 3), -1))()",
    "err_iota_negative_size": "out = jax.make_jaxpr(lambda: lax.iota(np.int32, -1))()",
    "err_iota_bool": "out = jax.make_jaxpr(lambda: lax.iota(np.bool_, 3))()",
    "err_iota_traced_size": "out = jax.jit(lambda n: lax.iota(np.int32, n))(3)",
    "err_full_nonscalar": "out = jax.make_jaxpr(lambda: lax.full((2,), np.ones(2, np.float32)))()",
    "err_full_negative_shape": "out = jax.make_jaxpr(lambda: lax.full((-2,), 1.0))()",
    "err_full_traced_shape": "out = jax.jit(lambda n: lax.full((n,), 1.0))(3)",
    "err_split_sum": "out = jax.make_jaxpr(lambda x: lax.split(x, (1, 1), 1))(x23)",
    "err_split_negative": "out = jax.make_jaxpr(lambda x: lax.split(x, (4, -1), 1))(x23)",
    "err_split_axis": "out = jax.make_jaxpr(lambda x: lax.split(x, (1, 2), 2))(x23)",
    "err_collapse_range": "out = jax.make_jaxpr(lambda x: lax.collapse(x, 2, 1))(x23)",
    # --- eager values on edge inputs (XLA's semantics) ---------------------------------------------
    "val_dynamic_slice_clamp": "out = [describe(lax.dynamic_slice(i34, s, (2, 2))) for s in [(0, 0), (2, 3), (5, 9), (-1, -1), (-7, -9), (np.int32(2**31 - 1), 1)]]",
    "val_dynamic_slice_clamp_jit": "out = [describe(jax.jit(lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)))(i34, i, j)) for i, j in [(0, 0), (2, 3), (-1, -5), (100, -100), (-2, 1)]]",
    "val_dynamic_slice_unsigned": "out = [describe(lax.dynamic_slice(i34, (np.uint32(i), np.uint32(j)), (2, 2))) for i, j in [(0, 0), (1, 5), (2**31 + 5, 2**32 - 1)]]",
    "val_dynamic_slice_no_negative": "out = describe(jax.jit(lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 4), allow_negative_indices=False))(i34, -1))",
    "val_dynamic_slice_int8_index": "out = describe(jax.jit(lambda x, i: lax.dynamic_slice(x, (i, np.int8(0)), (1, 4)))(i34, np.int8(-1)))",
    "val_dynamic_slice_zero_size": "out = [describe(lax.dynamic_slice(i34, (5, 1), (0, 2))), describe(lax.dynamic_slice(np.zeros((0, 3), np.float32), (1, 1), (0, 2)))]",
    "val_dynamic_update_slice_clamp": "out = [describe(lax.dynamic_update_slice(i34, -np.ones((2, 3), np.int32), s)) for s in [(0, 0), (2, 3), (-1, -1), (9, -9)]]",
    "val_dynamic_update_slice_clamp_jit": "out = [describe(jax.jit(lambda x, i, j: lax.dynamic_update_slice(x, np.full((2, 2), 9, np.int32), (i, j)))(i34, i, j)) for i, j in [(1, 1), (-1, 7), (-9, 2)]]",
    "val_dynamic_in_dim": "out = [describe(lax.dynamic_slice_in_dim(i34, -1, 2, 1)), describe(lax.dynamic_index_in_dim(i34, 5, 0, False)), describe(lax.dynamic_update_slice_in_dim(i34, np.zeros((1, 4), np.int32), -1, 0)), describe(lax.dynamic_update_index_in_dim(i34, np.zeros(3, np.int32), 7, 1))]",
    "val_pad": "out = [describe(lax.pad(i34, np.int32(-1), c)) for c in [[(1, -1, 1), (0, 2, 0)], [(-2, -2, 2), (-3, 1, 1)], [(0, 0, 3), (-1, -2, 0)], [(-5, 0, 1), (1, 1, 0)], [(-1, -1, 0), (-2, -2, 0)]]]",
    "val_pad_empty_operand": "out = [describe(lax.pad(np.zeros((0, 2), np.float32), np.float32(7), [(1, 2, 3), (0, 0, 1)])), describe(lax.pad(np.zeros((0,), np.float32), np.float32(7), [(-1, 2, 0)]))]",
    "val_pad_dtypes": "out = [describe(lax.pad(np.array([True, False]), False, [(1, 1, 1)])), describe(lax.pad(np.array([1 + 2j], np.complex64), np.complex64(3j), [(1, 0, 0)])), describe(lax.pad(np.array([1, 2], np.uint8), np.uint8(255), [(0, 1, 2)]))]",
    "val_slice_strided": "out = [describe(lax.slice(i34, (0, 1), (3, 4), (2, 2))), describe(lax.slice(i34, (1, 0), (3, 4), (5, 3))), describe(lax.slice(i34, (1, 1), (1, 4), (1, 2)))]",
    "val_iota": "out = [describe(np.asarray(lax.iota(np.float16, 2100))[2040:]), describe(np.asarray(lax.iota('bfloat16', 300))[250:]), describe(lax.broadcasted_iota(np.complex64, (2, 3), 0)), describe(lax.iota(np.uint8, 3)), describe(lax.broadcasted_iota(np.int16, (2, 0, 3), 2))]",
    "val_iota_int8_wrap": "out = describe(np.asarray(lax.iota(np.int8, 260))[120:140])",
    "val_broadcast_in_dim": "out = [describe(lax.broadcast_in_dim(np.array([[1], [2], [3]], np.int32), (2, 3, 2), (1, 0))), describe(lax.broadcast_in_dim(np.array([1, 2], np.int8), (2, 0), (0,)))]",
    "val_reshape_dims": "out = [describe(lax.reshape(i34, (2, 6), (1, 0))), describe(lax.reshape(np.zeros((0, 3), np.float32), (3, 0, 5)))]",
    "val_full_conversions": "out = [describe(lax.full((2,), 1.7, np.int32)), describe(lax.full((2,), -1.7, np.int32)), describe(lax.full((2,), True, np.float32)), describe(lax.full((2,), 3, 'bfloat16')), describe(lax.full((2,), 2, np.bool_)), describe(lax.full((1,), 1.5, np.complex64)), describe(lax.full((2,), 1e10, np.float16))]",
    "val_split": "out = [describe(p) for p in lax.split(i34, (1, 0, 3), 1)]",
    "val_rev_transpose_concat": "out = [describe(lax.rev(i34, (0, 1))), describe(lax.transpose(np.arange(6, dtype=np.int8).reshape(1, 2, 3), (2, 0, 1))), describe(lax.concatenate([np.zeros((0, 2), np.float32), np.ones((2, 2), np.float32), np.zeros((1, 2), np.float32)], 0))]",
}


def normalize(text: str) -> str:
  """Masks what legitimately differs between runs: file paths, line numbers, addresses."""
  text = re.sub(r"<snippet>:\d+", "<snippet>:N", text)
  text = re.sub(r"0x[0-9a-f]+", "0x?", text)
  return text


def run(source: str, namespace: dict) -> dict:
  namespace = dict(namespace)
  exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
  try:
    exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:  # recorded, compared by type and message
    return {"error": type(e).__name__, "message": normalize(str(e))}
  return {"out": normalize(str(namespace.get("out")))}


def main():
  import warnings

  import jax  # noqa: E402  (this script runs under real JAX, never under pytest)
  import numpy as np
  from jax import lax
  warnings.simplefilter("ignore")
  namespace = {"jax": jax, "lax": lax, "np": np}
  results = {name: dict(source=source, **run(source, namespace)) for name, source in SNIPPETS.items()}
  here = os.path.dirname(os.path.abspath(__file__))
  path = os.path.join(here, "..", "tests", "data", "structural_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "prelude": PRELUDE, "results": results}, f, indent=1,
              sort_keys=True)
  print(f"wrote {len(results)} results to {path}")


if __name__ == "__main__":
  main()
