"""Records real JAX's eager float32 means, variances and standard deviations of vectors.

    $JAX_PYTHON tools/record_eager_variance_reference.py

Writes ``tests/data/eager_variance_reference.json`` (inputs and results as hex bytes), read by
``tests/test_eager_sum_order.py``: the eager shortcuts (axle/_src/_host_kernels.c and its NumPy
fallback) must give these bits. Values spread over six decades, or clustered around 1000 (a
mean far from zero), so that the order and the rounding of each step show in the last bits.
"""
import json
import os

import jax.numpy as jnp
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "eager_variance_reference.json")
LENGTHS = [5, 32, 33, 64, 100, 129, 1000, 2049, 4095]


def main():
  rng = np.random.default_rng(1)
  out = []
  for n in LENGTHS:
    for trial in range(4):
      if trial % 2:
        x = (rng.standard_normal(n) + 1000).astype(np.float32)
      else:
        x = (rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)).astype(np.float32)
      array = jnp.asarray(x)
      results = {"mean": jnp.mean(array), "var": jnp.var(array), "std": jnp.std(array),
                 "var_ddof1": jnp.var(array, ddof=1), "std_ddof1": jnp.std(array, ddof=1)}
      out.append({"x": x.tobytes().hex(),
                  **{k: np.asarray(v).tobytes().hex() for k, v in results.items()}})
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0)
  print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
  main()
