"""Runs recorded code snippets under axle and compares with what real JAX printed.

Each recorded snippet assigns ``out`` (its ``str`` is compared) or raises (exception type and
message are compared). Paths, line numbers and addresses are masked on both sides.
"""
import json
import os
import re
import warnings

import numpy as np
import pytest

import axle
import axle.numpy as jnp
from axle import lax


def load_reference(filename: str) -> dict:
  """The recorded results in ``tests/data/filename`` (name -> JAX's result)."""
  with open(os.path.join(os.path.dirname(__file__), "data", filename)) as f:
    return json.load(f)["results"]


def normalize(text: str) -> str:
  text = re.sub(r"<snippet>:\d+", "<snippet>:N", text)
  return re.sub(r"0x[0-9a-fA-FX]+", "0x?", text)


def run_snippet(source: str, prelude: str | None = None) -> dict:
  """Runs ``source`` with ``jax`` (axle), ``jnp``, ``lax`` and ``np`` in scope."""
  namespace = {"jax": axle, "jnp": jnp, "lax": lax, "np": np}
  if prelude:
    exec(compile(prelude, "<prelude>", "exec"), namespace)
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      exec(compile(source, "<snippet>", "exec"), namespace)
  except Exception as e:
    return {"error": type(e).__name__, "message": normalize(str(e))}
  return {"out": normalize(str(namespace.get("out")))}


def assert_matches(expected: dict, actual: dict) -> None:
  """``actual`` (from run_snippet) equals the recorded ``expected`` result."""
  if "error" in expected:
    assert actual.get("error") == expected["error"], actual
    assert actual["message"] == normalize(expected["message"])
  else:
    assert "error" not in actual, actual
    assert actual["out"] == normalize(expected["out"])


def snippet_params(names, known_differences: dict) -> list:
  """pytest params for ``names``; the known differences are strict xfails, so one that gets fixed
  fails until it is removed from the list."""
  return [pytest.param(name, marks=pytest.mark.xfail(reason=known_differences[name], strict=True))
          if name in known_differences else name for name in sorted(names)]
