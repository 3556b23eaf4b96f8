"""Thin alias module for the name ``jax._src.sharding_impls`` (see ``jax_names``).

jaxlib's C++ side imports ``jax._src.sharding_impls`` and calls
``make_single_device_sharding(device, memory_kind=...)`` when it splits a multi-device array
into per-device shards; libraries import the sharding classes from here too. Everything is
axle's own sharding objects.
"""
from __future__ import annotations

from axle._src.devices import SingleDeviceSharding as SingleDeviceSharding
from axle._src.sharding import (  # noqa: F401
    AxisType as AxisType,
    Mesh as Mesh,
    NamedSharding as NamedSharding,
    PartitionSpec as PartitionSpec,
)

UNSPECIFIED = None


def make_single_device_sharding(device, memory_kind: str | None = None) -> SingleDeviceSharding:
  """The sharding of an array held whole on ``device`` (as jaxlib asks for per shard)."""
  return SingleDeviceSharding(device, memory_kind=memory_kind)
