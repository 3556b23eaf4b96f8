"""The `ecosystem` group: real programs using optax, chex, flax, equinox, einops, numpyro,
blackjax and diffrax run unmodified under axle (`python -m axle.run program.py`, in a
subprocess) and must print JAX 0.10.2's numbers, recorded by tools/record_ecosystem_reference.py.

The libraries are pinned in tests/ecosystem/requirements.txt and installed without their jax
dependency (`pip install --no-deps -r tests/ecosystem/requirements.txt`, part of the README's
test command and of `.ci/run`); a program whose library is not installed is skipped, saying so.
Every printed line is `label dtype shape [values]` (see programs/_show.py) or plain text: labels,
dtypes, shapes and text must be equal; values equal within the program's relative tolerance
(0 means bit-identical).
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
REPO = HERE.parent.parent
REFERENCE = json.loads((HERE / "reference.json").read_text())

# name: (libraries it imports, relative tolerance, xfail reason or None)
CASES = {
    "optax_train": (["optax", "chex"], 0.0, None),
    "chex_asserts": (["chex"], 0.0, None),
    "einops_jit": (["einops"], 0.0, None),
    "equinox_train": (["equinox"], 1e-6, None),
    "flax_linen": (["flax"], 1e-6, None),
    "flax_linen_scan": (["flax"], 1e-6, None),
    "flax_nnx": (["flax", "optax"], 1e-6, None),
    "numpyro_nuts": (["numpyro", "multipledispatch", "tqdm"], 1e-6, None),
    "blackjax_nuts": (["blackjax", "fastprogress", "jaxopt", "optax"], 1e-6, None),
    "diffrax_solve": (["diffrax", "lineax", "optimistix", "equinox"], 1e-6, None),
}


def _parse(text: str):
  """Each line as (text, None) or ((label, dtype, shape), [values])."""
  lines = []
  for line in text.splitlines():
    head, sep, values = line.partition(" [")
    parts = head.rsplit(" ", 1)
    if sep and values.endswith("]") and " [" in values and len(parts) == 2:
      shape, _, numbers = values.partition("] [")
      numbers = numbers[:-1]
      lines.append(((parts[0], parts[1], shape),
                    [float(v) for v in numbers.split(", ")] if numbers else []))
    else:
      lines.append((line, None))
  return lines


def _differences(expected: str, actual: str, rtol: float):
  """(list of differences as text, max relative difference seen)."""
  want, got = _parse(expected), _parse(actual)
  if len(want) != len(got):
    return [f"{len(got)} lines printed, JAX printed {len(want)}"], math.inf
  problems, worst = [], 0.0
  for (w_key, w_vals), (g_key, g_vals) in zip(want, got):
    if w_key != g_key or (w_vals is None) != (g_vals is None) or (
        w_vals is not None and len(w_vals) != len(g_vals)):
      problems.append(f"line {g_key!r} where JAX has {w_key!r}")
      continue
    for i, (w, g) in enumerate(zip(w_vals or [], g_vals or [])):
      if w == g or (math.isnan(w) and math.isnan(g)):
        continue
      rel = abs(w - g) / max(abs(w), abs(g))
      worst = max(worst, rel)
      if rel > rtol:
        problems.append(f"{w_key[0]}[{i}]: axle {g!r}, JAX {w!r} (relative {rel:.3g} > {rtol})")
  return problems, worst


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_prints_jax_numbers(name):
  libraries, rtol, xfail_reason = CASES[name]
  missing = [lib for lib in libraries if importlib.util.find_spec(lib) is None]
  if missing:
    pytest.skip(f"{', '.join(missing)} not installed: pip install --no-deps -r "
                "tests/ecosystem/requirements.txt")
  env = dict(os.environ, PYTHONHASHSEED="0",
             PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
  run = subprocess.run([sys.executable, "-m", "axle.run", f"{name}.py"], cwd=PROGRAMS, env=env,
                       capture_output=True, text=True, timeout=600)
  if xfail_reason and run.returncode != 0:
    pytest.xfail(xfail_reason)
  assert run.returncode == 0, f"{name} failed under axle:\n{run.stderr[-4000:]}"
  problems, worst = _differences(REFERENCE[name], run.stdout, rtol)
  assert not problems, (f"{name} differs from JAX (max relative difference {worst:.3g}):\n"
                        + "\n".join(problems[:20]))


def test_comparison_catches_a_changed_digit():
  text = "loss float32 [] [0.25]\nok"
  assert _differences(text, text, 0.0) == ([], 0.0)
  problems, worst = _differences(text, "loss float32 [] [0.2500001]\nok", 1e-7)
  assert problems and worst > 1e-7
  assert _differences(text, "loss float32 [] [0.25]\nnot ok", 1e-6)[0]
  assert _differences(text, "loss float64 [] [0.25]\nok", 1e-6)[0]
