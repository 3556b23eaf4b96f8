"""Grad jaxprs (and the jaxprs and vmap jaxprs around them) print JAX's text, against real
JAX's recorded answers (tests/data/grad_jaxpr_reference.json, written by
tools/record_grad_jaxpr_reference.py); see tests/grad_jaxpr_snippets.py for what is covered."""
import json
import os

import pytest

from grad_jaxpr_snippets import SNIPPETS
from snippet_harness import assert_matches, run_snippet, snippet_params

_DATA = os.path.join(os.path.dirname(__file__), "data", "grad_jaxpr_reference.json")
with open(_DATA) as f:
  REFERENCE = json.load(f)["results"]

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
