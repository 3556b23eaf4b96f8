"""Records real JAX's jnp.linspace bits (eager: XLA's fused multiply-add form).

    $JAX_PYTHON tools/record_linspace_reference.py

Writes ``tests/data/linspace_reference.json``, read by ``tests/test_linspace_bits.py``; the
cases are in ``tests/linspace_cases.py`` (start, stop, num, endpoint, dtype name or None).
"""
import json
import os
import sys

import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tests.linspace_cases import CASES  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "linspace_reference.json")


def main():
  out = []
  for start, stop, num, endpoint, dtype in CASES:
    value = np.asarray(jnp.linspace(np.asarray(start, np.float32), np.asarray(stop, np.float32),
                                    num, endpoint=endpoint, dtype=dtype))
    out.append({"dtype": value.dtype.name, "shape": list(value.shape),
                "hex": value.tobytes().hex()})
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0)
  print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
  main()
