"""``jax.debug``: inspecting arrays laid out over devices."""
from axle._src.sharded_array import (
    visualize_array_sharding as visualize_array_sharding,
    visualize_sharding as visualize_sharding,
)
