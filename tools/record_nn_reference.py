"""Records real JAX's outputs for jax.nn, jax.nn.initializers and jax.scipy.special.

    $JAX_PYTHON tools/record_nn_reference.py

Writes ``tests/data/nn_reference.json``, read by ``tests/test_nn.py`` and
``tests/test_scipy_special.py``. Each case is a source expression evaluated with ``jax``,
``jnp``, ``nn``, ``init``, ``sp`` (jax.scipy.special), ``random`` and the inputs built by
``tests/nn_inputs.py`` in scope; the test evaluates the same source with axle. Recorded per
case: the output leaves (dtype, weak type, shape, raw bytes as hex) or the exception's type and
message.
"""
import json
import os
import sys
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import nn
from jax.nn import initializers as init
from jax.scipy import special as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from tests import nn_inputs  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "nn_reference.json")


def encode(x):
  x = np.asarray(x).copy(order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
  name = "bfloat16" if x.dtype == ml_dtypes.bfloat16 else x.dtype.name
  return {"dtype": name, "shape": list(x.shape), "hex": x.tobytes().hex()}


def record(source, namespace):
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      out = eval(source, dict(namespace))
  except Exception as e:  # noqa: BLE001
    return {"error": type(e).__name__, "message": str(e)}
  leaves = jax.tree_util.tree_leaves(out)
  return {"leaves": [dict(encode(leaf), weak_type=bool(getattr(leaf, "weak_type", False)))
                     for leaf in leaves]}


def main():
  namespace = dict(nn_inputs.inputs(), jax=jax, jnp=jnp, nn=nn, init=init, sp=sp, np=np,
                   random=jax.random, lax=jax.lax)
  cases = {}
  import time
  for source in nn_inputs.NN_CASES + nn_inputs.SPECIAL_CASES + nn_inputs.INIT_CASES:
    start = time.time()
    cases[source] = record(source, namespace)
    if time.time() - start > 5:
      print(f"slow ({time.time() - start:.0f} s): {source}", file=sys.stderr, flush=True)
  jaxprs = {}
  for source in nn_inputs.JAXPR_CASES:
    jaxprs[source] = str(eval(source, dict(namespace)))
  with open(OUT, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases, "jaxprs": jaxprs}, f, indent=0)
  print(f"wrote {len(cases)} cases, {len(jaxprs)} jaxprs to {OUT}")


if __name__ == "__main__":
  main()
