"""``jax.experimental.multihost_utils``."""
from axle._src.multihost_utils import (
    broadcast_one_to_all as broadcast_one_to_all,
    process_allgather as process_allgather,
    sync_global_devices as sync_global_devices,
)
