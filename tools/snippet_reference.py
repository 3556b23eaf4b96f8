"""The command line shared by the snippet recorders (``record_issue14_reference.py``,
``record_numpy_jaxpr_reference.py``): re-runs the calling script under the JAX interpreter
(``--jax-python`` or ``$JAX_PYTHON``), which runs every snippet of a ``tests/`` module and writes
the answers to ``tests/data/<out_name>``. Imports no jax itself."""
import argparse
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _record(snippets_module: str, out_name: str) -> None:
  sys.path.insert(0, os.path.join(HERE, "..", "tests"))
  sys.path.insert(0, HERE)
  import jax  # runs under real JAX only (never under pytest)
  from snippet_recorder import run_snippet
  snippets = importlib.import_module(snippets_module).SNIPPETS
  results = {name: run_snippet(source) for name, source in snippets.items()}
  out = os.path.join(HERE, "..", "tests", "data", out_name)
  with open(out, "w") as f:
    json.dump({"jax_version": jax.__version__, "results": results}, f, indent=1, sort_keys=True)
  print(f"wrote {len(results)} results to {out}")


def main(script: str, description: str, snippets_module: str, out_name: str) -> None:
  """Parses the recorder's command line; records under JAX (the ``--inside`` re-run)."""
  parser = argparse.ArgumentParser(description=description)
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"),
                      help="interpreter with jax 0.10.2 installed (default: $JAX_PYTHON)")
  parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.inside:
    _record(snippets_module, out_name)
    return
  if not args.jax_python:
    parser.error("give the JAX interpreter with --jax-python or $JAX_PYTHON")
  subprocess.run([args.jax_python, os.path.abspath(script), "--inside"], check=True)
