"""Records real JAX's eager float32 sums (XLA CPU's summation order).

    $JAX_PYTHON tools/record_eager_sum_reference.py

Writes ``tests/data/eager_sum_reference.json`` (inputs and sums as hex bytes), read by
``tests/test_eager_sum_order.py``. Cases: (shape, axis) with values spread over six decades so
that the order of the additions shows in the last bits.
"""
import json
import os

import jax.numpy as jnp
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "eager_sum_reference.json")
CASES = [((20,), 0), ((2,), 0), ((31,), 0), ((32,), 0), ((33,), 0), ((100,), 0), ((1000,), 0),
         ((2049,), 0), ((5, 20), 1), ((20, 5), 0), ((3, 100), 1), ((6, 5), 1), ((8, 4), 0),
         ((3, 4, 2), 1),
         # matrices, whose loops XLA picks by shape (axle/_src/_host_kernels.c)
         ((100, 100), 0), ((100, 100), 1), ((50, 200), 0), ((50, 200), 1), ((256, 16), 0),
         ((15, 500), 1), ((128, 256), 0), ((64, 64), 1), ((32, 100), 0), ((20, 150), 1),
         ((200, 31), 1), ((7, 600), 0)]


def main():
  rng = np.random.default_rng(0)
  out = []
  for shape, axis in CASES:
    for _ in range(3):
      x = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(np.float32)
      total = np.asarray(jnp.sum(jnp.asarray(x), axis=axis))
      out.append({"shape": list(shape), "axis": axis, "x": x.tobytes().hex(),
                  "sum": total.tobytes().hex()})
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0)
  print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
  main()
