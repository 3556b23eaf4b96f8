"""lax.platform_dependent, lax.composite and jnp.diagonal's platform_dependent program, against
real JAX's recorded answers (tests/data/lax_extra_reference.json, written by
tools/record_lax_extra_reference.py)."""
import json
import os

import pytest

from lax_extra_snippets import SNIPPETS
from snippet_harness import assert_matches, run_snippet, snippet_params

_DATA = os.path.join(os.path.dirname(__file__), "data", "lax_extra_reference.json")
with open(_DATA) as f:
  REFERENCE = json.load(f)["results"]

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
