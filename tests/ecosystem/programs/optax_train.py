import jax, jax.numpy as jnp, optax
from _show import show
key = jax.random.PRNGKey(0)
X = jax.random.normal(key, (64, 3)); w_true = jnp.array([1., -2., 0.5]); y = X @ w_true + 0.1
params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
def loss(p): return jnp.mean((X @ p["w"] + p["b"] - y) ** 2)
sched = optax.warmup_cosine_decay_schedule(0.0, 0.05, 10, 100)
opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(sched))
state = opt.init(params)
@jax.jit
def step(p, s):
  l, g = jax.value_and_grad(loss)(p)
  u, s = opt.update(g, s, p)
  return optax.apply_updates(p, u), s, l
for i in range(100):
  params, state, l = step(params, state)
  if i % 25 == 0: show(f"loss{i}", l)
show("final", l); show("w", params["w"]); show("b", params["b"])
show("softmax_ce", optax.softmax_cross_entropy(X[:4], jax.nn.softmax(X[4:8])))
