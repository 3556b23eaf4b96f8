"""Several CPU devices: pmap call overhead on 8 devices, a data-parallel MLP step on 8 devices
(pmap with a pmean of the gradients), and a sharded matmul on a 2x4 mesh; axle, and JAX when
it is installed in another interpreter.

    python benchmarks/bench_multidevice.py [--jax-python /path/to/venv-with-jax/bin/python]

Each library runs in its own worker process with 8 CPU devices; the table shows the median
time per call (the call's outputs waited for) and JAX/axle (above 1: axle is faster).
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


def _median_time(fn, repeats=7, min_time=0.2):
  fn()
  samples = []
  for _ in range(repeats):
    calls, start = 0, time.perf_counter()
    while True:
      fn()
      calls += 1
      elapsed = time.perf_counter() - start
      if elapsed > min_time:
        break
    samples.append(elapsed / calls)
  return statistics.median(samples)


def worker(lib: str) -> dict:
  if lib == "axle":
    import axle as jax
    import axle.numpy as jnp
    from axle import lax
    from axle.sharding import NamedSharding, PartitionSpec as P
  else:
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P
  jax.config.update("jax_num_cpu_devices", 8)
  results = {}

  x = np.arange(16, dtype=np.float32).reshape(8, 2)
  psum = jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i")
  on_device = psum(x)
  results["pmap psum, device input"] = _median_time(lambda: psum(on_device).block_until_ready())
  results["pmap psum, host input"] = _median_time(lambda: np.asarray(psum(x)))

  sizes = [64, 128, 128, 10]
  rng = np.random.default_rng(0)
  params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]

  def loss(params, images, labels):
    h = images
    for w, b in params[:-1]:
      h = jnp.tanh(h @ w + b)
    logits = h @ params[-1][0] + params[-1][1]
    logp = logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

  def step(params, images, labels):
    l, g = jax.value_and_grad(loss)(params, images, labels)
    g = lax.pmean(g, "d")
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, g), lax.pmean(l, "d")

  pstep = jax.pmap(step, axis_name="d")
  rep = jax.tree_util.tree_map(lambda a: np.broadcast_to(a, (8,) + a.shape).copy(), params)
  images = rng.standard_normal((8, 16, 64)).astype(np.float32)
  labels = rng.integers(0, 10, (8, 16)).astype(np.int32)
  state = {"p": pstep(rep, images, labels)[0]}

  def run_step():
    state["p"], l = pstep(state["p"], images, labels)
    l.block_until_ready()
  results["data-parallel MLP step (pmap, 8 devices)"] = _median_time(run_step)

  mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))  # Auto axes
  a = jax.device_put(rng.standard_normal((512, 512)).astype(np.float32), NamedSharding(mesh, P("x", "y")))
  b = jax.device_put(rng.standard_normal((512, 512)).astype(np.float32), NamedSharding(mesh, P("y", None)))
  matmul = jax.jit(lambda a, b: a @ b)
  results["sharded matmul 512x512 on a 2x4 mesh"] = _median_time(
      lambda: matmul(a, b).block_until_ready())
  return results


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"))
  parser.add_argument("--worker", choices=["axle", "jax"])
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker)))
    return
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  env = dict(os.environ, PYTHONPATH=root)
  env.pop("XLA_FLAGS", None)
  runs = {"axle": [sys.executable]}
  if args.jax_python:
    runs["jax"] = [args.jax_python]
  results = {}
  for lib, python in runs.items():
    out = subprocess.run(python + [os.path.abspath(__file__), "--worker", lib],
                         capture_output=True, text=True, env=env, cwd=root, timeout=900)
    if out.returncode != 0:
      sys.exit(f"{lib} worker failed:\n{out.stderr[-3000:]}")
    results[lib] = json.loads(out.stdout.strip().splitlines()[-1])
  print(f"{'benchmark':45s} {'axle':>10s} {'jax':>10s} {'jax/axle':>9s}")
  for name, seconds in results["axle"].items():
    jax_seconds = results.get("jax", {}).get(name)
    ratio = f"{jax_seconds / seconds:9.2f}" if jax_seconds else ""
    jax_text = f"{jax_seconds * 1e6:8.0f}us" if jax_seconds else ""
    print(f"{name:45s} {seconds * 1e6:8.0f}us {jax_text:>10s} {ratio}")


if __name__ == "__main__":
  main()
