"""Tracing speed: make_jaxpr of a fresh 1,000-equation function (no trace cache), axle vs JAX.

    python benchmarks/bench_trace.py [--jax-python PYTHON] [--rounds 5]

JAX runs in a subprocess: axle's process never imports jax. Prints microseconds per equation.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def measure(library: str, rounds: int) -> float:
  """Best time in seconds to trace a fresh 1,000-equation function with ``library``."""
  if library == "axle":
    import axle as lib
  else:
    import jax as lib
  jnp = lib.numpy

  def make():
    def f(x):
      for _ in range(250):
        x = jnp.sin(x) * 2.0 + x - 1.0
      return x
    return f

  x = jnp.ones(100)
  lib.make_jaxpr(make())(x)  # warm up
  best = float("inf")
  for _ in range(rounds):
    f = make()  # a new function object: nothing can come from a trace cache
    start = time.perf_counter()
    lib.make_jaxpr(f)(x)
    best = min(best, time.perf_counter() - start)
  return best


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"))
  parser.add_argument("--rounds", type=int, default=5)
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(measure(args.worker, args.rounds)))
    return
  axle_time = measure("axle", args.rounds)
  print(f"{'library':8s} {'us/eqn':>8s}")
  print(f"{'axle':8s} {axle_time / 1000 * 1e6:8.1f}")
  if args.jax_python:
    out = subprocess.run([args.jax_python, __file__, "--worker", "jax", "--rounds", str(args.rounds)],
                         capture_output=True, text=True, check=True)
    jax_time = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{'jax':8s} {jax_time / 1000 * 1e6:8.1f}   (jax/axle {jax_time / axle_time:.1f}x)")


if __name__ == "__main__":
  main()
