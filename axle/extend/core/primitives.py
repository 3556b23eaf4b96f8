"""``axle.extend.core.primitives``: the primitive objects of lax and the transformations
(``add_p``, ``exp_p``, ``pjit_p``, ...). Re-exports only."""
from axle._src.primitive_table import *  # noqa: F401,F403
