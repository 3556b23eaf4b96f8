"""``jax.debug``: printing, callbacks and breakpoints inside traced code."""
from axle._src.lax.callback import debug_callback as callback
from axle._src.lax.debugging import breakpoint as breakpoint  # noqa: A004
from axle._src.lax.debugging import debug_print as print  # noqa: A004

__all__ = ["breakpoint", "callback", "print"]
