"""Records JAX's answers for tests/test_typed_keys.py (run under real JAX 0.10.2).

    $JAX_PYTHON tools/record_typed_keys_reference.py

Each case is a Python expression over ``jax``, ``jnp``, ``random`` and the keys ``k`` (a typed
key), ``ks`` (three typed keys from split) and ``rk`` (a raw uint32 key); the reference is its
value as nested lists (typed keys by their key data), ``str`` for strings, or the error raised.
"""
import json
import os

import numpy as np
import jax
import jax.numpy as jnp
from jax import random

CASES = [
    # bits: typed and raw keys give the same numbers
    "random.key_data(k)", "random.key_data(random.key(2**40 + 5))", "random.key_data(ks)",
    "random.key_data(random.fold_in(k, 7))", "random.bits(k, (5,))", "random.bits(rk, (5,))",
    "random.uniform(k, (4,))", "random.uniform(rk, (4,))", "random.normal(k, (3,))",
    "random.normal(rk, (3,))", "random.split(rk, 3)", "random.fold_in(rk, 7)",
    "random.key_data(random.wrap_key_data(random.split(rk)))",
    "random.key_data(jax.jit(lambda k: random.split(k))(k))",
    "jax.jit(lambda k: random.bits(k, (2,)))(k)",
    "jax.vmap(lambda k: random.bits(k))(ks)",
    "jax.vmap(lambda k: random.uniform(k, (2,)))(ks)",
    "random.key_data(jax.vmap(lambda k: random.fold_in(k, 3))(ks))",
    "jax.lax.scan(lambda c, x: (random.split(c)[0], random.bits(c)), k, None, length=3)[1]",
    "random.key_data(jax.lax.scan(lambda c, x: (random.split(c)[0], random.bits(c)), k, None, length=3)[0])",
    "jax.lax.cond(True, lambda k: random.bits(k), lambda k: random.bits(random.fold_in(k, 1)), k)",
    "jax.lax.cond(False, lambda k: random.bits(k), lambda k: random.bits(random.fold_in(k, 1)), k)",
    "random.key_data(ks[1])", "random.key_data(ks[jnp.array([2, 0])])", "random.key_data(ks[1:])",
    "random.key_data(ks.reshape(3, 1))", "random.key_data(random.split(k, (2, 3)).T)",
    "ks == ks[0]", "ks != ks[1]",
    # what keys are
    "str(k.dtype)", "str(jax.typeof(k))", "str(jax.typeof(ks))", "repr(k)", "repr(ks)",
    "jnp.issubdtype(k.dtype, jax.dtypes.prng_key)", "jnp.issubdtype(k.dtype, jax.dtypes.extended)",
    "jnp.issubdtype(k.dtype, jnp.integer)", "k.shape", "ks.shape", "ks.ndim", "ks.size",
    "len(ks)", "ks.itemsize", "str(random.key_impl(k))",
    # errors
    "k + 1", "1 + k", "k * 2", "2 * k", "k - k", "1 - k", "k / 2", "k < k", "k <= 1", "-k",
    "abs(k)", "k & k", "k % 2", "np.asarray(k)", "random.split(ks)",
    # jaxprs (typed keys are key<fry> values in JAX's jaxprs)
    "str(jax.make_jaxpr(lambda k: random.bits(k, (3,)))(k))",
    "str(jax.make_jaxpr(lambda s: random.split(random.key(s)))(0))",
    "str(jax.make_jaxpr(lambda k: random.fold_in(k, 3))(k))",
    "str(jax.make_jaxpr(random.key_data)(k))",
    "str(jax.make_jaxpr(random.wrap_key_data)(random.key_data(k)))",
    "str(jax.make_jaxpr(lambda k: random.bits(k, (2,)))(rk))",
    "jax.tree_util.tree_leaves(k)",
    "jax.tree_util.tree_structure(k).num_leaves",
    # key arrays as values with a key dtype: jaxprs of keys through transformations
    "str(jax.make_jaxpr(random.split)(k))",
    "str(jax.make_jaxpr(lambda k: random.split(k, (2, 3)))(k))",
    "str(jax.make_jaxpr(random.split)(rk))",
    "str(jax.make_jaxpr(random.fold_in)(rk, 3))",
    "str(jax.make_jaxpr(random.clone)(k))",
    "str(jax.make_jaxpr(random.clone)(rk))",
    "str(jax.make_jaxpr(random.PRNGKey)(0))",
    "str(jax.make_jaxpr(random.key)(0))",
    "str(jax.make_jaxpr(lambda ks: ks[1])(ks))",
    "str(jax.make_jaxpr(lambda ks: ks[1:])(ks))",
    "str(jax.make_jaxpr(lambda ks: ks.reshape(3, 1))(ks))",
    "str(jax.make_jaxpr(lambda ks: ks[::-1].T)(ks))",
    "str(jax.make_jaxpr(lambda ks, i: ks[i])(ks, 1))",
    "str(jax.make_jaxpr(jax.vmap(random.split))(ks))",
    "str(jax.make_jaxpr(jax.vmap(lambda k: random.bits(k, (2,))))(ks))",
    "str(jax.make_jaxpr(jax.vmap(lambda k, i: random.fold_in(k, i)))(ks, jnp.arange(3)))",
    "str(jax.make_jaxpr(jax.vmap(lambda k: random.key_data(k)))(ks))",
    "str(jax.make_jaxpr(jax.vmap(random.wrap_key_data))(random.key_data(ks)))",
    "str(jax.make_jaxpr(jax.jit(random.split))(k))",
    "str(jax.make_jaxpr(lambda k: jax.lax.scan(lambda c, x: (random.split(c)[0], random.bits(c)), k, None, length=3))(k))",
    "str(jax.make_jaxpr(lambda ks: jax.lax.scan(lambda c, k: (c, random.bits(k)), 0, ks))(ks))",
    "str(jax.make_jaxpr(lambda p, k: jax.lax.cond(p, lambda k: k, lambda k: random.fold_in(k, 1), k))(True, k))",
    "str(jax.make_jaxpr(lambda k: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, random.split(c[1])[0]), (0, k)))(k))",
    "str(jax.make_jaxpr(jax.grad(lambda x, k: x * random.bits(k).astype(jnp.float32)))(1.0, k))",
    "str(jax.make_jaxpr(lambda x, k: jax.jvp(lambda x: x * random.bits(k).astype(jnp.float32), (x,), (x,)))(1.0, k))",
    "str(jax.make_jaxpr(lambda k, t: jax.jvp(lambda k: random.bits(k), (k,), (t,)))(k, np.zeros((), jax.dtypes.float0)))",
    "str(jax.make_jaxpr(lambda k: jnp.where(True, k, random.fold_in(k, 1)))(k))",
    # key arrays through jit, vmap, scan, grad: values
    "random.key_data(jax.jit(lambda ks: ks[1:].reshape(2, 1))(ks))",
    "random.key_data(jax.jit(lambda ks, i: ks[i])(ks, 2))",
    "random.key_data(jax.vmap(lambda k: random.split(k))(ks))",
    "random.key_data(jax.jit(jax.vmap(lambda k: random.split(k)[1]))(ks))",
    "jax.jit(lambda ks: jax.lax.scan(lambda c, k: (c, random.bits(k)), 0, ks)[1])(ks)",
    "random.key_data(jax.jit(lambda p, k: jax.lax.cond(p, lambda k: k, lambda k: random.fold_in(k, 1), k))(False, k))",
    "random.key_data(jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, random.split(c[1])[0]), (0, k))[1])",
    "jax.grad(lambda x, k: x * random.uniform(k))(2.0, k)",
    "jax.jit(jax.grad(lambda x, k: (x * random.normal(k, (3,))).sum()))(2.0, k)",
    "jax.jvp(lambda x, k: x * random.uniform(k), (2.0, k), (1.0, np.zeros((), jax.dtypes.float0)))",
    "random.key_data(random.key_data(jax.jit(random.split)(rk)))",
    "str(jax.eval_shape(random.split, k))",
    "isinstance(k, jax.Array)",
    "random.key_data(jnp.stack([k, random.key(1)]))",
    "random.key_data(jnp.where(jnp.array([True, False]), ks[:2], ks[1:]))",
    "random.key_data(jnp.concatenate([ks, ks[::-1]]))",
    "random.key_data(jnp.broadcast_to(k, (2, 2)))",
    "str(jax.make_jaxpr(lambda a, b: jnp.where(True, a, b))(k, k))",
    "str(jax.make_jaxpr(lambda a: jnp.concatenate([a, a[::-1]]))(ks))",
    "str(jax.typeof(random.split(k, (2, 3))))",
]


def _plain(value):
  if isinstance(value, jax.Array) and jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
    return {"keys": np.asarray(random.key_data(value)).tolist()}
  if isinstance(value, (jax.Array, np.ndarray, np.generic)):
    return {"array": np.asarray(value).tolist(), "dtype": str(value.dtype)}
  if isinstance(value, (tuple, list)):
    return [_plain(v) for v in value]
  return value


def main():
  env = {"jax": jax, "jnp": jnp, "np": np, "random": random, "k": random.key(0),
         "ks": random.split(random.key(0), 3), "rk": random.PRNGKey(0)}
  cases = {}
  for expr in CASES:
    try:
      cases[expr] = {"value": _plain(eval(expr, env))}
    except Exception as err:  # the error is the reference
      cases[expr] = {"error": type(err).__name__, "message": str(err)}
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                      "typed_keys_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases}, f, indent=0)
  print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
  main()
