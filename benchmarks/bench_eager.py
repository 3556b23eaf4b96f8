"""Eager per-op latency on small arrays: axle vs NumPy (and JAX, run in another interpreter).

    python benchmarks/bench_eager.py [--jax-python PYTHON] [--rounds 5]

Each workload is one Python function over a module that looks like NumPy (``np``, ``axle.numpy``
or ``jax.numpy``). Rounds alternate between the libraries; the table reports the median time per
op in microseconds and the ratios axle/NumPy and JAX/axle. JAX runs in a subprocess (one per
round) because axle's process must never import jax.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

# name -> (ops per call, source of a function body using `m` (the module) and `x`, `y`, `a`, `b`)
WORKLOADS = {
    "200 elementwise ops, f32[100]": (200, """
def run(m, x, y, a, b):
  for _ in range(50):
    x = x * y
    x = x + 0.5
    x = m.sin(x)
    x = x - y
  return x
"""),
    "add f32[100] + f32[100]": (1, "def run(m, x, y, a, b):\n  return x + y\n"),
    "mul f32[100] * python float": (1, "def run(m, x, y, a, b):\n  return x * 2.0\n"),
    "exp f32[100]": (1, "def run(m, x, y, a, b):\n  return m.exp(x)\n"),
    "sum f32[100]": (1, "def run(m, x, y, a, b):\n  return m.sum(x)\n"),
    "matmul f32[32,32]": (1, "def run(m, x, y, a, b):\n  return a @ b\n"),
    "x[3] (static index)": (1, "def run(m, x, y, a, b):\n  return x[3]\n"),
    "reshape + transpose": (2, "def run(m, x, y, a, b):\n  return a.reshape(16, 64).T\n"),
    "where(x > 0, x, y)": (2, "def run(m, x, y, a, b):\n  return m.where(x > 0, x, y)\n"),
}


def _inputs(m, to_lib):
  rng = np.random.default_rng(0)
  x = to_lib(rng.standard_normal(100).astype(np.float32))
  y = to_lib(rng.standard_normal(100).astype(np.float32))
  a = to_lib(rng.standard_normal((32, 32)).astype(np.float32))
  b = to_lib(rng.standard_normal((32, 32)).astype(np.float32))
  return x, y, a, b


def time_library(library: str, min_time: float = 0.2) -> dict[str, float]:
  """Seconds per call of each workload under ``library`` ('numpy', 'axle' or 'jax')."""
  if library == "numpy":
    m, to_lib, block = np, np.asarray, lambda r: r
  elif library == "axle":
    import axle.numpy as m
    to_lib, block = m.asarray, lambda r: r.block_until_ready()
  elif library == "jax":
    import jax
    import jax.numpy as m
    jax.config.update("jax_platforms", "cpu")
    to_lib, block = m.asarray, lambda r: r.block_until_ready()
  else:
    raise ValueError(library)
  args = _inputs(m, to_lib)
  results = {}
  for name, (_, source) in WORKLOADS.items():
    namespace = {}
    exec(source, namespace)
    run = namespace["run"]
    block(run(m, *args))  # warm up
    calls, start = 0, time.perf_counter()
    while True:
      block(run(m, *args))
      calls += 1
      elapsed = time.perf_counter() - start
      if elapsed > min_time:
        break
    results[name] = elapsed / calls
  return results


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"), help="an interpreter with JAX installed")
  parser.add_argument("--rounds", type=int, default=5)
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(time_library(args.worker)))
    return
  samples: dict[str, dict[str, list[float]]] = {lib: {n: [] for n in WORKLOADS}
                                                for lib in ("numpy", "axle", "jax")}
  for _ in range(args.rounds):
    for lib in ("numpy", "axle"):
      for name, t in time_library(lib).items():
        samples[lib][name].append(t)
    if args.jax_python:
      out = subprocess.run([args.jax_python, __file__, "--worker", "jax"], capture_output=True,
                           text=True, check=True)
      for name, t in json.loads(out.stdout.strip().splitlines()[-1]).items():
        samples["jax"][name].append(t)
  has_jax = bool(args.jax_python)
  header = f"{'workload':32s} {'numpy us/op':>12s} {'axle us/op':>11s} {'axle/numpy':>10s}"
  if has_jax:
    header += f" {'jax us/op':>10s} {'jax/axle':>9s}"
  print(header)
  for name, (ops, _) in WORKLOADS.items():
    numpy_t = statistics.median(samples["numpy"][name]) / ops * 1e6
    axle_t = statistics.median(samples["axle"][name]) / ops * 1e6
    line = f"{name:32s} {numpy_t:12.2f} {axle_t:11.2f} {axle_t / numpy_t:10.1f}"
    if has_jax:
      jax_t = statistics.median(samples["jax"][name]) / ops * 1e6
      line += f" {jax_t:10.2f} {jax_t / axle_t:9.1f}"
    print(line)


if __name__ == "__main__":
  main()
