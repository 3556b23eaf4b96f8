"""The README demo's network trained data-parallel on 8 CPU devices.

Each batch of 128 is split into 8 slices of 16, one per device; every device computes the loss
and gradient on its slice, ``lax.pmean`` averages the gradients over the devices (an XLA
all-reduce), and every device applies the same Adam step to its copy of the parameters.

    python examples/data_parallel.py               # pmap
    python examples/data_parallel.py --sharded     # jit over arrays sharded with NamedSharding
    python examples/data_parallel.py --single      # the single-device demo step, for comparison

The per-epoch mean losses match the single-device run (the summation order of the batch mean
differs, so the last digits may too).
"""
import argparse
import functools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import axle as jax  # noqa: E402
import axle.numpy as jnp  # noqa: E402
from axle import lax  # noqa: E402

DEVICES = 8
jax.config.update("jax_num_cpu_devices", DEVICES)

import demo  # noqa: E402  (the network, the data and the Adam step of examples/demo.py)

from axle.sharding import NamedSharding, PartitionSpec as P  # noqa: E402


def adam_update(params, opt_state, grads):
  b1, b2, eps = 0.9, 0.999, 1e-8
  t = opt_state["t"] + 1
  m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt_state["m"], grads)
  v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt_state["v"], grads)
  scale = demo.LEARNING_RATE * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
  params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                  params, m, v)
  return params, {"m": m, "v": v, "t": t}


@functools.partial(jax.pmap, axis_name="devices")
def pmap_step(params, opt_state, images, labels):
  loss, grads = jax.value_and_grad(demo.loss_fn)(params, images, labels)
  grads = lax.pmean(grads, "devices")
  params, opt_state = adam_update(params, opt_state, grads)
  return params, opt_state, lax.pmean(loss, "devices")


def replicate(tree):
  return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (DEVICES,) + jnp.shape(x)), tree)


def train(mode: str):
  (train_x, train_y), (test_x, test_y) = demo.make_dataset()
  params = demo.init_params(jax.random.PRNGKey(0))
  opt_state = demo.adam_init(params)
  mesh = jax.make_mesh((DEVICES,), ("batch",))
  if mode == "pmap":
    params, opt_state = replicate(params), replicate(opt_state)
  elif mode == "sharded":
    replicated = NamedSharding(mesh, P())
    params = jax.device_put(params, replicated)
    opt_state = jax.device_put(opt_state, replicated)
  batches = len(train_x) // demo.BATCH_SIZE
  rng = np.random.default_rng(1)
  start = time.perf_counter()
  for epoch in range(demo.EPOCHS):
    order = rng.permutation(len(train_x))
    losses = []
    for i in range(batches):
      index = order[i * demo.BATCH_SIZE:(i + 1) * demo.BATCH_SIZE]
      images, labels = train_x[index], train_y[index]
      if mode == "pmap":
        images = images.reshape(DEVICES, -1, images.shape[-1])
        labels = labels.reshape(DEVICES, -1)
        params, opt_state, loss = pmap_step(params, opt_state, images, labels)
        loss = loss[0]
      elif mode == "sharded":
        images = jax.device_put(images, NamedSharding(mesh, P("batch")))
        labels = jax.device_put(labels, NamedSharding(mesh, P("batch")))
        params, opt_state, loss = demo.train_step(params, opt_state, images, labels)
      else:
        params, opt_state, loss = demo.train_step(params, opt_state, images, labels)
      losses.append(loss)
    print(f"epoch {epoch + 1}/{demo.EPOCHS} mean loss {float(np.mean(losses)):.4f}")
  if mode == "pmap":
    params = jax.tree_util.tree_map(lambda x: x[0], params)
  accuracy = float(demo.accuracy(params, test_x, test_y))
  print(f"test accuracy: {accuracy:.3f}  ({time.perf_counter() - start:.1f} s, {mode})")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  group = parser.add_mutually_exclusive_group()
  group.add_argument("--sharded", action="store_true", help="jit over NamedSharding arrays")
  group.add_argument("--single", action="store_true", help="one device")
  parser.add_argument("--processes", type=int, default=1,
                      help="number of processes (only 1 is supported so far)")
  args = parser.parse_args()
  if args.processes != 1:
    parser.error("--processes: several processes are not supported yet")
  train("sharded" if args.sharded else "single" if args.single else "pmap")


if __name__ == "__main__":
  main()
