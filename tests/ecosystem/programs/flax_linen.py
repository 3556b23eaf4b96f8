import jax, jax.numpy as jnp
import flax.linen as nn
from _show import show
class MLP(nn.Module):
  @nn.compact
  def __call__(self, x):
    x = nn.relu(nn.Dense(8)(x))
    return nn.Dense(1)(x)
model = MLP()
x = jax.random.normal(jax.random.PRNGKey(0), (16, 3)); y = x.sum(-1, keepdims=True)
params = model.init(jax.random.PRNGKey(1), x)
@jax.jit
def step(p):
  l, g = jax.value_and_grad(lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(p)
  return jax.tree_util.tree_map(lambda a, b: a - 0.05 * b, p, g), l
for i in range(30):
  params, l = step(params)
  if i % 10 == 0: show(f"loss{i}", l)
show("final", l)
class Drop(nn.Module):
  @nn.compact
  def __call__(self, x):
    return nn.Dropout(0.5, deterministic=False)(x)
show("dropout", Drop().apply({}, jnp.ones(6), rngs={"dropout": jax.random.PRNGKey(3)}))
