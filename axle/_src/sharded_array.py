"""Arrays laid out over several devices (the outputs of pmap, shard_map and SPMD jit, and
``device_put(x, NamedSharding(...))``).

A ShardedArray is an Array whose value lives as one multi-device XLA buffer
(``_sharded_buffer``), each device holding the piece its NamedSharding gives it. Programs over
the same devices and layout take that buffer as is (no trip through the host); everything else
(printing, NumPy, single-device programs) sees the assembled value, read once.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import tree_util
from axle._src.array import Array
from axle._src.core import ShapedArray
from axle._src import devices as devices_module
from axle._src.sharding import (AxisType, Mesh, NamedSharding, PartitionSpec, ShardedAval,
                                get_abstract_mesh, get_mesh,
                                replica_ids, shard_indices)
from axle._src.xla import client


class Shard:
  """One device's piece of an array: ``device``, ``index`` (slices into the global array),
  ``replica_id`` and ``data`` (a single-device Array)."""
  __slots__ = ("device", "index", "replica_id", "data")

  def __init__(self, device, index, replica_id, data):
    self.device = device
    self.index = index
    self.replica_id = replica_id
    self.data = data

  def __repr__(self):
    return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})")


class ShardedArray(Array):
  """An Array whose storage is split (or replicated) over the devices of a NamedSharding."""
  __slots__ = ("_sharding", "_sharded_buffer", "_pieces")

  @classmethod
  def from_buffer(cls, buffer, aval: ShapedArray, sharding: NamedSharding) -> "ShardedArray":
    array = object.__new__(cls)
    array._value = None
    array._aval = aval
    array._buffer = None
    array._sharding = sharding
    array._sharded_buffer = buffer
    array._pieces = None
    return array

  @classmethod
  def from_host(cls, value: np.ndarray, sharding: NamedSharding, weak_type: bool = False):
    """Splits a host value (canonical dtype) over ``sharding``'s devices."""
    aval = ShapedArray(value.shape, value.dtype, weak_type)
    indices = shard_indices(sharding.mesh, sharding.spec, value.shape)
    local = set(client.local_devices())
    pieces = [value[index] if d in local else None
              for d, index in zip(sharding.mesh.flat_devices, indices)]
    buffer = client.put_shards(pieces, aval, sharding.mesh.flat_devices,
                               hlo_sharding_of(sharding, value.ndim))
    array = cls.from_buffer(buffer, aval, sharding)
    array._value = value
    return array

  # -- storage ------------------------------------------------------------------
  def _shard_buffers(self) -> list:
    pieces = self._pieces
    if pieces is None:
      if self._sharded_buffer is None:
        raise client.deleted_error(self._aval)
      pieces = self._pieces = client.shard_buffers(self._sharded_buffer)
    return pieces

  def _local(self) -> list:
    """(device, index, replica id) of this process's pieces, in the buffers' order."""
    sharding = self._sharding
    local = set(client.local_devices())
    indices = shard_indices(sharding.mesh, sharding.spec, self._aval.shape)
    replicas = replica_ids(sharding.mesh, sharding.spec)
    return [(d, i, r) for d, i, r in zip(sharding.mesh.flat_devices, indices, replicas)
            if d in local]

  def _host_value(self):
    value = self._value
    if value is None:
      if self._sharded_buffer is None:
        raise client.deleted_error(self._aval)
      if self._sharding.spec.unreduced:
        raise NotImplementedError(
            f"The value of an array with unreduced sharding {self._sharding} cannot be fetched: "
            "each device holds a partial sum. Reduce it first, e.g. "
            "`jax.reshard(x, P(...))` without `unreduced`.")
      aval = self._aval
      shard_aval = ShapedArray(self._sharding.shard_shape(aval.shape), aval.dtype)
      value = np.empty(aval.shape, aval.dtype)
      covered = np.zeros(aval.shape, bool) if value.size else None
      seen = set()
      for (device, index, _), buffer in zip(self._local(), self._shard_buffers()):
        key = tuple((s.start, s.stop) for s in index)
        if key in seen:
          continue
        seen.add(key)
        value[index] = client.to_host(buffer, shard_aval)
        if covered is not None:
          covered[index] = True
      if covered is not None and not covered.all():
        raise RuntimeError(
            "Fetching value for `jax.Array` that spans non-addressable (non process local) "
            "devices is not possible. You can use "
            "`jax.experimental.multihost_utils.process_allgather` to print the global array or "
            "use `.addressable_shards` method of jax.Array to inspect the addressable (process "
            "local) shards.")
      value.flags.writeable = False
      self._value = value
    return value

  def _device_buffer(self, device=None):
    """A single-device copy (for programs on one device)."""
    buffer = self._buffer
    if buffer is None:
      value = self._host_value()
      buffer = self._buffer = client.put(np.asarray(value), self._aval, device)
    return buffer

  def block_until_ready(self):
    if self._sharded_buffer is not None:
      client.wait_for(self._sharded_buffer)
    elif self._value is None:
      raise client.deleted_error(self._aval)
    return self

  def is_deleted(self) -> bool:
    return self._sharded_buffer is None and self._value is None

  def delete(self) -> None:
    if self._sharded_buffer is not None:
      self._sharded_buffer.delete()
    self._sharded_buffer = None
    self._pieces = None
    self._value = None
    self._buffer = None

  def __reduce__(self):
    return (_reconstruct, (np.asarray(self._host_value()), self.aval.weak_type))

  def __repr__(self):
    if self._sharding.spec.unreduced:  # no value to show, only what it is
      dtype = f"dtype={self._aval.dtype.name}" + (", weak_type=True" if self._aval.weak_type else "")
      return f"Array(shape={self._aval.shape}, {dtype}, sharding={self._sharding})"
    return super().__repr__()

  def __str__(self):
    if self._sharding.spec.unreduced:
      return repr(self)
    return super().__str__()

  # -- layout -------------------------------------------------------------------
  @property
  def sharding(self):
    return self._sharding

  @property
  def is_fully_replicated(self) -> bool:
    return self._sharding.is_fully_replicated

  def devices(self) -> set:
    return set(self._sharding.mesh.devices.flat)

  @property
  def addressable_shards(self) -> list:
    aval = self._aval
    shard_aval = ShapedArray(self._sharding.shard_shape(aval.shape), aval.dtype, aval.weak_type)
    shards = []
    for (device, index, replica), buffer in zip(self._local(), self._shard_buffers()):
      data = object.__new__(Array)
      data._value = None
      data._aval = shard_aval
      data._buffer = buffer
      shards.append(Shard(device, index, replica, data))
    return shards

  def is_fully_addressable(self) -> bool:
    local = set(client.local_devices())
    return all(d in local for d in self._sharding.mesh.flat_devices)

  def _typeof(self):
    sharding = self._sharding
    mesh = sharding.mesh.abstract_mesh
    current = get_abstract_mesh()
    if current.shape_tuple == mesh.shape_tuple:
      mesh = current  # inside auto_axes/explicit_axes the axis types are the context's
    # A type carries only the Explicit axes; Auto axes are the compiler's choice.
    explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t == AxisType.Explicit}
    parts = []
    for dim in range(len(self._aval.shape)):
      axes = tuple(a for a in sharding.spec.axes_of(dim) if a in explicit)
      parts.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return ShardedAval(self._aval, NamedSharding(mesh, PartitionSpec(
        *parts, unreduced=sharding.spec.unreduced, reduced=sharding.spec.reduced)))

  @property
  def global_shards(self) -> list:
    return self.addressable_shards


