"""Transformations of dot_general and conv_general_dilated: printed grad/vmap jaxprs against
JAX's text, gradient values against JAX's (preferred_element_type, dilation, batch groups),
vmap with batch axes anywhere, and grad/vmap compositions (per-example gradients of a conv net).

Reference data: tests/data/reduction_transforms_reference.json, recorded by
tools/record_reduction_transforms_reference.py under real JAX.
"""
import json
import os

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax
from axle.test_util import check_grads

_PATH = os.path.join(os.path.dirname(__file__), "data", "reduction_transforms_reference.json")
with open(_PATH) as _f:
  REFERENCE = json.load(_f)

_ENV = {"jax": axle, "jnp": jnp, "lax": lax, "np": np}
_PREFIXES = ("grad_dot", "vmap_dot", "grad_conv", "vmap_conv", "hessian_dot")


def _eval_case(case):
  return eval(case["fun"], _ENV), eval(case["args"], _ENV)


@pytest.mark.parametrize("name", sorted(n for n in REFERENCE["jaxprs"] if n.startswith(_PREFIXES)))
def test_jaxpr_matches_jax(name):
  case = REFERENCE["jaxprs"][name]
  fun, args = _eval_case(case)
  assert str(axle.make_jaxpr(fun)(*args)) == case["jaxpr"]


@pytest.mark.parametrize("name", sorted(n for n in REFERENCE["values"] if n.startswith(_PREFIXES)))
def test_gradient_values_match_jax(name):
  case = REFERENCE["values"][name]
  fun, args = _eval_case(case)
  leaves = axle.tree_util.tree_leaves(fun(*args))
  assert len(leaves) == len(case["value"])
  for leaf, expected in zip(leaves, case["value"]):
    leaf = np.asarray(leaf)
    assert list(leaf.shape) == expected["shape"] and str(leaf.dtype) == expected["dtype"]
    tol = 1e-2 if leaf.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(leaf.astype(np.float64).ravel(), expected["values"], rtol=tol,
                               atol=tol)


def _dot(dims):
  return lambda x, y: lax.dot_general(x, y, dims)


@pytest.mark.parametrize("dims,lhs_shape,rhs_shape", [
    ((((1,), (0,)), ((), ())), (3, 4), (4, 5)),
    ((((2, 0), (0, 1)), ((), ())), (2, 3, 4), (4, 2, 5)),
    ((((2,), (1,)), ((0,), (2,))), (3, 2, 4), (5, 4, 3)),
    ((((), ()), ((1,), (0,))), (4, 3), (3, 2)),
])
def test_dot_general_grads_and_vmap_any_axes(dims, lhs_shape, rhs_shape):
  rng = np.random.default_rng(0)
  x = rng.normal(size=lhs_shape).astype(np.float32)
  y = rng.normal(size=rhs_shape).astype(np.float32)
  f = _dot(dims)
  check_grads(f, (x, y), order=2, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2)
  xs = rng.normal(size=(2,) + lhs_shape).astype(np.float32)
  ys = rng.normal(size=(2,) + rhs_shape).astype(np.float32)
  for lax_, rax in [(0, 0), (len(lhs_shape), None), (None, len(rhs_shape)), (1, 2)]:
    args = [np.moveaxis(xs, 0, lax_) if lax_ is not None else x,
            np.moveaxis(ys, 0, rax) if rax is not None else y]
    got = axle.vmap(f, in_axes=(lax_, rax), out_axes=1)(*args)
    expected = np.stack([np.asarray(f(xs[i] if lax_ is not None else x,
                                      ys[i] if rax is not None else y)) for i in range(2)], 1)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-5)


def test_dot_general_mixed_dtypes_cotangent_dtypes():
  x = np.ones((2, 3), np.float16)
  y = np.ones((3, 4), np.float32)
  gx, gy = axle.grad(lambda x, y: lax.reduce_sum(lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
                                                 (0, 1)), argnums=(0, 1))(x, y)
  assert np.asarray(gx).dtype == np.float16 and np.asarray(gy).dtype == np.float32
  np.testing.assert_allclose(np.asarray(gx), np.full((2, 3), 4.0))


