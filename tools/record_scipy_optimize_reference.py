"""Records real JAX's outputs for jax.scipy.optimize.minimize.

    $JAX_PYTHON tools/record_scipy_optimize_reference.py

Writes ``tests/data/scipy_optimize_reference.json``, read by ``tests/test_scipy_optimize.py``;
the cases are in ``tests/scipy_optimize_cases.py``. Recorded per case: the output leaves
(dtype, shape, values) or the exception's type and message.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.optimize import minimize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tests import scipy_optimize_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "scipy_optimize_reference.json")


def main():
  namespace = {"jax": jax, "jnp": jnp, "minimize": minimize}
  exec(cases.PRELUDE, namespace)
  out = {"jax_version": jax.__version__, "cases": {}}
  for case_id, body in cases.CASES:
    try:
      result = eval(body, namespace)
    except Exception as e:  # noqa: BLE001
      out["cases"][case_id] = {"error": type(e).__name__, "message": str(e)}
      continue
    out["cases"][case_id] = {"leaves": [
        {"dtype": np.asarray(x).dtype.name, "shape": list(np.shape(x)),
         "values": np.asarray(x, np.float64).ravel().tolist()}
        for x in jax.tree_util.tree_leaves(result)]}
  with open(OUT, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
  print(f"wrote {len(out['cases'])} cases to {OUT}")


if __name__ == "__main__":
  main()
