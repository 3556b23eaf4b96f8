import jax, jax.numpy as jnp, optax
from flax import nnx
from _show import show
class MLP(nnx.Module):
  def __init__(self, rngs):
    self.l1 = nnx.Linear(3, 8, rngs=rngs)
    self.l2 = nnx.Linear(8, 1, rngs=rngs)
  def __call__(self, x):
    return self.l2(nnx.relu(self.l1(x)))
model = MLP(nnx.Rngs(0))
opt = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)
x = jax.random.normal(jax.random.PRNGKey(0), (16, 3)); y = x.sum(-1, keepdims=True)
@nnx.jit
def step(model, opt):
  l, g = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
  opt.update(model, g)
  return l
for i in range(20):
  l = step(model, opt)
  if i % 5 == 0: show(f"loss{i}", l)
show("final", l)
show("w1", model.l1.kernel[...])
