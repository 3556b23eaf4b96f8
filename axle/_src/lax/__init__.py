"""The lax namespace: every lax primitive and function, by family (JAX's ``jax.lax``).

``from axle._src import lax`` gives what ``axle.lax`` re-exports (``lax.add``, ``lax.scan``,
``lax.linalg``, ...). ``__all__`` lists the public names; importing any module of this package
runs this file first, so the families are imported here in their layer order.
"""
from axle._src.differentiation import stop_gradient
from axle._src.lax import (conv, control_flow, dot, elementwise, fft, linalg,  # noqa: F401
                           parallel, reductions, slicing, sorting, special, structural, windowed)

__all__ = ["stop_gradient"] + [
    name for family in (elementwise, special, structural, slicing, reductions, windowed, sorting,
                        dot, conv, control_flow, parallel, fft)
    for name in family.__all__]

# The functions named like their family modules (dot, conv, fft, cond) replace the modules here:
# import those modules' other names as ``from axle._src.lax.dot import dot_general``.
from axle._src.lax.elementwise import *  # noqa: E402,F401,F403
from axle._src.lax.special import *  # noqa: E402,F401,F403
from axle._src.lax.structural import *  # noqa: E402,F401,F403
from axle._src.lax.slicing import *  # noqa: E402,F401,F403
from axle._src.lax.reductions import *  # noqa: E402,F401,F403
from axle._src.lax.windowed import *  # noqa: E402,F401,F403
from axle._src.lax.sorting import *  # noqa: E402,F401,F403
from axle._src.lax.dot import *  # noqa: E402,F401,F403
from axle._src.lax.conv import *  # noqa: E402,F401,F403
from axle._src.lax.control_flow import *  # noqa: E402,F401,F403
from axle._src.lax.parallel import *  # noqa: E402,F401,F403
from axle._src.lax.fft import *  # noqa: E402,F401,F403
