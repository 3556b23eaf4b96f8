"""Sorting, searching, set, statistics and polynomial jnp/lax programs print JAX's jaxprs, grad
jaxprs and vmap jaxprs (issue 14, "the same program"), against real JAX's recorded text
(tests/data/selection_jaxpr_reference.json, written by tools/record_selection_jaxpr_reference.py)."""
import json
import os

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle._src.lax import sorting as lax_sorting

from selection_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, run_snippet, snippet_params

_DATA = os.path.join(os.path.dirname(__file__), "data", "selection_jaxpr_reference.json")
with open(_DATA) as f:
  REFERENCE = json.load(f)["results"]

KNOWN_DIFFERENCES = {
    "nanstd_grad": "partial evaluation: JAX's linearized _where keeps a 0.0 residual output",
    "histogram_bin_edges_range_jaxpr": "jnp.linspace (creation.py) is not staged as JAX's "
                                       "jit[name=_linspace] (iota divided by num)",
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
