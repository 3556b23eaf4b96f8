"""jnp programs print JAX's jaxprs, grad jaxprs and vmap jaxprs (issue 14, "the same program"),
against real JAX's recorded text (tests/data/numpy_jaxpr_reference.json, written by
tools/record_numpy_jaxpr_reference.py); plus the eager behaviour the named-jit staging must
keep (clear errors, eager results)."""

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from numpy_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("numpy_jaxpr_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))


def test_staged_helpers_keep_clear_errors_eagerly_and_under_jit():
  with pytest.raises(ValueError, match="only support 1-dimensional inputs"):
    jnp.convolve(np.ones((2, 2)), np.ones(3))
  with pytest.raises(ValueError, match="only support 1-dimensional inputs"):
    jax.jit(jnp.convolve)(np.ones((2, 2)), np.ones(3))
  with pytest.raises(ValueError, match="array split does not result in an equal division"):
    jnp.split(jnp.ones(5), 2)
  with pytest.raises(TypeError, match="take requires integer indices"):
    jnp.take(jnp.ones(3), jnp.ones(2))
  with pytest.raises(ValueError, match="ddof and correction"):
    jnp.var(jnp.ones(3), ddof=1, correction=1)


def test_staged_helpers_compute_numpys_values():
  x = (np.arange(12.0).reshape(3, 4) / 7 - 0.8).astype(np.float32)
  np.testing.assert_array_equal(jnp.trunc(x), np.trunc(x))
  np.testing.assert_array_equal(jnp.signbit(np.array([-0.0, 0.0, -1.0, np.nan])),
                                np.signbit(np.array([-0.0, 0.0, -1.0, np.nan])))
  np.testing.assert_allclose(jnp.var(x, axis=0, ddof=1), np.var(x, axis=0, ddof=1), rtol=1e-6)
  np.testing.assert_array_equal(jnp.diff(x, 2, axis=0), np.diff(x, 2, axis=0))
  for shift, axis in ((1, None), (-2, 1), ((1, 2), (0, 1))):
    np.testing.assert_array_equal(jnp.roll(x, shift, axis), np.roll(x, shift, axis))
  for k in (-1, 0, 2):
    np.testing.assert_array_equal(jnp.diag(x[0], k), np.diag(x[0], k))
  for pieces, expected in ((jnp.split(x, [1, 3], axis=1), np.split(x, [1, 3], axis=1)),
                           (jnp.split(x, [3, 1], axis=1), np.split(x, [3, 1], axis=1)),
                           (jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7), 3))):
    assert [p.shape for p in pieces] == [e.shape for e in expected]
    for p, e in zip(pieces, expected):
      np.testing.assert_array_equal(p, e)
  for mode in ("full", "same", "valid"):
    np.testing.assert_allclose(jnp.correlate(x[0], x[1, :3], mode),
                               np.correlate(x[0], x[1, :3], mode), rtol=1e-6, atol=1e-6)
  np.testing.assert_array_equal(jnp.fmod(np.array([5, -5, 3]), np.array([3, 3, 0])), [2, -2, 0])
  np.testing.assert_array_equal(jnp.heaviside(np.array([-1.0, 0.0, 2.0, np.nan]), 0.5),
                                [0.0, 0.5, 1.0, np.nan])
  np.testing.assert_allclose(jnp.trace(x, 1), np.trace(x, 1), rtol=1e-6)
  assert bool(jnp.isclose(100000000, 100000001))  # integers compare in floating point, as JAX


def test_eager_calls_of_staged_helpers_run_directly():
  # Eagerly a staged helper runs its body on concrete arrays (no trace, no compile per call):
  # a Python-callable argument that only works on concrete values shows it.
  x = jnp.arange(6.0)
  out = jnp.cumsum(x)
  assert isinstance(out, jax.Array) and not isinstance(out, jax.core.Tracer)
  np.testing.assert_array_equal(out, np.cumsum(np.arange(6.0, dtype=np.float32)))
  seen = []
  jnp.var(x, axis=0, keepdims=False, where=None)
  jax.jit(lambda v: seen.append(type(v).__name__) or jnp.var(v))(x)
  assert seen and "Tracer" in seen[0]


def test_restaged_functions_keep_jaxs_values_and_errors():
  # JAX's answers for the edge cases of the functions restaged as JAX's programs
  assert jnp.argwhere(jnp.float32(2)).shape == (1, 0)
  assert jnp.argwhere(jnp.float32(0)).shape == (0, 0)
  assert [np.asarray(c).tolist() for c in jnp.unravel_index(jnp.array([0, 5, 12, -13]), (3, 4))] == \
      [[0, 1, 2, 0], [0, 1, 3, 0]]
  assert [np.asarray(c).tolist() for c in jnp.unravel_index(jnp.array([4, 7]), (0, 3))] == [[0, 0], [0, 0]]
  with pytest.raises(ValueError, match="size must be positive and not greater"):
    jnp.compress(jnp.array([True, False, True]), jnp.arange(6.0)[:3], size=5)
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.delete(jnp.ones((3, 4)), 4, axis=1)
  np.testing.assert_array_equal(jnp.signbit(jnp.array([-0.0, 1.0], jnp.bfloat16)), [True, False])
  np.testing.assert_array_equal(jnp.spacing(jnp.array([0.0, -0.0], jnp.float32)),
                                np.array([1.4e-45, -1.4e-45], np.float32))
  np.testing.assert_array_equal(jnp.fft.fftfreq(5, 0.3), np.fft.fftfreq(5, 0.3).astype(np.float32))
