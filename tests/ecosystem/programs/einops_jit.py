import jax, jax.numpy as jnp
from einops import rearrange, reduce, repeat, einsum, pack, unpack
from _show import show
x = jnp.arange(24.).reshape(2, 3, 4) / 7
print(rearrange(x, 'b c d -> b (c d)').shape)
f = jax.jit(lambda x: reduce(rearrange(x, 'b c d -> d b c'), 'd b c -> d', 'mean'))
show("reduce", f(x))
show("grad", jax.grad(lambda x: (repeat(x, 'b c d -> b c d r', r=2) ** 2).sum())(x))
show("einsum", jax.jit(lambda x: einsum(x, x, 'b c d, b c d -> b'))(x))
packed, ps = pack([x, x[:, :, 0]], 'b c *')
show("unpacked", jax.jit(lambda p: unpack(p, ps, 'b c *')[1])(packed))