_CONV_CASES = [
    dict(window_strides=(1, 1), padding="SAME"),
    dict(window_strides=(2, 1), padding=((1, 0), (0, 2)), rhs_dilation=(1, 2)),
    dict(window_strides=(1, 2), padding=((0, 1), (1, 1)), lhs_dilation=(2, 1)),
    dict(window_strides=(1, 1), padding="VALID", feature_group_count=2),
    dict(window_strides=(1, 1), padding="VALID", batch_group_count=2),
    dict(window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
]


def _conv_shapes(kwargs):
  if kwargs.get("dimension_numbers"):
    return (2, 5, 4, 4), (2, 3, 4, 6)
  if kwargs.get("batch_group_count", 1) > 1:
    return (4, 3, 5, 4), (6, 3, 2, 2)
  if kwargs.get("feature_group_count", 1) > 1:
    return (2, 4, 5, 4), (6, 2, 2, 2)
  return (2, 3, 5, 4), (4, 3, 2, 3)


@pytest.mark.parametrize("kwargs", _CONV_CASES, ids=lambda k: "-".join(sorted(k)))
def test_conv_grads_and_vmap(kwargs):
  rng = np.random.default_rng(1)
  lhs_shape, rhs_shape = _conv_shapes(kwargs)
  f = lambda x, w: lax.conv_general_dilated(x, w, **kwargs)
  x = rng.normal(size=lhs_shape).astype(np.float32)
  w = rng.normal(size=rhs_shape).astype(np.float32)
  check_grads(f, (x, w), order=2, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2)
  xs = rng.normal(size=(3,) + lhs_shape).astype(np.float32)
  ws = rng.normal(size=(3,) + rhs_shape).astype(np.float32)
  for lax_, rax in [(0, 0), (4, None), (None, 2), (1, 3)]:
    args = [np.moveaxis(xs, 0, lax_) if lax_ is not None else x,
            np.moveaxis(ws, 0, rax) if rax is not None else w]
    got = axle.vmap(f, in_axes=(lax_, rax))(*args)
    expected = np.stack([np.asarray(f(xs[i] if lax_ is not None else x,
                                      ws[i] if rax is not None else w)) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-4, atol=1e-4)


def test_per_example_gradients_of_a_conv_net():
  """vmap(grad) of a conv + max-pool + dense loss equals the loop of grads, under jit too."""
  rng = np.random.default_rng(2)
  w = rng.normal(size=(4, 1, 3, 3)).astype(np.float32) * 0.3
  v = rng.normal(size=(4 * 3 * 3, 2)).astype(np.float32) * 0.3
  xs = rng.normal(size=(5, 1, 1, 6, 6)).astype(np.float32)

  def loss(params, x):
    w, v = params
    h = jnp.tanh(lax.conv_general_dilated(x, w, (1, 1), "SAME"))
    h = lax.reduce_window(h, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    logits = h.reshape(1, -1) @ v
    return jnp.sum(logits ** 2)

  per_example = axle.jit(axle.vmap(axle.grad(loss), in_axes=(None, 0)))((w, v), xs)
  for i in range(5):
    gw, gv = axle.grad(loss)((w, v), xs[i])
    np.testing.assert_allclose(np.asarray(per_example[0][i]), np.asarray(gw), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(per_example[1][i]), np.asarray(gv), rtol=1e-4, atol=1e-5)


def test_mlp_value_and_grad_under_jit_matches_eager():
  rng = np.random.default_rng(3)
  params = [(rng.normal(size=(8, 16)).astype(np.float32) * 0.3, np.zeros(16, np.float32)),
            (rng.normal(size=(16, 3)).astype(np.float32) * 0.3, np.zeros(3, np.float32))]
  x = rng.normal(size=(4, 8)).astype(np.float32)

  def loss(params, x):
    for w, b in params[:-1]:
      x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b) ** 2)

  value, grads = axle.jit(axle.value_and_grad(loss))(params, x)
  value_e, grads_e = axle.value_and_grad(loss)(params, x)
  np.testing.assert_allclose(float(value), float(value_e), rtol=1e-5)
  for g, ge in zip(axle.tree_util.tree_leaves(grads), axle.tree_util.tree_leaves(grads_e)):
    np.testing.assert_allclose(np.asarray(g), np.asarray(ge), rtol=1e-4, atol=1e-6)
  check_grads(lambda p: loss(p, x), (params,), order=1, modes=("rev",), atol=2e-2, rtol=2e-2)
