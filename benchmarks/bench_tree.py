"""Pytree flatten + unflatten latency: axle.tree_util vs JAX's C++ pytrees (run in another interpreter).

    python benchmarks/bench_tree.py [--jax-python PYTHON] [--rounds 5]

Each workload is one pytree of NumPy arrays; a call is ``leaves, treedef = tree_flatten(x)``
followed by ``tree_unflatten(treedef, leaves)`` (what ``jit`` does to its arguments and
results); "unflatten, reused" rebuilds from one treedef again and again, as ``jit`` does with a
cached function's output tree. Rounds alternate between the libraries; the table reports the median microseconds
per call and the ratio axle/JAX. JAX runs in a subprocess (one per round) because axle's
process must never import jax.
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

# An interpreter with JAX installed: --jax-python, else $JAX_PYTHON (JAX is skipped without one).
JAX_PYTHON = os.environ.get("JAX_PYTHON")


def _workloads() -> dict:
  rng = np.random.default_rng(0)
  arr = lambda *shape: rng.standard_normal(shape).astype(np.float32)
  return {
      "(a) 3 positional args (tuple)": (arr(8), arr(8, 8), arr(3)),
      "(b) MLP params: list of 3 {W, b}": [{"W": arr(4, 4), "b": arr(4)} for _ in range(3)],
      "(c) dict of 100 leaves": {f"p{i:03d}": arr(2) for i in range(100)},
      "(d) jit call: ((x, y), {})": ((arr(8), arr(8)), {}),
  }


def _flatten_only(tu, tree, number):
  flatten = tu.tree_flatten
  t0 = time.perf_counter()
  for _ in range(number):
    flatten(tree)
  return (time.perf_counter() - t0) / number


def _round_trip(tu, tree, number):
  flatten, unflatten = tu.tree_flatten, tu.tree_unflatten
  t0 = time.perf_counter()
  for _ in range(number):
    leaves, treedef = flatten(tree)
    unflatten(treedef, leaves)
  return (time.perf_counter() - t0) / number


def _unflatten_reused(tu, tree, number):
  leaves, treedef = tu.tree_flatten(tree)
  unflatten = tu.tree_unflatten
  t0 = time.perf_counter()
  for _ in range(number):
    unflatten(treedef, leaves)
  return (time.perf_counter() - t0) / number


_OPS = (("flatten+unflatten", _round_trip), ("flatten", _flatten_only),
        ("unflatten, reused", _unflatten_reused))


def time_library(library: str, min_time: float = 0.2) -> dict[str, dict[str, float]]:
  """Seconds per call of each workload under ``library`` ('axle' or 'jax')."""
  if library == "axle":
    try:
      from axle._src import tree_util as tu
    except ImportError:  # not installed: use the checkout this script lives in
      sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
      from axle._src import tree_util as tu
  else:
    import jax.tree_util as tu
  out = {}
  for name, tree in _workloads().items():
    row = {}
    for kind, fn in _OPS:
      fn(tu, tree, 200)  # warm up
      number = 200
      while fn(tu, tree, number) * number < min_time / 4:
        number *= 2
      row[kind] = min(fn(tu, tree, number) for _ in range(3))
    out[name] = row
  return out


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--jax-python", default=JAX_PYTHON)
  parser.add_argument("--rounds", type=int, default=5)
  parser.add_argument("--worker", choices=["axle", "jax"], help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(time_library(args.worker)))
    return
  samples: dict[str, list] = {"axle": [], "jax": []}
  for _ in range(args.rounds):
    samples["axle"].append(time_library("axle"))
    if args.jax_python and os.path.exists(args.jax_python):
      proc = subprocess.run([args.jax_python, __file__, "--worker", "jax"], capture_output=True,
                            text=True, check=True)
      samples["jax"].append(json.loads(proc.stdout.strip().splitlines()[-1]))

  def median(lib, name, kind):
    return statistics.median(s[name][kind] for s in samples[lib]) * 1e6

  print(f"pytree latency, median of {args.rounds} alternating rounds (microseconds per call)")
  header = f"{'workload':36s} {'op':18s} {'axle us':>9s} {'jax us':>9s} {'axle/jax':>9s}"
  print(header)
  print("-" * len(header))
  for name in _workloads():
    for kind, _ in _OPS:
      a = median("axle", name, kind)
      if samples["jax"]:
        j = median("jax", name, kind)
        print(f"{name:36s} {kind:18s} {a:9.2f} {j:9.2f} {a / j:9.2f}")
      else:
        print(f"{name:36s} {kind:18s} {a:9.2f} {'-':>9s} {'-':>9s}")


if __name__ == "__main__":
  main()
