"""``axle.ad_checkpoint``: rematerialization (JAX's ``jax.ad_checkpoint``). Re-exports only."""
from axle._src.checkpoint import (  # noqa: F401
    Offloadable as Offloadable,
    Recompute as Recompute,
    Saveable as Saveable,
    checkpoint as checkpoint,
    checkpoint_name as checkpoint_name,
    checkpoint_policies as checkpoint_policies,
    print_saved_residuals as print_saved_residuals,
    remat as remat,
)