def _reconstruct(value, weak_type):
  return Array(value, weak_type)


def hlo_sharding_of(sharding: NamedSharding, ndim: int):
  """The XLA HloSharding of ``sharding`` for an array of rank ``ndim``."""
  tiling = sharding.tiling(ndim)
  if tiling is None:
    return client.hlo_sharding(None)
  dims, order, subgroups = tiling
  return client.hlo_sharding(dims, order, subgroups)


def put_sharded(value, sharding: NamedSharding) -> ShardedArray:
  """``value`` (an Array, NumPy array or scalar) laid out as ``sharding``."""
  if isinstance(value, ShardedArray) and value._sharding == sharding:
    return value
  if sharding.spec.unreduced or (isinstance(value, ShardedArray) and value._sharding.spec.unreduced):
    return reshard_program_hook(value, sharding)
  if isinstance(value, Array):
    host = np.asarray(value._host_value())
    weak = value.aval.weak_type
  else:
    host = np.asarray(value)
    weak = False
    target = dtypes.canonicalize_dtype(host.dtype)
    if host.dtype != target:
      host = host.astype(target)
  host = np.array(host, copy=True)
  host.flags.writeable = False
  return ShardedArray.from_host(host, sharding, weak)


def sharded_buffer_for(value, sharding: NamedSharding, aval: ShapedArray):
  """The multi-device buffer of ``value`` laid out as ``sharding`` (reused when it already
  is, otherwise made from the host value)."""
  if isinstance(value, ShardedArray) and value._sharded_buffer is not None and (
      value._sharding is sharding or value._sharding == sharding):
    return value._sharded_buffer
  if isinstance(value, Array):
    host = np.asarray(value._host_value())
  else:
    host = np.asarray(value)
  if host.dtype != aval.dtype:
    host = host.astype(aval.dtype)
  host = host.reshape(aval.shape)
  indices = shard_indices(sharding.mesh, sharding.spec, aval.shape)
  local = set(client.local_devices())
  pieces = [host[i] if d in local else None for d, i in zip(sharding.mesh.flat_devices, indices)]
  return client.put_shards(pieces, aval, sharding.mesh.flat_devices,
                           hlo_sharding_of(sharding, len(aval.shape)))


