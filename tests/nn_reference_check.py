"""Evaluates the cases of tests/nn_inputs.py with axle and compares them with JAX's recorded
outputs (tests/data/nn_reference.json, written by tools/record_nn_reference.py)."""
import json
import os
import warnings

import ml_dtypes
import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import nn
from axle.nn import initializers as init
from axle.scipy import special as sp

from tests import nn_inputs

_DATA = os.path.join(os.path.dirname(__file__), "data", "nn_reference.json")
with open(_DATA) as _f:
  REFERENCE = json.load(_f)


def _random_module():
  try:
    from axle import random
    return random
  except ImportError:
    return None


def namespace() -> dict:
  return dict(nn_inputs.inputs(), jax=axle, jnp=jnp, nn=nn, init=init, sp=sp, np=np,
              random=_random_module(), lax=axle.lax)


def decode(leaf) -> np.ndarray:
  dtype = ml_dtypes.bfloat16 if leaf["dtype"] == "bfloat16" else np.dtype(leaf["dtype"])
  return np.frombuffer(bytes.fromhex(leaf["hex"]), dtype=dtype).reshape(tuple(leaf["shape"]))


def _tolerance(dtype, rtol):
  if dtype in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
    return 2e-2, 1e-3
  if dtype in (np.dtype(np.float64), np.dtype(np.complex128)):
    return max(rtol, 1e-12), 1e-300
  return rtol, 1e-30


def assert_matches(source: str, out, expected: dict, rtol: float = 2e-6, atol: float = 0.0):
  """``out`` has JAX's recorded leaves: same count, dtypes, weak types, shapes, and values to
  ``rtol`` (NaN where JAX has NaN, infinities exactly)."""
  leaves = axle.tree_util.tree_leaves(out)
  assert len(leaves) == len(expected["leaves"]), source
  for leaf, ref in zip(leaves, expected["leaves"]):
    want = decode(ref)
    got = np.asarray(leaf)
    assert got.dtype == want.dtype, f"{source}: dtype {got.dtype}, JAX {want.dtype}"
    assert got.shape == want.shape, f"{source}: shape {got.shape}, JAX {want.shape}"
    weak = bool(getattr(leaf, "weak_type", False))
    assert weak == ref["weak_type"], f"{source}: weak_type {weak}, JAX {ref['weak_type']}"
    if want.dtype.kind in "biu":
      np.testing.assert_array_equal(got, want, err_msg=source)
      continue
    r, a = _tolerance(want.dtype, rtol)
    np.testing.assert_allclose(got.astype(np.complex128 if want.dtype.kind == "c" else np.float64),
                               want.astype(np.complex128 if want.dtype.kind == "c" else np.float64),
                               rtol=r, atol=max(a, atol), equal_nan=True, err_msg=source)


def check_case(source: str, jit: bool, rtol: float = 2e-6, atol: float = 0.0,
               check_message: bool = True):
  expected = REFERENCE["cases"][source]
  env = namespace()
  if "random." in source and env["random"] is None:
    pytest.skip("axle.random is not available yet")

  def run():
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      if jit:
        return axle.jit(lambda: eval(source, env))()
      return eval(source, env)

  if "error" in expected:
    with pytest.raises(Exception) as info:
      run()
    assert type(info.value).__name__ == expected["error"], (
        f"{source}: raised {type(info.value).__name__}: {info.value}; JAX raised "
        f"{expected['error']}: {expected['message']}")
    if check_message:
      assert str(info.value) == expected["message"], source
    return
  assert_matches(source, run(), expected, rtol, atol)
