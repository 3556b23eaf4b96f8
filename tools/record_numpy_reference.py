"""Records real JAX's answers for the jnp case table (tests/records/numpy_cases.py).

Run under the JAX venv from the repository root:
    $JAX_PYTHON tools/record_numpy_reference.py
Writes tests/data/numpy_reference.json: for each case its inputs and, for each output leaf, the
dtype, weak type, shape and values; for each error case the exception type and message.
"""
import json
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "records"))
import numpy_cases  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def encode(value: np.ndarray):
  value = np.asarray(value)
  if value.dtype.kind == "c":
    return [encode(value.real), encode(value.imag)]
  flat = value.astype(np.float64).reshape(-1) if value.dtype.kind == "f" or value.dtype.name == "bfloat16" else value.reshape(-1)
  out = []
  for v in flat.tolist():
    if isinstance(v, float) and not np.isfinite(v):
      out.append(str(v))
    else:
      out.append(v)
  return out


def leaves(out):
  if isinstance(out, (tuple, list)):
    result = []
    for o in out:
      result.extend(leaves(o))
    return result
  return [out]


def case_inputs(name, specs):
  return [numpy_cases.make_input(shape, kind, zlib.crc32(f"{name}:{i}".encode()))
          for i, (shape, kind) in enumerate(specs)]


def main():
  results = {"cases": {}, "errors": {}}
  for name, source, specs in numpy_cases.CASES:
    args = case_inputs(name, specs)
    fn = eval(source, {"jnp": jnp, "jax": jax, "np": np})
    try:
      out = fn(*[jnp.asarray(a) for a in args])
    except Exception as e:  # recorded so the test can see JAX refuses it too
      results["cases"][name] = {"error": [type(e).__name__, str(e)]}
      continue
    entry = {"inputs": [{"shape": list(a.shape), "dtype": a.dtype.name, "values": encode(a)}
                        for a in args], "outputs": []}
    for leaf in leaves(out):
      arr = np.asarray(leaf)
      entry["outputs"].append({
          "dtype": arr.dtype.name, "shape": list(arr.shape),
          "weak_type": bool(getattr(leaf, "weak_type", False)), "values": encode(arr)})
    results["cases"][name] = entry
  for name, statement in numpy_cases.ERROR_CASES:
    try:
      exec(statement, {"jnp": jnp, "jax": jax, "np": np})
      results["errors"][name] = None
    except Exception as e:
      results["errors"][name] = [type(e).__name__, str(e)]
  path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "numpy_reference.json")
  with open(path, "w") as f:
    json.dump(results, f, indent=0, sort_keys=True)
  print(f"wrote {len(results['cases'])} cases, {len(results['errors'])} errors to {path}")


if __name__ == "__main__":
  main()
