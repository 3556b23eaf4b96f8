"""lax.platform_dependent, lax.composite, lax.ragged_dot and jnp.diagonal's platform_dependent
program, against real JAX's recorded answers (tests/data/lax_extra_reference.json, written by
tools/record_lax_extra_reference.py)."""

import pytest

from lax_extra_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("lax_extra_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
