"""The README demo's network trained data-parallel on 8 CPU devices.

Each batch of 128 is split into 8 slices of 16, one per device; every device computes the loss
and gradient on its slice, ``lax.pmean`` averages the gradients over the devices (an XLA
all-reduce), and every device applies the same Adam step to its copy of the parameters.

    python examples/data_parallel.py               # pmap
    python examples/data_parallel.py --sharded     # jit over arrays sharded with NamedSharding
    python examples/data_parallel.py --single      # the single-device demo step, for comparison
    python examples/data_parallel.py --processes 2 [--sharded]   # 2 local processes x 4 devices

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

PROCESSES = int(os.environ.get("AXLE_EXAMPLE_PROCESSES", "1"))
PROCESS_ID = int(os.environ.get("AXLE_EXAMPLE_PROCESS_ID", "0"))
DEVICES = 8 // PROCESSES  # local devices: 8 in all
jax.config.update("jax_num_cpu_devices", DEVICES)
if PROCESSES > 1:
  jax.distributed.initialize(os.environ["AXLE_EXAMPLE_COORDINATOR"], PROCESSES, PROCESS_ID)

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


EPOCHS = [demo.EPOCHS]


def log(*args):
  if PROCESS_ID == 0:
    print(*args, flush=True)


def local_part(array):
  """This process's share of a global batch (all of it with one process)."""
  size = len(array) // PROCESSES
  return array[PROCESS_ID * size:(PROCESS_ID + 1) * size]


def train(mode: str):
  (train_x, train_y), (test_x, test_y) = demo.make_dataset()
  params = demo.init_params(jax.random.PRNGKey(0))
  opt_state = demo.adam_init(params)
  mesh = jax.sharding.Mesh(np.array(jax.devices()), ("batch",))
  if mode == "pmap":
    params, opt_state = replicate(params), replicate(opt_state)
  elif mode == "sharded":
    replicated = NamedSharding(mesh, P())
    params = jax.device_put(params, replicated)
    opt_state = jax.device_put(opt_state, replicated)
  batches = len(train_x) // demo.BATCH_SIZE
  rng = np.random.default_rng(1)
  start = time.perf_counter()
  for epoch in range(EPOCHS[0]):
    order = rng.permutation(len(train_x))
    losses = []
    for i in range(batches):
      index = order[i * demo.BATCH_SIZE:(i + 1) * demo.BATCH_SIZE]
      images, labels = local_part(train_x[index]), local_part(train_y[index])
      if mode == "pmap":
        images = images.reshape(DEVICES, -1, images.shape[-1])
        labels = labels.reshape(DEVICES, -1)
        params, opt_state, loss = pmap_step(params, opt_state, images, labels)
        loss = loss[0]
      elif mode == "sharded":
        batch = NamedSharding(mesh, P("batch"))
        images = jax.make_array_from_process_local_data(
            batch, images, (demo.BATCH_SIZE, images.shape[-1]))
        labels = jax.make_array_from_process_local_data(batch, labels, (demo.BATCH_SIZE,))
        params, opt_state, loss = demo.train_step(params, opt_state, images, labels)
      else:
        params, opt_state, loss = demo.train_step(params, opt_state, images, labels)
      losses.append(loss)
    log(f"epoch {epoch + 1}/{EPOCHS[0]} mean loss {float(np.mean(losses)):.4f}")
  if mode == "pmap":
    params = jax.tree_util.tree_map(lambda x: x[0], params)
  accuracy = float(demo.accuracy(params, test_x, test_y))
  log(f"test accuracy: {accuracy:.3f}  ({time.perf_counter() - start:.1f} s, {mode}, "
      f"{PROCESSES} process{'es' if PROCESSES > 1 else ''})")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  group = parser.add_mutually_exclusive_group()
  group.add_argument("--sharded", action="store_true", help="jit over NamedSharding arrays")
  group.add_argument("--single", action="store_true", help="one device")
  parser.add_argument("--processes", type=int, default=1, choices=[1, 2],
                      help="run as this many local processes (8 devices in all)")
  parser.add_argument("--epochs", type=int, default=demo.EPOCHS)
  args = parser.parse_args()
  EPOCHS[0] = args.epochs
  mode = "sharded" if args.sharded else "single" if args.single else "pmap"
  if args.processes > 1 and PROCESSES == 1:
    argv = []
    skip = False
    for a in sys.argv[1:]:
      if skip:
        skip = False
        continue
      if a == "--processes":
        skip = True
        continue
      if not a.startswith("--processes="):
        argv.append(a)
    launch(args.processes, argv)
    return
  train(mode)


def launch(processes: int, argv):
  """Runs this script as ``processes`` processes on 127.0.0.1 and waits for them."""
  import socket
  import subprocess
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
  children = []
  for rank in range(processes):
    env = dict(os.environ, AXLE_EXAMPLE_PROCESSES=str(processes),
               AXLE_EXAMPLE_PROCESS_ID=str(rank), AXLE_EXAMPLE_COORDINATOR=f"127.0.0.1:{port}")
    children.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), *argv], env=env,
                                     stdout=None if rank == 0 else subprocess.DEVNULL))
  codes = [child.wait() for child in children]
  if any(codes):
    sys.exit(f"a process failed: exit codes {codes}")


if __name__ == "__main__":
  main()
