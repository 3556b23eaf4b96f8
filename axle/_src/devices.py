"""Devices, shardings and moving data between host and device (``axle.devices()``,
``axle.device_put``, ``axle.device_get``, ``axle.block_until_ready``).

The devices are XLA's CPU devices (``CpuDevice(id=0)``); how many there are follows
``XLA_FLAGS=--xla_force_host_platform_device_count=N``, as in JAX. The client starts on first
use, so importing axle and eager NumPy work never start XLA.
"""
from __future__ import annotations

import numpy as np

from axle._src import core
from axle._src import dtypes
from axle._src import tree_util
from axle._src.array import Array, from_numpy, read_only
from axle._src.xla import client


def devices(backend: str | None = None) -> list:
  """All devices of the backend (``[CpuDevice(id=0)]`` by default)."""
  _check_backend(backend)
  return list(client.devices())


def local_devices(process_index: int | None = None, backend: str | None = None,
                  host_id: int | None = None) -> list:
  """The devices attached to this process."""
  _check_backend(backend)
  return list(client.local_devices())


def device_count(backend: str | None = None) -> int:
  """The number of devices."""
  return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
  """The number of devices attached to this process."""
  return len(local_devices(backend=backend))


def process_count(backend: str | None = None) -> int:
  """The number of processes in the job (1 unless ``distributed.initialize`` joined one)."""
  return client.process_count()


def process_index(backend: str | None = None) -> int:
  """This process's index in the job."""
  return client.process_index()


def default_backend() -> str:
  """The name of the default backend: ``'cpu'``."""
  return "cpu"


def _check_backend(backend):
  if backend is not None and backend != "cpu":
    raise RuntimeError(f"Unknown backend {backend}. Available backends: ['cpu']")


def get_backend(platform: str | None = None):
  """The XLA client of the backend (``jax.extend.backend.get_backend``): ``platform``, ``cpu``."""
  _check_backend(platform)
  return client.get_client()


def backends() -> dict:
  """The initialized backends by platform name: ``{'cpu': client}``."""
  return {"cpu": client.get_client()}


def clear_backends() -> None:
  """Accepted for JAX compatibility; axle keeps its one CPU client for the process."""


def default_device():
  """The device arrays are placed on by default."""
  return client.default_device()


class SingleDeviceSharding:
  """The sharding of an array that lives whole on one device."""

  def __init__(self, device, *, memory_kind: str | None = None):
    self._device = device
    self._memory_kind = memory_kind

  @property
  def device_set(self) -> set:
    return {self._device}

  @property
  def memory_kind(self) -> str:
    return self._memory_kind or "device"

  @property
  def is_fully_replicated(self) -> bool:
    return True

  @property
  def is_fully_addressable(self) -> bool:
    return True

  @property
  def num_devices(self) -> int:
    return 1

  def __repr__(self):
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"

  def __eq__(self, other):
    return isinstance(other, SingleDeviceSharding) and other._device == self._device

  def __hash__(self):
    return hash(("SingleDeviceSharding", self._device))


def _array_sharding(array) -> SingleDeviceSharding:
  """How the array is laid out over devices: whole, on one device."""
  return SingleDeviceSharding(default_device())


# Array sits below this module, so its ``sharding`` property is installed from here.
Array.sharding = property(_array_sharding)


def _target_device(device):
  if device is None:
    return default_device()
  if isinstance(device, SingleDeviceSharding):
    return device._device
  if hasattr(device, "device_set") and len(device.device_set) == 1:
    return next(iter(device.device_set))
  if hasattr(device, "platform") and hasattr(device, "id"):
    return device
  raise TypeError(f"device_put: expected a device or a single-device sharding, got {device!r}")


# Set by axle._src.sharded_array: device_put to a NamedSharding / PartitionSpec (several devices).
put_sharded_hook = None


def device_put(x, device=None, *, src=None, donate: bool = False, may_alias=None):
  """Places every array leaf of the pytree ``x`` on ``device`` (the default device if None)
  and returns axle Arrays. NumPy arrays and Python scalars are copied to the device."""
  if put_sharded_hook is not None:
    if put_sharded_hook.handles(device):
      return put_sharded_hook(x, device)
    if device is not None:  # arrays over several devices: gathered for one device
      x = put_sharded_hook.unshard(x)
  target = _target_device(device)

  def put(leaf):
    if isinstance(leaf, Array):
      array = leaf
    elif isinstance(leaf, core.Tracer):
      return leaf
    elif core.is_extended(getattr(leaf, "aval", None)):  # a key array: its data is placed
      put(leaf._base_array)
      return leaf
    else:
      if not core.valid_jaxtype(leaf) and not hasattr(leaf, "__jax_array__"):
        raise TypeError(f"device_put: argument {leaf!r} of type {type(leaf)} is not a valid "
                        "JAX type")
      if hasattr(leaf, "__jax_array__"):
        leaf = leaf.__jax_array__()
      weak = type(leaf) in core.python_scalar_types
      value = dtypes.scalar_to_array(leaf) if weak else np.asarray(leaf)
      array = from_numpy(np.array(value, copy=True), weak)
    array._device_buffer(target)
    return array

  return tree_util.tree_map(put, x)


def device_get(x):
  """The pytree ``x`` with every Array replaced by a NumPy array holding its value."""

  def get(leaf):
    if isinstance(leaf, Array):
      return read_only(np.asarray(leaf._host_value()))
    return leaf

  return tree_util.tree_map(get, x)


def _wait_for_arrays(arrays) -> bool:
  """Waits for a flat tuple or list of Arrays; False (having waited for nothing) if an element
  is anything else."""
  for leaf in arrays:
    if type(leaf) is not Array:
      return False
  buffers = []
  for leaf in arrays:
    if leaf._buffer is not None:
      buffers.append(leaf._buffer)
    elif leaf._value is None:
      leaf.block_until_ready()  # pending (computes it) or deleted (raises)
  if len(buffers) == 1:
    client.wait_for(buffers[0])
  elif buffers:
    client.block_until_ready(buffers)
  return True


def block_until_ready(x):
  """Waits until every Array in the pytree ``x`` has been computed; returns ``x``."""
  if type(x) is Array:  # the common case: one array
    if x._value is not None:  # (a host value: nothing to wait for)
      return x
    return x.block_until_ready()
  if (type(x) is tuple or type(x) is list) and _wait_for_arrays(x):
    return x  # (a jitted function's tuple of Arrays: no tree flattening)
  buffers = []
  for leaf in tree_util.tree_leaves(x):
    if type(leaf) is Array or isinstance(leaf, Array):
      if leaf._buffer is not None:
        buffers.append(leaf._buffer)
      elif leaf._value is None:
        leaf.block_until_ready()  # raises: deleted
    elif hasattr(leaf, "block_until_ready"):
      leaf.block_until_ready()
  if buffers:
    client.block_until_ready(buffers)
  return x
