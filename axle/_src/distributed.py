"""``jax.distributed``: joining a job of several processes (one coordinator, every process's
devices visible to every process), over XLA's distributed runtime and gloo collectives."""
from __future__ import annotations

import os
from typing import Sequence

from axle._src.config import config
from axle._src.xla import client


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None,
               initialization_timeout: int = 300, heartbeat_timeout_seconds: int = 100,
               shutdown_timeout_seconds: int = 300, coordinator_bind_address: str | None = None,
               slice_index: int | None = None, partition_index: int | None = None) -> None:
  """Initializes the distributed system: this process becomes process ``process_id`` of
  ``num_processes``, coordinated at ``coordinator_address`` ('host:port', served on behalf of
  process 0). Call it before any computation, in every process.

  ``local_device_ids`` restricts the visible GPU devices (recorded in
  ``jax_cuda_visible_devices``/``jax_rocm_visible_devices``); on CPU every local device stays
  visible, their number set by ``jax_num_cpu_devices``. ``initialization_timeout`` bounds the
  wait for every process to connect, ``heartbeat_timeout_seconds`` how long a silent peer is
  tolerated before this process raises, ``shutdown_timeout_seconds`` the barrier at
  :func:`shutdown`. A missing coordinator, a process that never joins, a busy port or a peer
  that dies raise ``JaxRuntimeError`` naming what happened."""
  del slice_index  # a deprecated alias (TPU slices)
  coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
  if isinstance(local_device_ids, int):
    local_device_ids = [local_device_ids]
  if local_device_ids is None and (env_ids := os.environ.get("JAX_LOCAL_DEVICE_IDS")):
    local_device_ids = [int(i) for i in env_ids.split(",")]
  if cluster_detection_method not in (None, "deactivate"):
    raise ValueError(f"distributed.initialize: cluster_detection_method="
                     f"{cluster_detection_method!r} is not available (axle detects no "
                     f"clusters); pass coordinator_address, num_processes and process_id")
  if coordinator_address is None:
    raise ValueError("coordinator_address should be defined.")
  if num_processes is None:
    raise ValueError("Number of processes must be defined.")
  if process_id is None:
    raise ValueError("The process id of the current process must be defined.")
  if not isinstance(process_id, int):
    raise TypeError("process_id must be a nonnegative int. "
                    f"Got process_id={process_id} of type {type(process_id)}.")
  if not isinstance(num_processes, int):
    raise TypeError("num_processes must be a positive int. "
                    f"Got num_processes={num_processes} of type {type(num_processes)}.")
  if not 0 <= process_id < num_processes:
    raise ValueError("process_id and num_processes must be nonnegative, with process_id < "
                     f"num_processes. Got process_id={process_id}, num_processes={num_processes}.")
  if local_device_ids:
    visible = ",".join(str(i) for i in local_device_ids)
    config.update("jax_cuda_visible_devices", visible)
    config.update("jax_rocm_visible_devices", visible)
  client.initialize_distributed(coordinator_address, num_processes, process_id,
                                initialization_timeout=initialization_timeout,
                                heartbeat_timeout=heartbeat_timeout_seconds,
                                shutdown_timeout=shutdown_timeout_seconds,
                                coordinator_bind_address=coordinator_bind_address)
  del partition_index


def shutdown() -> None:
  """Shuts down the distributed system (a barrier with the other processes; also done at
  exit). Does nothing if it was not initialized."""
  client.shutdown_distributed()


def is_initialized() -> bool:
  """Whether :func:`initialize` has joined a job (and :func:`shutdown` not yet left it)."""
  return client.distributed_initialized()
