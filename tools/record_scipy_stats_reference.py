"""Records real JAX's outputs for jax.scipy.stats.

    $JAX_PYTHON tools/record_scipy_stats_reference.py

Writes ``tests/data/scipy_stats_reference.json``, read by ``tests/test_scipy_stats.py``. The
cases and inputs are in ``tests/scipy_stats_cases.py``; recorded per case: the output leaves
(dtype, weak type, shape, values as hex bytes) or the exception's type and message.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.stats as stats
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tests import scipy_stats_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "scipy_stats_reference.json")


def encode(x):
  weak = bool(getattr(x, "weak_type", False))
  x = np.asarray(x)
  return {"dtype": x.dtype.name, "weak_type": weak, "shape": list(x.shape),
          "hex": x.tobytes().hex()}


def record(fun, args):
  try:
    out = fun(*args)
  except Exception as e:  # noqa: BLE001
    return {"error": type(e).__name__, "message": str(e)}
  return {"leaves": [encode(leaf) for leaf in jax.tree_util.tree_leaves(out)]}


def main():
  inputs = cases.inputs()
  namespace = {"stats": stats, "np": np, "jnp": jnp}
  out = {"jax_version": jax.__version__, "cases": {}, "dtype_cases": {}}
  for case_id, argnames, body, _ in cases.CASES:
    fun = eval(f"lambda {argnames}: {body}", namespace)
    args = [inputs[name.strip()] for name in argnames.split(",") if name.strip()]
    out["cases"][case_id] = record(fun, args)
  for case_id, argnames, body in cases.DTYPE_CASES:
    out["dtype_cases"][case_id] = record(eval(f"lambda: {body}", namespace), [])
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
  print(f"wrote {len(out['cases'])} + {len(out['dtype_cases'])} cases to {OUT}")


if __name__ == "__main__":
  main()
