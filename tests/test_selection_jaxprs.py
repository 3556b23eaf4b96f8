"""Sorting, searching, set, statistics and polynomial jnp/lax programs print JAX's jaxprs, grad
jaxprs and vmap jaxprs (issue 14, "the same program"), against real JAX's recorded text
(tests/data/selection_jaxpr_reference.json, written by tools/record_selection_jaxpr_reference.py)."""

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle._src.lax import sorting as lax_sorting

from selection_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("selection_jaxpr_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))


_KEYS = np.array([-np.inf, -1, -0.0, 0.0, 0.0, 1, np.inf, np.nan, np.nan], np.float32)
_QUERIES = np.array([[np.nan, -0.0, 0.0, np.inf], [-2, -1, 0.5, 1], [3, -np.inf, 1, 0]],
                    np.float32)


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_methods_give_numpys_answer(method, side):
  # NumPy orders NaN last and -0.0 equal to +0.0, as sort's comparator does.
  expected = np.searchsorted(_KEYS, _QUERIES, side=side)
  for run in (jnp.searchsorted, jax.jit(jnp.searchsorted, static_argnames=("side", "method"))):
    np.testing.assert_array_equal(run(_KEYS, _QUERIES, side=side, method=method), expected)
  keys = np.array([1 + 2j, 1 + 3j, 2 - 1j, 2 + 0j])
  queries = np.array([1 + 2j, 1 + 2.5j, 2 - 1j, 3 + 0j, 0j])
  np.testing.assert_array_equal(jnp.searchsorted(keys, queries, side=side, method=method),
                                np.searchsorted(keys, queries, side=side))
  empty = jnp.searchsorted(_KEYS[:0], _QUERIES, side=side, method=method)
  np.testing.assert_array_equal(empty, np.zeros(_QUERIES.shape, np.int32))


def test_total_order_comparisons_eagerly_and_under_jit():
  x = np.array([-np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32)
  rank = np.arange(len(x))
  expected = {lax_sorting.lt_to_p: rank[:, None] < rank[None, :],
              lax_sorting.le_to_p: rank[:, None] <= rank[None, :],
              lax_sorting.eq_to_p: rank[:, None] == rank[None, :]}
  for primitive, want in expected.items():
    eager = primitive.bind(x[:, None], x[None, :])
    jitted = jax.jit(lambda a, b: primitive.bind(a, b))(x[:, None], x[None, :])
    np.testing.assert_array_equal(eager, want)
    np.testing.assert_array_equal(jitted, want)
  ints = np.array([-3, 0, 2], np.int32)
  np.testing.assert_array_equal(lax_sorting.le_to_p.bind(ints, ints[::-1]), [True, True, False])


_RNG = np.random.default_rng(7)
_A = _RNG.normal(size=(3, 5)).astype(np.float32)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantiles_give_numpys_values(method):
  q = np.array([0.1, 0.5, 0.9], np.float32)
  for axis, keepdims in ((None, False), (1, True), (0, False)):
    got = jnp.quantile(_A, q, axis=axis, method=method, keepdims=keepdims)
    np.testing.assert_allclose(got, np.quantile(_A, q, axis=axis, method=method,
                                                keepdims=keepdims), rtol=1e-6, atol=1e-7)
  with_nan = _A.copy()
  with_nan[0, 1] = np.nan
  np.testing.assert_allclose(jnp.nanquantile(with_nan, 0.3, axis=1, method=method),
                             np.nanquantile(with_nan, 0.3, axis=1, method=method), rtol=1e-6,
                             atol=1e-7)
  assert np.isnan(np.asarray(jnp.quantile(with_nan, 0.3, axis=1, method=method))[0])


def test_take_and_put_along_axis_give_numpys_values():
  indices = np.array([[0, 4], [-1, 2], [3, 3]])
  np.testing.assert_array_equal(jnp.take_along_axis(_A, indices, axis=1),
                                np.take_along_axis(_A, indices % 5, axis=1))
  np.testing.assert_array_equal(jnp.take_along_axis(_A[:1], indices, axis=1),
                                np.take_along_axis(_A[:1], indices % 5, axis=1))
  out_of_bounds = jnp.take_along_axis(_A, np.array([[7], [0], [1]]), axis=1)
  assert np.isnan(np.asarray(out_of_bounds)[0, 0])
  expected = _A.copy()
  np.put_along_axis(expected, indices % 5, 9.0, axis=1)
  np.testing.assert_array_equal(jnp.put_along_axis(_A, indices, 9.0, axis=1, inplace=False),
                                expected)
  for mode in ("clip", "wrap"):
    expected = _A.copy()
    np.put(expected, [0, 17, -3], [1.0, 2.0], mode=mode)
    np.testing.assert_array_equal(jnp.put(_A, np.array([0, 17, -3]), np.array([1.0, 2.0]),
                                          mode=mode, inplace=False), expected)


def test_unique_and_set_functions_give_numpys_values():
  k = np.array([3, 1, 4, 1, 5, 2, 3, 0])
  values, index, inverse, counts = jnp.unique(k, True, True, True)
  for got, want in zip((values, index, inverse, counts), np.unique(k, True, True, True)):
    np.testing.assert_array_equal(got, want)
  padded = jnp.unique(k, size=8, fill_value=-1)
  np.testing.assert_array_equal(padded, [0, 1, 2, 3, 4, 5, -1, -1])
  b = np.array([4, 1, 9, 2])
  for fun, ref in ((jnp.setxor1d, np.setxor1d), (jnp.intersect1d, np.intersect1d),
                   (jnp.setdiff1d, np.setdiff1d)):
    want = ref(k, b)
    np.testing.assert_array_equal(fun(k, b, size=len(want)), want)
    np.testing.assert_array_equal(jax.jit(lambda x, y: fun(x, y, size=len(want)))(k, b), want)


def test_polynomials_unwrap_and_argpartition_give_numpys_values():
  p = np.array([1.0, -2.0, 0.5, 3.0, 2.0], np.float32)
  np.testing.assert_allclose(jnp.polyder(p, 2), np.polyder(p, 2))
  np.testing.assert_allclose(jnp.polyint(p, 2, k=np.array([1.0, 2.0])),
                             np.polyint(p, 2, k=[1.0, 2.0]), rtol=1e-6)
  with pytest.raises(TypeError, match="at position 1"):
    jnp.polyint(p, 2, k=[1.0, 2.0])
  np.testing.assert_allclose(jnp.polyadd(p, p[:2]), np.polyadd(p, p[:2]))
  np.testing.assert_allclose(jnp.polydiv(p, p[:2] + 2)[0], np.polydiv(p, p[:2] + 2)[0],
                             rtol=1e-5)
  x = np.linspace(-1, 1, 8).astype(np.float32)
  np.testing.assert_allclose(jnp.polyfit(x, 3 * x ** 2 - x, 2), [3.0, -1.0, 0.0], atol=1e-5)
  phase = np.array([0.0, 2.0, 5.0, -1.0, 4.0, 9.0], np.float32) * 4
  np.testing.assert_allclose(jnp.unwrap(phase), np.unwrap(phase), rtol=1e-5, atol=1e-5)
  order = np.asarray(jnp.argpartition(_A, 2, axis=1))
  parted = np.take_along_axis(_A, order, axis=1)
  np.testing.assert_array_equal(parted[:, 2], np.sort(_A, axis=1)[:, 2])
  assert (parted[:, :2] <= parted[:, 2:3]).all() and (parted[:, 3:] >= parted[:, 2:3]).all()


def test_roots_with_and_without_stripping_zeros():
  p = np.array([0.0, 0.0, 1.0, -3.0, 2.0], np.float32)
  np.testing.assert_allclose(np.sort_complex(np.asarray(jnp.roots(p))), [1, 2], atol=1e-5)
  kept = np.asarray(jax.jit(lambda q: jnp.roots(q, strip_zeros=False))(p))
  np.testing.assert_allclose(np.sort_complex(kept[:2]), [1, 2], atol=1e-5)
  assert np.isnan(kept[2:]).all()
  np.testing.assert_allclose(np.sort_complex(np.asarray(jnp.roots(p[2:] * 1 + 0 * p[2:]))),
                             [1, 2], atol=1e-5)
