"""lax.tile, stack, unstack, empty, mulhi and optimization_barrier: values, jaxprs, StableHLO,
grad and vmap. The expected texts and numbers are what JAX 0.10.2 prints for the same programs."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax

X = jnp.arange(6.).reshape(2, 3)


def _jaxpr(f, *args):
  return str(jax.make_jaxpr(f)(*args))


def test_tile_values_jaxpr_and_lowering():
  np.testing.assert_array_equal(lax.tile(X, (2, 2)), np.tile(np.arange(6.).reshape(2, 3), (2, 2)))
  assert _jaxpr(lambda x: lax.tile(x, (2, 1)), X) == (
      "{ lambda ; a:f32[2,3]. let b:f32[4,3] = tile[reps=(2, 1)] a in (b,) }")
  text = jax.jit(lambda x: lax.tile(x, (2, 1))).lower(X).as_text()
  assert "stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x2x1x3xf32>" in text
  assert "dims = [0, 1, 2, 3] : (tensor<1x2x1x3xf32>) -> tensor<2x2x1x3xf32>" in text
  with pytest.raises(TypeError, match="reps length must be equal to the ndim"):
    lax.tile(X, (2,))


def test_tile_grad_and_vmap():
  np.testing.assert_array_equal(jax.grad(lambda x: (lax.tile(x, (2, 3)) * 1.0).sum())(X),
                                np.full((2, 3), 6.0))
  assert "e:f32[2,3] = reduce_sum[axes=(0, 2) out_sharding=None] d" in _jaxpr(
      jax.grad(lambda x: lax.tile(x, (2, 1)).sum()), X)
  assert _jaxpr(jax.vmap(lambda x: lax.tile(x, (2,))), X) == (
      "{ lambda ; a:f32[2,3]. let b:f32[2,6] = tile[reps=(1, 2)] a in (b,) }")


def test_stack_unstack():
  np.testing.assert_array_equal(lax.stack([X, 2 * X], axis=1),
                                np.stack([np.asarray(X), 2 * np.asarray(X)], axis=1))
  pieces = lax.unstack(X, axis=1)
  assert isinstance(pieces, tuple) and len(pieces) == 3
  np.testing.assert_array_equal(pieces[2], [2., 5.])
  assert _jaxpr(lambda x: lax.stack([x, x], axis=1), X) == (
      "{ lambda ; a:f32[2,3]. let b:f32[2,2,3] = stack[axis=1] a a in (b,) }")
  text = jax.jit(lambda x: lax.stack([x, x], axis=1)).lower(X).as_text()
  assert "stablehlo.concatenate %0, %1, dim = 1" in text
  assert "b:f32[2] c:f32[2] d:f32[2] = unstack[axis=1] a" in _jaxpr(
      lambda x: lax.unstack(x, axis=1), X)


def test_stack_unstack_grad_vmap():
  g = _jaxpr(jax.grad(lambda x: lax.stack([x, 2 * x], axis=1).sum()), X)
  assert "e:f32[2,3] f:f32[2,3] = unstack[axis=1] d" in g
  np.testing.assert_array_equal(jax.grad(lambda x: lax.stack([x, 2 * x], axis=1).sum())(X),
                                np.full((2, 3), 3.0))
  g = _jaxpr(jax.grad(lambda x: lax.unstack(x, axis=1)[0].sum()), X)
  assert "f:f32[2,3] = stack[axis=1] c d e" in g
  v = _jaxpr(jax.vmap(lambda x: lax.stack([x, x])), X)
  assert "b:f32[2,2,3] = stack[axis=0] a a" in v and "transpose[permutation=(1, 0, 2)]" in v
  out = jax.vmap(lambda x: lax.stack([x, x]))(X)
  np.testing.assert_array_equal(out, np.stack([np.asarray(X)] * 2, axis=1))
  outs = jax.vmap(lambda x: lax.unstack(x))(X)
  np.testing.assert_array_equal(outs[1], [1., 4.])


def test_empty():
  out = lax.empty((2,), jnp.float32)
  assert out.shape == (2,) and out.dtype == np.float32
  assert "empty[" in _jaxpr(lambda: lax.empty((2,), jnp.float32))
  assert jax.jit(lambda: lax.empty((2, 2), jnp.int32))().shape == (2, 2)


def test_empty_jaxpr_keeps_the_dtype_object_and_batches():
  assert _jaxpr(lambda: lax.empty((3,), jnp.float32)) == (
      "{ lambda ; . let\n    a:f32[3] = empty[\n      dtype=<class 'jax.numpy.float32'>\n"
      "      out_sharding=None\n      shape=(3,)\n    ] \n  in (a,) }")
  assert "empty[dtype=<class 'numpy.int32'> out_sharding=None shape=(3,)]" in _jaxpr(
      lambda: lax.empty((3,), np.int32))
  assert "empty[dtype=float32 out_sharding=None shape=(3,)]" in _jaxpr(
      lambda: lax.empty((3,), "float32"))
  # JAX batches empty (no operands) with the vmap's size at axis 0.
  v = _jaxpr(jax.vmap(lambda x: lax.empty((3,), jnp.float32).sum() + x), jnp.ones(2))
  assert "b:f32[2,3] = empty[" in v and "shape=(2, 3)" in v
  assert "c:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] b" in v
  np.testing.assert_array_equal(jax.vmap(lambda x: lax.empty((3,), jnp.float32) + x)(
      jnp.ones(2)), np.ones((2, 3)))


def test_mulhi_matches_jax():
  u = lax.mulhi(jnp.array([0xffffffff, 5, 0xfffffffd], jnp.uint32),
                jnp.array([0xfffffff0, 7, 9], jnp.uint32))
  np.testing.assert_array_equal(u, np.array([4294967279, 0, 8], np.uint32))
  s = jax.jit(lax.mulhi)(jnp.array([-1, 5, -3, 2**31 - 1], jnp.int32),
                         jnp.array([7, 7, 9, 2**31 - 1], jnp.int32))
  np.testing.assert_array_equal(s, np.array([-1, 0, -1, 1073741823], np.int32))
  assert _jaxpr(lax.mulhi, jnp.uint32(5), jnp.uint32(7)) == (
      "{ lambda ; a:u32[] b:u32[]. let c:u32[] = mulhi a b in (c,) }")
  assert "chlo.mulhi" in jax.jit(lax.mulhi).lower(jnp.uint32(5), jnp.uint32(7)).as_text()
  assert "mulhi a b" in _jaxpr(jax.vmap(lax.mulhi), jnp.arange(3, dtype=jnp.uint32),
                               jnp.arange(3, dtype=jnp.uint32))


def test_optimization_barrier():
  assert _jaxpr(lambda x, y: lax.optimization_barrier((x, y)), X, 1.) == (
      "{ lambda ; a:f32[2,3] b:f32[]. let\n    c:f32[2,3] d:f32[] = optimization_barrier a b\n"
      "  in (c, d) }")
  text = jax.jit(lambda x, y: lax.optimization_barrier((x, y))).lower(X, 1.).as_text()
  assert "%0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2x3xf32>, tensor<f32>" in text
  out = jax.jit(lambda x: lax.optimization_barrier({"a": x, "b": x + 1}))(X)
  np.testing.assert_array_equal(out["b"], np.asarray(X) + 1)
  g = _jaxpr(jax.grad(lambda x: lax.optimization_barrier(x).sum()), X)
  assert "b:f32[2,3] = optimization_barrier a" in g and "d:f32[2,3] = optimization_barrier c" in g
  np.testing.assert_array_equal(jax.grad(lambda x: (lax.optimization_barrier(x) ** 2).sum())(X),
                                2 * np.asarray(X))
  assert _jaxpr(jax.vmap(lax.optimization_barrier), X) == (
      "{ lambda ; a:f32[2,3]. let b:f32[2,3] = optimization_barrier a in (b,) }")


def test_primitive_names_exported():
  for name in ("tile_p", "stack_p", "unstack_p", "empty_p", "mulhi_p", "optimization_barrier_p",
               "approx_top_k_p"):
    assert getattr(lax, name).name == name[:-2]


# approx_max_k / approx_min_k (lax.sorting): on CPU JAX returns the exact top-k.
A = jnp.array([[3., 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3]])


def test_approx_max_min_k_values_match_jax():
  values, indices = lax.approx_max_k(A, 2)
  np.testing.assert_array_equal(values, [[9., 6.], [9., 9.]])
  np.testing.assert_array_equal(indices, [[5, 7], [4, 6]])
  values, indices = jax.jit(lambda x: lax.approx_min_k(x, 3))(A)
  np.testing.assert_array_equal(values, [[1., 1., 2.], [3., 3., 5.]])
  np.testing.assert_array_equal(indices, [[1, 3, 6], [1, 7, 0]])
  values, indices = lax.approx_min_k(A, 2, reduction_dimension=0, aggregate_to_topk=False)
  np.testing.assert_array_equal(values, [[3., 1, 4, 1, 5, 7, 2, 3], [5, 3, 5, 8, 9, 9, 9, 6]])
  np.testing.assert_array_equal(indices, [[0, 0, 0, 0, 0, 1, 0, 1], [1, 1, 1, 1, 1, 0, 1, 0]])
  with pytest.raises(ValueError, match="floating type"):
    lax.approx_min_k(jnp.array([3, 1, 2], jnp.int32), 2)


def test_approx_max_k_jaxpr_grad_vmap():
  text = _jaxpr(lambda x: lax.approx_max_k(x, 2), A)
  assert "b:f32[2,2] c:i32[2,2] = approx_top_k[" in text
  for param in ("aggregate_to_topk=True", "is_max_k=True", "k=2", "recall_target=0.95",
                "reduction_dimension=-1", "reduction_input_size_override=-1"):
    assert param in text
  np.testing.assert_array_equal(jax.grad(lambda x: lax.approx_max_k(x, 2)[0].sum())(A),
                                [[0, 0, 0, 0, 0, 1, 0, 1], [0, 0, 0, 0, 1, 0, 1, 0]])
  assert "reduction_dimension=1" in _jaxpr(jax.vmap(lambda x: lax.approx_max_k(x, 2)), A)


def test_platform_dependent_picks_cpu_branch_or_default():
  x = jnp.arange(3.)
  np.testing.assert_array_equal(
      jax.jit(lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos))(x), jnp.sin(x))
  np.testing.assert_array_equal(lax.platform_dependent(x, tpu=jnp.sin, default=jnp.cos),
                                jnp.cos(x))
  with pytest.raises(NotImplementedError, match="not found for platform cpu"):  # JAX's message
    lax.platform_dependent(x, tpu=jnp.sin)


def test_conv_general_dilated_patches_matches_jax():
  x = (np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) * 0.37).astype(np.float32)
  a = jax.jit(lambda x: lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID"))(x)
  assert a.shape == (1, 8, 3, 3)
  np.testing.assert_array_equal(np.asarray(a).ravel()[:12], np.float32(
      [0.0, 0.37, 0.74, 1.48, 1.85, 2.22, 2.96, 3.33, 3.70, 0.37, 0.74, 1.11]) * np.float32(1))
  assert np.float32(np.asarray(a).sum()) == np.float32(412.91998)
  b = lax.conv_general_dilated_patches(x.transpose(0, 2, 3, 1), (3, 2), (2, 1), "SAME",
                                       rhs_dilation=(1, 2),
                                       dimension_numbers=("NHWC", "OIHW", "NHWC"))
  assert b.shape == (1, 2, 4, 12)
  assert np.float32(np.asarray(b).sum()) == np.float32(352.97998)


def test_composite_calls_decomposition():
  g = lax.composite(lambda a, scale=2.0: a * scale + 1, name="my.double")
  x = jnp.arange(3.)
  np.testing.assert_array_equal(jax.jit(g)(x), [1., 3., 5.])
  np.testing.assert_array_equal(g(x, scale=3.0), [1., 4., 7.])
  with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
    jax.grad(lambda x: g(x).sum())(x)  # as in JAX: wrap it in custom_jvp to differentiate
  with pytest.raises(TypeError, match="name must be a non-empty string"):
    lax.composite(lambda a: a, name="")


@pytest.mark.parametrize("sizes,bit_sum", [([3, 3], 19680932675), ([1, 4], 16429148698),
                                           ([0, 6], 19793819372), ([2, 2], 13066095831)])
def test_ragged_dot_jit_bits_match_jax(sizes, bit_sum):
  # bit_sum: the sum of the uint32 bit patterns of JAX's jitted result for the same inputs, on
  # the CI machine (XLA:CPU's last bits depend on the CPU's instruction set, here AVX-512).
  x = jnp.arange(24.).reshape(6, 4) / 7
  y = jnp.arange(24.).reshape(2, 4, 3) / 5
  out = jax.jit(lax.ragged_dot)(x, y, jnp.array(sizes, jnp.int32))
  assert out.shape == (6, 3)
  assert int(np.asarray(out).view(np.uint32).sum(dtype=np.uint64)) == bit_sum
  if sum(sizes) < 6:
    np.testing.assert_array_equal(np.asarray(out)[sum(sizes):], 0)


def test_rng_bit_generator_matches_jax():
  key = jnp.array([1, 2, 3, 4], jnp.uint32)
  assert _jaxpr(lambda k: lax.rng_bit_generator(k, (4,)), key) == (
      "{ lambda ; a:u32[4]. let\n    b:u32[4] c:u32[4] = rng_bit_generator[\n"
      "      algorithm=RNG_DEFAULT\n      dtype=uint32\n      out_sharding=None\n"
      "      shape=(4,)\n    ] a\n  in (b, c) }")
  new_key, bits = jax.jit(lambda k: lax.rng_bit_generator(k, (2, 3)))(key)
  assert np.asarray(new_key).tolist() == [1, 2, 5, 4]
  assert np.asarray(bits).tolist() == [[512747620, 1298009047, 1267190206],
                                       [761827841, 1383286907, 1639995030]]
  text = jax.jit(lambda k: lax.rng_bit_generator(k, (4,))).lower(key).as_text()
  assert "stablehlo.rng_bit_generator" in text and "DEFAULT" in text
  vk, vb = jax.vmap(lambda k: lax.rng_bit_generator(k, (2, 3)))(jnp.stack([key, key]))
  np.testing.assert_array_equal(vb[1], bits)
  with pytest.raises(TypeError, match="unsigned integer"):
    lax.rng_bit_generator(key, (2,), dtype=jnp.float32)
