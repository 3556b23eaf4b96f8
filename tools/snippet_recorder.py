"""Runs a code snippet under real JAX and records what it printed (the recording side of
tests/snippet_harness.py; imported only by the tools/record_*_reference.py scripts)."""
import re
import warnings

import jax  # noqa: E402  (this runs under real JAX, never under pytest)
import jax.numpy as jnp
import numpy as np
from jax import lax


def normalize(text: str) -> str:
  """Masks what legitimately differs between runs: snippet line numbers, addresses."""
  text = re.sub(r"<snippet>:\d+", "<snippet>:N", text)
  return re.sub(r"0x[0-9a-fA-FX]+", "0x?", text)


def run_snippet(source: str) -> dict:
  """``{"out": str(out)}`` of a snippet that assigns ``out``, or ``{"error", "message"}``."""
  namespace = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:  # recorded, compared by type and message
    return {"error": type(e).__name__, "message": normalize(str(e))}
  return {"out": normalize(str(namespace.get("out")))}
