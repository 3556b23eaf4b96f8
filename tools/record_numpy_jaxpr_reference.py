"""Records real JAX's answers for tests/numpy_jaxpr_snippets.py into tests/data/numpy_jaxpr_reference.json.

    python tools/record_numpy_jaxpr_reference.py --jax-python /path/to/jax-venv/bin/python
    JAX_PYTHON=/path/to/jax-venv/bin/python python tools/record_numpy_jaxpr_reference.py

The script re-runs itself under the JAX interpreter (``--jax-python`` or ``$JAX_PYTHON``).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "numpy_jaxpr_reference.json")


def record():
  sys.path.insert(0, os.path.join(HERE, "..", "tests"))
  sys.path.insert(0, HERE)
  import jax  # runs under real JAX only (never under pytest)
  from numpy_jaxpr_snippets import SNIPPETS
  from snippet_recorder import run_snippet
  results = {name: run_snippet(source) for name, source in SNIPPETS.items()}
  with open(OUT, "w") as f:
    json.dump({"jax_version": jax.__version__, "results": results}, f, indent=1, sort_keys=True)
  print(f"wrote {len(results)} results to {OUT}")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"),
                      help="interpreter with jax 0.10.2 installed (default: $JAX_PYTHON)")
  parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.inside:
    record()
    return
  if not args.jax_python:
    parser.error("give the JAX interpreter with --jax-python or $JAX_PYTHON")
  subprocess.run([args.jax_python, os.path.abspath(__file__), "--inside"], check=True)


if __name__ == "__main__":
  main()