def _device_put_sharded(x, sharding):
  flat, tree = tree_util.tree_flatten(x)
  if isinstance(sharding, (NamedSharding, PartitionSpec)) or sharding is None:
    shardings = [sharding] * len(flat)
  else:
    shardings = tree_util.tree_leaves(sharding, is_leaf=lambda s: isinstance(
        s, (NamedSharding, PartitionSpec)))
  outs = []
  for leaf, s in zip(flat, shardings):
    if isinstance(s, PartitionSpec):
      mesh = get_mesh()
      if mesh is None:
        raise ValueError("device_put: a PartitionSpec needs a mesh; use `jax.set_mesh(mesh)` or "
                         "pass NamedSharding(mesh, spec)")
      s = NamedSharding(mesh, s)
    if isinstance(leaf, core.Tracer):
      outs.append(constraint_hook(leaf, s))
      continue
    aval_ndim = np.ndim(leaf) if not isinstance(leaf, Array) else leaf.ndim
    s.tiling(aval_ndim)
    s.shard_shape(np.shape(leaf))
    outs.append(put_sharded(leaf, s))
  return tree_util.tree_unflatten(tree, outs)


def _handles(target) -> bool:
  if isinstance(target, (NamedSharding, PartitionSpec)):
    return True
  if isinstance(target, (list, tuple, dict)) and target:
    leaves = tree_util.tree_leaves(target, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)))
    return bool(leaves) and all(isinstance(s, (NamedSharding, PartitionSpec)) for s in leaves)
  return False


def _unshard(x):
  def one(leaf):
    if isinstance(leaf, ShardedArray):
      return Array(np.asarray(leaf._host_value()), leaf.aval.weak_type)
    return leaf
  return tree_util.tree_map(one, x)


_device_put_sharded.handles = _handles
_device_put_sharded.unshard = _unshard
constraint_hook = None  # with_sharding_constraint for traced values (set by spmd_jit)
reshard_program_hook = None  # a layout change run as a program over the mesh (set by spmd_jit)
devices_module.put_sharded_hook = _device_put_sharded


# ---------------------------------------------------------------------------
# Building global arrays from pieces (jax.make_array_from_*)

def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> ShardedArray:
  """An array of ``shape`` laid out as ``sharding``, each device's piece being
  ``data_callback(index)`` for the tuple of slices ``index`` it holds."""
  shape = tuple(int(d) for d in shape)
  sharding = _named(sharding)
  indices = shard_indices(sharding.mesh, sharding.spec, shape)
  local = set(client.local_devices())
  pieces = [np.asarray(data_callback(index)) if d in local else None
            for d, index in zip(sharding.mesh.flat_devices, indices)]
  piece_shape = sharding.shard_shape(shape)
  for index, piece in zip(indices, pieces):
    if piece is not None and piece.shape != piece_shape:
      raise ValueError(f"make_array_from_callback: data_callback returned an array of shape "
                       f"{piece.shape} for index {index}; expected {piece_shape}")
  first = next(p for p in pieces if p is not None)
  target = dtypes.canonicalize_dtype(dtype if dtype is not None else first.dtype)
  pieces = [None if p is None else p.astype(target, copy=False) for p in pieces]
  aval = ShapedArray(shape, target)
  buffer = client.put_shards(pieces, aval, sharding.mesh.flat_devices,
                             hlo_sharding_of(sharding, len(shape)))
  return ShardedArray.from_buffer(buffer, aval, sharding)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> ShardedArray:
  """An array of ``shape`` laid out as ``sharding`` from one single-device Array per device
  (in the order of ``sharding``'s devices, each the piece that device holds)."""
  sharding = _named(sharding)
  arrays = list(arrays)
  devices = sharding.mesh.flat_devices
  if len(arrays) != len(devices):
    raise ValueError(f"make_array_from_single_device_arrays: got {len(arrays)} arrays for a "
                     f"sharding over {len(devices)} devices")
  by_device = {}
  for array in arrays:
    device = next(iter(array.devices())) if hasattr(array, "devices") and not isinstance(
        array, Array) else None
    if isinstance(array, Array) and not isinstance(array, ShardedArray):
      device = devices_module.default_device() if array._buffer is None else \
          client.buffer_devices(array._buffer)[0]
    by_device.setdefault(device, []).append(array)
  ordered = arrays if len(by_device) != len(devices) else [by_device[d][0] for d in devices]
  return make_array_from_callback(
      shape, sharding, lambda index, it=iter(ordered): np.asarray(next(it)), dtype=dtype)


