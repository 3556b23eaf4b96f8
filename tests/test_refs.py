"""Array refs (jax.new_ref / jax.Ref / ref[...] / jax.freeze) and the jax.experimental.hijax
names. Expected values are JAX 0.10.2's (printed by it for the same code) or plain arithmetic."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle._src.state.types import AbstractRef
from axle.experimental import hijax


def test_read_write_and_type():
  ref = jax.new_ref(jnp.arange(3.))
  assert repr(ref) == "Ref([0., 1., 2.], dtype=float32)"
  assert str(jax.typeof(ref)) == "Ref{float32[3]}"
  assert isinstance(jax.typeof(ref), AbstractRef) and isinstance(ref, jax.Ref)
  assert not isinstance(ref, jax.Array)
  assert ref.shape == (3,) and ref.dtype == np.float32 and ref.ndim == 1 and len(ref) == 3
  assert float(ref[1]) == 1.0
  ref[...] = jnp.ones(3)
  ref[1] = 5.
  np.testing.assert_array_equal(ref[...], [1., 5., 1.])
  ref[...] += 1
  np.testing.assert_array_equal(ref[...], [2., 6., 2.])


def test_writes_check_shape_and_dtype_as_jax():
  ref = jax.new_ref(jnp.zeros(2))
  with pytest.raises(ValueError, match=r"Invalid shape for `swap`. Ref shape: \(2,\)"):
    ref[...] = jnp.zeros(3)
  with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32"):
    ref[...] = jnp.zeros(2, jnp.int32)


def test_ref_made_inside_jit_and_grad():
  @jax.jit
  def f(x):
    ref = jax.new_ref(x)
    ref[0] = 10.
    return ref[...] * 2
  np.testing.assert_array_equal(f(jnp.zeros(3)), [20., 0., 0.])

  def g(x):
    ref = jax.new_ref(jnp.ones(2))
    ref[...] = ref[...] * x
    return ref[...].sum()
  assert float(jax.grad(g)(3.)) == 2.0  # JAX: 2.0


def test_jit_reads_and_writes_a_closed_over_ref_at_each_call():
  ref = jax.new_ref(jnp.zeros(3))

  @jax.jit
  def f(x):
    ref[...] += x
    return ref[0] * 2
  assert float(f(jnp.ones(3))) == 2.0  # JAX 0.10.2: 2.0, then Ref([1., 1., 1.])
  np.testing.assert_array_equal(ref[...], [1., 1., 1.])
  assert float(f(jnp.ones(3))) == 4.0
  np.testing.assert_array_equal(ref[...], [2., 2., 2.])

  @jax.jit
  def read(x):
    return ref[...] + x
  np.testing.assert_array_equal(read(1.0), [3., 3., 3.])
  ref[...] = jnp.zeros(3)
  np.testing.assert_array_equal(read(1.0), [1., 1., 1.])  # not the value seen when traced


def test_jit_takes_refs_as_arguments():
  @jax.jit
  def g(r, x):
    r[1] = x.sum()
    return r[...]
  a, b = jax.new_ref(jnp.ones(3)), jax.new_ref(jnp.zeros(3))
  np.testing.assert_array_equal(g(a, jnp.ones(3)), [1., 3., 1.])  # JAX: [1. 3. 1.]
  np.testing.assert_array_equal(g(b, jnp.full(3, 5.)), [0., 15., 0.])  # same trace, other ref
  np.testing.assert_array_equal(a[...], [1., 3., 1.])
  np.testing.assert_array_equal(b[...], [0., 15., 0.])


def test_nested_jit_threads_the_ref_through_the_outer_program():
  ref = jax.new_ref(jnp.zeros(2))
  inner = jax.jit(lambda x: ref.__setitem__(Ellipsis, ref[...] + x))

  @jax.jit
  def outer(x):
    inner(x)
    inner(x)
    return ref[...] * 10
  np.testing.assert_array_equal(outer(jnp.ones(2)), [20., 20.])
  np.testing.assert_array_equal(ref[...], [2., 2.])


def test_ref_from_outside_written_with_a_differentiated_value_is_an_error_not_a_stale_value():
  ref = jax.new_ref(jnp.zeros(2))

  @jax.jit
  def h(x):
    ref[...] = x
    return x.sum()
  with pytest.raises(NotImplementedError, match="made outside a transformation"):
    jax.grad(h)(jnp.ones(2))
  np.testing.assert_array_equal(ref[...], [0., 0.])
  read_only = jax.jit(lambda x: (ref[...] + x).sum())
  assert float(jax.grad(read_only)(1.0)) == 2.0


def test_freeze():
  ref = jax.new_ref(jnp.arange(2.))
  np.testing.assert_array_equal(jax.freeze(ref), [0., 1.])
  with pytest.raises(ValueError, match="frozen"):
    ref[...]


def test_hijax_names_import_and_refuse_to_bind():
  class P(hijax.HiPrimitive):
    pass
  with pytest.raises(NotImplementedError, match="high-level types"):
    P("p").bind(1)

  class T(hijax.MutableHiType):
    __slots__ = ("a",)
    method = hijax.aval_method(lambda self: 7)
  assert T().method() == 7
  hijax.control_flow_allowed_effects.add_type(int)
  assert hijax.control_flow_allowed_effects.contains(3)
