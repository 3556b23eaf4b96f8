"""Regression tests for the bugs of issue 14, against real JAX's recorded answers
(tests/data/issue14_reference.json, written by tools/record_issue14_reference.py)."""

import pytest

from issue14_snippets import SNIPPETS
from snippet_harness import assert_matches, load_reference, run_snippet, snippet_params

REFERENCE = load_reference("issue14_reference.json")

KNOWN_DIFFERENCES = {
}


@pytest.mark.parametrize("name", snippet_params(SNIPPETS, KNOWN_DIFFERENCES))
def test_matches_jax(name):
  assert_matches(REFERENCE[name], run_snippet(SNIPPETS[name]))
