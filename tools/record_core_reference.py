"""Records what real JAX prints for tests/core_snippets.py (run with an interpreter that has JAX).

    /path/to/jax-venv/bin/python tools/record_core_reference.py
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import jax  # noqa: E402  (this script runs under real JAX, never under pytest)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

from core_snippets import SNIPPETS  # noqa: E402


def normalize(text: str) -> str:
  """Masks what legitimately differs between runs: file paths, line numbers, addresses."""
  text = re.sub(r"<snippet>:\d+", "<snippet>:N", text)
  text = re.sub(r"0x[0-9a-f]+", "0x?", text)
  return text


def run(source: str) -> dict:
  namespace = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
  try:
    exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:  # recorded, compared by type and message
    return {"error": type(e).__name__, "message": normalize(str(e))}
  return {"out": normalize(str(namespace.get("out")))}


def main():
  results = {name: run(source) for name, source in SNIPPETS.items()}
  path = os.path.join(HERE, "..", "tests", "data", "core_reference.json")
  with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "results": results}, f, indent=1, sort_keys=True)
  print(f"wrote {len(results)} results to {path}")


if __name__ == "__main__":
  main()
