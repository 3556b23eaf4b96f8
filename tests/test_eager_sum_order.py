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


def test_matrix_sums_are_answered_on_the_host():
  # The C module's loops for matrices answer every recorded 2-D case (none is subnormal or NaN):
  # the bits test above checks them, not the compiled program.
  from axle._src.numpy import reductions
  if reductions._host_kernels is None:
    pytest.skip("built without the C module")
  answered = 0
  for case in CASES:
    if len(case["shape"]) == 2 and case["shape"][case["axis"]] > 1:
      x = np.frombuffer(bytes.fromhex(case["x"]), np.float32).reshape(case["shape"])
      for keepdims in (False, True):
        out = jnp.sum(jnp.asarray(x), axis=case["axis"], keepdims=keepdims)
        answered += out._buffer is None
        assert out.shape == np.sum(x, axis=case["axis"], keepdims=keepdims).shape
        assert np.asarray(out).reshape(-1).tobytes().hex() == case["sum"]
  assert answered == 2 * sum(len(c["shape"]) == 2 for c in CASES)


def test_order_matters_for_these_inputs():
  # The recorded cases would catch NumPy's pairwise order: it differs on some of them.
  differs = 0
  for case in CASES:
    x = np.frombuffer(bytes.fromhex(case["x"]), np.float32).reshape(case["shape"])
    differs += np.sum(x, axis=case["axis"]).tobytes().hex() != case["sum"]
  assert differs > 0


VARIANCE_CASES = json.loads(
    (pathlib.Path(__file__).parent / "data" / "eager_variance_reference.json").read_text())
_VARIANCE_CALLS = {"mean": lambda x: jnp.mean(x), "var": lambda x: jnp.var(x),
                   "std": lambda x: jnp.std(x), "var_ddof1": lambda x: jnp.var(x, ddof=1),
                   "std_ddof1": lambda x: jnp.std(x, ddof=1)}


@pytest.mark.parametrize("without_c_module", [False, True], ids=["C module", "NumPy fallback"])
def test_eager_mean_var_std_bits_match_jax(without_c_module, monkeypatch):
  # Recorded by tools/record_eager_variance_reference.py. From 33 elements the host answers
  # (the C module; without it, mean on the host and var/std by the compiled program).
  from axle._src.numpy import reductions, statistics
  if without_c_module:
    monkeypatch.setattr(reductions, "_c_sum", None)
    monkeypatch.setattr(statistics, "_c_variance", None)
  host = 0
  for case in VARIANCE_CASES:
    x = jnp.asarray(np.frombuffer(bytes.fromhex(case["x"]), np.float32))
    for name, call in _VARIANCE_CALLS.items():
      out = call(x)
      host += out._buffer is None
      assert np.asarray(out).tobytes().hex() == case[name], (name, x.shape)
  assert host >= (len(VARIANCE_CASES) if without_c_module else 4 * len(VARIANCE_CASES))
