"""``jax.experimental.multihost_utils``: moving values between the processes of a job."""
from __future__ import annotations

import numpy as np

from axle._src import tree_util
from axle._src.api import jit
from axle._src.devices import devices as _devices
from axle._src.sharded_array import ShardedArray, make_array_from_process_local_data
from axle._src.sharding import Mesh, NamedSharding, PartitionSpec
from axle._src.xla import client
from axle._src.xla.spmd_jit import with_sharding_constraint


def _all_devices_mesh() -> Mesh:
  devices = sorted(_devices(), key=lambda d: (d.process_index, d.id))
  return Mesh(np.array(devices, dtype=object), ("processes",))


def _replicate(x: ShardedArray) -> np.ndarray:
  """The whole value of a global array, on every process."""
  replicated = NamedSharding(x.sharding.mesh, PartitionSpec())
  return np.asarray(jit(lambda v: with_sharding_constraint(v, replicated))(x))


def _gather_local(x, tiled: bool) -> np.ndarray:
  """Every process's ``x`` (a host value), stacked (or concatenated with ``tiled``)."""
  x = np.asarray(x)
  mesh = _all_devices_mesh()
  local = len(client.local_devices())
  rows = np.broadcast_to(x[None], (local, *x.shape))
  global_shape = (mesh.size, *x.shape)
  array = make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("processes")),
                                             rows, global_shape)
  gathered = _replicate(array)[::local]
  return np.concatenate(list(gathered), axis=0) if tiled else gathered


def process_allgather(in_tree, tiled: bool = False):
  """Every process's values of the pytree ``in_tree`` on every process: a global Array gives
  its whole value; a process-local value gives all processes' values stacked along a new
  leading axis (concatenated along axis 0 with ``tiled=True``)."""
  def gather(leaf):
    if isinstance(leaf, ShardedArray) and not leaf.is_fully_addressable():
      return _replicate(leaf)
    if client.process_count() == 1:
      value = np.asarray(leaf)
      return value if tiled else value[None]
    return _gather_local(leaf, tiled)
  return tree_util.tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
  """Process 0's values of the pytree ``in_tree`` (or those of the process passing
  ``is_source=True``) on every process."""
  if is_source is None:
    is_source = client.process_index() == 0
  if client.process_count() == 1:
    return tree_util.tree_map(np.asarray, in_tree)

  def broadcast(leaf):
    value = np.asarray(leaf)
    mask = np.asarray(is_source, value.dtype) if value.dtype != np.bool_ else np.bool_(is_source)
    gathered = _gather_local(value * mask if value.dtype != np.bool_ else value & mask, False)
    sources = _gather_local(np.asarray(is_source, np.int32), False)
    return gathered[int(np.argmax(sources))]
  return tree_util.tree_map(broadcast, in_tree)


def sync_global_devices(name: str) -> None:
  """A barrier: returns when every process has reached it (with the same ``name``)."""
  if client.process_count() == 1:
    return
  code = np.frombuffer(name.encode()[:64].ljust(64, b"\0"), np.uint8).astype(np.int32)
  gathered = _gather_local(code, False)
  if not (gathered == gathered[0]).all():
    raise AssertionError(f"sync_global_devices name mismatch ('{name}' on this process)")
