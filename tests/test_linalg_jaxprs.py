"""jnp.linalg, jnp products and jax.scipy.special programs print JAX's jaxprs, grad jaxprs and
vmap jaxprs, against real JAX's recorded text (tests/data/linalg_jaxpr_reference.json, written by
tools/record_linalg_jaxpr_reference.py from tests/linalg_jaxpr_snippets.py)."""

import pytest

from linalg_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("linalg_jaxpr_reference.json")

_MIXED_DOT = ("jnp.dot of complex and real operands: JAX's dot_general takes the mixed dtypes "
              "(preferred_element_type=complex64), axle's jnp.dot converts the real one first")
KNOWN_DIFFERENCES = {
    "vecdot_complex_jaxpr": _MIXED_DOT,
    "vecdot_complex_vmap": _MIXED_DOT,
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
