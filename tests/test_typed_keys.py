"""Typed PRNG keys (dtype ``key<fry>``) against JAX 0.10.2's answers
(tests/data/typed_keys_reference.json, recorded by tools/record_typed_keys_reference.py):
their bits (typed and raw keys alike), what they are (dtype, typeof, repr), key arrays through
jit, vmap, scan and cond, and the errors arithmetic on keys raises.

Key arrays are values with the extended dtype ``key<fry>``: the jaxprs show ``key<fry>[...]``
avals and JAX's ``random_wrap`` / ``random_unwrap`` / ``random_seed`` equations, through jit,
vmap, scan, cond, while_loop and grad. Cases in NOT_YET (expression -> reason) are what axle
does not do yet; they are strict xfails so that they are noticed when they start to pass.
"""
import json
import os

import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import random

_REFERENCE = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                         "typed_keys_reference.json")))["cases"]

NOT_YET: dict = {}


def _env():
  return {"jax": jax, "jnp": jnp, "np": np, "random": random, "k": random.key(0),
          "ks": random.split(random.key(0), 3), "rk": random.PRNGKey(0)}


def _plain(value):
  if hasattr(value, "dtype") and jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
    return {"keys": np.asarray(random.key_data(value)).tolist()}
  if isinstance(value, (jax.Array, np.ndarray, np.generic)):
    return {"array": np.asarray(value).tolist(), "dtype": str(value.dtype)}
  if isinstance(value, (tuple, list)):
    return [_plain(v) for v in value]
  return value


@pytest.mark.parametrize("expr", [
    pytest.param(expr, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[expr]))
    if expr in NOT_YET else expr for expr in sorted(_REFERENCE)])
def test_matches_jax(expr):
  expected = _REFERENCE[expr]
  if "error" in expected:
    with pytest.raises(Exception) as info:
      eval(expr, _env())
    assert type(info.value).__name__ == expected["error"]
    assert str(info.value) == expected["message"]
    return
  value = eval(expr, _env())
  if isinstance(value, bool) or not hasattr(value, "dtype"):
    value = _plain(value)
    assert value == expected["value"] or (isinstance(value, list)
                                           and value == list(expected["value"]))
    return
  assert _plain(value) == expected["value"]


def test_typed_and_raw_keys_give_identical_bits():
  typed = random.key(123)
  raw = random.PRNGKey(123)
  np.testing.assert_array_equal(random.key_data(typed), raw)
  for fn in (lambda k: random.bits(k, (4,)), lambda k: random.uniform(k, (4,)),
             lambda k: random.normal(k, (4,))):
    np.testing.assert_array_equal(np.asarray(fn(typed)), np.asarray(fn(raw)))
  np.testing.assert_array_equal(random.key_data(random.split(typed, 4)), random.split(raw, 4))


def test_key_dtype_is_an_extended_dtype():
  dtype = random.key(0).dtype
  assert jnp.issubdtype(dtype, jax.dtypes.extended)
  assert jnp.issubdtype(dtype, jax.dtypes.prng_key)
  assert not jnp.issubdtype(dtype, np.floating)
  aval = jax.typeof(random.split(random.key(0), 4).reshape(2, 2))
  assert str(aval) == "key<fry>[2,2]" and aval.dtype == dtype
  # keys have no tangent space: their tangent aval is float0
  assert aval.to_tangent_aval().dtype == jax.dtypes.float0


def test_key_equality_is_elementwise():
  ks = random.split(random.key(0), 3)
  np.testing.assert_array_equal(ks == ks[1], [False, True, False])
  with pytest.raises(TypeError, match="does not accept dtypes key<fry>, float32"):
    ks + jnp.float32(1)


def test_jitted_calls_pass_keys_by_their_data():
  # the repeated-call path (call plans) hands XLA a key's data buffer and wraps key results
  step = jax.jit(lambda x, k: (x + random.uniform(k, (2,)), random.split(k)[0]))
  key = random.key(7)
  for _ in range(4):
    out, next_key = step(np.float32(1), key)
    np.testing.assert_array_equal(out, 1 + random.uniform(key, (2,)))
    assert isinstance(next_key, random.PRNGKeyArray) and next_key.shape == ()
    np.testing.assert_array_equal(random.key_data(next_key),
                                  random.key_data(random.split(key)[0]))
    key = next_key
  keys = random.split(key, 3)  # another signature: key<fry>[3]
  np.testing.assert_array_equal(
      step(np.float32(0), keys[0])[0], random.uniform(keys[0], (2,)))
  with pytest.raises(ValueError, match="uniform accepts a single key"):
    step(np.float32(0), keys)


def test_key_arrays_are_leaves_and_closed_over_keys_are_constants():
  key = random.key(3)
  assert jax.tree_util.tree_leaves({"k": key, "x": 1.0}) == [key, 1.0]
  keys = random.split(key, 3)
  pick = jax.jit(lambda i: random.bits(keys[i]))
  np.testing.assert_array_equal(pick(2), random.bits(keys[2]))
  assert "a:key<fry>[3]" in str(jax.make_jaxpr(lambda i: keys[i])(1))
