"""One process of a job on 127.0.0.1 in which something goes wrong (run by
test_distributed.py): usage ``multiprocess_failure_worker.py RANK PORT SCENARIO``.

Scenarios (2 processes x 2 CPU devices unless said): ``peer_dies`` (process 1 exits after a
first collective), ``peer_dies_early`` (process 1 exits before any collective),
``peer_dies_slowly`` (``peer_dies`` with JAX's default heartbeat timeout of 100 s),
``peer_raises`` (process 1 ends with an uncaught error: it leaves through the exit-time
shutdown), ``coordinator_dies`` (process 0 exits after a first collective),
``three_processes`` (3 processes x 1 device, process 2 exits after a first collective),
``never_joins`` (process 0 alone in a 2-process job). Each surviving process prints
``RAISED <type>: <message>`` for the error it gets, then exits normally."""
import os
import sys
import time

import numpy as np

import axle as jax
from axle import lax
from axle.sharding import Mesh, PartitionSpec as P

rank, port, scenario = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
processes, local = (3, 1) if scenario == "three_processes" else (2, 2)
jax.config.update("jax_num_cpu_devices", local)
start = time.monotonic()
try:
  jax.distributed.initialize(f"127.0.0.1:{port}", processes, rank,
                             initialization_timeout=2 if scenario == "never_joins" else 60,
                             heartbeat_timeout_seconds=100 if scenario == "peer_dies_slowly" else 4,
                             shutdown_timeout_seconds=5)
except Exception as e:  # noqa: BLE001
  print(f"RAISED {type(e).__name__}: {e}", flush=True)
  print(f"SECONDS {time.monotonic() - start:.1f}", flush=True)
  sys.exit(0)

mesh = Mesh(np.array(jax.devices()), ("i",))
total = jax.jit(jax.shard_map(lambda b: lax.psum(b, "i"), mesh=mesh, in_specs=P("i"),
                              out_specs=P()))
ones = jax.make_array_from_process_local_data(jax.NamedSharding(mesh, P("i")),
                                              np.ones((local, 3), np.float32),
                                              (processes * local, 3))
victim = {"coordinator_dies": 0, "three_processes": 2}.get(scenario, 1)
if scenario != "peer_dies_early":
  assert np.asarray(total(ones)).tolist() == [[processes * local] * 3]
if rank == victim:
  if scenario == "peer_raises":
    raise SystemExit("process 1 stops with an error")
  os._exit(0)
start = time.monotonic()
try:
  for _ in range(3):
    np.asarray(total(ones))
except Exception as e:  # noqa: BLE001
  print(f"RAISED {type(e).__name__}: {e}", flush=True)
  print(f"SECONDS {time.monotonic() - start:.1f}", flush=True)
else:
  print("NO ERROR", flush=True)
