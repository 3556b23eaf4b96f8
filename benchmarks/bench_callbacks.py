"""Cost of host callbacks inside compiled loops: ``jax.debug.print`` (unordered and ordered) and
``pure_callback`` in a jitted ``fori_loop``, for axle and (with ``--jax-python`` or
``$JAX_PYTHON``) JAX.

    python benchmarks/bench_callbacks.py [--jax-python /path/to/venv-with-jax/bin/python] [--rounds 3]

Each round runs one fresh worker process per library, alternating. A workload is one call of a
jitted ``fori_loop`` of ``STEPS`` iterations (compiled once, before timing); the table shows
the median over rounds of the time per loop iteration, the same loop without the callback, and
JAX/axle (above 1: axle is faster). Printed text goes to an in-memory sink; the text each
library printed is checked to agree.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time

STEPS = 1000

WORKLOADS = ("loop without callback", "debug.print in loop", "ordered debug.print in loop",
             "pure_callback in loop")


def worker(library: str) -> dict:
  if library == "jax":
    import jax
    jax.config.update("jax_platforms", "cpu")
  else:
    # The axle of this checkout, not whichever one the interpreter has installed.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import axle as jax
  import numpy as np
  lax = jax.lax

  def body_plain(i, c):
    return c + 1.0

  def body_print(i, c):
    jax.debug.print("step {i}: {c}", i=i, c=c)
    return c + 1.0

  def body_ordered(i, c):
    jax.debug.print("step {i}: {c}", i=i, c=c, ordered=True)
    return c + 1.0

  def body_callback(i, c):
    return jax.pure_callback(lambda v: np.asarray(v + 1.0, np.float32), c, c)

  bodies = dict(zip(WORKLOADS, (body_plain, body_print, body_ordered, body_callback)))
  results, texts = {}, {}
  for name, body in bodies.items():
    f = jax.jit(lambda c, body=body: lax.fori_loop(0, STEPS, body, c))
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
      out = f(0.0)
      out.block_until_ready()
      jax.effects_barrier()
      texts[name] = sink.getvalue()
      calls, start = 0, time.perf_counter()
      while True:
        f(0.0).block_until_ready()
        jax.effects_barrier()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed > 0.5 and calls >= 3:
          break
    results[name] = elapsed / calls / STEPS
    texts[name] = (texts[name], float(out))
  return {"times": results, "texts": texts}


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"),
                      help="an interpreter with JAX installed (default: $JAX_PYTHON)")
  parser.add_argument("--rounds", type=int, default=3)
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker)))
    return
  libraries = {"axle": sys.executable}
  if args.jax_python:
    libraries["jax"] = args.jax_python
  samples = {lib: {name: [] for name in WORKLOADS} for lib in libraries}
  texts = {}
  for _ in range(args.rounds):
    for lib, python in libraries.items():
      out = subprocess.run([python, __file__, "--worker", lib], capture_output=True, text=True,
                           check=True)
      result = json.loads(out.stdout.strip().splitlines()[-1])
      for name, t in result["times"].items():
        samples[lib][name].append(t)
      texts[lib] = result["texts"]
  if "jax" in texts and texts["jax"] != texts["axle"]:
    for name in WORKLOADS:
      if texts["jax"][name] != texts["axle"][name]:
        print(f"warning: {name}: axle and JAX printed different text or results")
  header = f"{'workload (per iteration)':32s} {'axle us':>9s}"
  if "jax" in libraries:
    header += f" {'jax us':>9s} {'jax/axle':>9s}"
  print(header)
  for name in WORKLOADS:
    axle_t = statistics.median(samples["axle"][name]) * 1e6
    line = f"{name:32s} {axle_t:9.2f}"
    if "jax" in libraries:
      jax_t = statistics.median(samples["jax"][name]) * 1e6
      line += f" {jax_t:9.2f} {jax_t / axle_t:9.2f}"
    print(line)


if __name__ == "__main__":
  main()
