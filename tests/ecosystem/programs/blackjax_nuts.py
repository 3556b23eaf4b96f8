import jax, jax.numpy as jnp
import blackjax
from _show import show
def logdensity(p):
  return -0.5 * jnp.sum((p["x"] - jnp.array([1., -1.])) ** 2 / jnp.array([1., 0.25]))
nuts = blackjax.nuts(logdensity, step_size=0.3, inverse_mass_matrix=jnp.ones(2))
state = nuts.init({"x": jnp.zeros(2)})
def one(state, key):
  state, info = nuts.step(key, state)
  return state, (state.position["x"], info.num_integration_steps)
keys = jax.random.split(jax.random.PRNGKey(0), 40)
state, (xs, steps) = jax.jit(lambda s, k: jax.lax.scan(one, s, k))(state, keys)
show("mean", xs.mean(0)); show("last", xs[-3:]); show("steps", steps)
