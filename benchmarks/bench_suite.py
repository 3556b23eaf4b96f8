"""The benchmark suite: eager latency, call overhead, first calls, training steps, loops and
throughput, for axle and (with ``--jax-python``) JAX, in alternating fresh worker processes.

    python benchmarks/bench_suite.py [--jax-python PYTHON]
                                     [--rounds 3] [--only NAME_SUBSTRING]

Prints the median time of each workload per library and JAX/axle (above 1: axle is faster),
rates (GB/s, GFLOP/s) where they make sense, NumPy's figure where NumPy can do the same work,
and whether both libraries computed the same result.
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

from bench_jit import _timeit  # the same timing loop as the jit benchmark (this folder)


def _checksum(x) -> float:
  return float(np.asarray(x, np.float64).ravel()[:4096].sum())


# Each workload: name -> function(jax, jnp, lax, results, checks) that records its time(s).


def w_eager(jax, jnp, lax, results, checks):
  x = jnp.arange(4.0)
  results["eager op: x + 1.0 on f32[4]"] = _timeit(lambda: (x + 1.0).block_until_ready())
  y = jnp.ones((100, 100))
  results["eager op: tanh on f32[100,100]"] = _timeit(lambda: jnp.tanh(y).block_until_ready())
  checks["eager"] = _checksum(jnp.tanh(y) + 1.0)


def w_calls(jax, jnp, lax, results, checks):
  x4 = jnp.arange(4.0)
  jax.jit(lambda x: x * 2.0)(x4).block_until_ready()

  def stupid_fn(x):
    y = x
    for _ in range(1000):
      y = y * 1.0001
    return x
  start = time.perf_counter()
  jax.jit(stupid_fn)(x4).block_until_ready()
  results["first call of stupid_fn (1000 muls)"] = time.perf_counter() - start
  add_one = jax.jit(lambda x: x + 1.0)
  results["tiny jit call: x + 1.0 on f32[4]"] = _timeit(lambda: add_one(x4).block_until_ready())
  scale = jax.jit(lambda d: {k: v * 2.0 for k, v in d.items()})
  params = {f"p{i}": jnp.full((3,), float(i)) for i in range(100)}
  results["jit call, dict of 100 arrays in and out"] = _timeit(
      lambda: jax.block_until_ready(scale(params)))
  checks["calls"] = float(sum(np.asarray(v).sum() for v in scale(params).values()))


def w_mlp(jax, jnp, lax, results, checks):
  rng = np.random.default_rng(0)
  sizes = [784, 512, 512, 10]
  params = [(jnp.asarray(rng.standard_normal((m, n)).astype(np.float32) * np.sqrt(1 / m)),
             jnp.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]
  x = jnp.asarray(rng.standard_normal((128, 784)).astype(np.float32))
  y = jnp.asarray(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)])

  def loss(params, x, y):
    for w, b in params[:-1]:
      x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    logits = x @ w + b
    logits = logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.mean(jnp.sum(logits * y, axis=1))

  @jax.jit
  def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), value

  results["MLP train step 784-512-512-10, batch 128"] = _timeit(
      lambda: jax.block_until_ready(step(params, x, y)), min_time=1.0)
  checks["mlp"] = float(step(params, x, y)[1])


def w_cnn(jax, jnp, lax, results, checks):
  rng = np.random.default_rng(1)
  w1 = jnp.asarray(rng.standard_normal((3, 3, 1, 16)).astype(np.float32) * 0.3)
  w2 = jnp.asarray(rng.standard_normal((3, 3, 16, 32)).astype(np.float32) * 0.1)
  w3 = jnp.asarray(rng.standard_normal((7 * 7 * 32, 10)).astype(np.float32) * 0.02)
  x = jnp.asarray(rng.standard_normal((32, 28, 28, 1)).astype(np.float32))
  y = jnp.asarray(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)])
  dn = ("NHWC", "HWIO", "NHWC")

  def loss(params, x, y):
    w1, w2, w3 = params
    h = jax.nn.relu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.relu(lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=dn))
    h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    logits = h.reshape((h.shape[0], -1)) @ w3
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=1))

  @jax.jit
  def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return [p - 0.01 * g for p, g in zip(params, grads)], value

  params = [w1, w2, w3]
  results["small CNN train step (2 conv + pools), batch 32"] = _timeit(
      lambda: jax.block_until_ready(step(params, x, y)), min_time=1.0)
  checks["cnn"] = float(step(params, x, y)[1])


def w_rnn(jax, jnp, lax, results, checks):
  rng = np.random.default_rng(2)
  hidden, batch, steps = 256, 32, 200
  wh = jnp.asarray(rng.standard_normal((hidden, hidden)).astype(np.float32) / np.sqrt(hidden))
  wx = jnp.asarray(rng.standard_normal((hidden, hidden)).astype(np.float32) / np.sqrt(hidden))
  xs = jnp.asarray(rng.standard_normal((steps, batch, hidden)).astype(np.float32))

  def loss(params, xs):
    wh, wx = params

    def cell(h, x):
      h = jnp.tanh(h @ wh + x @ wx)
      return h, h.sum()
    h, sums = lax.scan(cell, jnp.zeros((batch, hidden)), xs)
    return jnp.mean(h ** 2) + 1e-3 * sums.mean()

  step = jax.jit(jax.value_and_grad(loss))
  results["scan RNN fwd+grad, 200 steps, hidden 256, batch 32"] = _timeit(
      lambda: jax.block_until_ready(step((wh, wx), xs)), min_time=1.0)
  checks["rnn"] = float(step((wh, wx), xs)[0])


def w_per_example(jax, jnp, lax, results, checks):
  rng = np.random.default_rng(3)
  w = jnp.asarray(rng.standard_normal(1000).astype(np.float32) * 0.01)
  xs = jnp.asarray(rng.standard_normal((512, 1000)).astype(np.float32))
  ys = jnp.asarray((rng.random(512) > 0.5).astype(np.float32))

  def loss(w, x, y):
    p = jax.nn.sigmoid(jnp.dot(x, w))
    return -(y * jnp.log(p) + (1 - y) * jnp.log1p(-p))

  grads = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
  results["per-example grads, logistic regression, 512 x 1000"] = _timeit(
      lambda: grads(w, xs, ys).block_until_ready(), min_time=1.0)
  checks["per_example"] = _checksum(grads(w, xs, ys))


def w_random(jax, jnp, lax, results, checks):
  key = jax.random.PRNGKey(0)
  results["random.normal f32[4M], eager"] = _timeit(
      lambda: jax.random.normal(key, (4 * 1024 * 1024,)).block_until_ready(), min_time=1.0)
  normal = jax.jit(lambda k: jax.random.normal(k, (4 * 1024 * 1024,)))
  results["random.normal f32[4M], jit"] = _timeit(lambda: normal(key).block_until_ready(),
                                                  min_time=1.0)
  checks["random"] = _checksum(normal(key))


def w_chain(jax, jnp, lax, results, checks):
  @jax.jit
  def chain(x):
    for _ in range(10):
      x = jnp.sin(x) * 0.5 + x * 0.25 - 0.125
    return x
  n = 8 * 1024 * 1024
  big = jnp.asarray(np.random.default_rng(0).standard_normal(n).astype(np.float32))
  t = _timeit(lambda: chain(big).block_until_ready(), min_time=1.0)
  results["elementwise chain (10x4 ops), f32[8M]"] = t
  results["  rate: GB/s (read + write)"] = ("rate", 2 * 4 * n / t / 1e9)
  checks["chain"] = _checksum(chain(big))


def w_matmul(jax, jnp, lax, results, checks):
  matmul = jax.jit(lambda a, b: a @ b)
  a = jnp.asarray(np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32))
  t = _timeit(lambda: matmul(a, a).block_until_ready(), min_time=1.0)
  results["matmul f32[1024,1024]"] = t
  results["  rate: GFLOP/s"] = ("rate", 2 * 1024 ** 3 / t / 1e9)
  checks["matmul"] = _checksum(matmul(a, a))


def w_hessian(jax, jnp, lax, results, checks):
  rng = np.random.default_rng(4)
  w = jnp.asarray(rng.standard_normal((64, 100)).astype(np.float32) * 0.1)
  f = lambda x: jnp.sum(jnp.tanh(w @ x) ** 2)
  hess = jax.jit(jax.hessian(f))
  x = jnp.asarray(rng.standard_normal(100).astype(np.float32))
  results["hessian of sum(tanh(W x)^2), x in R^100, jit"] = _timeit(
      lambda: hess(x).block_until_ready(), min_time=1.0)
  checks["hessian"] = _checksum(hess(x))


def w_while(jax, jnp, lax, results, checks):
  loop = jax.jit(lambda x: lax.while_loop(lambda c: c[0] < 10000,
                                          lambda c: (c[0] + 1, c[1] * 0.9999 + 0.001),
                                          (0, x)))
  x = jnp.ones(16)
  results["while_loop, 10k iterations, jit"] = _timeit(
      lambda: jax.block_until_ready(loop(x)), min_time=1.0)
  checks["while"] = _checksum(loop(x)[1])


WORKLOADS = [w_eager, w_calls, w_mlp, w_cnn, w_rnn, w_per_example, w_random, w_chain, w_matmul,
             w_hessian, w_while]


def numpy_figures() -> dict:
  """NumPy's time for the work it can do the same way (eager ops, a copy, a matmul)."""
  out = {}
  x = np.arange(4.0, dtype=np.float32)
  out["eager op: x + 1.0 on f32[4]"] = _timeit(lambda: x + np.float32(1.0))
  y = np.ones((100, 100), np.float32)
  out["eager op: tanh on f32[100,100]"] = _timeit(lambda: np.tanh(y))
  n = 8 * 1024 * 1024
  big = np.random.default_rng(0).standard_normal(n).astype(np.float32)
  t = _timeit(lambda: big.copy(), min_time=1.0)
  out["  rate: GB/s (read + write)"] = ("rate", 2 * 4 * n / t / 1e9)
  a = np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)
  t = _timeit(lambda: a @ a, min_time=1.0)
  out["  rate: GFLOP/s"] = ("rate", 2 * 1024 ** 3 / t / 1e9)
  return out


