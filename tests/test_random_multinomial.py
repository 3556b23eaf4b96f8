"""jax.random.multinomial: the same samples as JAX 0.10.2 for the same key (numbers printed by
JAX for these calls), eagerly and under jit."""
import numpy as np

import axle as jax
import axle.numpy as jnp


def test_multinomial_matches_jax():
  key = jax.random.PRNGKey(0)
  f = lambda k: jax.random.multinomial(k, 5.0, jnp.array([0.2, 0.3, 0.5]))
  np.testing.assert_array_equal(jax.jit(f)(key), [0., 1., 4.])
  np.testing.assert_array_equal(f(key), [0., 1., 4.])
  out = jax.jit(lambda k: jax.random.multinomial(
      k, jnp.array([10., 20.]), jnp.array([[0.1, 0.9], [0.5, 0.5]]), shape=(4, 2, 2)))(key)
  assert out.shape == (4, 2, 2) and out.dtype == np.float32
  np.testing.assert_array_equal(out.reshape(-1), [0, 10, 8, 12, 1, 9, 12, 8, 0, 10, 12, 8, 0, 10,
                                                  9, 11])


def test_multinomial_int_dtype_and_typed_key():
  out = jax.random.multinomial(jax.random.key(3), 100, jnp.array([0.25, 0.25, 0.5]),
                               dtype=jnp.int32)
  assert out.dtype == np.int32
  np.testing.assert_array_equal(out, [23, 23, 54])
