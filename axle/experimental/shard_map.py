"""``jax.experimental.shard_map.shard_map``."""
from axle._src.shard_map import shard_map as shard_map
