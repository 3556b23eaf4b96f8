"""jnp ufuncs/reductions, jax.nn and lax windowed/cumulative derivatives print JAX's jaxprs, grad
jaxprs and vmap jaxprs and compute JAX's values, against real JAX's recorded answers
(tests/data/ufunc_parity_reference.json, written by tools/record_ufunc_parity_reference.py)."""

import pytest

from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params
from ufunc_parity_snippets import SNIPPETS

REFERENCE = load_reference("ufunc_parity_reference.json")

KNOWN_DIFFERENCES = {
    "ldexp_G": "JAX traces jnp.where afresh under the linearization of ldexp (a second _where "
               "jaxpr printed with its own names); axle reuses the cached trace",
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
