"""Eager float32 sums give JAX's bits: XLA's CPU order (left to right up to 32 elements, windows
of 32 for a longer innermost dimension), not NumPy's pairwise order. References recorded by
tools/record_eager_sum_reference.py."""
import json
import pathlib

import numpy as np
import pytest

import axle.numpy as jnp

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "eager_sum_reference.json").read_text())


@pytest.mark.parametrize("index", range(len(CASES)))
def test_eager_sum_bits_match_jax(index):
  case = CASES[index]
  x = np.frombuffer(bytes.fromhex(case["x"]), np.float32).reshape(case["shape"])
  total = np.asarray(jnp.sum(jnp.asarray(x), axis=case["axis"]))
  assert total.tobytes().hex() == case["sum"]


def test_order_matters_for_these_inputs():
  # The recorded cases would catch NumPy's pairwise order: it differs on some of them.
  differs = 0
  for case in CASES:
    x = np.frombuffer(bytes.fromhex(case["x"]), np.float32).reshape(case["shape"])
    differs += np.sum(x, axis=case["axis"]).tobytes().hex() != case["sum"]
  assert differs > 0