def worker(library: str, only: str | None) -> dict:
  if library == "jax":
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    import jax.scipy.special  # noqa: F401
    from jax import lax
  else:
    import axle as jax
    import axle.numpy as jnp
    import axle.scipy.special  # noqa: F401
    from axle import lax
  results, checks, errors = {}, {}, {}
  for workload in WORKLOADS:
    if only and only not in workload.__name__:
      continue
    try:
      workload(jax, jnp, lax, results, checks)
    except Exception as e:  # report, keep measuring the others
      errors[workload.__name__] = f"{type(e).__name__}: {str(e)[:200]}"
  return {"times": results, "checks": checks, "errors": errors}


def _run_worker(python: str, library: str, env: dict, only) -> dict:
  command = [python, os.path.abspath(__file__), "--worker", library]
  if only:
    command += ["--only", only]
  out = subprocess.run(command, capture_output=True, text=True, env=env)
  if out.returncode != 0:
    raise RuntimeError(f"{library} worker failed:\n{out.stderr[-3000:]}")
  return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(value) -> str:
  if isinstance(value, tuple):
    return f"{value[1]:.1f}"
  if value >= 1.0:
    return f"{value:.2f} s"
  if value >= 1e-3:
    return f"{value * 1e3:.2f} ms"
  return f"{value * 1e6:.1f} us"


