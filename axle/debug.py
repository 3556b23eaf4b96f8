"""``jax.debug``: printing, callbacks and breakpoints inside traced code, and how arrays are laid
out over devices."""
from axle._src.lax.callback import debug_callback as callback
from axle._src.lax.debugging import breakpoint as breakpoint  # noqa: A004
from axle._src.lax.debugging import debug_print as print  # noqa: A004
from axle._src.sharded_array import (
    visualize_array_sharding as visualize_array_sharding,
    visualize_sharding as visualize_sharding,
)

__all__ = ["breakpoint", "callback", "print", "visualize_array_sharding", "visualize_sharding"]
