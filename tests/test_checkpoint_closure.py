"""jax.checkpoint of a function that closes over an outer traced value (issue 14,
parity case transform.checkpoint_policy): the closed-over tracer becomes a leading operand of
``remat2`` as in JAX, so it lowers and differentiates. Expected numbers printed by JAX 0.10.2."""
import numpy as np

import axle as jax
import axle.numpy as jnp

W = jnp.arange(16.).reshape(4, 4) / 10
X = jnp.ones((2, 4))


def _f(x, w):
  g = jax.checkpoint(lambda a: jnp.tanh(a @ w) @ w, policy=jax.checkpoint_policies.dots_saveable)
  return g(x)


def test_closed_over_tracer_is_an_operand():
  text = str(jax.make_jaxpr(lambda x, w: jax.checkpoint(lambda a: jnp.tanh(a @ w) @ w)(x))(X, W))
  assert "jaxpr={ lambda ; d:f32[4,4] e:f32[2,4]. let" in text
  assert "    ] b a\n  in (c,) }" in text


def _bits(x):
  return np.asarray(x).view(np.uint32)[0].tolist()


def test_policy_checkpoint_under_jit_matches_jax_bits():
  # (XLA:CPU's last bit depends on the CPU's instruction set: these are JAX 0.10.2's bits on
  # the CI machine, an Intel Xeon with AVX-512; an older record differed in two last bits.)
  assert _bits(jax.jit(_f)(X, W)) == [1075388542, 1077054309, 1078720075, 1080385842]
  gx, gw = jax.jit(jax.grad(lambda x, w: _f(x, w).sum(), argnums=(0, 1)))(X, W)
  assert _bits(gx) == [1012305219, 1028523206, 1035154206, 1040147417]
  assert _bits(gw) == [1073767872, 1073875846, 1073816033, 1073738090]
