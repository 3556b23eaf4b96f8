"""vmap's API: in_axes/out_axes forms, axis_size, errors, nesting, composition with jit and
grad, and collectives over a named axis."""
import numpy as np
import pytest

import axle as jax
import axle.numpy as jnp
from axle import lax


def test_in_axes_forms():
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  y = np.arange(3.0, dtype=np.float32)
  np.testing.assert_allclose(jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, y), x * y)
  np.testing.assert_allclose(jax.vmap(lambda a, b: a * b, in_axes=(1, 0))(x, y), (x * y).T)
  np.testing.assert_allclose(jax.vmap(lambda a: a * 2, in_axes=-1)(x), (x * 2).T)
  np.testing.assert_allclose(jax.vmap(lambda a: a * 2, in_axes=[1])(x), (x * 2).T)
  tree = {"a": x, "b": y}
  out = jax.vmap(lambda t: t["a"] * t["b"], in_axes=({"a": 1, "b": 0},))(tree)
  np.testing.assert_allclose(out, (x * y).T)


def test_out_axes_and_axis_size():
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  np.testing.assert_allclose(jax.vmap(lambda a: a * 2, out_axes=1)(x), (x * 2).T)
  np.testing.assert_allclose(jax.vmap(lambda a: a * 2, out_axes=-1)(x), (x * 2).T)
  out = jax.vmap(lambda a: (a, 1.0), out_axes=(0, None))(x)
  assert float(out[1]) == 1.0
  np.testing.assert_allclose(jax.vmap(lambda: jnp.ones(2), axis_size=3, in_axes=())(),
                             np.ones((3, 2)))
  np.testing.assert_allclose(jax.vmap(lambda a: 1.0, in_axes=None, axis_size=2)(x),
                             np.ones(2))


@pytest.mark.parametrize("call, error, message", [
    (lambda: jax.vmap(lambda x, y: x + y)(jnp.ones(2), jnp.ones(3)), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 2: axis 0 of argument x of type float32[2];\n"
     "  * one axis had size 3: axis 0 of argument y of type float32[3]"),
    (lambda: jax.vmap(lambda x: x)(1.0), ValueError,
     "vmap was requested to map its argument along axis 0, which implies that its rank should "
     "be at least 1, but is only 0 (its shape is ())"),
    (lambda: jax.vmap(lambda x: x, in_axes=1)(jnp.ones(3)), ValueError,
     "vmap was requested to map its argument along axis 1, which implies that its rank should "
     "be at least 2, but is only 1 (its shape is (3,))"),
    (lambda: jax.vmap(lambda x: x, in_axes=None)(jnp.ones(3)), ValueError,
     "vmap must have at least one non-None value in in_axes or axis_size must be specified"),
    (lambda: jax.vmap(lambda x: x, in_axes=(0, 0))(jnp.ones(3)), ValueError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
     "arguments passed to the function, but got len(in_axes)=2, len(args)=1"),
    (lambda: jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3)), ValueError,
     "at vmap out_axes, got axis spec None but output was batched on axis 0"),
    (lambda: jax.vmap(lambda x: x, out_axes=2)(jnp.ones(3)), ValueError,
     "axis 2 is out of bounds for array of dimension 1"),
    (lambda: jax.vmap(lambda x: x, in_axes=0.5)(jnp.ones(3)), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
     "arguments passed to the function, but got 0.5."),
])
def test_errors(call, error, message):
  with pytest.raises(error) as info:
    call()
  assert str(info.value) == message


def test_nested_vmap_and_jit():
  x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
  f = lambda v: jnp.sin(v) * 2.0
  np.testing.assert_allclose(jax.vmap(jax.vmap(f))(x), np.sin(x) * 2, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(jax.vmap(jax.vmap(f)))(x), np.sin(x) * 2, rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.jit(f))(x), np.sin(x) * 2, rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(jax.vmap(f, in_axes=1), in_axes=2)(x),
                             np.transpose(np.sin(x) * 2, (2, 1, 0)), rtol=1e-6)


