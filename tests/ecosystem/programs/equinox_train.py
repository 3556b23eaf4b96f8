import jax, jax.numpy as jnp, equinox as eqx
from _show import show
key = jax.random.PRNGKey(0)
mkey, xkey = jax.random.split(key)
model = eqx.nn.MLP(2, 1, 8, 2, key=mkey)
x = jax.random.normal(xkey, (32, 2)); y = jnp.sin(x[:, :1]) + x[:, 1:] ** 2
@eqx.filter_value_and_grad
def loss(m, x, y):
  return jnp.mean((jax.vmap(m)(x) - y) ** 2)
@eqx.filter_jit
def step(m, x, y):
  l, g = loss(m, x, y)
  m = eqx.apply_updates(m, jax.tree_util.tree_map(lambda d: -0.1 * d, g))
  return m, l
for i in range(30):
  model, l = step(model, x, y)
  if i % 10 == 0: show(f"loss{i}", l)
show("final", l)
g = eqx.filter_grad(lambda m: m(x[0]).sum())(model)
show("grad_w0", g.layers[0].weight)
def body(carry, xi):
  return jnp.sin(carry) * xi, carry.sum()
def f(c0, xs):
  c, ys = eqx.internal.scan(body, c0, xs, kind="checkpointed", checkpoints=2)
  return c.sum() + ys.sum()
xs = jnp.linspace(0.5, 1.5, 6)
show("scan", f(jnp.ones(3), xs))
show("scan_grad", jax.grad(f)(jnp.ones(3), xs))
cond = lambda c: c[0] < 10.
wbody = lambda c: c * 1.5
show("while", eqx.internal.while_loop(cond, wbody, jnp.ones(2), max_steps=20, kind="checkpointed"))
show("while_grad", jax.grad(lambda c: eqx.internal.while_loop(cond, wbody, c, max_steps=20, kind="checkpointed").sum())(jnp.ones(2)))
