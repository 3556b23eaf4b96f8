"""``jax.distributed``: joining a job of several processes (one coordinator, every process's
devices visible to every process), over XLA's distributed runtime and gloo collectives."""
from __future__ import annotations

from axle._src.xla import client


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None,
               initialization_timeout: int = 300, heartbeat_timeout_seconds: int = 100,
               **unused) -> None:
  """Joins the job: process ``process_id`` of ``num_processes``, coordinated at
  ``coordinator_address`` ('host:port', served by process 0). Call it before any computation;
  the number of local CPU devices comes from ``jax_num_cpu_devices``."""
  if coordinator_address is None or num_processes is None or process_id is None:
    raise ValueError("distributed.initialize needs coordinator_address, num_processes and "
                     "process_id on CPU (no cluster auto-detection)")
  if local_device_ids is not None:
    raise NotImplementedError("distributed.initialize: local_device_ids is not supported")
  client.initialize_distributed(coordinator_address, int(num_processes), int(process_id),
                                initialization_timeout=initialization_timeout,
                                heartbeat_timeout=heartbeat_timeout_seconds)


def shutdown() -> None:
  """Leaves the job (also done at exit)."""
  client.shutdown_distributed()


def is_initialized() -> bool:
  return client.distributed_initialized()
