"""Transformations of the reduction, windowed and sorting primitives: known gradients at ties and
zeros compared with JAX's recorded values, printed grad/vmap jaxprs compared with JAX's text,
vmap with batch axes in unusual places, grad of vmap and vmap of grad.

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

_PATH = os.path.join(os.path.dirname(__file__), "data", "reduction_transforms_reference.json")
with open(_PATH) as _f:
  REFERENCE = json.load(_f)

_ENV = {"jax": axle, "jnp": jnp, "lax": lax, "np": np}
_FAMILY_PREFIXES = ("grad_reduce", "grad_cum", "vmap_reduce", "vmap_argmax", "vmap_cumsum",
                    "grad_avg_pool", "vmap_sort", "vmap_top_k")


def _eval_case(case):
  return eval(case["fun"], _ENV), eval(case["args"], _ENV)


def _names(table, prefixes):
  return sorted(n for n in REFERENCE[table] if n.startswith(prefixes))


@pytest.mark.parametrize("name", _names("jaxprs", _FAMILY_PREFIXES))
def test_jaxpr_matches_jax(name):
  case = REFERENCE["jaxprs"][name]
  fun, args = _eval_case(case)
  assert str(axle.make_jaxpr(fun)(*args)) == case["jaxpr"]


_VALUE_PREFIXES = ("grad_reduce", "hessian_reduce", "grad_cum", "grad_max_pool", "grad_min_pool",
                   "grad_window", "grad_sort", "grad_top_k", "grad_argmax")


@pytest.mark.parametrize("name", _names("values", _VALUE_PREFIXES))
def test_gradient_values_match_jax(name):
  case = REFERENCE["values"][name]
  fun, args = _eval_case(case)
  leaves = axle.tree_util.tree_leaves(fun(*args))
  assert len(leaves) == len(case["value"])
  for leaf, expected in zip(leaves, case["value"]):
    leaf = np.asarray(leaf)
    assert list(leaf.shape) == expected["shape"] and str(leaf.dtype) == expected["dtype"]
    np.testing.assert_allclose(leaf.astype(np.float64).ravel(), expected["values"], rtol=1e-5,
                               atol=1e-6)


def test_reduce_max_ties_split_evenly():
  x = np.array([[2., 2., 1.], [0., 3., 3.], [4., 4., 4.]], np.float32)
  g = axle.grad(lambda x: lax.reduce_sum(lax.reduce_max(x, (1,)), (0,)))(x)
  np.testing.assert_allclose(np.asarray(g), [[0.5, 0.5, 0], [0, 0.5, 0.5], [1 / 3] * 3], rtol=1e-6)


def test_reduce_prod_second_order_through_zero():
  x = np.array([0., 2., 3.], np.float32)
  h = axle.hessian(lambda x: lax.reduce_prod(x, (0,)))(x)
  np.testing.assert_allclose(np.asarray(h), [[0, 3, 2], [3, 0, 0], [2, 0, 0]])


def test_argmax_has_zero_tangent():
  x = np.array([1., 3., 2.], np.float32)
  out, t = axle.jvp(lambda x: lax.argmax(x, 0, np.int32), (x,), (np.ones(3, np.float32),))
  assert int(out) == 1 and np.asarray(t).dtype == axle.dtypes.float0


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_reducers_any_batch_axis(in_axis):
  rng = np.random.default_rng(0)
  x = rng.normal(size=(3, 4, 5)).astype(np.float32)
  for fun in (lambda v: lax.reduce_sum(v, (1,)), lambda v: lax.reduce_max(v, (0, 1)),
              lambda v: lax.argmin(v, 1, np.int32), lambda v: lax.cumprod(v, 0, reverse=True),
              lambda v: lax.cumlogsumexp(v, 1), lambda v: lax.sort(v, 0),
              lambda v: lax.top_k(v, 2)[0], lambda v: lax.reduce_prod(v, ()),
              lambda v: lax.reduce_window(v, 0., lax.add, (2, 2), (1, 2), "SAME"),
              lambda v: lax.reduce_window(v, -np.inf, lax.max, (1, 3), (1, 1), "VALID")):
    got = axle.vmap(fun, in_axes=in_axis, out_axes=-1)(x)
    expected = np.stack([np.asarray(fun(np.take(x, i, in_axis))) for i in range(x.shape[in_axis])],
                        -1)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


def test_vmap_of_grad_matches_loop():
  rng = np.random.default_rng(1)
  xs = rng.normal(size=(4, 3, 5)).astype(np.float32)
  f = lambda x: lax.reduce_sum(lax.cummax(x, 1) * lax.reduce_max(x, (0,)), (0, 1))
  got = axle.vmap(axle.grad(f))(xs)
  expected = np.stack([np.asarray(axle.grad(f)(x)) for x in xs])
  np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


def test_grad_of_vmap_matches_loop():
  rng = np.random.default_rng(2)
  xs = rng.normal(size=(3, 4, 6)).astype(np.float32)
  pool = lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID")
  f = lambda xs: lax.reduce_sum(axle.vmap(pool, in_axes=2, out_axes=0)(xs) ** 2, (0, 1, 2))
  got = axle.grad(f)(xs)
  expected = np.stack([np.asarray(axle.grad(lambda x: lax.reduce_sum(pool(x) ** 2, (0, 1)))(
      xs[:, :, i])) for i in range(6)], 2)
  np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


def test_generic_reduce_jvp_and_vmap():
  rng = np.random.default_rng(3)
  x = rng.normal(size=(3, 5)).astype(np.float32)
  y = rng.normal(size=(3, 5)).astype(np.float32)
  f = lambda x, y: lax.reduce((x, y), (np.float32(0), np.float32(-np.inf)),
                              lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (1,))
  (s, m), (ts, tm) = axle.jvp(f, (x, y), (np.ones_like(x), np.ones_like(y)))
  np.testing.assert_allclose(np.asarray(ts), np.full(3, 5.0))
  np.testing.assert_allclose(np.asarray(tm), np.ones(3))
  xs = rng.normal(size=(4, 3, 5)).astype(np.float32)
  got = axle.vmap(f, in_axes=(0, None))(xs, y)
  for i in range(4):
    for g, e in zip(got, f(xs[i], y)):
      np.testing.assert_allclose(np.asarray(g)[i], np.asarray(e), rtol=1e-6)


def test_reduce_window_sum_transpose_is_adjoint():
  """<reduce_window_sum(x), c> == <x, transpose(c)> for strided, padded, dilated windows."""
  rng = np.random.default_rng(4)
  x = rng.normal(size=(5, 7)).astype(np.float32)
  f = lambda x: lax.reduce_window(x, 0., lax.add, (2, 3), (2, 1), ((1, 0), (2, -1)), (1, 2), (2, 1))
  out, pullback = axle.vjp(f, x)
  c = rng.normal(size=np.shape(out)).astype(np.float32)
  lhs = float(np.sum(np.asarray(out, np.float64) * c))
  rhs = float(np.sum(np.asarray(pullback(c)[0], np.float64) * x))
  assert abs(lhs - rhs) < 1e-3 * max(1.0, abs(lhs))
