"""Meshes and shardings (``jax.sharding``)."""
from axle._src.devices import SingleDeviceSharding as SingleDeviceSharding
from axle._src.sharding import (
    AbstractMesh as AbstractMesh,
    AxisType as AxisType,
    Mesh as Mesh,
    NamedSharding as NamedSharding,
    PartitionSpec as PartitionSpec,
    get_abstract_mesh as get_abstract_mesh,
    get_mesh as get_mesh,
    set_mesh as set_mesh,
    use_abstract_mesh as use_abstract_mesh,
)
from axle._src.sharded_array import Shard as Shard
from axle._src.sharding import NamedSharding as Sharding  # the base JAX names in annotations

P = PartitionSpec
from axle._src.xla.spmd_jit import auto_axes as auto_axes
from axle._src.xla.spmd_jit import explicit_axes as explicit_axes
from axle._src.xla.spmd_jit import reshard as reshard
