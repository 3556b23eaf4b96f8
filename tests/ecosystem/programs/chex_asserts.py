import jax, jax.numpy as jnp, chex
from _show import show
x = jnp.ones((2, 3))
chex.assert_shape(x, (2, 3)); chex.assert_rank(x, 2); chex.assert_type(x, jnp.float32)
chex.assert_trees_all_close({"a": x}, {"a": x + 1e-7})
chex.assert_trees_all_equal_shapes({"a": x}, {"a": x * 2})
for bad in (lambda: chex.assert_shape(x, (3, 3)), lambda: chex.assert_trees_all_close(x, x + 1.0),
            lambda: chex.assert_type(x, jnp.int32)):
  try:
    bad(); print("no error")
  except AssertionError as e:
    print("caught", type(e).__name__)
@chex.dataclass
class P:
  a: chex.Array
  b: chex.Array
p = P(a=jnp.ones(2), b=jnp.zeros(2))
q = jax.tree_util.tree_map(lambda v: v + 1, p)
show("a", q.a); show("b", q.b)
@jax.jit
@chex.assert_max_traces(n=1)
def f(x):
  chex.assert_rank(x, 2)
  return jnp.sin(x) * 2
for _ in range(3):
  r = f(x)
show("f", r)
print("ok")
