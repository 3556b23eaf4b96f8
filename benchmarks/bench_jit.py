"""jit call overhead, first-call (trace + compile) time and steady-state compiled workloads:
axle, and JAX when it is installed in another interpreter.

    python benchmarks/bench_jit.py [--jax-python PYTHON] [--rounds 5]

Every round runs one fresh worker process per library, alternating (axle, JAX, axle, ...), so
first-call times are measured in a fresh process and neither library's process sees the other.
The persistent compilation cache is off in the workers (first calls compile); a separate
workload measures axle's first call of a program with a long compile in a fresh process, with
the on-disk cache empty and then warm. The table shows the median
over rounds and JAX/axle (above 1: axle is faster). Results are checked to agree.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


# AXLE_BENCH_TIMER=cpu times with the process's CPU time (all its threads) instead of the wall
# clock: steadier on a machine shared with other work, blind to time spent waiting.
_CLOCK = time.process_time if os.environ.get("AXLE_BENCH_TIMER") == "cpu" else time.perf_counter


def _timeit(fn, min_time=0.3, max_calls=100000):
  fn()
  clock = _CLOCK
  calls, start, wall_start = 0, clock(), time.perf_counter()
  while True:
    fn()
    calls += 1
    if time.perf_counter() - wall_start > min_time or calls >= max_calls:
      return (clock() - start) / calls


def _stupid_fn(jnp):
  def stupid_fn(x):
    y = x
    for _ in range(1000):
      y = y * 1.0001
    return x
  return stupid_fn


def worker(library: str) -> dict:
  if library == "jax":
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
  else:
    import axle as jax
    import axle.numpy as jnp
  results, checks = {}, {}

  # first call of the seeds' stupid_fn: trace + lower + compile + run, in a fresh process whose
  # backend is already up (one small jitted call first, for both libraries)
  stupid = jax.jit(_stupid_fn(jnp))
  x4 = jnp.arange(4.0)
  jax.jit(lambda x: x * 2.0)(x4).block_until_ready()
  start = time.perf_counter()
  stupid(x4).block_until_ready()
  results["first call of stupid_fn (1000 muls)"] = time.perf_counter() - start

  # a tiny jitted call
  add_one = jax.jit(lambda x: x + 1.0)
  results["tiny call: x + 1.0 on f32[4]"] = _timeit(lambda: add_one(x4).block_until_ready())
  checks["tiny"] = np.asarray(add_one(x4)).tolist()

  # a dict of 100 small arrays in and out
  scale = jax.jit(lambda d: {k: v * 2.0 for k, v in d.items()})
  params = {f"p{i}": jnp.full((3,), float(i)) for i in range(100)}
  results["dict of 100 arrays in and out"] = _timeit(lambda: jax.block_until_ready(scale(params)))
  checks["dict"] = float(sum(np.asarray(v).sum() for v in scale(params).values()))

  # elementwise chain on 8M floats
  @jax.jit
  def chain(x):
    for _ in range(10):
      x = jnp.sin(x) * 0.5 + x * 0.25 - 0.125
    return x
  big = jnp.asarray(np.random.default_rng(0).standard_normal(8 * 1024 * 1024).astype(np.float32))
  results["elementwise chain (10x4 ops), f32[8M]"] = _timeit(
      lambda: chain(big).block_until_ready(), min_time=1.0)
  checks["chain"] = float(np.asarray(chain(big))[:1000].astype(np.float64).sum())

  # 1024x1024 matmul
  matmul = jax.jit(lambda a, b: a @ b)
  a = jnp.asarray(np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32))
  results["matmul f32[1024,1024]"] = _timeit(lambda: matmul(a, a).block_until_ready(), min_time=1.0)
  checks["matmul"] = float(np.asarray(matmul(a, a))[:4, :4].astype(np.float64).sum())
  return {"times": results, "checks": checks}


def _run_worker(python: str, library: str, env: dict) -> dict:
  out = subprocess.run([python, os.path.abspath(__file__), "--worker", library],
                       capture_output=True, text=True, env=env)
  if out.returncode != 0:
    raise RuntimeError(f"{library} worker failed:\n{out.stderr[-3000:]}")
  return json.loads(out.stdout.strip().splitlines()[-1])


def _big_fn(jnp, lax):
  """A program whose XLA compile takes about a second (150 unfusable layers)."""
  def big_fn(x, w):
    for _ in range(150):
      x = jnp.tanh(x @ w) + lax.sort(x, dimension=0) * 0.5 + jnp.cumsum(x, axis=1) * 1e-3
    return x.sum()
  return big_fn


def _disk_cache_first_calls(python: str, env: dict) -> tuple[float, float]:
  """axle's first call of ``big_fn`` in a fresh process: with an empty on-disk cache (which the
  call fills), then in another fresh process with the cache warm."""
  code = ("import time, axle as jax, axle.numpy as jnp\n"
          "from axle import lax\n"
          "from benchmarks.bench_jit import _big_fn\n"
          "f = jax.jit(_big_fn(jnp, lax)); x = jnp.ones((64, 64)); w = x * 0.01\n"
          "jax.jit(lambda x: x * 2.0)(x).block_until_ready()\n"
          "t = time.perf_counter(); f(x, w).block_until_ready(); print(time.perf_counter() - t)\n")
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  env = dict(env, PYTHONPATH=root + os.pathsep + env.get("PYTHONPATH", ""))
  times = []
  for _ in range(2):
    out = subprocess.run([python, "-c", code], env=env, check=True, capture_output=True, text=True)
    times.append(float(out.stdout.strip().splitlines()[-1]))
  return times[0], times[1]


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"), help="an interpreter with JAX installed")
  parser.add_argument("--rounds", type=int, default=5)
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker)))
    return
  env = dict(os.environ, JAX_ENABLE_COMPILATION_CACHE="false", TF_CPP_MIN_LOG_LEVEL="1")
  samples = {"axle": {}, "jax": {}}
  checks = {}
  for _ in range(args.rounds):
    for library in ("axle", "jax") if args.jax_python else ("axle",):
      result = _run_worker(args.jax_python if library == "jax" else sys.executable, library, env)
      for name, t in result["times"].items():
        samples[library].setdefault(name, []).append(t)
      checks[library] = result["checks"]
  cold, warm = [], []
  for _ in range(args.rounds):
    with tempfile.TemporaryDirectory() as cache:
      cache_env = dict(os.environ, JAX_COMPILATION_CACHE_DIR=cache, TF_CPP_MIN_LOG_LEVEL="1")
      times = _disk_cache_first_calls(sys.executable, cache_env)
      cold.append(times[0])
      warm.append(times[1])
  samples["axle"]["first call of big_fn (~1 s compile), disk cache empty"] = cold
  samples["axle"]["first call of big_fn, disk cache warm"] = warm
  header = f"{'workload':56s} {'axle':>12s}"
  if args.jax_python:
    header += f" {'jax':>12s} {'jax/axle':>9s}"
  print(header)
  for name, times in samples["axle"].items():
    axle_t = statistics.median(times)
    line = f"{name:56s} {_fmt(axle_t):>12s}"
    if args.jax_python and name in samples["jax"]:
      jax_t = statistics.median(samples["jax"][name])
      line += f" {_fmt(jax_t):>12s} {jax_t / axle_t:9.2f}"
    print(line)
  if args.jax_python:
    for key, value in checks["axle"].items():
      other = checks["jax"][key]
      ok = np.allclose(np.asarray(value, np.float64), np.asarray(other, np.float64), rtol=1e-4)
      print(f"check {key}: {'same result' if ok else f'DIFFERENT: axle {value} jax {other}'}")


def _fmt(seconds: float) -> str:
  if seconds >= 1e-3:
    return f"{seconds * 1e3:.2f} ms"
  return f"{seconds * 1e6:.1f} us"


if __name__ == "__main__":
  main()
