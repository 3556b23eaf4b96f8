"""One process of a 2-process job on 127.0.0.1 (run by test_multidevice.py): usage
``multiprocess_worker.py RANK PORT``. Prints ``PASS`` when every check holds."""
import sys

import numpy as np

import axle as jax
from axle import lax

rank, port = int(sys.argv[1]), int(sys.argv[2])
jax.config.update("jax_num_cpu_devices", 4)
jax.distributed.initialize(f"127.0.0.1:{port}", 2, rank)

from axle.experimental import multihost_utils  # noqa: E402
from axle.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

assert (jax.process_index(), jax.process_count()) == (rank, 2)
assert jax.device_count() == 8 and jax.local_device_count() == 4
assert all(d.process_index == rank for d in jax.local_devices())
mesh = Mesh(np.array(jax.devices()), ("i",))
whole = np.arange(16, dtype=np.float32).reshape(8, 2)
x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("i")),
                                           whole[4 * rank:4 * rank + 4], (8, 2))
assert [s.index[0].start for s in x.addressable_shards] == list(range(4 * rank, 4 * rank + 4))
total = jax.jit(jax.shard_map(lambda b: lax.psum(b, "i"), mesh=mesh, in_specs=P("i"),
                              out_specs=P()))(x)
assert np.array_equal(np.asarray(total), whole.sum(0, keepdims=True))
assert float(jax.jit(lambda a: (a * 2).sum())(x)) == 2 * whole.sum()
assert np.array_equal(multihost_utils.process_allgather(x), whole)
gathered = multihost_utils.process_allgather(np.array([rank], np.int32))
assert gathered.tolist() == [[0], [1]], gathered
assert multihost_utils.broadcast_one_to_all(np.float32(rank + 3)) == 3
try:
  np.asarray(x)
except RuntimeError as e:
  assert "non-addressable" in str(e)
else:
  raise AssertionError("reading a global array should fail")
multihost_utils.sync_global_devices("done")
jax.distributed.shutdown()
print("PASS", flush=True)