def make_array_from_process_local_data(sharding, local_data, global_shape=None) -> ShardedArray:
  """An array laid out as ``sharding`` from this process's data: the block of the global array
  that this process's devices hold (all of it with one process)."""
  sharding = _named(sharding)
  local_data = np.asarray(local_data)
  local = set(client.local_devices())
  indices = [i for d, i in zip(sharding.mesh.flat_devices,
                               shard_indices(sharding.mesh, sharding.spec,
                                             tuple(global_shape or local_data.shape)))
             if d in local] if global_shape is not None else None
  if global_shape is None:
    global_shape = local_data.shape
    if client.process_count() > 1:
      raise ValueError("make_array_from_process_local_data: pass global_shape with several "
                       "processes")
  global_shape = tuple(global_shape)
  starts = [min((index[d].start or 0) for index in indices) for d in range(len(global_shape))] \
      if indices else [0] * len(global_shape)

  def piece(index):
    local_index = tuple(slice((s.start or 0) - o, (s.stop if s.stop is not None else n) - o)
                        for s, o, n in zip(index, starts, global_shape))
    return local_data[local_index]

  return make_array_from_callback(global_shape, sharding, piece)


def _named(sharding) -> NamedSharding:
  if isinstance(sharding, PartitionSpec):
    mesh = get_mesh()
    if mesh is None:
      raise ValueError("a PartitionSpec needs a mesh: use `jax.set_mesh(mesh)` or pass "
                       "NamedSharding(mesh, spec)")
    return NamedSharding(mesh, sharding)
  if not isinstance(sharding, NamedSharding):
    raise TypeError(f"expected a NamedSharding, got {sharding!r}")
  return sharding


# ---------------------------------------------------------------------------
# jax.debug.visualize_array_sharding: a text grid of which devices hold which block

def visualize_sharding(shape, sharding, *, use_color: bool = False, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
  """Prints a grid of the blocks of a 1-D or 2-D array of ``shape`` and the devices holding
  each (``CPU 0,1`` when two devices hold copies of the same block)."""
  shape = tuple(shape)
  if len(shape) not in (1, 2):
    raise ValueError(f"visualize_sharding only supports 1- and 2-D arrays, got shape {shape}")
  sharding = _named(sharding) if not hasattr(sharding, "mesh") else sharding
  indices = shard_indices(sharding.mesh, sharding.spec, shape)
  blocks = {}
  for device, index in zip(sharding.mesh.flat_devices, indices):
    key = tuple((s.start or 0) for s in index)
    blocks.setdefault(key, []).append(device.id)
  rows = sorted({k[0] for k in blocks})
  cols = sorted({k[1] for k in blocks}) if len(shape) == 2 else [0]
  labels = {k: f"CPU {','.join(str(i) for i in ids)}" for k, ids in blocks.items()}
  width = max(min_width, max(len(t) for t in labels.values()) + 2)
  if len(shape) == 1:
    cols, rows = rows, [0]
    labels = {(0, k[0]): t for k, t in labels.items()}
  line = lambda left, mid, right: left + mid.join("─" * width for _ in cols) + right
  out = [line("┌", "┬", "┐")]
  for r, row in enumerate(rows):
    out.append("│" + "│".join(labels[(row, col)].center(width) for col in cols) + "│")
    out.append(line("├", "┼", "┤") if r < len(rows) - 1 else line("└", "┴", "┘"))
  print("\n".join(out))


def visualize_array_sharding(array, **kwargs) -> None:
  """Prints which devices hold which block of ``array`` (a 1-D or 2-D Array)."""
  sharding = array.sharding
  if not isinstance(sharding, NamedSharding):
    device = next(iter(sharding.device_set))
    single = np.empty(1, dtype=object)
    single[0] = device
    from_mesh = NamedSharding(Mesh(single, ("_",)), PartitionSpec())
    sharding = from_mesh
  visualize_sharding(array.shape, sharding, **kwargs)
