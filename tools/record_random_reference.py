"""Records JAX's random numbers for tests/test_random.py (run under real JAX 0.10.2).

    $JAX_PYTHON tools/record_random_reference.py

Each case is a Python expression over ``random`` (jax.random / axle.random) and ``jnp``; the
test evaluates the same expression with axle, eagerly and under jit. Cases marked BOTH are
recorded with jax_threefry_partitionable True and False.
"""
import json
import os

import numpy as np
import jax
import jax.numpy as jnp
from jax import random

K = "random.PRNGKey(0)"
K1 = "random.PRNGKey(1)"
TK = "random.key(42)"

BOTH = [
    "random.PRNGKey(0)", "random.PRNGKey(0x123456789)", "random.PRNGKey(-1)",
    "random.PRNGKey(2**40 + 5)", "random.key_data(random.key(42))",
    f"random.split({K})", f"random.split({K1}, 3)", f"random.split({K1}, (2, 3))",
    f"random.split({K1}, 1)", f"random.key_data(random.split({TK}, 5))",
    f"random.fold_in({K}, 7)", f"random.fold_in({K1}, 2**31 + 5)",
    f"random.key_data(random.fold_in({TK}, 0))",
    f"random.bits({K}, (7,))", f"random.bits({K}, (5,), jnp.uint8)",
    f"random.bits({K1}, (3, 3), jnp.uint16)", f"random.bits({K1}, (4,), jnp.uint8)",
    f"random.bits({K1}, (), jnp.uint32)", f"random.bits({TK}, (6,))",
    f"random.uniform({K}, (7,))", f"random.uniform({K1}, (2, 3), minval=-2., maxval=5.)",
    f"random.uniform({K1}, (5,), jnp.bfloat16)", f"random.uniform({K1}, (5,), jnp.float16)",
    "random.uniform(random.split(random.PRNGKey(0x123456789))[1], (5,))",
    f"random.uniform({TK}, (3,))",
    f"random.normal({K}, (7,))", f"random.normal({K1}, (2, 2), jnp.bfloat16)",
    f"random.normal({K1}, (3,), jnp.complex64)",
    f"random.randint({K}, (6,), 0, 10)", f"random.randint({K1}, (5,), -100, 100, jnp.int8)",
    f"random.randint({K1}, (5,), 0, 256, jnp.uint8)", f"random.randint({K1}, (4,), 5, 3)",
    f"random.bernoulli({K}, 0.3, (8,))", f"random.bernoulli({K1}, jnp.array([0.1, 0.9, 0.5]))",
    f"random.categorical({K}, jnp.array([0.1, 1.0, 2.0, -1.0]), shape=(6,))",
    f"random.categorical({K1}, jnp.array([[0.1, 1.0, 2.0], [3., 0., -1.]]))",
    f"random.choice({K}, 10, (4,))", f"random.choice({K}, 10, (4,), replace=False)",
    f"random.choice({K1}, jnp.arange(5.), (3,), p=jnp.array([.1, .2, .3, .2, .2]))",
    f"random.choice({K1}, 6, (3,), replace=False, p=jnp.array([.1, .2, .3, .2, .1, .1]))",
    f"random.permutation({K}, 8)", f"random.permutation({K1}, jnp.arange(12).reshape(3, 4), axis=1)",
    f"random.permutation({K1}, jnp.arange(12).reshape(3, 4), independent=True)",
    f"random.gumbel({K}, (5,))", f"random.exponential({K}, (5,))",
]

DEFAULT_ONLY = [
    f"random.truncated_normal({K}, -1., 2., (5,))", f"random.laplace({K}, (5,))",
    f"random.logistic({K}, (5,))", f"random.cauchy({K}, (5,))",
    f"random.rademacher({K}, (6,))", f"random.pareto({K}, 3., (4,))",
    f"random.weibull_min({K}, 2., 1.5, (4,))", f"random.rayleigh({K}, 2., (4,))",
    f"random.wald({K}, 1.5, (4,))", f"random.geometric({K}, 0.3, (5,))",
    f"random.triangular({K}, 0., 1., 3., (5,))", f"random.lognormal({K}, 0.5, (4,))",
    f"random.maxwell({K}, (4,))", f"random.double_sided_maxwell({K}, 1., 2., (4,))",
    f"random.gamma({K}, 2.5, (5,))", f"random.gamma({K1}, jnp.array([0.3, 1., 7.]))",
    f"random.loggamma({K}, 0.5, (4,))", f"random.beta({K}, 2., 3., (4,))",
    f"random.dirichlet({K}, jnp.array([1., 2., 3.]), (2,))", f"random.t({K}, 4., (4,))",
    f"random.chisquare({K}, 3., (4,))", f"random.f({K}, 3., 5., (4,))",
    f"random.generalized_normal({K}, 1.5, (4,))", f"random.ball({K}, 3, 2, (2,))",
    f"random.poisson({K}, 3., (6,))", f"random.poisson({K1}, jnp.array([0., 1., 12., 50.]))",
    f"random.binomial({K}, 5, 0.3, (5,))", f"random.binomial({K1}, jnp.array([10., 100.]), 0.6)",
    f"random.multivariate_normal({K}, jnp.zeros(2), jnp.array([[2., .5], [.5, 1.]]), (3,))",
    f"random.orthogonal({K}, 3)",
]


def encode(value):
  if isinstance(value, jax.Array) and jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
    value = random.key_data(value)
  array = np.asarray(value)
  if array.dtype == jnp.bfloat16:
    array_out = array.astype(np.float32)
  else:
    array_out = array
  if np.iscomplexobj(array_out):
    data = [[float(z.real), float(z.imag)] for z in array_out.reshape(-1)]
  else:
    data = array_out.reshape(-1).tolist()
  return {"dtype": str(array.dtype), "shape": list(array.shape), "values": data}


def main():
  cases = []
  for flag in (True, False):
    jax.config.update("jax_threefry_partitionable", flag)
    for expr in BOTH + (DEFAULT_ONLY if flag else []):
      env = {"random": random, "jnp": jnp}
      cases.append({"expr": expr, "partitionable": flag, **encode(eval(expr, env))})
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "random_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases}, f, indent=0)
  print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
  main()
