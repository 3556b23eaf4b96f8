"""Checks of sharding in types, unreduced arrays and shard_map under jit that need several CPU
devices, run in a fresh process by test_sharding_types.py. Prints one line per check:
``PASS name`` or ``FAIL name: error``."""
import sys
import time
import traceback

import numpy as np

import axle as jax
import axle.numpy as jnp
from axle import lax

jax.config.update("jax_num_cpu_devices", 8)

from axle.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

CHECKS = []


def check(fn):
  CHECKS.append(fn)
  return fn


def assert_equal(got, want):
  got = np.asarray(got)
  want = np.asarray(want)
  assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
  assert np.array_equal(got, want), (got, want)


@check
def shard_map_infers_in_specs_of_traced_arguments():
  # jit(shard_map(f)) without in_specs: each argument's sharded type gives its spec, so the
  # body sees per-device blocks (regression: the body saw global shapes and a dot of an
  # all_gather'ed block failed with mismatched contracting dimensions).
  mesh = jax.make_mesh((4,), ("batch",))
  with jax.set_mesh(mesh):
    w = jax.device_put(jnp.arange(32.).reshape(8, 4), P("batch"))
    x = jax.device_put(jnp.ones((8, 8)), P("batch"))
    shapes = []

    @jax.shard_map(out_specs=P())
    def loss(w_block, x_block):
      shapes.append((w_block.shape, x_block.shape))
      full_w = lax.all_gather(w_block, "batch", tiled=True)
      return lax.pmean(jnp.sum(jnp.dot(x_block, full_w)), "batch")

    want = (np.ones((8, 8)) @ np.arange(32.).reshape(8, 4)).sum() / 4
    assert float(jax.jit(loss)(w, x)) == want
    assert shapes[-1] == ((2, 4), (2, 8)), shapes
    g = jax.jit(jax.grad(loss))(w, x)
    assert_equal(g, np.full((8, 4), 2., np.float32))


@check
def remat_with_collectives_in_eager_shard_map():
  mesh = jax.make_mesh((4,), ("batch",))
  with jax.set_mesh(mesh):
    w = jax.device_put(jnp.arange(32.).reshape(8, 4), P("batch"))

    @jax.remat
    def gather(block):
      return lax.all_gather(block, "batch", tiled=True)

    out = jax.shard_map(lambda b: gather(b).sum(0), out_specs=P())(w)
    assert_equal(out, np.arange(32., dtype=np.float32).reshape(8, 4).sum(0))


def main():
  names = sys.argv[1:]
  for fn in CHECKS:
    if names and fn.__name__ not in names:
      continue
    start = time.perf_counter()
    try:
      fn()
    except BaseException as e:  # report, keep going
      detail = "".join(traceback.format_exception_only(type(e), e)).strip().replace("\n", " | ")
      print(f"FAIL {fn.__name__}: {detail}", flush=True)
      traceback.print_exc(file=sys.stderr)
    else:
      print(f"PASS {fn.__name__} {time.perf_counter() - start:.2f}s", flush=True)


if __name__ == "__main__":
  main()