def test_vmap_of_matmul_matches_loop():
  rng = np.random.default_rng(0)
  a = rng.standard_normal((5, 3, 4)).astype(np.float32)
  b = rng.standard_normal((4, 2)).astype(np.float32)
  np.testing.assert_allclose(jax.vmap(jnp.dot, in_axes=(0, None))(a, b), a @ b, rtol=1e-5)
  np.testing.assert_allclose(jax.vmap(jnp.dot, in_axes=(0, None), out_axes=2)(a, b),
                             np.moveaxis(a @ b, 0, 2), rtol=1e-5)


def test_per_example_gradients():
  rng = np.random.default_rng(1)
  w = rng.standard_normal(5).astype(np.float32)
  xs = rng.standard_normal((8, 5)).astype(np.float32)
  ys = (rng.random(8) > 0.5).astype(np.float32)

  def loss(w, x, y):
    p = jax.nn.sigmoid(jnp.dot(x, w)) if hasattr(jax, "nn") else 1 / (1 + jnp.exp(-jnp.dot(x, w)))
    return -(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))

  grads = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))(w, xs, ys)
  loop = np.stack([np.asarray(jax.grad(loss)(w, x, y)) for x, y in zip(xs, ys)])
  np.testing.assert_allclose(grads, loop, rtol=1e-5, atol=1e-6)


def test_collectives():
  x = jnp.arange(6.0).reshape(3, 2)
  f = lambda v: (lax.psum(v, "i"), lax.pmax(v, "i"), lax.pmin(v, "i"), lax.pmean(v, "i"),
                 lax.all_gather(v, "i"), lax.axis_index("i"),
                 lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]))
  s, mx, mn, mean, gathered, index, permuted = jax.vmap(f, axis_name="i")(x)
  xn = np.asarray(x)
  np.testing.assert_allclose(s, np.broadcast_to(xn.sum(0), (3, 2)))
  np.testing.assert_allclose(mx, np.broadcast_to(xn.max(0), (3, 2)))
  np.testing.assert_allclose(mn, np.broadcast_to(xn.min(0), (3, 2)))
  np.testing.assert_allclose(mean, np.broadcast_to(xn.mean(0), (3, 2)))
  np.testing.assert_allclose(gathered, np.broadcast_to(xn, (3, 3, 2)))
  np.testing.assert_array_equal(index, [0, 1, 2])
  np.testing.assert_allclose(permuted, xn[[2, 0, 1]])
  y = jnp.arange(9.0).reshape(3, 3)
  np.testing.assert_allclose(jax.vmap(lambda v: lax.psum_scatter(v, "i", tiled=True),
                                      axis_name="i")(y), [[9.0], [12.0], [15.0]])
  np.testing.assert_allclose(jax.vmap(lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True),
                                      axis_name="i")(y), np.asarray(y).T)
  np.testing.assert_allclose(jax.vmap(lambda v: lax.all_to_all(v, "i", 0, 0),
                                      axis_name="i")(y), np.asarray(y).T)
  # normalisation by the mean over the named axis, under jit, and its gradient
  centred = jax.jit(jax.vmap(lambda v: v - lax.pmean(v, "i"), axis_name="i"))(x)
  np.testing.assert_allclose(centred, xn - xn.mean(0))
  g = jax.grad(lambda x: jax.vmap(lambda v: (lax.psum(v, "i") * v).sum(), axis_name="i")(x).sum())(x)
  np.testing.assert_allclose(g, 2 * np.broadcast_to(xn.sum(0), (3, 2)))


def test_unbound_axis_name():
  with pytest.raises(NameError, match="unbound axis name: i"):
    lax.psum(1.0, "i")
  with pytest.raises(NameError, match="unbound axis name: i"):
    lax.ppermute(jnp.ones(2), "i", [(0, 1)])
  with pytest.raises(NameError, match="unbound axis name: i"):
    lax.axis_index("i")
