"""axle's ``jit`` returns exactly JAX's bytes for functions where an operation order, a
constant or an algorithm once differed from JAX's (tests/data/jit_bits_reference.json, recorded
by tools/record_jit_bits_reference.py under real JAX 0.10.2)."""
import json
import pathlib

import ml_dtypes
import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "jit_bits_reference.json").read_text())
CASES = REFERENCE["cases"]


def _dtype(name):
  return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def _array(record):
  return np.frombuffer(bytes.fromhex(record["hex"]), _dtype(record["dtype"])).reshape(record["shape"])


def _leaves(out):
  leaves = []
  for leaf in axle.tree_util.tree_leaves(out):
    if jnp.issubdtype(leaf.dtype, axle.dtypes.prng_key):
      leaf = axle.random.key_data(leaf)
    leaves.append(np.asarray(leaf))
  return leaves


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_bits_match_jax(name):
  case = CASES[name]
  scope = {"jax": axle, "jnp": jnp, "lax": lax, "np": np}
  exec(case["source"], scope)
  inputs = [_array(r) for r in case["inputs"]]
  actual = _leaves(axle.jit(scope["f"])(*inputs))
  expected = [_array(r) for r in case["outputs"]]
  assert len(actual) == len(expected), (len(actual), len(expected))
  for got, want in zip(actual, expected):
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    if got.tobytes() != want.tobytes():
      with np.errstate(all="ignore"):
        diff = np.max(np.abs(got.astype(np.complex128) - want.astype(np.complex128)))
      pytest.fail(f"{name}: jit output bytes differ from JAX's (largest difference {diff:.3g})\n"
                  f"axle: {got!r}\nJAX:  {want!r}")


def test_compress_without_size_under_jit_raises_like_jax():
  # JAX checks the condition's out-of-bounds entries with a traced ``any`` under jit, so even a
  # NumPy condition raises TracerBoolConversionError there; eagerly it works.
  fun = lambda x: jnp.compress(np.array([True, False, True]), x, axis=0)
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  np.testing.assert_array_equal(np.asarray(fun(x)), x[[0, 2]])
  with pytest.raises(axle.errors.TracerBoolConversionError):
    axle.jit(fun)(x)
