"""jnp.linspace gives JAX's bits eagerly: XLA's CPU code computes
``fma(iota, stop * c, start * (1 - iota * c))`` with ``c`` the rounded reciprocal of the
divisor (bfloat16: each step rounded, c in float32). References recorded by
tools/record_linspace_reference.py."""
import json
import pathlib

import numpy as np
import pytest

from tests.linspace_cases import CASES


@pytest.mark.parametrize("index", range(len(CASES)))
def test_linspace_bits_match_jax(index):
  import axle.numpy as jnp
  reference = json.loads((pathlib.Path(__file__).parent / "data" /
                          "linspace_reference.json").read_text())[index]
  start, stop, num, endpoint, dtype = CASES[index]
  value = np.asarray(jnp.linspace(np.asarray(start, np.float32), np.asarray(stop, np.float32),
                                  num, endpoint=endpoint, dtype=dtype))
  assert value.dtype.name == reference["dtype"] and list(value.shape) == reference["shape"]
  assert value.tobytes().hex() == reference["hex"]
