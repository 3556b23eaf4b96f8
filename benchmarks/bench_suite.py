"""The benchmark suite: eager latency, call overhead, first calls, training steps, loops and
throughput, for axle and (with ``--jax-python`` or ``$JAX_PYTHON``) JAX, in alternating fresh
worker processes.

    python benchmarks/bench_suite.py [--jax-python PYTHON] [--rounds 3] [--quick]
                                     [--only NAME_SUBSTRING] [--timer wall|cpu]

Prints two tables. The workload table: the median time of each workload per library,
axle/JAX (below 1: axle is faster), the target where the performance issue sets one, rates
(GB/s, GFLOP/s) where they make sense, NumPy's figure where NumPy can do the same work, and
whether both libraries computed the same result. The per-op eager table: one eager call of each
op a user writes (reductions, indexing and ``.at[]``, shape ops, creation, matmul, random,
``jax.nn``) on small arrays, axle vs JAX vs NumPy. ``--quick`` runs one round with shorter timing
loops (a rough look, noisier).
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

import bench_jit  # the same timing loop as the jit benchmark (this folder)

# --quick shortens every timing loop (the worker reads it from the environment)
_TIME_SCALE = float(os.environ.get("AXLE_BENCH_TIME_SCALE", "1"))


def _timeit(fn, min_time=0.3):
  return bench_jit._timeit(fn, min_time=min_time * _TIME_SCALE)


def _checksum(x) -> float:
  return float(np.asarray(x, np.float64).ravel()[:4096].sum())


# Each workload: name -> function(jax, jnp, lax, results, checks) that records its time(s).


def w_eager(jax, jnp, lax, results, checks):
  x = jnp.arange(4.0)
  results["eager op: x + 1.0 on f32[4]"] = _timeit(lambda: (x + 1.0).block_until_ready())
  y = jnp.ones((100, 100))
  results["eager op: tanh on f32[100,100]"] = _timeit(lambda: jnp.tanh(y).block_until_ready())
  checks["eager"] = _checksum(jnp.tanh(y) + 1.0)
  v = jnp.asarray(np.linspace(0.1, 1.0, 100, dtype=np.float32))

  def two_hundred_ops():
    z = v
    for _ in range(20):  # 10 ops each
      a = z * 1.0001
      b = a + 0.1
      c = jnp.sin(b)
      d = jnp.abs(c)
      e = jnp.sqrt(d)
      f = jnp.maximum(e, 0.1)
      g = jnp.tanh(f)
      h = jnp.mean(g)
      i = g - h
      z = jnp.cos(i)
    return z
  results["200 eager ops on f32[100] (10 kinds)"] = _timeit(
      lambda: two_hundred_ops().block_until_ready())
  checks["200_ops"] = _checksum(two_hundred_ops())
  key = jax.random.PRNGKey(0)

  def split_uniform():
    k1, k2 = jax.random.split(key)
    return jax.random.uniform(k2, (100,))
  results["split + uniform f32[100], eager"] = _timeit(
      lambda: split_uniform().block_until_ready())
  checks["split_uniform"] = _checksum(split_uniform())


def w_eager_large(jax, jnp, lax, results, checks):
  """Eager ops on arrays of a million elements, where XLA's loops beat NumPy's and the values
  should stay on the device."""
  rng = np.random.default_rng(0)
  x = jnp.asarray(rng.standard_normal(1 << 20).astype(np.float32))
  y = jnp.asarray(np.abs(rng.standard_normal(1 << 20)).astype(np.float32) + np.float32(0.5))

  def ten_ops():
    a = x * y + 0.1
    b = jnp.where(a > 0, a, 0.0)
    c = jnp.sqrt(b) / y
    d = jnp.clip(c - jnp.mean(c), -1.0, 1.0)
    return jnp.maximum(d, -0.5) * jnp.sign(x)
  results["10 eager ops on f32[2**20]"] = _timeit(lambda: ten_ops().block_until_ready())
  checks["large"] = _checksum(ten_ops())
  m = jnp.asarray(rng.standard_normal((1000, 1000)).astype(np.float32)).astype(jnp.bfloat16)
  results["eager bf16[1000,1000]: m * 2.0 + m"] = _timeit(
      lambda: (m * 2.0 + m).block_until_ready())
  checks["large_bf16"] = _checksum((m * 2.0 + m).astype(jnp.float32))


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
  for n in (1, 20, 100):
    params = {f"p{i}": jnp.full((3,), float(i)) for i in range(n)}
    results[f"jit call, dict of {n} arrays in and out"] = _timeit(
        lambda: jax.block_until_ready(scale(params)))
  checks["calls"] = float(sum(np.asarray(v).sum() for v in scale(params).values()))
  host4 = np.arange(4.0, dtype=np.float32)
  results["jit call, a NumPy f32[4] argument"] = _timeit(
      lambda: add_one(host4).block_until_ready())
  results["jit call, a Python float argument"] = _timeit(lambda: add_one(2.0).block_until_ready())
  times = jax.jit(lambda x, n: x * n, static_argnums=1)
  results["jit call, a static int argument"] = _timeit(lambda: times(x4, 3).block_until_ready())
  loss = jax.jit(lambda w, x: jnp.sum(jnp.tanh(w * x)))
  w16 = jnp.linspace(0.0, 1.0, 16)
  grad = jax.grad(loss)
  results["grad of a jitted function, called again"] = _timeit(
      lambda: grad(w16, w16).block_until_ready())
  per_row = jax.vmap(loss, in_axes=(None, 0))
  rows = jnp.ones((8, 16))
  results["vmap of a jitted function, called again"] = _timeit(
      lambda: per_row(w16, rows).block_until_ready())
  checks["grad_of_jit"] = _checksum(grad(w16, w16))


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


def w_eager_train(jax, jnp, lax, results, checks):
  """A small training loop written eagerly (grad without jit), as in a tutorial: every step's
  values are on the device, so each op after the first is one a deferred-eager system sees."""
  rng = np.random.default_rng(3)
  w1 = jnp.asarray(rng.standard_normal((32, 64)).astype(np.float32) * 0.1)
  w2 = jnp.asarray(rng.standard_normal((64, 10)).astype(np.float32) * 0.1)
  x = jnp.asarray(rng.standard_normal((16, 32)).astype(np.float32))
  y = jnp.asarray(rng.integers(0, 10, 16).astype(np.int32))

  def loss(params):
    h = jnp.tanh(x @ params[0])
    logits = h @ params[1]
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(16), y])

  grad = jax.grad(loss)

  def train(steps):
    params = (w1, w2)
    for _ in range(steps):
      params = tuple(p - 0.1 * g for p, g in zip(params, grad(params)))
    return params

  results["eager MLP training, 20 steps (grad, no jit)"] = _timeit(
      lambda: jax.block_until_ready(train(20)), min_time=1.0)
  checks["eager_train"] = _checksum(train(20)[1])


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


WORKLOADS = [w_eager, w_eager_large, w_eager_train, w_calls, w_mlp, w_cnn, w_rnn, w_per_example, w_random, w_chain, w_matmul,
             w_hessian, w_while]


# The per-op eager table: (name, op(jax, jnp, inputs), NumPy's op(np, inputs) or None). Inputs:
# x, y f32[100]; m f32[100,100]; idx int32[10]; key a PRNG key. Each row is one eager call.
def _ops_table():
  def lse(jax, v):
    return jax.scipy.special.logsumexp(v["x"])
  return [
      ("x * y, f32[100]", lambda jax, jnp, v: v["x"] * v["y"], lambda np, v: v["x"] * v["y"]),
      ("x + 1.0", lambda jax, jnp, v: v["x"] + 1.0, lambda np, v: v["x"] + np.float32(1.0)),
      ("x < y", lambda jax, jnp, v: v["x"] < v["y"], lambda np, v: v["x"] < v["y"]),
      ("abs", lambda jax, jnp, v: jnp.abs(v["x"]), lambda np, v: np.abs(v["x"])),
      ("sqrt", lambda jax, jnp, v: jnp.sqrt(v["y"]), lambda np, v: np.sqrt(v["y"])),
      ("maximum", lambda jax, jnp, v: jnp.maximum(v["x"], v["y"]), lambda np, v: np.maximum(v["x"], v["y"])),
      ("sin", lambda jax, jnp, v: jnp.sin(v["x"]), lambda np, v: np.sin(v["x"])),
      ("tanh", lambda jax, jnp, v: jnp.tanh(v["x"]), lambda np, v: np.tanh(v["x"])),
      ("sum", lambda jax, jnp, v: jnp.sum(v["x"]), lambda np, v: np.sum(v["x"])),
      ("mean", lambda jax, jnp, v: jnp.mean(v["x"]), lambda np, v: np.mean(v["x"])),
      ("max", lambda jax, jnp, v: jnp.max(v["x"]), lambda np, v: np.max(v["x"])),
      ("min", lambda jax, jnp, v: jnp.min(v["x"]), lambda np, v: np.min(v["x"])),
      ("var", lambda jax, jnp, v: jnp.var(v["x"]), lambda np, v: np.var(v["x"])),
      ("std", lambda jax, jnp, v: jnp.std(v["x"]), lambda np, v: np.std(v["x"])),
      ("argmax", lambda jax, jnp, v: jnp.argmax(v["x"]), lambda np, v: np.argmax(v["x"])),
      ("logsumexp", lambda jax, jnp, v: lse(jax, v), None),
      ("sum(m, axis=0, keepdims=True) f32[100,100]",
       lambda jax, jnp, v: jnp.sum(v["m"], axis=0, keepdims=True),
       lambda np, v: np.sum(v["m"], axis=0, keepdims=True)),
      ("mean(m, axis=1)", lambda jax, jnp, v: jnp.mean(v["m"], axis=1),
       lambda np, v: np.mean(v["m"], axis=1)),
      ("sum(x, dtype=float32)", lambda jax, jnp, v: jnp.sum(v["x"], dtype=jnp.float32),
       lambda np, v: np.sum(v["x"], dtype=np.float32)),
      ("x[3]", lambda jax, jnp, v: v["x"][3], lambda np, v: v["x"][3]),
      ("x[2:50]", lambda jax, jnp, v: v["x"][2:50], lambda np, v: v["x"][2:50]),
      ("m[:, 3]", lambda jax, jnp, v: v["m"][:, 3], lambda np, v: v["m"][:, 3]),
      ("x[idx] (gather)", lambda jax, jnp, v: v["x"][v["idx"]], lambda np, v: v["x"][v["idx"]]),
      ("x.at[3].set(0.0)", lambda jax, jnp, v: v["x"].at[3].set(0.0), None),
      ("x.at[idx].add(1.0)", lambda jax, jnp, v: v["x"].at[v["idx"]].add(1.0), None),
      ("m.reshape(50, 200)", lambda jax, jnp, v: v["m"].reshape(50, 200),
       lambda np, v: v["m"].reshape(50, 200)),
      ("m.T", lambda jax, jnp, v: v["m"].T, lambda np, v: v["m"].T),
      ("transpose(m)", lambda jax, jnp, v: jnp.transpose(v["m"]), lambda np, v: np.transpose(v["m"])),
      ("concatenate([x, y])", lambda jax, jnp, v: jnp.concatenate([v["x"], v["y"]]),
       lambda np, v: np.concatenate([v["x"], v["y"]])),
      ("stack([x, y])", lambda jax, jnp, v: jnp.stack([v["x"], v["y"]]),
       lambda np, v: np.stack([v["x"], v["y"]])),
      ("where(x > 0, x, 0.0)", lambda jax, jnp, v: jnp.where(v["x"] > 0, v["x"], 0.0),
       lambda np, v: np.where(v["x"] > 0, v["x"], np.float32(0.0))),
      ("clip(x, -0.5, 0.5)", lambda jax, jnp, v: jnp.clip(v["x"], -0.5, 0.5),
       lambda np, v: np.clip(v["x"], np.float32(-0.5), np.float32(0.5))),
      ("zeros((100,))", lambda jax, jnp, v: jnp.zeros((100,)), lambda np, v: np.zeros((100,), np.float32)),
      ("ones((100, 100))", lambda jax, jnp, v: jnp.ones((100, 100)),
       lambda np, v: np.ones((100, 100), np.float32)),
      ("arange(100)", lambda jax, jnp, v: jnp.arange(100), lambda np, v: np.arange(100, dtype=np.int32)),
      ("full((100,), 2.0)", lambda jax, jnp, v: jnp.full((100,), 2.0),
       lambda np, v: np.full((100,), 2.0, np.float32)),
      ("zeros_like(x)", lambda jax, jnp, v: jnp.zeros_like(v["x"]), lambda np, v: np.zeros_like(v["x"])),
      ("ones_like(m)", lambda jax, jnp, v: jnp.ones_like(v["m"]), lambda np, v: np.ones_like(v["m"])),
      ("m @ m, f32[100,100]", lambda jax, jnp, v: v["m"] @ v["m"], lambda np, v: v["m"] @ v["m"]),
      ("dot(x, y)", lambda jax, jnp, v: jnp.dot(v["x"], v["y"]), lambda np, v: np.dot(v["x"], v["y"])),
      ("einsum('ij,jk->ik', m, m)", lambda jax, jnp, v: jnp.einsum("ij,jk->ik", v["m"], v["m"]),
       lambda np, v: np.einsum("ij,jk->ik", v["m"], v["m"])),
      ("random.PRNGKey(0)", lambda jax, jnp, v: jax.random.PRNGKey(0), None),
      ("random.split(key)", lambda jax, jnp, v: jax.random.split(v["key"]), None),
      ("random.fold_in(key, 3)", lambda jax, jnp, v: jax.random.fold_in(v["key"], 3), None),
      ("random.uniform(key, (100,))", lambda jax, jnp, v: jax.random.uniform(v["key"], (100,)), None),
      ("random.normal(key, (100,))", lambda jax, jnp, v: jax.random.normal(v["key"], (100,)), None),
      ("nn.relu", lambda jax, jnp, v: jax.nn.relu(v["x"]), lambda np, v: np.maximum(v["x"], 0)),
      ("nn.sigmoid", lambda jax, jnp, v: jax.nn.sigmoid(v["x"]), None),
      ("nn.gelu", lambda jax, jnp, v: jax.nn.gelu(v["x"]), None),
      ("nn.softmax(m, axis=-1)", lambda jax, jnp, v: jax.nn.softmax(v["m"], axis=-1), None),
      ("nn.log_softmax(x)", lambda jax, jnp, v: jax.nn.log_softmax(v["x"]), None),
      ("nn.one_hot(idx, 10)", lambda jax, jnp, v: jax.nn.one_hot(v["idx"], 10), None),
  ]


def _op_inputs(asarray):
  x = np.linspace(-1.0, 1.0, 100, dtype=np.float32)
  return {"x": asarray(x), "y": asarray(np.abs(x[::-1]) + np.float32(0.5)),
          "m": asarray(np.linspace(-1.0, 1.0, 10000, dtype=np.float32).reshape(100, 100)),
          "idx": asarray(np.array([1, 5, 7, 9, 20, 33, 50, 70, 90, 99], np.int32))}


def eager_ops(jax, jnp) -> tuple[dict, dict, dict]:
  """(times, checksums, errors) of each op in the per-op table."""
  v = _op_inputs(jnp.asarray)
  v["key"] = jax.random.PRNGKey(0)
  times, checks, errors = {}, {}, {}
  for name, op, _ in _ops_table():
    try:
      times[name] = _timeit(lambda: jax.block_until_ready(op(jax, jnp, v)), min_time=0.2)
      out = op(jax, jnp, v)
      checks[name] = None if name.startswith("random.PRNGKey") or name.startswith("random.split") \
          or name.startswith("random.fold_in") else _checksum(out)
    except Exception as e:
      errors[name] = f"{type(e).__name__}: {str(e)[:200]}"
  return times, checks, errors


def numpy_ops() -> dict:
  v = _op_inputs(np.asarray)
  return {name: _timeit(lambda: np_op(np, v), min_time=0.1)
          for name, _, np_op in _ops_table() if np_op is not None}


# The targets for axle/JAX (workload name -> target).
TARGETS = {
    "200 eager ops on f32[100] (10 kinds)": 0.5,
    "tiny jit call: x + 1.0 on f32[4]": 0.7,
    "jit call, dict of 20 arrays in and out": 0.5,
    "split + uniform f32[100], eager": 0.5,
    "per-example grads, logistic regression, 512 x 1000": 1.0,
    "scan RNN fwd+grad, 200 steps, hidden 256, batch 32": 1.0,
    "while_loop, 10k iterations, jit": 1.0,
}


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
  ops, op_checks, op_errors = ({}, {}, {}) if only and only not in "ops" else eager_ops(jax, jnp)
  errors.update({f"op {k}": e for k, e in op_errors.items()})
  return {"times": results, "checks": checks, "errors": errors, "ops": ops,
          "op_checks": op_checks}


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


def _ratio(axle_v, jax_v) -> float:
  """axle/JAX in time (below 1: axle is faster); for rates, JAX's rate over axle's."""
  if isinstance(axle_v, tuple):
    return jax_v[1] / axle_v[1]
  return axle_v / jax_v


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("JAX_PYTHON"),
                      help="an interpreter with JAX installed (default: $JAX_PYTHON)")
  parser.add_argument("--rounds", type=int, default=None, help="rounds (default 3; 1 with --quick)")
  parser.add_argument("--quick", action="store_true",
                      help="one round, timing loops a fifth as long (a rough look)")
  parser.add_argument("--only", default=None,
                      help="run workloads whose name contains this ('ops': the per-op table)")
  parser.add_argument("--timer", choices=("wall", "cpu"), default="wall",
                      help="wall clock (default), or the workers' CPU time (steadier on a "
                           "shared machine, blind to waiting)")
  parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    print(json.dumps(worker(args.worker, args.only)))
    return
  print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; timer: {args.timer}")
  rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  env = dict(os.environ, JAX_ENABLE_COMPILATION_CACHE="false", TF_CPP_MIN_LOG_LEVEL="1",
             PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
  if args.quick:
    env["AXLE_BENCH_TIME_SCALE"] = "0.2"
  if args.timer == "cpu":
    env["AXLE_BENCH_TIMER"] = "cpu"
    bench_jit._CLOCK = time.process_time  # NumPy's figures, measured here
  libraries = ("axle", "jax") if args.jax_python else ("axle",)
  samples = {library: {} for library in libraries}
  op_samples = {library: {} for library in libraries}
  checks, op_checks, errors = {}, {}, {}
  for _ in range(rounds):
    for library in libraries:  # alternating fresh processes
      result = _run_worker(args.jax_python if library == "jax" else sys.executable, library, env,
                           args.only)
      for name, t in result["times"].items():
        samples[library].setdefault(name, []).append(t)
      for name, t in result["ops"].items():
        op_samples[library].setdefault(name, []).append(t)
      checks[library] = result["checks"]
      op_checks[library] = result["op_checks"]
      errors[library] = result["errors"]
  if args.quick:
    global _TIME_SCALE
    _TIME_SCALE = 0.2
  numpy_results = numpy_figures()
  numpy_op_results = numpy_ops() if op_samples["axle"] else {}
  have_jax = bool(args.jax_python)

  def table(title, rows, numpy_figs, targets):
    header = f"{title:54s} {'axle':>10s}"
    if have_jax:
      header += f" {'jax':>10s} {'axle/jax':>9s} {'target':>7s}"
    header += f" {'numpy':>10s}"
    print(header)
    for name, times in rows["axle"].items():
      axle_v = _median(times)
      line = f"{name:54s} {_fmt(axle_v):>10s}"
      if have_jax:
        if name in rows["jax"]:
          jax_v = _median(rows["jax"][name])
          ratio = _ratio(axle_v, jax_v)
          target = targets.get(name)
          mark = "" if target is None else (" ok" if ratio <= target else " MISS")
          line += f" {_fmt(jax_v):>10s} {ratio:9.2f} {'' if target is None else target:>7}"
          line = line + f" {_fmt(numpy_figs[name]) if name in numpy_figs else '':>10s}" + mark
          print(line)
          continue
        line += f" {'-':>10s} {'-':>9s} {'':>7s}"
      if name in numpy_figs:
        line += f" {_fmt(numpy_figs[name]):>10s}"
      print(line)

  print(f"load average {os.getloadavg()[0]:.2f} at the end")
  table("workload", samples, numpy_results, TARGETS)
  if op_samples["axle"]:
    print()
    table("eager op (one call; x, y f32[100], m f32[100,100])", op_samples, numpy_op_results, {})
  for library, failed in errors.items():
    for workload, message in failed.items():
      print(f"{library} {workload} FAILED: {message}")
  if have_jax and "jax" in checks:
    for key, value in checks["axle"].items():
      other = checks["jax"].get(key)
      if other is None:
        continue
      ok = np.allclose(value, other, rtol=2e-3, atol=1e-4)
      print(f"check {key}: {'same result' if ok else f'DIFFERENT: axle {value} jax {other}'}")
    different = [name for name, value in op_checks["axle"].items()
                 if value is not None and op_checks["jax"].get(name) is not None
                 and not np.allclose(value, op_checks["jax"][name], rtol=1e-5, atol=1e-6)]
    print("per-op checks: " + ("every op's result agrees" if not different
                               else "DIFFERENT: " + ", ".join(different)))


if __name__ == "__main__":
  main()
