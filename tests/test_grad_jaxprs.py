"""Grad jaxprs (and the jaxprs and vmap jaxprs around them) print JAX's text, against real
JAX's recorded answers (tests/data/grad_jaxpr_reference.json, written by
tools/record_grad_jaxpr_reference.py); see tests/grad_jaxpr_snippets.py for what is covered."""

import pytest

from grad_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("grad_jaxpr_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
