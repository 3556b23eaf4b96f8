"""jax.scipy.special programs, and the custom_jvp/custom_vjp, split and batching machinery they
use, print JAX's jaxprs, grad jaxprs and vmap jaxprs, against real JAX's recorded text
(tests/data/special_jaxpr_reference.json, written by tools/record_special_jaxpr_reference.py)."""

import numpy as np
import pytest
import scipy.special

import axle as jax
import axle.numpy as jnp
from special_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("special_jaxpr_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))


def test_custom_rules_with_hoisted_constants_compute_the_same_values():
  c = np.array([1.0, 2.0, 3.0], np.float32)

  @jax.custom_jvp
  def f(x):
    return x * jnp.asarray(c) + jnp.sin(x)

  @f.defjvp
  def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x), t * (jnp.asarray(c) + jnp.cos(x))

  @jax.custom_vjp
  def g(x):
    return x * jnp.asarray(c)

  g.defvjp(lambda x: (g(x), None), lambda _, ct: (ct * jnp.asarray(c),))
  x = np.array([0.5, -1.0, 2.0], np.float32)
  expected = x * c + np.sin(x)
  np.testing.assert_allclose(jax.jit(f)(x), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.jit(f))(np.stack([x, x])), np.stack([expected] * 2),
                             rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda y: jax.jit(f)(y).sum())(x), c + np.cos(x), rtol=1e-6)
  np.testing.assert_allclose(jax.jvp(jax.jit(f), (x,), (np.ones(3, np.float32),))[1],
                             c + np.cos(x), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.grad(lambda y: g(y).sum()))(x), c)
  np.testing.assert_allclose(jax.vmap(jax.grad(lambda y: jax.jit(g)(y).sum()))(np.stack([x, x])),
                             np.stack([c, c]))


def test_dead_work_of_a_custom_jvp_function_is_not_lowered():
  @jax.custom_jvp
  def f(x):
    jnp.cos(x)  # never read: in the printed jaxpr, not in the lowered program (as JAX)
    return jnp.sin(x)

  f.defjvps(lambda t, out, x: t * jnp.cos(x))
  x = np.ones(3, np.float32)
  assert "cos" in str(jax.make_jaxpr(f)(x))
  text = jax.jit(f).lower(x).as_text()
  assert "sine" in text and "cosine" not in text


def test_zeta_is_differentiable_in_both_arguments():
  x = np.array([1.5, 2.0, 3.0, 4.5], np.float32)
  q = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
  dx, dq = jax.grad(lambda a, b: jax.scipy.special.zeta(a, b).sum(), argnums=(0, 1))(x, q)
  # d/dq zeta(x, q) = -x zeta(x + 1, q); d/dx by central differences in float64
  np.testing.assert_allclose(dq, -x * jax.scipy.special.zeta(x + 1, q), rtol=1e-4)
  h = 1e-6
  numeric = (scipy.special.zeta(x.astype(np.float64) + h, q) -
             scipy.special.zeta(x.astype(np.float64) - h, q)) / (2 * h)
  np.testing.assert_allclose(dx, numeric, rtol=1e-3)
