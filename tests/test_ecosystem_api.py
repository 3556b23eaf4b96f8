"""The public API the JAX ecosystem (optax, flax, equinox, chex, ...) relies on, and the axle
bugs those libraries exposed. Expected values are JAX 0.10.2's (recorded by hand from it)."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp


# ---------------------------------------------------------------------------
# Known bugs


def test_unsigned_scalar_constructor_takes_values_above_int32():
  x = jnp.uint32(2998342421)
  assert x.dtype == np.uint32 and int(x) == 2998342421
  assert int(jnp.asarray(4294967295, dtype=jnp.uint32)) == 4294967295
  assert int(jnp.int8(-1)) == -1


@pytest.mark.parametrize("ctor,value", [(jnp.uint32, -1), (jnp.uint32, 2**32 + 5),
                                        (jnp.int32, 2998342421), (jnp.uint8, 256)])
def test_scalar_constructor_out_of_range_raises_overflow(ctor, value):
  with pytest.raises(OverflowError, match=f"Python integer {value} out of bounds"):
    ctor(value)


def _sin_with_custom_vjp():
  @jax.custom_vjp
  def f(x):
    return jnp.sin(x)

  def fwd(x):
    return jnp.sin(x), jnp.cos(x)

  def bwd(r, g):
    return (2 * r * g,)

  f.defvjp(fwd, bwd)
  return f


def test_grad_of_jit_with_custom_vjp_inside():
  f = _sin_with_custom_vjp()
  expected = np.float32(2 * np.cos(np.float32(1.0)))
  np.testing.assert_allclose(jax.grad(jax.jit(f))(1.0), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.grad(jax.jit(f)))(1.0), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.grad(jax.jit(f)))(jnp.ones(3)), [expected] * 3,
                             rtol=1e-6)
  # inside scan and cond bodies too
  loop = lambda x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=3)[0]
  np.testing.assert_allclose(jax.grad(loop)(1.0), 2.116066, rtol=1e-6)
  np.testing.assert_allclose(jax.grad(lambda x: jax.lax.cond(x > 0, f, jnp.cos, x))(1.0),
                             expected, rtol=1e-6)


def test_grad_of_jit_custom_vjp_jaxpr_matches_jax():
  f = _sin_with_custom_vjp()
  text = str(jax.make_jaxpr(jax.grad(jax.jit(f)))(1.0))
  assert "_:f32[] b:f32[] = jit[" in text and "e:f32[] = mul 2.0:f32[] b" in text


def test_jvp_of_jit_custom_vjp_still_refuses_forward_mode():
  f = _sin_with_custom_vjp()
  with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
    jax.jvp(jax.jit(f), (1.0,), (1.0,))


def test_rules_under_grad_see_arrays_not_python_floats():
  seen = []

  @jax.custom_vjp
  def f(x):
    return jnp.sin(x)

  def fwd(x):
    seen.append(x)
    return jnp.sin(x), jnp.cos(x)

  f.defvjp(fwd, lambda r, g: (r * g,))

  @jax.custom_jvp
  def h(x):
    return jnp.sin(x)

  @h.defjvp
  def h_jvp(primals, tangents):
    seen.append(primals[0])
    return h(primals[0]), tangents[0]

  jax.grad(lambda x: f(jnp.asarray(x)))(1.0)
  jax.grad(h)(1.0)
  jax.jvp(h, (1.0,), (1.0,))
  assert len(seen) == 3
  for x in seen:
    assert isinstance(x, jax.Array), type(x)
    assert x.dtype == np.float32 and x.weak_type
