"""Records what real JAX prints for tests/core_snippets.py (run with an interpreter that has JAX).

    $JAX_PYTHON tools/record_core_reference.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import jax  # noqa: E402  (this script runs under real JAX, never under pytest)

from core_snippets import SNIPPETS  # noqa: E402
from snippet_recorder import run_snippet as run  # noqa: E402


def main():
  results = {name: run(source) for name, source in SNIPPETS.items()}
  path = os.path.join(HERE, "..", "tests", "data", "core_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "results": results}, f, indent=1, sort_keys=True)
  print(f"wrote {len(results)} results to {path}")


if __name__ == "__main__":
  main()
