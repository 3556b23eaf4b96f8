"""Random samplers print JAX's jaxprs, vmap jaxprs and JVP jaxprs and give JAX's values, against
real JAX's recorded text (tests/data/random_jaxpr_reference.json, written by
tools/record_random_jaxpr_reference.py): randint, choice, the ``random_gamma`` primitive
(gamma, loggamma, beta, dirichlet) with its batching and JVP rules, multinomial."""

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from random_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("random_jaxpr_reference.json")

KNOWN_DIFFERENCES = {
    "gamma_a_array_grad": "JAX hoists the loop-invariant -log(max float) of random_gamma_grad's "
                          "lax.map out of the scan and drops unused while outputs (partial "
                          "evaluation of a JVP rule's scan with all-known operands); axle keeps "
                          "the scan as traced",
    "stablehlo_gamma": "the sampler's two _uniform calls (before the while loop and in its body) "
                       "lower to one private function in JAX, to two in axle: axle memoises "
                       "jaxprs batched inside another batching apart from those batched at the "
                       "top (JAX's rule, which test_special_jaxprs checks for jits inside a "
                       "batched jit, is finer than that)",
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))


def test_random_gamma_is_exported_where_jax_has_it():
  from axle.extend.core import primitives
  assert jax.random.random_gamma_p is primitives.random_gamma_p
  assert jax.random.random_gamma_p.name == "random_gamma"


def test_random_gamma_eager_matches_jit():
  keys = jax.random.split(jax.random.key(3), 2)
  a = jnp.array([[0.2, 1.0, 4.0], [0.7, 2.5, 9.0]])
  bind = lambda k, a: jax.random.random_gamma_p.bind(k, a, log_space=False)
  np.testing.assert_array_equal(bind(keys, a), jax.jit(bind)(keys, a))
