"""JVP, transpose and batching rules of the structural and indexing primitives (structural.py,
slicing.py): printed jaxprs of grad/vjp/jvp/vmap against what real JAX printed, known answers,
vmap with batch dimensions in unusual places, and compositions (grad of vmap, vmap of grad).

tests/data/structural_transforms_reference.json was recorded by
tools/record_structural_transforms_reference.py under JAX 0.10.2.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import axle
import axle.numpy as jnp
from axle import lax
from axle.test_util import check_grads
from tests.reference_data import load_reference
from tests.snippet_harness import assert_matches, run_snippet, snippet_params

REFERENCE = load_reference("structural_transforms_reference.json")

# Known differences from JAX's printed text (strict xfails: fixing one makes the test fail).
_FLOAT0_ZEROS = ("the cotangent of an integer input: JAX builds it in the jaxpr "
                 "(broadcast_in_dim of a float0 literal), axle closes over a float0 constant "
                 "(differentiation.py, not this family's rules)")
_BROADCAST_DIMS = ("batching.broadcast (unbatched operand moved to a batched one) prints Python "
                   "ints; JAX's computes broadcast_dimensions with np.delete and prints "
                   "np.int64 (interpreters/batching.py, not this family's rules)")
KNOWN_DIFFERENCES = {
    "vjp_gather_index": _FLOAT0_ZEROS,
    "vjp_gather_lax": _FLOAT0_ZEROS,
}


@pytest.mark.parametrize("name", snippet_params(REFERENCE["results"], KNOWN_DIFFERENCES))
def test_snippet_matches_jax(name):
  expected = REFERENCE["results"][name]
  actual = run_snippet(expected["source"], prelude=REFERENCE["prelude"])
  assert_matches(expected, actual)


# ---------------------------------------------------------------------------
# Helpers


def _loop(f, *args, in_axes):
  """What vmap(f, in_axes) must compute: f per example, results stacked on axis 0."""
  sizes = {np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None}
  (size,) = sizes
  outs = []
  for k in range(size):
    example = [jnp.asarray(a if ax is None else np.take(a, k, axis=ax))
               for a, ax in zip(args, in_axes)]
    outs.append(f(*example))
  if isinstance(outs[0], (tuple, list)):
    return [np.stack([np.asarray(o[j]) for o in outs]) for j in range(len(outs[0]))]
  return np.stack([np.asarray(o) for o in outs])


def _check_vmap(f, *args, in_axes, jit=True):
  expected = _loop(f, *args, in_axes=in_axes)
  variants = [axle.vmap(f, in_axes=in_axes)]
  if jit:
    variants.append(axle.jit(axle.vmap(f, in_axes=in_axes)))
  for g in variants:
    actual = g(*args)
    if isinstance(expected, list):
      for a, e in zip(actual, expected):
        np.testing.assert_array_equal(np.asarray(a), e)
    else:
      np.testing.assert_array_equal(np.asarray(actual), expected)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5, 3)).astype(np.float32)


# ---------------------------------------------------------------------------
# Known answers


def test_grad_of_indexing_accumulates_repeated_indices():
  g = axle.grad(lambda x: jnp.sum(x[np.array([0, 0, 2, -1])]))(np.ones(3, np.float32))
  np.testing.assert_array_equal(np.asarray(g), [2.0, 0.0, 2.0])


def test_grad_of_gather_modes_out_of_bounds():
  x = np.ones(3, np.float32)
  idx = np.array([0, 5, 2])
  fill = axle.grad(lambda x: jnp.sum(x.at[idx].get(mode="fill", fill_value=0)))(x)
  np.testing.assert_array_equal(np.asarray(fill), [1.0, 0.0, 1.0])  # the filled window: 0
  clip = axle.grad(lambda x: jnp.sum(x.at[idx].get(mode="clip")))(x)
  np.testing.assert_array_equal(np.asarray(clip), [1.0, 0.0, 2.0])  # clamped onto the last


def test_grad_of_clamped_dynamic_slices():
  x = np.array([1.0, 2.0, 3.0], np.float32)
  g = axle.grad(lambda x: jnp.sum(lax.dynamic_slice(x, (2,), (2,))))(x)
  np.testing.assert_array_equal(np.asarray(g), [0.0, 1.0, 1.0])  # start clamped to 1
  u = np.array([7.0, 8.0], np.float32)
  gx, gu = axle.grad(lambda x, u: jnp.sum(lax.dynamic_update_slice(x, u, (5,)) * x),
                     (0, 1))(x, u)
  np.testing.assert_array_equal(np.asarray(gx), [2.0, 7.0, 8.0])
  np.testing.assert_array_equal(np.asarray(gu), [2.0, 3.0])


def test_grad_of_scatter_max_splits_ties():
  x = np.array([1.0, 2.0, 3.0], np.float32)
  u = np.array([1.0, 1.0, 0.0], np.float32)
  gx, gu = axle.grad(lambda x, u: jnp.sum(x.at[np.array([0, 0, 1])].max(u)), (0, 1))(x, u)
  # position 0: the operand value and two updates tie at 1.0 -> 1/3 each
  np.testing.assert_allclose(np.asarray(gx), [1 / 3, 1.0, 1.0], rtol=1e-6)
  np.testing.assert_allclose(np.asarray(gu), [1 / 3, 1 / 3, 0.0], rtol=1e-6)


def test_grad_of_scatter_set_with_repeated_indices_follows_the_winner():
  x = np.array([1.0, 2.0, 3.0], np.float32)
  u = np.array([5.0, 6.0, 7.0], np.float32)
  w = np.array([1.0, 2.0, 3.0], np.float32)
  f = lambda x, u: jnp.sum(jnp.asarray(x).at[np.array([0, 2, 0])].set(u) * w)
  gx, gu = axle.grad(f, (0, 1))(x, u)
  np.testing.assert_array_equal(np.asarray(gx), [0.0, 2.0, 0.0])
  np.testing.assert_array_equal(np.asarray(gu), [0.0, 3.0, 1.0])  # the last update wins
  np.testing.assert_array_equal(np.asarray(f(x, u)), 7.0 + 4.0 + 18.0)


def test_scatter_mul_updates_gradient_needs_unique_indices():
  x = np.ones(3, np.float32)
  with pytest.raises(NotImplementedError, match="unique_indices=True"):
    axle.grad(lambda u: jnp.sum(jnp.asarray(x).at[np.array([0, 0])].multiply(u)))(
        np.ones(2, np.float32))
  # with respect to the operand it works for any indices
  g = axle.grad(lambda x: jnp.sum(x.at[np.array([0, 0])].multiply(np.float32(3))))(x)
  np.testing.assert_array_equal(np.asarray(g), [9.0, 1.0, 1.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64])
def test_cotangents_have_the_operand_shape_and_dtype(dtype):
  x = np.ones((2, 1), dtype)
  cases = [
      lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
      lambda x: lax.pad(x, np.array(0, dtype), [(1, 2, 1), (0, -1, 0)]),
      lambda x: lax.slice(lax.concatenate([x, x, x], 1), (0, 1), (2, 3)),
      lambda x: lax.dynamic_slice(lax.reshape(x, (1, 2)), (0, np.int32(1)), (1, 1)),
      lambda x: lax.squeeze(x, (1,)),
      lambda x: x[np.array([1, 1, 0])],
  ]
  for f in cases:
    out, f_vjp = axle.vjp(f, x)
    (ct,) = f_vjp(jnp.ones_like(out))
    assert ct.shape == x.shape and ct.dtype == x.dtype, f


def test_pad_transpose_gives_the_padding_value_its_share():
  # d/dv sum(pad(x, v)) = number of padding positions
  x = np.ones((2, 3), np.float32)
  config = [(1, -1, 1), (0, 2, 0)]
  gx, gv = axle.grad(lambda x, v: jnp.sum(lax.pad(x, v, config) * 2.0), (0, 1))(
      x, np.float32(0))
  out_size = lax.pad(x, np.float32(0), config).size
  kept = 2 * 3 - 3  # the negative high padding crops the last row of x
  np.testing.assert_array_equal(np.asarray(gx), [[2, 2, 2], [0, 0, 0]])
  assert float(gv) == 2.0 * (out_size - kept)


# ---------------------------------------------------------------------------
# check_grads (order 2, both modes) through the family's compositions


def test_check_grads_indexing_and_updates():
  x = RNG.standard_normal((4, 3)).astype(np.float32)
  u = RNG.standard_normal((2, 3)).astype(np.float32)
  i = np.array([3, 1], np.int32)
  check_grads(lambda x: jnp.sin(x[i]) * x[0], (x,), order=2)
  a = jnp.asarray
  check_grads(lambda x, u: a(x).at[i].add(u * x[:2]), (x, u), order=2)
  check_grads(lambda x, u: a(x).at[np.array([3, 1, 3])].set(u[np.array([0, 1, 0])] ** 2), (x, u),
              order=2)
  check_grads(lambda x: a(x).at[np.array([0, 2, 0])].max(x[1:4] * 2), (x,), order=2)
  check_grads(lambda x, u: lax.dynamic_update_slice(x, u * x[:2], (np.int32(1), np.int32(0))),
              (x, u), order=2)
  check_grads(lambda x: lax.pad(x * x, x[0, 0], [(1, -1, 2), (0, 1, 0)]), (x,), order=2)


# ---------------------------------------------------------------------------
# vmap: indexing with batched indices and batch axes in unusual places


def test_vmap_indexing_batched_scalar_index():
  x = X[0]  # (5, 3)
  i = np.array([4, 0, -1, 2, 7, -9], np.int32)  # out-of-range ones clamp like the loop
  _check_vmap(lambda i: jnp.asarray(x)[i], i, in_axes=(0,))
  _check_vmap(lambda x, i: x[i], X, i[:4], in_axes=(0, 0))
  _check_vmap(lambda x, i: x[i], X, i[:3], in_axes=(2, 0))  # operand batched in its last axis
  _check_vmap(lambda x, i: x[:, i], X, i[:4], in_axes=(0, 0))


def test_vmap_indexing_batched_index_arrays_select_different_rows():
  rows = np.array([[0, 3, 3], [4, 1, 0], [2, 2, 2], [-1, 0, 1]], np.int32)
  _check_vmap(lambda i: jnp.asarray(X[0])[i], rows, in_axes=(0,))
  _check_vmap(lambda x, i: x[i], X, rows, in_axes=(0, 0))
  _check_vmap(lambda x, i: x[i, 1:], X, rows.T, in_axes=(0, 1))  # indices batched on axis 1
  _check_vmap(lambda x, i, j: x[i, j], X, rows, rows % 3, in_axes=(0, 0, 0))
  _check_vmap(lambda x, i: x[1:3, i], X[:, :4], rows[:, :2] % 3, in_axes=(1, 0))
  _check_vmap(lambda x, i: jnp.take(x, i, axis=1), X, rows, in_axes=(0, 0))


def test_vmap_index_updates():
  x = X[:, :, 0]  # (4, 5)
  i = np.array([[0, 3, 0], [4, 4, 1], [2, 0, 2], [1, 1, 1]], np.int32)
  u = RNG.standard_normal((4, 3)).astype(np.float32)
  for method in ("set", "add", "multiply", "min", "max"):
    f = lambda x, i, u, method=method: getattr(jnp.asarray(x).at[i], method)(u)
    _check_vmap(f, x, i, u, in_axes=(0, 0, 0))
    _check_vmap(f, x[0], i, u, in_axes=(None, 0, 0))
    _check_vmap(f, x.T, i[0], u.T, in_axes=(1, None, 1))
    _check_vmap(f, x[0], i[0], u, in_axes=(None, None, 0))


def test_vmap_dynamic_slices_index_batched():
  x = X[:, :, 1]  # (4, 5)
  starts = np.array([-2, 0, 3, 9], np.int32)  # negative ones wrap, then all clamp
  ds = lambda x, i: lax.dynamic_slice(x, (i, np.int32(1)), (2, 3))
  _check_vmap(ds, x, starts, in_axes=(None, 0))
  _check_vmap(ds, np.stack([x] * 4, 2), starts, in_axes=(2, 0))
  _check_vmap(ds, np.stack([x] * 3, 1), starts[0], in_axes=(1, None))
  _check_vmap(lambda x, i: lax.dynamic_slice(x, (i, i), (2, 2)), X.transpose(2, 0, 1),
              starts[:3], in_axes=(0, 0))
  u = RNG.standard_normal((4, 2, 3)).astype(np.float32)
  dus = lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(2)))
  _check_vmap(dus, x, u, starts, in_axes=(None, 0, 0))
  _check_vmap(dus, x, u[0], starts, in_axes=(None, None, 0))
  _check_vmap(dus, np.stack([x] * 4, 1), u, starts[1], in_axes=(1, 0, None))
  _check_vmap(dus, np.stack([x] * 2, 2), u[:2].transpose(1, 2, 0), starts[:2], in_axes=(2, 2, 0))
  _check_vmap(lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False), X, starts,
              in_axes=(0, 0))


@pytest.mark.parametrize("ax", [0, 1, 2, -1])
def test_vmap_structural_batch_axes_anywhere(ax):
  y = RNG.standard_normal((3, 4, 2)).astype(np.float32)  # examples: y taken along ``ax``
  example_shape = np.take(y, 0, axis=ax).shape
  _check_vmap(lambda x: lax.broadcast_in_dim(x, (2,) + x.shape + (3,), (1, 2)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.expand_dims(x, (0, 2)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.transpose(x, (1, 0)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.reshape(x, (int(np.prod(example_shape)),), (1, 0)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.reshape(x, example_shape[::-1]), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.rev(x, (0,)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.slice(x, (1, 0), example_shape, (1, 2)), y, in_axes=(ax,))
  _check_vmap(lambda x: lax.split(x, (1, example_shape[1] - 1), 1), y, in_axes=(ax,))
  _check_vmap(lambda x, z: lax.concatenate([x, z, x], 1), y, np.take(y, 1, axis=ax),
              in_axes=(ax, None))
  _check_vmap(lambda x, z: lax.concatenate([x, z], 0), y, y[::-1, ::-1, ::-1], in_axes=(ax, ax))
  config = [(1, -1, 1), (0, 2, 0)]
  values = np.arange(y.shape[ax], dtype=np.float32) + 10
  _check_vmap(lambda x, v: lax.pad(x, v, config), y, values, in_axes=(ax, 0))
  _check_vmap(lambda x, v: lax.pad(x, v, config), y, np.float32(-1), in_axes=(ax, None))
  _check_vmap(lambda x, v: lax.pad(x, v, config), np.take(y, 0, axis=ax), values,
              in_axes=(None, 0))


def test_vmap_squeeze():
  y = RNG.standard_normal((3, 1, 4)).astype(np.float32)
  _check_vmap(lambda x: lax.squeeze(x, (0,)), y, in_axes=(0,))  # examples (1, 4)
  _check_vmap(lambda x: lax.squeeze(x, (1,)), y, in_axes=(2,))  # examples (3, 1)
  _check_vmap(lambda x: lax.squeeze(x, (1, 2)), y.reshape(3, 1, 4, 1), in_axes=(2,))


def test_nested_vmap_gather():
  x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
  i = np.array([[[4, 0], [1, 1], [3, 2]], [[0, 0], [2, 4], [1, 3]]], np.int32)
  f = axle.vmap(axle.vmap(lambda x, i: x[i]))
  expected = np.stack([np.stack([x[a, b][i[a, b]] for b in range(3)]) for a in range(2)])
  np.testing.assert_array_equal(np.asarray(f(x, i)), expected)
  g = axle.vmap(axle.vmap(lambda x, i: x[i], in_axes=(None, 0)), in_axes=(0, None))
  expected = np.stack([np.stack([x[a, 0][i[0, b]] for b in range(3)]) for a in range(2)])
  np.testing.assert_array_equal(np.asarray(g(x[:, 0], i[0])), expected)


# ---------------------------------------------------------------------------
# Compositions


def test_vmap_of_grad_gives_per_example_gradients():
  x = np.array([1.0, 2.0, 3.0], np.float32)
  idx = np.array([[0, 1], [2, 2]], np.int32)
  f = lambda x, i: jnp.sum(x[i] ** 2)
  per_example = axle.vmap(axle.grad(f), in_axes=(None, 0))(x, idx)
  np.testing.assert_array_equal(np.asarray(per_example), [[2, 4, 0], [0, 0, 12]])
  jitted = axle.jit(axle.vmap(axle.grad(f), in_axes=(None, 0)))(x, idx)
  np.testing.assert_array_equal(np.asarray(jitted), np.asarray(per_example))


def test_grad_of_vmap_of_updates():
  x = np.array([1.0, 2.0, 3.0], np.float32)
  idx = np.array([0, 2, 2], np.int32)

  def loss(x):
    x = jnp.asarray(x)
    rows = axle.vmap(lambda i: x.at[i].set(x[i] ** 2))(idx)  # (3, 3)
    return jnp.sum(rows * np.arange(9, dtype=np.float32).reshape(3, 3))

  def loss_loop(x):
    x = jnp.asarray(x)
    return sum(jnp.sum(x.at[i].set(x[i] ** 2) * np.arange(3 * k, 3 * k + 3, dtype=np.float32))
               for k, i in enumerate(idx))

  np.testing.assert_allclose(np.asarray(axle.grad(loss)(x)), np.asarray(axle.grad(loss_loop)(x)),
                             rtol=1e-6)
  check_grads(loss, (x,), order=2)


def test_jacobians_of_indexing_agree():
  x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
  f = lambda x: x[np.array([3, 0, 0])] * x[1] + lax.dynamic_slice(x, (np.int32(2),), (3,))
  jf = np.asarray(axle.jacfwd(f)(x))
  jr = np.asarray(axle.jacrev(f)(x))
  np.testing.assert_allclose(jf, jr, rtol=1e-6)
  h = np.asarray(axle.hessian(lambda x: jnp.sum(x[np.array([1, 1, 2])] ** 3))(x))
  np.testing.assert_allclose(h, np.diag([0, 2 * 6 * -2.0, 6 * 3.0, 0]), rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), m=st.integers(1, 3), batch=st.integers(1, 4), k=st.integers(1, 4),
       method=st.sampled_from(["get", "set", "add", "min"]), operand_batched=st.booleans(),
       seed=st.integers(0, 2**16))
def test_vmap_indexing_matches_loop_hypothesis(n, m, batch, k, method, operand_batched, seed):
  rng = np.random.default_rng(seed)
  x = rng.standard_normal((batch, n, m) if operand_batched else (n, m)).astype(np.float32)
  i = rng.integers(-n - 2, n + 2, size=(batch, k)).astype(np.int32)
  u = rng.standard_normal((batch, k, m)).astype(np.float32)
  if method == "get":
    f = lambda x, i, u: jnp.asarray(x)[i] * 2
  else:
    f = lambda x, i, u: getattr(jnp.asarray(x).at[i], method)(u)
  _check_vmap(f, x, i, u, in_axes=(0 if operand_batched else None, 0, 0), jit=False)
