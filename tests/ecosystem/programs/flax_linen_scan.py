import jax, jax.numpy as jnp
import flax.linen as nn
from _show import show
class Cell(nn.Module):
  @nn.compact
  def __call__(self, c, x):
    h = nn.tanh(nn.Dense(4)(jnp.concatenate([c, x], -1)))
    return h, h.sum()
class RNN(nn.Module):
  @nn.compact
  def __call__(self, xs):
    scan = nn.scan(nn.remat(Cell), variable_broadcast="params", split_rngs={"params": False}, in_axes=0, out_axes=0)
    return scan()(jnp.zeros((4,)), xs)
xs = jax.random.normal(jax.random.PRNGKey(0), (5, 3))
rnn = RNN()
v = rnn.init(jax.random.PRNGKey(1), xs)
c, ys = rnn.apply(v, xs)
show("carry", c); show("ys", ys)
g = jax.jit(jax.grad(lambda v: rnn.apply(v, xs)[1].sum()))(v)
for path, leaf in jax.tree_util.tree_flatten_with_path(g)[0]:
  show(jax.tree_util.keystr(path), leaf)