def _median(samples):
  if isinstance(samples[0], list):  # rates come back from JSON as lists
    return ("rate", statistics.median(s[1] for s in samples))
  return statistics.median(samples)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"), help="an interpreter with JAX installed")
  parser.add_argument("--rounds", type=int, default=3)
  parser.add_argument("--only", default=None, help="run workloads whose name contains this")
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker, args.only)))
    return
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  env = dict(os.environ, JAX_ENABLE_COMPILATION_CACHE="false", TF_CPP_MIN_LOG_LEVEL="1",
             PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
  samples = {"axle": {}, "jax": {}}
  checks, errors = {}, {}
  for _ in range(args.rounds):
    for library in ("axle", "jax") if args.jax_python else ("axle",):
      result = _run_worker(args.jax_python if library == "jax" else sys.executable, library, env,
                           args.only)
      for name, t in result["times"].items():
        samples[library].setdefault(name, []).append(t)
      checks[library] = result["checks"]
      errors[library] = result["errors"]
  numpy_results = numpy_figures()
  header = f"{'workload':54s} {'axle':>10s}"
  if args.jax_python:
    header += f" {'jax':>10s} {'jax/axle':>9s}"
  header += f" {'numpy':>10s}"
  print(header)
  for name, times in samples["axle"].items():
    axle_v = _median(times)
    line = f"{name:54s} {_fmt(axle_v):>10s}"
    if args.jax_python:
      if name in samples["jax"]:
        jax_v = _median(samples["jax"][name])
        ratio = (axle_v[1] / jax_v[1]) if isinstance(axle_v, tuple) else jax_v / axle_v
        line += f" {_fmt(jax_v):>10s} {ratio:9.2f}"
      else:
        line += f" {'-':>10s} {'-':>9s}"
    if name in numpy_results:
      line += f" {_fmt(numpy_results[name]):>10s}"
    print(line)
  for library, failed in errors.items():
    for workload, message in failed.items():
      print(f"{library} {workload} FAILED: {message}")
  if args.jax_python and "jax" in checks:
    for key, value in checks["axle"].items():
      other = checks["jax"].get(key)
      if other is None:
        continue
      ok = np.allclose(value, other, rtol=2e-3, atol=1e-4)
      print(f"check {key}: {'same result' if ok else f'DIFFERENT: axle {value} jax {other}'}")


if __name__ == "__main__":
  main()
