"""Python scalars becoming arrays go through one checked conversion: out-of-range Python ints
raise OverflowError (as in JAX 0.10.2) instead of wrapping silently; None is not a value."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax

BIG = 2**40

# Each raises OverflowError in JAX 0.10.2 (checked with the reference interpreter).
OVERFLOWS = {
    "add": lambda: jnp.arange(3) + 2**32 + 5,
    "less": lambda: jnp.arange(3) < BIG,
    "mul_int32_edge": lambda: jnp.arange(3) * 2**31,
    "negative_edge": lambda: jnp.arange(3) + (-2**31 - 1),
    "beyond_int64": lambda: jnp.arange(3) + 2**64,
    "float_array_huge_int": lambda: jnp.ones(3) + 2**100,
    "uint32_array_plus_int32_overflow": lambda: jnp.arange(3, dtype=jnp.uint32) + 2**31,
    "where": lambda: jnp.where(jnp.arange(3) > 0, BIG, jnp.arange(3)),
    "clip": lambda: jnp.clip(jnp.arange(3), 0, BIG),
    "at_set": lambda: jnp.arange(3).at[0].set(BIG),
    "lax_add": lambda: lax.add(jnp.arange(3), BIG),
    "asarray": lambda: jnp.asarray(BIG),
    "array_list": lambda: jnp.array([1, BIG]),
    "jit_body": lambda: jax.jit(lambda x: x + 2**33)(jnp.arange(3)),
    "jit_body_less": lambda: jax.jit(lambda x: x < BIG)(jnp.arange(3)),
    "jit_argument": lambda: jax.jit(lambda x: x)(BIG),
    "make_jaxpr_literal": lambda: jax.make_jaxpr(lambda x: x + BIG)(1),
    "vmap_body": lambda: jax.vmap(lambda x: x + BIG)(jnp.arange(3)),
    "scalar_type_out_of_range": lambda: jnp.int8(300),
    "int32_constructor": lambda: jnp.int32(2**31),
}


@pytest.mark.parametrize("name", sorted(OVERFLOWS))
def test_out_of_range_python_int_raises_overflow(name):
  with pytest.raises(OverflowError):
    OVERFLOWS[name]()


def test_in_range_conversions_keep_working():
  assert int(jnp.uint32(2998342421)) == 2998342421
  assert jnp.uint32(2998342421).dtype == np.uint32
  assert int(jnp.asarray(2998342421, dtype=jnp.uint32)) == 2998342421
  assert int(lax.convert_element_type(2998342421, jnp.uint32)) == 2998342421
  np.testing.assert_array_equal(np.asarray(jnp.array([2998342421], dtype=jnp.uint32)), [2998342421])
  assert float(jnp.float32(BIG)) == float(BIG)
  assert float(jnp.array(BIG, dtype=jnp.float32)) == float(BIG)
  # an in-range int implicitly cast to a narrower dtype wraps, as in JAX
  np.testing.assert_array_equal(np.asarray(jnp.arange(3, dtype=jnp.int8) + 300), [44, 45, 46])
  np.testing.assert_array_equal(np.asarray(jnp.arange(3) + (2**31 - 1)),
                                [2**31 - 1, -2**31, -2**31 + 1])
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: x + 5)(jnp.arange(3))), [5, 6, 7])


def test_x64_allows_64_bit_python_ints():
  with _x64():
    out = jnp.arange(3) + BIG
    assert out.dtype == np.int64
    assert int(out[0]) == BIG
    with pytest.raises(OverflowError):
      jnp.arange(3) + 2**64


class _x64:
  def __enter__(self):
    self.old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)

  def __exit__(self, *exc):
    jax.config.update("jax_enable_x64", self.old)


@pytest.mark.parametrize("value", [[1.0, None], [1, None], [[1.0], [None]], None])
def test_none_is_not_an_array_value(value):
  with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
    jnp.array(value)
  with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
    jnp.asarray(value)
